"""A keyword call of an aitester-bdd suite and what it builds into: its cells as written (`Cell`,
`Call`, which reads embedded arguments, cells and `key=value` options through the file's
variables), the registration it matched (`Keyword`, with its `Builder`), the problem a call can be
(`CallError`), and the plan the calls draft (`PlanDraft`, `ScenarioDraft`, `RuleDraft`, the frames
and popups open in a rule). The table of keywords is `spec/robot_keywords.py`, its builders
`spec/robot_builders.py`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Callable, Literal, Protocol

from flowwalk.errors import Location
from flowwalk.events import StepFrame
from flowwalk.model import Retry, Step
from flowwalk.spec.lower import StepBuilder
from flowwalk.spec.spelling import choices_hint

Cells = Literal["none", "options", "keys", "rows", "words", "setup", "items"]
SecretMode = Literal["refuse", "placeholder", "only"]


class CallError(Exception):
    """A keyword call that cannot become part of the model; rendered as one located Problem."""

    def __init__(self, message: str, hint: str = "", loc: Location | None = None,
                 more: tuple["CallError", ...] = ()):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.loc = loc
        #: further problems of the same call (a value refused by a model can be wrong in several ways)
        self.more = more


def all_of(errors: list[CallError]) -> CallError:
    """One CallError carrying every problem of a call (the first, then the rest in `more`)."""
    flat = [e for err in errors for e in (err, *err.more)]
    return CallError(flat[0].message, flat[0].hint, flat[0].loc, more=tuple(flat[1:]))


class Expander(Protocol):
    """Substitutes `${VARS}` in one value the way Robot Framework would (implemented in robot.py)."""

    def expand(self, text: str, loc: Location, what: str, secrets: SecretMode) -> str: ...


@dataclass(frozen=True)
class Cell:
    """One argument cell after the keyword name, as written, with its position."""

    raw: str
    loc: Location


@dataclass
class Call:
    """One matched keyword call: the spec it matched, its raw embedded args and cells."""

    keyword: "Keyword"
    name: str                  # the keyword name as written (with its prefix)
    loc: Location              # of the keyword name
    text: str                  # the whole call as written, for Step.text
    raw_args: dict[str, str]   # embedded args, before variable substitution
    cells: tuple[Cell, ...]
    expander: Expander

    def arg_loc(self, raw: str) -> Location:
        at = self.name.find(raw) if raw else -1
        return Location(self.loc.path, self.loc.line, self.loc.col + max(at, 0))

    def arg(self, name: str, secrets: SecretMode = "refuse") -> str:
        raw = self.raw_args[name]
        return self.expander.expand(raw, self.arg_loc(raw), f"'${{{name}}}' of '{self.keyword.pattern}'", secrets)

    def nonempty(self, name: str, what: str) -> str:
        value = self.arg(name).strip()
        if not value:
            raise CallError(f"empty {what} in '{self.name}'", f"write the {what} between the quotes",
                            self.arg_loc(self.raw_args[name]))
        return value

    def integer(self, name: str, minimum: int = 0, maximum: int | None = None) -> int:
        value = self.arg(name).strip()
        try:
            number = int(value)
        except ValueError:
            raise CallError(f"'{value}' is not a whole number in '{self.name}'",
                            "aitester-bdd would abort the whole walk with ValueError here; write digits only",
                            self.arg_loc(self.raw_args[name])) from None
        if number < minimum or (maximum is not None and number > maximum):
            bound = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
            raise CallError(f"{number} is out of range in '{self.name}'", f"use a number {bound}",
                            self.arg_loc(self.raw_args[name]))
        return number

    def cell(self, cell: Cell, secrets: SecretMode = "refuse") -> str:
        return self.expander.expand(cell.raw, cell.loc, "this cell", secrets)

    def options(self) -> dict[str, str]:
        """Trailing `key=value` cells. Unlike aitester-bdd's `_parse_options`, only one pair of
        matching outer quotes is removed, so `dismiss=text="Got it"` keeps its closing quote."""
        return {key: value for key, value, _ in self.option_cells()}

    def option_cells(self) -> list[tuple[str, str, Cell]]:
        """Trailing `key=value` cells in order, each with its cell; a key may repeat only when the
        keyword lists it as repeatable (`mask=` of a screenshot check)."""
        out, errors = self.option_cells_and_errors()
        if errors:
            raise all_of(errors)
        return out

    def option_cells_and_errors(self) -> tuple[list[tuple[str, str, Cell]], list[CallError]]:
        """`option_cells`, and every bad cell of the call (not only the first) beside the good ones."""
        out: list[tuple[str, str, Cell]] = []
        errors: list[CallError] = []
        for cell in self.cells:
            try:
                out.append(self._option(cell, out))
            except CallError as err:
                errors.append(err)
        return out, errors

    def _option(self, cell: Cell, before: list[tuple[str, str, Cell]]) -> tuple[str, str, Cell]:
        allowed = self.keyword.options
        text = self.cell(cell)
        key, sep, value = text.partition("=")
        key = key.strip()
        if not sep:
            raise CallError(f"cell '{text}' of '{self.name}' is not key=value",
                            f"valid options: {', '.join(k + '=' for k in allowed) or 'none'}", cell.loc)
        if key not in allowed:
            raise CallError(f"unknown option '{key}=' on '{self.name}'",
                            choices_hint(key, allowed, "valid options", suffix="="), cell.loc)
        if key not in self.keyword.repeatable and any(k == key for k, _, _ in before):
            raise CallError(f"option '{key}=' given twice in one call of '{self.name}'",
                            "aitester-bdd keeps only the last one; give each option once"
                            + ("; call 'And I configure interrupts' once per selector" if key == "dismiss" else ""),
                            cell.loc)
        value = strip_outer_quotes(value.strip())
        if not value:
            raise CallError(f"option '{key}=' of '{self.name}' has no value", f"write {key}=<value>", cell.loc)
        return key, value, cell


Builder = Callable[[Call, "PlanDraft"], None]


@dataclass(frozen=True)
class Keyword:
    """One aitester-bdd registration (or a family of them sharing one builder)."""

    pattern: str
    #: the BDD prefixes aitester-bdd registers it with; () = registered bare (any prefix works)
    prefixes: tuple[str, ...]
    family: str
    #: what it becomes in flowwalk, for the docs
    maps_to: str
    build: Builder | None = None
    cells: Cells = "none"
    options: tuple[str, ...] = ()
    #: refused keywords: (why flowwalk does not run it, what to use instead)
    refused: tuple[str, str] | None = None
    #: what the loader must know about a call before building: it starts a scenario or a rule,
    #: types a secret (the variable it names is secret for the whole file), or sets up the scenario
    #: before its rules (a refused one leaves the test case's next calls before any rule)
    role: Literal["", "scenario", "rule", "secret", "setup", "setting"] = ""
    #: options that may be given more than once (each adds one entry to a list)
    repeatable: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        return tuple(f"{p} {self.pattern}" for p in self.prefixes) or (self.pattern,)

    def shown(self) -> str:
        """`Given/And/Then url contains "${pattern}"` as the docs and hints show it."""
        if not self.prefixes:
            return self.pattern
        return f"{'/'.join(self.prefixes)} {self.pattern}"


# --- the plan being built (Phase A of aitester-bdd) --------------------------------------------------


@dataclass
class RuleDraft:
    name: str
    loc: Location
    steps: list[Step] = field(default_factory=list)
    #: (parent name, where it was declared)
    parents: list[tuple[str, Location]] = field(default_factory=list)
    retry: Retry = Retry()
    guard_policy: Literal["skip", "abort"] = "skip"
    timeout_ms: int | None = None
    child_scope: str | None = None
    interrupts: Literal["inherit", "paused", "override"] = "inherit"
    interrupt_selectors: tuple[str, ...] = ()
    interrupts_loc: Location | None = None
    screenshot_on_enter: bool = False
    screenshot_on_fail: bool = True
    #: `And I save session "name"`: when the rule passes, its context's state is saved as `name`
    saves_session: str | None = None
    saves_session_loc: Location | None = None
    #: a keyword of this rule was refused: do not pile "no steps" on top of that error
    broken: bool = False


@dataclass
class ScenarioDraft:
    test_name: str
    test_loc: Location
    name: str
    loc: Location
    entry_url: str | None
    description: str = ""
    rules: dict[str, RuleDraft] = field(default_factory=dict)
    broken: bool = False
    #: the test case's tags (Test Tags, [Tags], Default Tags)
    tags: tuple[str, ...] = ()
    #: the test case's [Timeout] or Test Timeout, as every rule's timeout
    timeout_ms: int | None = None
    #: `I use session "name"`: the saved session the scenario's context starts from
    session: str | None = None
    session_loc: Location | None = None
    #: the browser's environment keys the test case sets (`I use device`, `I set locale`, ...), as
    #: validated by `models.EnvironmentKeys`, and where each is set
    environment: dict[str, object] = field(default_factory=dict)
    environment_locs: dict[str, Location] = field(default_factory=dict)


@dataclass
class SetupAction:
    """One `action=…` row of `And I configure state setup`."""

    loc: Location
    text: str
    values: dict[str, str]


@dataclass
class OpenPlace:
    """A frame entered or a popup switched to and not yet left (`When I enter frame`, `When I click
    locator ... and switch to the popup`): its block, the rule it is in, the keyword calls and
    GROUP blocks it was opened inside (it must be left inside them too), and for a popup the
    index of its act among the rule's steps (leaving it open changes the act)."""

    block: StepFrame
    rule: RuleDraft
    outer: tuple[StepFrame, ...]
    loc: Location
    act_index: int = -1


@dataclass
class PlanDraft:
    """What the keywords have declared so far, in the order Robot Framework would run them."""

    scenarios: list[ScenarioDraft] = field(default_factory=list)
    scenario: ScenarioDraft | None = None
    rule: RuleDraft | None = None
    dismiss: list[str] = field(default_factory=list)
    setup_skip_when: str | None = None
    setup_actions: list[SetupAction] = field(default_factory=list)
    secrets: set[str] = field(default_factory=set)
    #: where calls run now: "suite setup", "suite teardown", or a test case (name, loc)
    test: tuple[str, Location] | None = None
    test_scenario: ScenarioDraft | None = None
    test_description: str = ""
    test_tags: tuple[str, ...] = ()
    test_timeout_ms: int | None = None
    verification_started: bool = False
    #: lowers the calls' steps of the authoring tree into `model.Step`s, as for flows and rule files:
    #: one per file, so two checks of the file cannot share a baseline (set by robot.py)
    builder: StepBuilder | None = None
    #: the user keywords and GROUP blocks the call in hand runs inside (robot_user.py): its steps carry them
    frames: tuple[StepFrame, ...] = ()
    #: the frames and popups the rule in hand is in now, outermost first
    places: list[OpenPlace] = field(default_factory=list)
    #: the id of the last block of the test case (its keyword calls and groups come first, robot.py)
    last_frame_id: int = 0

    def current_rule(self, call: Call) -> RuleDraft:
        if self.rule is None or self.scenario is None or self.scenario is not self.test_scenario:
            raise CallError(f"'{call.name}' comes before any rule of this test case",
                            "put it under an 'I define rule \"<name>\"' line, after the test's "
                            "'Given I start scenario' [Setup]")
        return self.rule

    def add_steps(self, call: Call, *steps: Step) -> None:
        frames = self.step_frames()
        self.current_rule(call).steps.extend(dataclasses.replace(s, frames=frames) if frames else s for s in steps)

    def step_frames(self) -> tuple[StepFrame, ...]:
        """The blocks a step added now runs inside, outermost first: the keyword calls and groups,
        with each open frame or popup after the ones it was opened inside."""
        out: list[StepFrame] = []
        taken = 0
        for place in self.places:
            out.extend(place.outer[taken:])
            out.append(place.block)
            taken = len(place.outer)
        out.extend(self.frames[taken:])
        return tuple(out)

    def open_place(self, call: Call, kind: Literal["frame", "popup"], title: str, selector: str = "") -> StepFrame:
        """A new frame or popup block, opened where `call` is (its steps are added by the caller)."""
        self.last_frame_id += 1
        return StepFrame(id=self.last_frame_id, kind=kind, title=title, path=call.loc.path, line=call.loc.line,
                         selector=selector)

    def ended_places(self, frames: tuple[StepFrame, ...]) -> list[OpenPlace]:
        """Before a call that runs inside `frames`: the places left open by a keyword call or GROUP
        that has ended since (they are dropped; robot.py refuses them at their line)."""
        self.frames = frames
        ended = next((i for i, p in enumerate(self.places) if frames[:len(p.outer)] != p.outer), len(self.places))
        gone, self.places[ended:] = self.places[ended:], []
        return gone

    def close_places(self) -> list[OpenPlace]:
        """The places still open when the rule ends (dropped; robot.py refuses them at their line)."""
        gone, self.places = self.places, []
        return gone

    def in_frame(self) -> OpenPlace | None:
        """The frame the next step runs in, when it is the innermost place."""
        return self.places[-1] if self.places and self.places[-1].block.kind == "frame" else None



def strip_outer_quotes(value: str) -> str:
    """Drop one pair of matching outer quotes, as aitester-bdd's `_strip_quotes` does."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value
