"""The aitester-bdd keyword table: every registered name, how Robot Framework matches it, what it becomes.

One table (`KEYWORDS`) holds, for each keyword aitester-bdd registers, its pattern with embedded
`${args}`, the BDD prefixes it is registered with, and either a builder that turns a call into
steps of the authoring tree (spec/models.py, lowered by `lower.StepBuilder`) and rule fields, or
the reason flowwalk refuses it. `match_keyword` resolves a call
name the way Robot Framework does (full registered names first, best embedded match, then the
Given/When/Then/And/But prefix stripped); `render_keyword_table` writes the same table as the
Markdown that `docs/robot.md` carries. Reading files, variables and assembling the model is
`spec/robot.py`; this module only knows the grammar.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Literal, Optional, Protocol, Sequence

from pydantic import BaseModel, ValidationError
from robot.running.arguments.embedded import VARIABLE_PLACEHOLDER, EmbeddedArguments
from robot.variables import VariableMatches

from flowwalk.errors import Location
from flowwalk.events import StepFrame
from flowwalk.model import EMIT_SOURCES, Act, PopupPlan, Retry, Step
from flowwalk.spec import foreign
from flowwalk.spec import models as sm
from flowwalk.spec.foreign import BROWSER, SL
from flowwalk.spec.lower import StepBuilder
from flowwalk.spec.problems import errors_to_problems
from flowwalk.spec.source import PathKey, Source, quote
from flowwalk.spec.spelling import choices_hint

G, W, T, A, B = "Given", "When", "Then", "And", "But"
BDD_PREFIXES = (G, W, T, A, B)
#: the order in which a did-you-mean picks among a keyword's registered prefixes
_SUGGEST_ORDER = (A, T, W, G, B)

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

    def _arg_loc(self, raw: str) -> Location:
        at = self.name.find(raw) if raw else -1
        return Location(self.loc.path, self.loc.line, self.loc.col + max(at, 0))

    def arg(self, name: str, secrets: SecretMode = "refuse") -> str:
        raw = self.raw_args[name]
        return self.expander.expand(raw, self._arg_loc(raw), f"'${{{name}}}' of '{self.keyword.pattern}'", secrets)

    def nonempty(self, name: str, what: str) -> str:
        value = self.arg(name).strip()
        if not value:
            raise CallError(f"empty {what} in '{self.name}'", f"write the {what} between the quotes",
                            self._arg_loc(self.raw_args[name]))
        return value

    def integer(self, name: str, minimum: int = 0, maximum: int | None = None) -> int:
        value = self.arg(name).strip()
        try:
            number = int(value)
        except ValueError:
            raise CallError(f"'{value}' is not a whole number in '{self.name}'",
                            "aitester-bdd would abort the whole walk with ValueError here; write digits only",
                            self._arg_loc(self.raw_args[name])) from None
        if number < minimum or (maximum is not None and number > maximum):
            bound = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
            raise CallError(f"{number} is out of range in '{self.name}'", f"use a number {bound}",
                            self._arg_loc(self.raw_args[name]))
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


# --- builders: lifecycle and rule structure ---------------------------------------------------------


def _start_verification(call: Call, plan: PlanDraft) -> None:
    call.nonempty("name", "verification name")
    if plan.scenarios or plan.dismiss or plan.setup_actions:
        raise CallError(f"'{call.name}' comes after scenarios or settings were declared",
                        "aitester-bdd would discard everything declared before it; "
                        "start the verification first, in the Suite Setup")
    plan.verification_started = True


def _finalize(call: Call, plan: PlanDraft) -> None:
    # flowwalk walks every scenario once after loading; finalize only marks the end of Phase A.
    return None


def _start_scenario(call: Call, plan: PlanDraft) -> None:
    name = call.nonempty("name", "scenario name")
    url = None
    if "url" in call.raw_args:
        url = call.nonempty("url", "entry URL")
    if plan.test is None:
        raise CallError(f"'{call.name}' runs in the Suite Setup or Teardown",
                        "flowwalk makes one scenario per test case: start it in the test's [Setup] "
                        "(or the Test Setup setting)")
    if plan.test_scenario is not None:
        raise CallError(f"test case '{plan.test[0]}' starts a second scenario",
                        f"it already started '{plan.test_scenario.name}' at {plan.test_scenario.loc}; "
                        "put each scenario in its own test case")
    scenario = ScenarioDraft(test_name=plan.test[0], test_loc=plan.test[1], name=name, loc=call.loc,
                             entry_url=url, description=plan.test_description, tags=plan.test_tags,
                             timeout_ms=plan.test_timeout_ms)
    plan.scenarios.append(scenario)
    plan.scenario = plan.test_scenario = scenario
    plan.rule = None


def _define_rule(call: Call, plan: PlanDraft) -> None:
    name = call.nonempty("name", "rule name")
    scenario = plan.test_scenario
    if scenario is None:
        raise CallError(f"'{call.name}' comes before this test case started a scenario",
                        "start one in the test's [Setup]: Given I start scenario \"<name>\" at \"<url>\"")
    if name in scenario.rules:
        first = scenario.rules[name].loc
        raise CallError(f"rule '{name}' is defined twice in scenario '{scenario.name}'",
                        f"the first definition is at {first}; aitester-bdd would silently replace it, "
                        "so rename one of them")
    rule = RuleDraft(name=name, loc=call.loc)
    scenario.rules[name] = rule
    plan.rule = rule


def _add_parents(call: Call, plan: PlanDraft, text: str) -> None:
    rule = plan.current_rule(call)
    names = [n.strip() for n in text.split(",")]
    if not any(names):
        raise CallError(f"'{call.name}' names no parent", "write the parent rule names, comma separated")
    for name in names:
        if not name:
            raise CallError(f"empty parent name in '{call.name}'", "separate parent names with single commas")
        if name in (p for p, _ in rule.parents):
            raise CallError(f"rule '{rule.name}' declares parent '{name}' twice", "name each parent once")
        rule.parents.append((name, call.loc))


def _declare_parents(call: Call, plan: PlanDraft) -> None:
    _add_parents(call, plan, call.arg("names"))


def _declare_parents_cells(call: Call, plan: PlanDraft) -> None:
    # aitester-bdd joins the cells with a space and then splits on commas
    if not call.cells:
        raise CallError(f"'{call.name}' names no parent", "write: And I declare parents \"login, open_case\"")
    _add_parents(call, plan, " ".join(call.cell(c) for c in call.cells))


# --- builders: configuration ------------------------------------------------------------------------


def _set_retry(call: Call, plan: PlanDraft) -> None:
    rule = plan.current_rule(call)
    rule.retry = Retry(max=call.integer("max", 0, 100), delay_ms=call.integer("delay", 0, 600_000))


def _guard_policy(call: Call, plan: PlanDraft) -> None:
    policy = call.arg("policy").strip()
    if policy not in ("skip", "abort"):
        raise CallError(f"unknown guard policy '{policy}'",
                        choices_hint(policy, ("skip", "abort"), "valid policies")
                        + "; aitester-bdd would treat it as skip")
    plan.current_rule(call).guard_policy = policy  # type: ignore[assignment]


def _pause_interrupts(call: Call, plan: PlanDraft) -> None:
    rule = plan.current_rule(call)
    if rule.interrupts == "override":
        raise CallError(f"rule '{rule.name}' both pauses and scopes its interrupts",
                        f"the other one is at {rule.interrupts_loc}; keep one of them")
    rule.interrupts, rule.interrupts_loc = "paused", call.loc


def _scope_interrupts(call: Call, plan: PlanDraft) -> None:
    rule = plan.current_rule(call)
    selectors = tuple(s.strip() for s in call.arg("selectors").split(","))
    if not all(selectors):
        raise CallError(f"empty selector in '{call.name}'",
                        "separate the selectors with single commas (aitester-bdd splits this list on commas)")
    if rule.interrupts == "paused":
        raise CallError(f"rule '{rule.name}' both pauses and scopes its interrupts",
                        f"the other one is at {rule.interrupts_loc}; keep one of them")
    rule.interrupts, rule.interrupts_loc = "override", call.loc
    rule.interrupt_selectors = rule.interrupt_selectors + selectors


_TIMEOUT = re.compile(r"(\d+(?:\.\d+)?)(ms|s)?")


def parse_rule_timeout(text: str) -> int | None:
    """`30000`, `30000 ms`, `30 s`, `30s` -> milliseconds (spaces removed, case ignored); None if malformed."""
    match = _TIMEOUT.fullmatch("".join(text.split()).lower())
    if not match:
        return None
    number, unit = float(match.group(1)), match.group(2)
    return int(round(number * 1000)) if unit == "s" else int(round(number))


def _apply_timeout(call: Call, plan: PlanDraft, text: str, loc: Location) -> None:
    rule = plan.current_rule(call)
    ms = parse_rule_timeout(text)
    if ms is None:
        raise CallError(f"rule timeout '{text}' is not a duration",
                        "write 30000, 30000 ms, 30 s or 30s", loc)
    if ms <= 0:
        raise CallError(f"rule timeout '{text}' is zero",
                        "aitester-bdd would give the rule no time at all; use a positive duration", loc)
    rule.timeout_ms = ms


def _rule_timeout(call: Call, plan: PlanDraft) -> None:
    raw = call.raw_args["ms"]
    text = call.arg("ms") + (" ms" if call.keyword.pattern.endswith(" ms") else "")
    _apply_timeout(call, plan, text, call._arg_loc(raw))


def _rule_timeout_cells(call: Call, plan: PlanDraft) -> None:
    if not call.cells:
        raise CallError(f"'{call.name}' has no duration", "write: And I set rule timeout    30 s")
    _apply_timeout(call, plan, " ".join(call.cell(c) for c in call.cells), call.cells[0].loc)


def _scope_children(call: Call, plan: PlanDraft) -> None:
    plan.current_rule(call).child_scope = call.nonempty("css", "scope selector")


def _screenshot_on_enter(call: Call, plan: PlanDraft) -> None:
    plan.current_rule(call).screenshot_on_enter = True


def _screenshot_on_fail(call: Call, plan: PlanDraft) -> None:
    plan.current_rule(call).screenshot_on_fail = True


def _configure_interrupts(call: Call, plan: PlanDraft) -> None:
    options = call.options()
    if "dismiss" not in options:
        raise CallError(f"'{call.name}' has no dismiss= cell", "write: And I configure interrupts    dismiss=#cookie-accept")
    plan.dismiss.append(options["dismiss"])


_SETUP_ACTIONS: dict[str, tuple[str, ...]] = {
    "open": ("url",), "input": ("css", "value"), "password": ("css", "value"), "click": ("css",),
}


def _configure_state_setup(call: Call, plan: PlanDraft) -> None:
    values: dict[str, str] = {}
    for cell in call.cells:
        key, sep, raw = cell.raw.partition("=")
        key = key.strip()
        if not sep:
            raise CallError(f"cell '{cell.raw}' of '{call.name}' is not key=value",
                            "valid keys: skip_when=, action=, url=, css=, value=", cell.loc)
        if key not in ("skip_when", "action", "url", "css", "value"):
            raise CallError(f"unknown key '{key}=' in '{call.name}'",
                            choices_hint(key, ("skip_when", "action", "url", "css", "value"), "valid keys", "="),
                            cell.loc)
        if key in values:
            raise CallError(f"key '{key}=' given twice in one call of '{call.name}'",
                            "aitester-bdd keeps only the last one; one setup action per call", cell.loc)
        # a password is typed into a field: its value may (and must) be a secret variable
        mode: SecretMode = "placeholder" if key == "value" else "refuse"
        value = strip_outer_quotes(call.expander.expand(raw, cell.loc, f"'{key}='", mode).strip())
        values[key] = value
    if not values:
        raise CallError(f"'{call.name}' has no cells", "write skip_when=<css> and/or action=open url=<url>")
    if "skip_when" in values:
        plan.setup_skip_when = values.pop("skip_when")
    if "action" not in values:
        if values:
            raise CallError(f"'{call.name}' gives {', '.join(k + '=' for k in values)} without action=",
                            "start the row with action=open|input|password|click")
        return
    action = values["action"]
    if action not in _SETUP_ACTIONS:
        raise CallError(f"unknown state setup action '{action}'",
                        choices_hint(action, tuple(_SETUP_ACTIONS), "valid actions"))
    needed = _SETUP_ACTIONS[action]
    missing = [k for k in needed if k not in values]
    extra = [k for k in values if k != "action" and k not in needed]
    if missing or extra:
        raise CallError(f"state setup action '{action}' "
                        + (f"needs {', '.join(k + '=' for k in missing)}" if missing else
                           f"does not take {', '.join(k + '=' for k in extra)}"),
                        f"action={action} takes {', '.join(k + '=' for k in needed)}")
    if action == "password":
        values["value"] = _secret_only(call, next(c for c in call.cells if c.raw.strip().startswith("value=")))
    plan.setup_actions.append(SetupAction(loc=call.loc, text=call.text, values=values))


def _secret_only(call: Call, cell: Cell) -> str:
    raw = cell.raw.partition("=")[2].strip()
    return call.expander.expand(raw, cell.loc, "a password", "only")


# --- builders: the authoring tree ------------------------------------------------------------------
#
# Every call becomes steps of the authoring tree (spec/models.py's step models), which the file's
# `lower.StepBuilder` turns into the `model.Step`s the walker runs, each located at the call and with
# the call as written for its text. The aitester-bdd grammar has checked the values already, and it
# differs from a flow spec's field rules (it takes XPath locators, values past a flow's lengths, an
# emit name that is no identifier, an empty option to select), so the steps of action and state-check
# calls are built from the checked values as they are (`models.node`); the checks whose rules are
# the models' own (baselines, lists, storage, dialogs) are validated by them (`_located`).


def _add(call: Call, plan: PlanDraft, *steps: BaseModel, popup: PopupPlan | None = None) -> None:
    """`steps` (the tree's) lowered and added to the rule in hand; `popup`: the popup the (one) act
    opens, whose steps are the calls up to the one that leaves it."""
    builder = plan.builder
    assert builder is not None, "robot.py sets the plan's StepBuilder"
    lowered = [dataclasses.replace(builder.lower(step, call.loc), text=call.text) for step in steps]
    if popup is not None:
        lowered = [dataclasses.replace(step, popup=popup) if isinstance(step, Act) else step for step in lowered]
    plan.add_steps(call, *lowered)


# --- builders: actions ------------------------------------------------------------------------------


def _await(call: Call) -> str | None:
    return call.options().get("await")


def _act(call: Call, plan: PlanDraft, action: str, selector: str, value: str | None = None,
         target: str | None = None) -> None:
    _add(call, plan, sm.node(sm.ActStep, type="act", action=action, selector=selector, value=value, target=target,
                           await_=_await(call)))


def _not_in_frame(call: Call, plan: PlanDraft) -> None:
    """A navigation while the walk is in a frame would navigate the page, and the frame with it."""
    frame = plan.in_frame()
    if frame is not None and frame.rule is plan.rule:
        raise CallError(f"'{call.name}' inside the frame entered at line {frame.loc.line} would navigate the page, "
                        "not the frame", "put it after 'When I leave the frame'; inside the frame, follow a link "
                        "with When I click locator \"<css>\"")


def _open(call: Call, plan: PlanDraft) -> None:
    url = call.nonempty("url", "URL")
    _not_in_frame(call, plan)
    _add(call, plan, sm.node(sm.GotoStep, type="goto", url=url))


def _history(move: str) -> Builder:
    """`When I reload`, `When I go back`, `When I go forward`: the browser's buttons."""
    def build(call: Call, plan: PlanDraft) -> None:
        _not_in_frame(call, plan)
        _add(call, plan, sm.node(sm.HistoryStep, type=move))
    return build


def _click(call: Call, plan: PlanDraft) -> None:
    _act(call, plan, "click", call.nonempty("css", "selector"))


def _click_text(call: Call, plan: PlanDraft) -> None:
    text = call.nonempty("text", "text")
    if " | " in text:
        raise CallError(f"text '{text}' contains ' | ', which flowwalk reads as a selector fallback",
                        "use When I click locator \"<css>\" for this element")
    quoted = text.replace("\\", "\\\\").replace('"', '\\"')
    # aitester-bdd tries text="X" (exact) and then text=X (substring); the walker's pipe fallback
    # does the same, and the target lets it re-resolve by text when neither matches
    _act(call, plan, "click", f'text="{quoted}" | text={text}', target=text)


def _dblclick(call: Call, plan: PlanDraft) -> None:
    _act(call, plan, "dblclick", call.nonempty("css", "selector"))


def _type_keys(call: Call, plan: PlanDraft) -> None:
    """flowwalk's own: type key by key (aitester-bdd's `I type ... into` fills at once)."""
    _act(call, plan, "type", call.nonempty("css", "selector"), value=call.nonempty("value", "text"))


def _drag(call: Call, plan: PlanDraft) -> None:
    _add(call, plan, sm.node(sm.ActStep, type="act", action="drag", selector=call.nonempty("css", "selector"),
                           to=call.nonempty("to", "drop target")))


def _dispatch(call: Call, plan: PlanDraft) -> None:
    event = call.nonempty("event", "event type")
    if not re.match(sm.EVENT_NAME_PATTERN, event):
        raise CallError(f"'{event}' is not an event type", sm.EVENT_NAME_HINT)
    _add(call, plan, sm.node(sm.ActStep, type="act", action="dispatch", selector=call.nonempty("css", "selector"),
                           event=event))


def _fill(call: Call, plan: PlanDraft) -> None:
    value = call.arg("value", "placeholder") if "value" in call.raw_args else ""
    _act(call, plan, "fill", call.nonempty("css", "selector"), value)


def _type_secret(call: Call, plan: PlanDraft) -> None:
    value = call.arg("value", "only")
    _act(call, plan, "fill", call.nonempty("css", "selector"), value)


def _select(call: Call, plan: PlanDraft) -> None:
    _act(call, plan, "select", call.nonempty("css", "selector"), call.arg("value"))


def _simple_action(action: str) -> Builder:
    def build(call: Call, plan: PlanDraft) -> None:
        _act(call, plan, action, call.nonempty("css", "selector"))
    return build


def _press_keys(call: Call, plan: PlanDraft) -> None:
    css = call.nonempty("css", "selector")
    if not call.cells:
        raise CallError(f"'{call.name}' names no key", "add the keys as cells: When I press keys \"#q\"    Enter")
    steps: list[sm.ActStep] = []
    for cell in call.cells:
        key = call.cell(cell, "placeholder").strip()
        if not key:
            raise CallError("empty key cell", "write a key name such as Enter or Control+a", cell.loc)
        steps.append(sm.node(sm.ActStep, type="act", action="press", selector=css, value=key))
    _add(call, plan, *steps)


def _upload(call: Call, plan: PlanDraft) -> None:
    _act(call, plan, "upload", call.nonempty("css", "selector"), call.nonempty("path", "file path"))


def _scroll_down(call: Call, plan: PlanDraft) -> None:
    # aitester-bdd scrolls the page by 1000 px; on `body` the walker scrolls the window
    _add(call, plan, sm.node(sm.ActStep, type="act", action="scroll", selector="body", value="1000"))


def _set_stepper(call: Call, plan: PlanDraft) -> None:
    css = call.nonempty("css", "selector")
    count = call.integer("count", 1, 100)
    _add(call, plan, *(sm.node(sm.ActStep, type="act", action="click", selector=css) for _ in range(count)))


# --- builders: state checks -------------------------------------------------------------------------


def _expect(call: Call, plan: PlanDraft, kind: str, **fields: object) -> None:
    """A check of `kind`, its keys as a flow spec's (`selector`, `value`, `equals`, ...)."""
    _add(call, plan, sm.node(sm.expect_model(kind), type="expect", kind=kind, **fields))


def _regex(call: Call, name: str) -> str:
    """The regular expression of argument `name`, refused at the argument when Python's `re` cannot read it."""
    value = call.arg(name)
    try:
        re.compile(value)
        return value
    except re.error as exc:
        raise CallError(f"invalid regular expression '{value}': {exc}",
                        "escape special characters such as ( [ . * with a backslash",
                        call._arg_loc(call.raw_args[name])) from None


def _url_check(kind: str) -> Builder:
    def build(call: Call, plan: PlanDraft) -> None:
        if kind == "url_matches":
            _expect(call, plan, kind, value=_regex(call, "pattern"))
        else:
            _expect(call, plan, kind, value=call.arg("pattern"))
    return build


def _selector_check(kind: str) -> Builder:
    def build(call: Call, plan: PlanDraft) -> None:
        _expect(call, plan, kind, selector=call.nonempty("css", "selector"))
    return build


def _count(bound: Literal["equals", "at_least", "at_most"]) -> Builder:
    def build(call: Call, plan: PlanDraft) -> None:
        _expect(call, plan, "count", selector=call.nonempty("css", "selector"), **{bound: call.integer("n", 0)})
    return build


def _text_check(kind: str, page: bool = False) -> Builder:
    def build(call: Call, plan: PlanDraft) -> None:
        selector = "body" if page else call.nonempty("css", "selector")
        if kind == "text_matches":
            _expect(call, plan, kind, selector=selector, value=_regex(call, "regex"))
        else:
            _expect(call, plan, kind, selector=selector, value=call.arg("text"))
    return build


def _class_check(present: bool) -> Builder:
    def build(call: Call, plan: PlanDraft) -> None:
        css = call.nonempty("css", "selector")
        name = call.nonempty("name", "class name")
        if any(ch.isspace() for ch in name):
            raise CallError(f"class name '{name}' contains whitespace", "check one class per line")
        quoted = name.replace("\\", "\\\\").replace('"', '\\"')
        # `[class~=x]` is the whitespace-separated token test aitester-bdd does on the class
        # attribute; `:scope` applies it to the located element itself, candidate by candidate
        scoped = " | ".join(f'{c.strip()} >> css=:scope[class~="{quoted}"]' for c in css.split(" | "))
        _expect(call, plan, "selector_exists" if present else "selector_absent", selector=scoped)
    return build


def _attribute(match: Literal["equals", "contains"]) -> Builder:
    def build(call: Call, plan: PlanDraft) -> None:
        _expect(call, plan, "attribute", selector=call.nonempty("css", "selector"),
                name=call.nonempty("attr", "attribute name"), **{match: call.arg("value")})
    return build


def _input_value(call: Call, plan: PlanDraft) -> None:
    value = call.arg("value") if "value" in call.raw_args else ""
    _expect(call, plan, "input_value", selector=call.nonempty("css", "selector"), value=value)


def _table_headers(call: Call, plan: PlanDraft) -> None:
    headers = call.arg("headers").split("|")
    if not any(h.strip() for h in headers):
        raise CallError(f"'{call.name}' lists no header", "write the headers separated by |: \"Name|Status\"")
    steps = [
        sm.node(sm.ExpectHasText, type="expect", kind="has_text", value=header.strip(),
              selector=f"table thead th:nth-of-type({i}) | table tr:first-child th:nth-of-type({i})")
        for i, header in enumerate(headers, start=1)
    ]
    _add(call, plan, *steps)


# --- builders: emit ---------------------------------------------------------------------------------

_EMIT_KEYS = ("field", "source", "locator", "attr", "expr")
_NO_LOCATOR_SOURCES = ("js", "url", "title")


def _emit(call: Call, plan: PlanDraft) -> None:
    name = call.nonempty("name", "emit name")
    fields: list[dict[str, str]] = []
    field_locs: list[Location] = []
    for cell in call.cells:
        # aitester-bdd's row parser splits every cell on whitespace and reads key=value tokens
        for token in call.cell(cell).split():
            key, sep, value = token.partition("=")
            if not sep:
                raise CallError(f"'{token}' in the rows of '{call.name}' is not key=value",
                                "aitester-bdd splits emit rows on whitespace, so a value cannot contain "
                                "a space; write the selector without spaces (e.g. #app>h1)", cell.loc)
            if key not in _EMIT_KEYS:
                raise CallError(f"unknown emit key '{key}='", choices_hint(key, _EMIT_KEYS, "valid keys", "="),
                                cell.loc)
            if key == "field":
                fields.append({})
                field_locs.append(cell.loc)
            elif not fields:
                raise CallError(f"'{token}' comes before any field=", "start each row with field=<name>", cell.loc)
            if key in fields[-1]:
                raise CallError(f"'{key}=' given twice for emit field '{fields[-1].get('field', '')}'",
                                "start a new row with field=<name>", cell.loc)
            if not value:
                raise CallError(f"'{key}=' has no value", f"write {key}=<value>", cell.loc)
            fields[-1][key] = value
    built: list[sm.EmitFieldModel] = []
    for spec, loc in zip(fields, field_locs):
        source = spec.get("source", "text")
        fname = spec["field"]
        if source not in EMIT_SOURCES:
            raise CallError(f"unknown emit source '{source}' for field '{fname}'",
                            choices_hint(source, EMIT_SOURCES, "valid sources"), loc)
        if any(f.name == fname for f in built):
            raise CallError(f"emit field '{fname}' appears twice in '{name}'", "give each field its own name", loc)
        if source == "js" and "expr" not in spec:
            raise CallError(f"emit field '{fname}' with source=js has no expr=", "add expr=<javascript>", loc)
        if source == "attr" and "attr" not in spec:
            raise CallError(f"emit field '{fname}' with source=attr has no attr=", "add attr=<attribute name>", loc)
        if source not in _NO_LOCATOR_SOURCES and "locator" not in spec:
            raise CallError(f"emit field '{fname}' with source={source} has no locator=", "add locator=<css>", loc)
        built.append(sm.node(sm.EmitFieldModel, name=fname, source=source, selector=spec.get("locator"),
                           attr=spec.get("attr"), expr=spec.get("expr")))
    _add(call, plan, sm.node(sm.EmitStep, type="emit", name=name, fields=built))


# --- builders: baselines and accessibility (the checks of docs/snapshots.md) -----------------------
#
# Each call becomes the same input model a flow's or rule file's step is validated with
# (`models.ExpectScreenshot`, ...), located at the call's own cells, and `lower.StepBuilder` turns it
# into the `model.Expect` the walker runs: one validation and one check for every kind of file.


def _located(call: Call, model: type[BaseModel], data: dict[str, object],
             places: dict[PathKey, Location]) -> BaseModel:
    """`data` validated by `model`; every problem at the cell (or argument) its path names."""
    where = {(): (call.loc.line, call.loc.col), **{k: (v.line, v.col) for k, v in places.items()}}
    source = Source(path=call.loc.path, data=data, values=dict(where), keys=dict(where))
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = errors_to_problems(exc, source, model)
        # the model's own checks name "the file" (the mapping at the top): here that is the call
        errors = tuple(CallError(re.sub(r"^the file\b", f"'{call.name}'", p.message.replace(" at the top level", "")),
                                 p.hint, p.loc) for p in problems)
        raise CallError(errors[0].message, errors[0].hint, errors[0].loc, more=errors[1:]) from None


def _as_number(value: str, whole: bool) -> int | float:
    """`12` as an int, `0.5` as a float (a float only where one is allowed): messages show it as written."""
    try:
        return int(value)
    except ValueError:
        if whole:
            raise
        return float(value)


def _number(call: Call, key: str, value: str, cell: Cell, whole: bool, example: str) -> int | float:
    try:
        return _as_number(value, whole)
    except ValueError:
        kind = "a whole number" if whole else "a number"
        raise CallError(f"option '{key}=' of '{call.name}' is '{value}', not {kind}",
                        f"write digits only, e.g. {key}={example}", cell.loc) from None


def _boolean(call: Call, key: str, value: str, cell: Cell) -> bool:
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise CallError(f"option '{key}=' of '{call.name}' is '{value}', not true or false",
                    f"write {key}=true or {key}=false", cell.loc)


def _add_check(call: Call, plan: PlanDraft, model: type[BaseModel], data: dict[str, object],
               places: dict[PathKey, Location], errors: list[CallError] | None = None) -> None:
    """The check `data` describes, validated and built; `errors` are the call's cells already refused
    (a value that is not a number): reported together with what the model refuses of the rest."""
    plan.current_rule(call)  # before validating: a check outside a rule is refused for that
    errors = list(errors or ())
    try:
        step = _located(call, model, {"type": "expect", **data}, places)
    except CallError as err:
        errors.append(err)
    if errors:
        raise all_of(sorted(errors, key=lambda e: (e.loc.line, e.loc.col) if e.loc else (0, 0)))
    builder = plan.builder
    assert builder is not None, "robot.py sets the plan's StepBuilder"
    known = len(builder.problems)
    expect = builder.expect(step, call.loc)
    if len(builder.problems) > known:  # two checks of the file name one baseline
        problem = builder.problems.pop()
        raise CallError(problem.message.replace("'name'", "name"), problem.hint.replace("'name'", "name"),
                        call._arg_loc(call.raw_args.get("name", "")))
    plan.add_steps(call, dataclasses.replace(expect, text=call.text))


def _target(call: Call, kind: str) -> tuple[dict[str, object], dict[PathKey, Location]]:
    """A check's model data so far: its kind, its baseline `name` and its `selector` when written."""
    data: dict[str, object] = {"kind": kind}
    places: dict[PathKey, Location] = {}
    for arg, key in (("name", "name"), ("css", "selector")):
        if arg in call.raw_args:
            data[key] = call.nonempty(arg, "selector") if arg == "css" else call.arg(arg).strip()
            places[(key,)] = call._arg_loc(call.raw_args[arg])
    return data, places


def _listed(call: Call, data: dict[str, object], places: dict[PathKey, Location],
            key: str) -> tuple[list[tuple[str, str, Cell]], list[CallError]]:
    """The call's option cells, the repeatable `key=` ones (`mask=`, `exclude=`) gathered into
    `data[key]`, each entry located; the other cells and every bad cell come back."""
    cells, errors = call.option_cells_and_errors()
    entries = [value for k, value, _ in cells if k == key]
    for i, cell in enumerate(c for k, _, c in cells if k == key):
        places[(key, i)] = cell.loc
    if entries:
        data[key] = entries
    return [c for c in cells if c[0] != key], errors


def _aria_snapshot(call: Call, plan: PlanDraft) -> None:
    data, places = _target(call, "aria_snapshot")
    _add_check(call, plan, sm.ExpectAriaSnapshot, data, places)


def _screenshot(call: Call, plan: PlanDraft) -> None:
    data, places = _target(call, "screenshot")
    cells, errors = _listed(call, data, places, "mask")
    for key, value, cell in cells:
        places[(key,)] = cell.loc
        try:
            if key == "full_page":
                data[key] = _boolean(call, key, value, cell)
            elif key == "max_diff_pixels":
                data[key] = _number(call, key, value, cell, True, "10")
            else:
                data[key] = _number(call, key, value, cell, False, "0.2" if key == "threshold" else "0.01")
        except CallError as err:
            errors.append(err)
    _add_check(call, plan, sm.ExpectScreenshot, data, places, errors)


def _accessible(call: Call, plan: PlanDraft) -> None:
    data, places = _target(call, "accessible")
    rules: dict[str, list[str]] = {}
    cells, errors = _listed(call, data, places, "exclude")
    for key, value, cell in cells:
        if key in ("include", "skip"):
            # rule ids and tags never hold a comma: a list is one cell, as aitester-bdd writes lists
            names = [n.strip() for n in value.split(",")]
            if not all(names):
                errors.append(CallError(f"option '{key}=' of '{call.name}' has an empty entry",
                                        f"separate rule ids with single commas, e.g. {key}=color-contrast,image-alt",
                                        cell.loc))
                continue
            places[("rules", key)] = cell.loc
            for i, _ in enumerate(names):
                places[("rules", key, i)] = cell.loc
            rules[key] = names
        else:
            places[(key,)] = cell.loc
            data[key] = value
    if rules:
        data["rules"] = rules
    _add_check(call, plan, sm.ExpectAccessible, data, places, errors)


def _items_check(kind: Literal["texts", "classes"], match: Literal["equals", "contains"]) -> Builder:
    """`locator "css" has texts    a    b`: a texts or classes check, a cell per item (`${EMPTY}`:
    an element without a class, or an empty text)."""
    model = sm.ExpectTexts if kind == "texts" else sm.ExpectClasses

    def build(call: Call, plan: PlanDraft) -> None:
        if match == "contains" and not call.cells:
            raise CallError(f"'{call.name}' names no item", "add the items as cells, separated by two or more "
                            f"spaces: {call.name}    first    second")
        data, places = _target(call, kind)
        places[(match,)] = call.loc
        items: list[str] = []
        for i, cell in enumerate(call.cells):
            items.append(call.cell(cell))
            places[(match, i)] = cell.loc
        data[match] = items
        _add_check(call, plan, model, data, places)
    return build


# --- builders: state beyond the page, and dialogs (docs/flow-spec.md), flowwalk's own ---------------

#: option cells read as booleans, and as whole numbers, by the state checks
_BOOLEAN_OPTIONS = ("absent", "http_only", "secure", "accept")
_WHOLE_OPTIONS = ("status", "expires_after_s")


def _state_check(kind: str, model: type[BaseModel], arg: str, **fixed: str) -> Builder:
    """`local storage "theme"    equals=dark`: a state check, its first argument `arg`, the rest
    option cells as a flow spec's keys (`where=` and `body=` repeat, each `path=value`)."""

    def build(call: Call, plan: PlanDraft) -> None:
        data: dict[str, object] = {"kind": kind, **fixed, arg: call.nonempty(arg, arg)}
        places: dict[PathKey, Location] = {(arg,): call._arg_loc(call.raw_args[arg])}
        cells, errors = call.option_cells_and_errors()
        for key, value, cell in cells:
            places[(key,)] = cell.loc
            try:
                if key in ("where", "body"):
                    field, sep, wanted = value.partition("=")
                    if not sep or not field.strip():
                        raise CallError(f"option '{key}=' of '{call.name}' is '{value}', not path=value",
                                        f"name the JSON path and its value, e.g. {key}=completed=true", cell.loc)
                    entries = data.setdefault(key, {})
                    assert isinstance(entries, dict)
                    entries[field.strip()] = wanted
                    places[(key, field.strip())] = cell.loc
                elif key in _BOOLEAN_OPTIONS:
                    data[key] = _boolean(call, key, value, cell)
                elif key in _WHOLE_OPTIONS or (kind == "storage_count" and key in ("equals", "at_least", "at_most")):
                    data[key] = _number(call, key, value, cell, True, "200" if key == "status" else "3")
                else:
                    data[key] = value
            except CallError as err:
                errors.append(err)
        _add_check(call, plan, model, data, places, errors)
    return build


def _click_answering(call: Call, plan: PlanDraft) -> None:
    """`I click locator "#delete" and answer the dialog    accept=false    message=Delete it?`: a click
    whose dialog is answered as the cells say (a flow's `dialog:`)."""
    selector = call.nonempty("css", "selector")
    data: dict[str, object] = {}
    places: dict[PathKey, Location] = {}
    cells, errors = call.option_cells_and_errors()
    for key, value, cell in cells:
        places[(key,)] = cell.loc
        try:
            data[key] = _boolean(call, key, value, cell) if key == "accept" else value
        except CallError as err:
            errors.append(err)
    try:
        dialog = _located(call, sm.DialogModel, data, places)
    except CallError as err:
        errors.append(err)
    if errors:
        raise all_of(errors)
    assert isinstance(dialog, sm.DialogModel)
    _add(call, plan, sm.node(sm.ActStep, type="act", action="click", selector=selector, dialog=dialog))


# --- builders: frames and popups (docs/flow-spec.md, "Popups and frames"), flowwalk's own ------------


def _enter_frame(call: Call, plan: PlanDraft) -> None:
    """`When I enter frame "#pay"`: the steps up to `When I leave the frame` run in that iframe (a
    flow's `frame:` block)."""
    selector = call.nonempty("css", "frame selector")
    rule = plan.current_rule(call)
    block = plan.open_place(call, "frame", f"frame {quote(selector)}", selector)
    plan.places.append(OpenPlace(block, rule, plan.frames, call.loc))


def _click_to_popup(call: Call, plan: PlanDraft) -> None:
    """`When I click locator "#terms" and switch to the popup`: a click that opens a popup; the
    steps up to `When I close the popup` run in it (a flow's `popup:`)."""
    selector = call.nonempty("css", "selector")
    rule = plan.current_rule(call)
    block = plan.open_place(call, "popup", f"popup of click {quote(selector)}")
    _add(call, plan, sm.node(sm.ActStep, type="act", action="click", selector=selector), popup=PopupPlan(block.id))
    plan.places.append(OpenPlace(block, rule, plan.frames, call.loc, act_index=len(rule.steps) - 1))


_ENTERS = {"frame": 'When I enter frame "<css>"', "popup": 'When I click locator "<css>" and switch to the popup'}
_LEAVES = {"frame": "When I leave the frame", "popup": "When I close the popup (or When I switch back from the popup)"}


def _leave(kind: Literal["frame", "popup"], close: bool = True) -> Builder:
    """`When I leave the frame`, `When I close the popup`, `When I switch back from the popup`: the
    innermost place ends (a popup left open: its act's `close: false`)."""

    def build(call: Call, plan: PlanDraft) -> None:
        rule = plan.current_rule(call)
        place = plan.places[-1] if plan.places and plan.places[-1].rule is rule else None
        what = "frame" if kind == "frame" else "popup"
        if place is None:
            raise CallError(f"'{call.name}' but the rule is in no {what} here",
                            f"enter one first with {_ENTERS[kind]}, or remove this line")
        if place.block.kind != kind:
            raise CallError(f"'{call.name}' but the rule is in the {place.block.title} entered at line "
                            f"{place.loc.line}", f"leave that first: {_LEAVES[place.block.kind]}")
        if place.outer != plan.frames:   # (robot.py has dropped the places of blocks that ended)
            block = plan.frames[len(place.outer)]
            raise CallError(f"'{call.name}' is inside {_block_name(block)}, but the {place.block.title} was entered "
                            f"outside it (line {place.loc.line})",
                            f"leave the {what} in the keyword or GROUP that entered it: {what}s nest like GROUP blocks")
        plan.places.pop()
        if kind == "popup" and not close:
            act = rule.steps[place.act_index]
            assert isinstance(act, Act) and act.popup is not None
            rule.steps[place.act_index] = dataclasses.replace(act, popup=dataclasses.replace(act.popup, close=False))
    return build


def _block_name(block: StepFrame) -> str:
    """A keyword call or a GROUP as a message names it."""
    return f"keyword '{block.title}'" if block.kind == "call" else f"GROUP '{block.title}'"


# --- builders: saved sessions and the browser's environment (docs/sessions.md, environment.md) ----


class _SuiteSettings(sm.EnvironmentKeys):
    """The scenario settings a suite's keywords set, validated as a flow's or rule file's keys are."""

    session: Optional[sm.SessionName] = None
    saves_session: Optional[sm.SessionName] = None


def _scenario_setting(call: Call, plan: PlanDraft, what: str) -> ScenarioDraft:
    """The test case's scenario, for a keyword that sets it up: after `Given I start scenario`, before
    the first rule (it applies to the whole browser context the scenario walks in)."""
    scenario = plan.test_scenario
    if plan.test is None or scenario is None:
        raise CallError(f"'{call.name}' comes before this test case started a scenario",
                        f"it sets {what} of one test case: put it in the test case, after its [Setup] "
                        "'Given I start scenario' and before its first 'I define rule'")
    if plan.rule is not None and plan.rule.name:
        raise CallError(f"'{call.name}' comes after rule '{plan.rule.name}'",
                        f"it sets {what} of the whole test case: move it above the first 'I define rule' line")
    return scenario


def _environment(call: Call, plan: PlanDraft, key: str, value: object, places: dict[PathKey, Location],
                 what: str) -> None:
    scenario = _scenario_setting(call, plan, what)
    if key in scenario.environment:
        raise CallError(f"test case '{scenario.test_name}' sets {what} twice",
                        f"the first is at {scenario.environment_locs[key]}; keep one")
    model = _located(call, _SuiteSettings, {key: value}, {(key,): call.loc, **places})
    scenario.environment[key] = getattr(model, key).model_dump() if isinstance(getattr(model, key), BaseModel) \
        else getattr(model, key)
    scenario.environment_locs[key] = call.loc


def _string_setting(key: str, arg: str, what: str) -> Builder:
    def build(call: Call, plan: PlanDraft) -> None:
        _environment(call, plan, key, call.arg(arg).strip(), {(key,): call._arg_loc(call.raw_args[arg])}, what)
    _SETTINGS.append(build)
    return build


#: the builders of `_string_setting`, for `_ROLES`
_SETTINGS: list[Builder] = []


def _coordinate(call: Call, name: str, whole: bool) -> int | float:
    value = call.arg(name).strip()
    try:
        return _as_number(value, whole)
    except ValueError:
        example = "1280 x 720" if whole else "48.8566, 2.3522"
        raise CallError(f"'{value}' is not {'a whole number' if whole else 'a number'} in '{call.name}'",
                        f"write digits only, e.g. {call.keyword.pattern.split(' to ')[0]} to {example}",
                        call._arg_loc(call.raw_args[name])) from None


def _viewport(call: Call, plan: PlanDraft) -> None:
    data = {"width": _coordinate(call, "width", True), "height": _coordinate(call, "height", True)}
    places: dict[PathKey, Location] = {("viewport", k): call._arg_loc(call.raw_args[k]) for k in data}
    _environment(call, plan, "viewport", data, places, "the viewport")


def _geolocation(call: Call, plan: PlanDraft) -> None:
    data: dict[str, object] = {}
    places: dict[PathKey, Location] = {}
    cells, errors = call.option_cells_and_errors()
    for name in ("latitude", "longitude"):
        places[("geolocation", name)] = call._arg_loc(call.raw_args[name])
        try:
            data[name] = _coordinate(call, name, False)
        except CallError as err:
            errors.append(err)
    for key, value, cell in cells:
        places[("geolocation", key)] = cell.loc
        try:
            data[key] = _number(call, key, value, cell, False, "25")
        except CallError as err:
            errors.append(err)
    if errors:  # what is not a number, all of it; ranges are checked once every value reads
        raise all_of(sorted(errors, key=lambda e: (e.loc.line, e.loc.col) if e.loc else (0, 0)))
    _environment(call, plan, "geolocation", data, places, "the geolocation")


def _use_session(call: Call, plan: PlanDraft) -> None:
    scenario = _scenario_setting(call, plan, "the saved session")
    if scenario.session is not None:
        raise CallError(f"test case '{scenario.test_name}' uses two sessions",
                        f"the first is at {scenario.session_loc}; a scenario starts from one saved session")
    name = call.arg("name").strip()
    _located(call, _SuiteSettings, {"session": name}, {("session",): call._arg_loc(call.raw_args["name"])})
    scenario.session, scenario.session_loc = name, call.loc


def _save_session(call: Call, plan: PlanDraft) -> None:
    rule = plan.current_rule(call)
    if rule.saves_session is not None:
        raise CallError(f"rule '{rule.name}' saves two sessions",
                        f"the first is at {rule.saves_session_loc}; save one session per rule")
    name = call.arg("name").strip()
    _located(call, _SuiteSettings, {"saves_session": name},
             {("saves_session",): call._arg_loc(call.raw_args["name"])})
    rule.saves_session, rule.saves_session_loc = name, call.loc


# --- the table --------------------------------------------------------------------------------------

GAT = (G, A, T)
#: families of the keywords flowwalk adds to aitester-bdd's (its own checks and scenario settings)
FLOWWALK_FAMILIES = ("interaction", "list check", "storage and network check", "baseline check", "accessibility check",
                     "session", "environment")

_SHELL = ("it runs a shell command on the CI machine, and flowwalk never executes commands from a spec",
          "run the command as its own CI step and check its effect on the page with state checks")
_SHELL_CHECK = ("it reads the result of 'I run shell', which flowwalk does not run",
                "run the command as its own CI step and check its effect on the page with state checks")
_LLM = ("it needs a language model while the suite runs; flowwalk verifies with plain code and never needs a model",
        "check the page deterministically: locator \"<css>\" contains \"<text>\" or matches \"<regex>\"")
_JUDGE = ("it asks a language model to judge the page; every flowwalk check is plain code over the page",
          "use locator \"<css>\" contains \"<text>\", locator \"<css>\" matches \"<regex>\" or page contains text")
_JS = ("it runs arbitrary JavaScript in the page; flowwalk suites are reviewable data, not code",
       "use an action keyword, or record a value with an I emit row source=js")
_CAPTURE = ("it belongs to aitester-bdd's capture/artifact pipeline (record bags, hooks, quality gates), "
            "which flowwalk does not implement",
            "record page state with And I emit \"<name>\" rows; flowwalk writes them to emit.jsonl")
_EXPLORE = ("it hands the rule to an LLM agent that explores the site while the suite runs",
            "write the rule's steps with action and state-check keywords")
_RESPONSE = ("aitester-bdd never records responses, so this check cannot pass there either",
             "check the page state the response produces, or use an invariant_check verifier in a .rules.yaml file")


_ROLES: dict[Builder, Literal["", "scenario", "rule", "secret", "setup", "setting"]] = {
    _start_scenario: "scenario", _define_rule: "rule", _type_secret: "secret", _configure_state_setup: "setup",
    _use_session: "setting", _viewport: "setting", _geolocation: "setting",
}


def _kw(pattern: str, prefixes: tuple[str, ...], family: str, maps_to: str, build: Builder | None = None,
        cells: Cells = "none", options: tuple[str, ...] = (), refused: tuple[str, str] | None = None,
        repeatable: tuple[str, ...] = ()) -> Keyword:
    role = (_ROLES.get(build) or ("setting" if build in _SETTINGS else "")) if build is not None else ""
    return Keyword(pattern, prefixes, family, maps_to, build, cells, options, refused, role, repeatable)


def typed_secrets(match: "Match", cells: tuple[Cell, ...]) -> list[str]:
    """Raw values a call types as a secret: the variable each names is secret in the whole file."""
    if match.keyword.role == "secret":
        return [match.args.get("value", "")]
    if match.keyword.role == "setup":
        pairs = {c.raw.partition("=")[0].strip(): c.raw.partition("=")[2] for c in cells}
        if strip_outer_quotes(pairs.get("action", "").strip()) == "password" and "value" in pairs:
            return [pairs["value"]]
    return []


KEYWORDS: tuple[Keyword, ...] = (
    # 1.1 lifecycle
    _kw('I start verification "${name}"', (G,), "lifecycle", "accepted (the verification name is not used)",
        _start_verification),
    _kw("I finalize verification", (T,), "lifecycle", "accepted; flowwalk walks every scenario once", _finalize),
    _kw('I start scenario "${name}" at "${url}"', (G,), "lifecycle",
        "starts the test case's Scenario, entry URL `url`", _start_scenario),
    _kw('I start scenario "${name}"', (G,), "lifecycle", "starts the test case's Scenario, no entry URL",
        _start_scenario),
    # 1.2 rule structure
    _kw('I define rule "${name}"', (), "rule structure", "a new Rule (declaration order)", _define_rule),
    _kw('I declare parents "${names}"', (A,), "rule structure", "Rule.parents (comma separated, cumulative)",
        _declare_parents),
    _kw("I declare parents", (A,), "rule structure", "Rule.parents from the cells (joined, split on commas)",
        _declare_parents_cells, cells="words"),
    _kw("I explore", (), "explore", "refused", cells="words", refused=_EXPLORE),
    _kw("I explore and author", (), "explore", "refused", cells="words", refused=_EXPLORE),
    # 1.3 configuration, per rule
    _kw("I set retry ${max} times with ${delay} ms delay", (A,), "configuration",
        "Rule.retry = {max, delay_ms}", _set_retry),
    _kw('I set guard policy "${policy}"', (A,), "configuration", "Rule.guard_policy (skip | abort)", _guard_policy),
    _kw("I pause interrupts", (A,), "configuration", "Rule.interrupts = paused", _pause_interrupts),
    _kw('I scope interrupts to "${selectors}"', (A,), "configuration",
        "Rule.interrupts = override, Rule.interrupt_selectors (comma separated)", _scope_interrupts),
    _kw("I set rule timeout ${ms} ms", (A,), "configuration", "Rule.timeout_ms and guard_timeout_ms", _rule_timeout),
    _kw("I set rule timeout ${ms}", (A, W), "configuration",
        "Rule.timeout_ms and guard_timeout_ms (30000, 30000 ms, 30 s, 30s)", _rule_timeout),
    _kw("I set rule timeout", (A, W), "configuration", "Rule.timeout_ms from the cells", _rule_timeout_cells,
        cells="words"),
    _kw('I scope children to "${css}"', (A,), "configuration", "Rule.child_scope", _scope_children),
    _kw("I screenshot on enter", (A,), "configuration", "Rule.screenshot_on_enter", _screenshot_on_enter),
    _kw("I screenshot on fail", (A,), "configuration", "Rule.screenshot_on_fail", _screenshot_on_fail),
    # 1.3 configuration, verification level
    _kw("I configure interrupts", (A,), "configuration",
        "appends `dismiss=` to every Scenario.dismiss_selectors", _configure_interrupts, cells="options",
        options=("dismiss",)),
    _kw("I configure state setup", (A,), "configuration",
        "a first rule `state_setup` in every scenario (optional steps; guard from `skip_when=`)",
        _configure_state_setup, cells="setup"),
    _kw('I register hook "${name}" at "${point}"', (A,), "capture", "refused", cells="words", refused=_CAPTURE),
    _kw('I register artifact "${artifact}"', (G,), "capture", "refused", cells="words", refused=_CAPTURE),
    _kw('I set artifact options for "${artifact}"', (A,), "capture", "refused", cells="words", refused=_CAPTURE),
    _kw("I set quality gate min records to ${count}", (A,), "capture", "refused", refused=_CAPTURE),
    _kw('I set filled percentage for "${field}" to ${percent}', (A,), "capture", "refused", refused=_CAPTURE),
    _kw("I set max failed percentage to ${percent}", (A,), "capture", "refused", refused=_CAPTURE),
    # 1.4 actions
    _kw('I open "${url}"', (W,), "action", "goto url", _open),
    _kw("I reload", (W,), "action", "reload", _history("reload")),
    _kw("I go back", (W,), "action", "go_back", _history("go_back")),
    _kw("I go forward", (W,), "action", "go_forward", _history("go_forward")),
    _kw('I add url params "${params}"', (W,), "action", "refused", refused=(
        "flowwalk's step language has no URL-editing step", "open the full URL with its parameters: When I open \"<url>\"")),
    _kw('I click locator "${css}"', (W,), "action", "act click", _click, cells="options", options=("await",)),
    _kw('I click text "${text}"', (W,), "action", 'act click `text="X" | text=X`, target X', _click_text,
        cells="options", options=("await",)),
    _kw('I double click locator "${css}"', (W,), "action", "act dblclick", _dblclick),
    _kw('I type "${value}" into locator "${css}"', (W, A), "action", "act fill", _fill, cells="options",
        options=("await",)),
    _kw('I type "" into locator "${css}"', (W, A), "action", "act fill with an empty value", _fill,
        cells="options", options=("await",)),
    _kw('I fill locator "${css}" with "${value}"', (W, A), "action", "act fill", _fill, cells="options",
        options=("await",)),
    _kw('I fill "${css}" with "${value}"', (W, A), "action", "act fill", _fill, cells="options", options=("await",)),
    _kw('I type secret "${value}" into locator "${css}"', (W,), "action",
        "act fill with `{{NAME}}`; NAME becomes a Scenario secret", _type_secret, cells="options", options=("await",)),
    _kw('I select "${value}" from locator "${css}"', (W,), "action", "act select (by option value)", _select),
    _kw('I check locator "${css}"', (W,), "action", "act check", _simple_action("check")),
    _kw('I uncheck locator "${css}"', (W,), "action", "act uncheck", _simple_action("uncheck")),
    _kw('I hover locator "${css}"', (W,), "action", "act hover", _simple_action("hover")),
    _kw('I focus locator "${css}"', (W,), "action", "act focus", _simple_action("focus")),
    _kw('I press keys "${css}"', (W,), "action", "one act press per key cell", _press_keys, cells="keys"),
    _kw('I upload file "${path}" to locator "${css}"', (W,), "action", "act upload", _upload),
    _kw("I scroll down", (W,), "action", "act scroll 1000 px", _scroll_down),
    _kw("I wait for idle", (W,), "action", "refused", refused=(
        "flowwalk has no network-idle wait: every check already waits until it holds (up to the rule timeout)",
        "add await=<css> to the action, or a state check that waits for the element")),
    _kw("I take screenshot", (W,), "action", "refused", cells="words", refused=(
        "flowwalk takes screenshots per rule, not as a step",
        "use And I screenshot on enter, And I screenshot on fail, or --screenshots on")),
    _kw('I set stepper "${css}" to ${count}', (W,), "action", "`count` act clicks", _set_stepper),
    _kw('I select date "${date_iso}"', (W,), "action", "refused", cells="words", refused=(
        "it drives a datepicker through aitester-bdd's own month-paging code",
        "click the datepicker's buttons with When I click locator \"<css>\"")),
    _kw('I evaluate js "${script}"', (W, A, T), "escape hatch", "refused", refused=_JS),
    _kw("I evaluate js ${script}", (W, A), "escape hatch", "refused", refused=_JS),
    _kw("I evaluate js", (W, A), "escape hatch", "refused", cells="words", refused=_JS),
    _kw('I run shell "${cmd}"', (W, A), "escape hatch", "refused", refused=_SHELL),
    _kw('I run shell "${cmd}" with timeout ${ms} ms', (W,), "escape hatch", "refused", refused=_SHELL),
    _kw('I ask LLM "${prompt}"', (W, A), "escape hatch", "refused", refused=_LLM),
    _kw('I browser step "${method}"', (A,), "escape hatch", "refused", cells="words", refused=(
        "it calls a method of Robot Framework's Browser library, which flowwalk does not load",
        "use the matching aitester-bdd action keyword")),
    _kw('I call keyword "${name}"', (A,), "escape hatch", "refused", cells="words", refused=(
        "it runs another Robot Framework keyword, and flowwalk does not execute Robot Framework",
        "write the aitester-bdd keywords that keyword would run inline")),
    _kw('I expand over elements "${scope}"', (W,), "capture", "refused", cells="words", refused=_CAPTURE),
    _kw('I expand over elements "${scope}" with order "${order}"', (W,), "capture", "refused", cells="words",
        refused=_CAPTURE),
    _kw("I expand over combinations", (W,), "capture", "refused", cells="words", refused=_CAPTURE),
    # 1.5 state checks
    _kw('url contains "${pattern}"', GAT, "state check", "expect url_contains", _url_check("url_contains")),
    _kw('url matches "${pattern}"', GAT, "state check", "expect url_matches", _url_check("url_matches")),
    _kw('selector "${css}" exists', GAT, "state check", "expect selector_exists", _selector_check("selector_exists")),
    _kw('locator "${css}" exists', GAT, "state check", "expect selector_exists", _selector_check("selector_exists")),
    _kw('count of locator "${css}" equals ${n}', GAT, "state check", "expect count eq", _count("equals")),
    _kw('count of locator "${css}" is at least ${n}', GAT, "state check", "expect count gte", _count("at_least")),
    _kw('count of locator "${css}" is at most ${n}', GAT, "state check", "expect count lte", _count("at_most")),
    _kw('table headers are "${headers}"', GAT, "state check",
        "one expect has_text per header on `table thead th:nth-of-type(i) | table tr:first-child th:nth-of-type(i)`",
        _table_headers),
    _kw('locator "${css}" has text "${text}"', GAT, "state check", "expect has_text", _text_check("has_text")),
    _kw('locator "${css}" contains "${text}"', GAT, "state check", "expect text_contains",
        _text_check("text_contains")),
    _kw('page contains text "${text}"', (G, A, T, B), "state check", "expect text_contains on body",
        _text_check("text_contains", page=True)),
    _kw('locator "${css}" matches "${regex}"', GAT, "state check", "expect text_matches",
        _text_check("text_matches")),
    _kw('locator "${css}" is visible', GAT, "state check", "expect visible", _selector_check("visible")),
    _kw('locator "${css}" is enabled', GAT, "state check", "expect enabled", _selector_check("enabled")),
    _kw('locator "${css}" is checked', GAT, "state check", "expect checked", _selector_check("checked")),
    _kw('locator "${css}" has class "${name}"', GAT, "state check",
        'expect selector_exists on `css >> css=:scope[class~="name"]`', _class_check(True)),
    _kw('locator "${css}" has attribute "${attr}" equal to "${value}"', GAT, "state check",
        "expect attribute (match equals)", _attribute("equals")),
    _kw('locator "${css}" has attribute "${attr}" containing "${value}"', GAT, "state check",
        "expect attribute (match contains)", _attribute("contains")),
    _kw('input "${css}" has value "${value}"', GAT, "state check", "expect input_value", _input_value),
    _kw('input "${css}" has value ""', (T, A), "state check", "expect input_value ''", _input_value),
    _kw('select "${css}" has selected "${value}"', GAT, "state check", "expect input_value (the option value)",
        _input_value),
    _kw("last response status equals ${code}", GAT, "state check", "refused", refused=_RESPONSE),
    _kw('last response body contains "${text}"', GAT, "state check", "refused", refused=_RESPONSE),
    _kw('api "${path}" returns "${field}" equal to "${value}"', (T,), "state check", "refused", refused=(
        "it calls aitester-bdd's own API endpoint (AITESTER_API_BASE_URL, AITESTER_API_TOKEN)",
        "use an invariant_check verifier (HTTP GET, expected status, JSON field) in a .rules.yaml file")),
    _kw("last shell exit equals ${code}", GAT, "state check", "refused", refused=_SHELL_CHECK),
    _kw('last shell stdout contains "${text}"', GAT, "state check", "refused", refused=_SHELL_CHECK),
    _kw('last shell stdout matches "${regex}"', GAT, "state check", "refused", refused=_SHELL_CHECK),
    _kw('last shell stderr contains "${text}"', GAT, "state check", "refused", refused=_SHELL_CHECK),
    _kw('content of locator "${css}" semantically matches "${prompt}"', GAT, "state check", "refused",
        refused=_JUDGE),
    _kw('locator "${css}" semantically matches "${prompt}"', GAT, "state check", "refused", refused=_JUDGE),
    _kw('page semantically matches "${prompt}"', GAT, "state check", "refused", refused=_JUDGE),
    _kw('screenshot semantically matches "${prompt}"', (T,), "state check", "refused", refused=_JUDGE),
    _kw('last LLM response contains "${text}"', GAT, "state check", "refused", refused=_LLM),
    _kw('last LLM response semantically matches "${criterion}"', GAT, "state check", "refused", refused=_LLM),
    # 1.6 negative checks
    _kw('url does not contain "${pattern}"', (B, A, T), "negative check", "expect url_not_contains",
        _url_check("url_not_contains")),
    _kw('selector "${css}" does not exist', (G, B, A, T), "negative check", "expect selector_absent",
        _selector_check("selector_absent")),
    _kw('locator "${css}" does not contain "${text}"', (B, A, T), "negative check", "expect text_not_contains",
        _text_check("text_not_contains")),
    _kw('page does not contain text "${text}"', (T, B, A), "negative check", "expect text_not_contains on body",
        _text_check("text_not_contains", page=True)),
    _kw('locator "${css}" does not have class "${name}"', (B, A, T), "negative check",
        'expect selector_absent on `css >> css=:scope[class~="name"]`', _class_check(False)),
    _kw('locator "${css}" is hidden', GAT, "negative check", "expect hidden", _selector_check("hidden")),
    _kw('locator "${css}" is disabled', GAT, "negative check", "expect disabled", _selector_check("disabled")),
    # 1.7 emit
    _kw('I emit "${name}"', (T, W, A), "emit",
        "emit step; rows `field= source= locator= attr= expr=` become EmitFields", _emit, cells="rows"),
    # 1.8 capture pipeline
    _kw("I extract fields", (T,), "capture", "refused", cells="words", refused=_CAPTURE),
    _kw('I extract table "${name}" from "${locator}"', (T,), "capture", "refused", cells="words", refused=_CAPTURE),
    _kw('I emit to artifact "${artifact}"', (A,), "capture", "refused", refused=_CAPTURE),
    _kw('I emit to artifact "${artifact}" flattened by "${field}"', (A,), "capture", "refused", refused=_CAPTURE),
    _kw('I merge into artifact "${artifact}" on key "${key}"', (A,), "capture", "refused", refused=_CAPTURE),
    # flowwalk's own: typing key by key, drag and drop, events, blur (docs/flow-spec.md), not in aitester-bdd
    _kw('I type keys "${value}" into locator "${css}"', (W, A), "interaction", "act type (key by key)", _type_keys),
    _kw('I drag locator "${css}" to locator "${to}"', (W, A), "interaction", "act drag", _drag),
    _kw('I dispatch event "${event}" on locator "${css}"', (W, A), "interaction", "act dispatch", _dispatch),
    _kw('I blur locator "${css}"', (W, A), "interaction", "act blur (the focus moves away)", _simple_action("blur")),
    # flowwalk's own: lists item by item (docs/flow-spec.md, "Lists and exact text"), not in aitester-bdd
    _kw('locator "${css}" has texts', GAT, "list check", "expect texts (equals): a cell per element, in order",
        _items_check("texts", "equals"), cells="items"),
    _kw('locator "${css}" contains texts', GAT, "list check", "expect texts (contains): these among them, in order",
        _items_check("texts", "contains"), cells="items"),
    _kw('locator "${css}" has classes', GAT, "list check", "expect classes (equals): a cell per element",
        _items_check("classes", "equals"), cells="items"),
    _kw('locator "${css}" contains classes', GAT, "list check", "expect classes (contains): a cell per element",
        _items_check("classes", "contains"), cells="items"),
    # flowwalk's own: state beyond the page and dialogs (docs/flow-spec.md), not in aitester-bdd
    _kw('local storage "${key}"', GAT, "storage and network check", "expect storage (local): the key's value, at `path=`, or "
        "`absent=true`", _state_check("storage", sm.ExpectStorage, "key", area="local"), cells="options",
        options=("path", "equals", "contains", "matches", "absent")),
    _kw('session storage "${key}"', GAT, "storage and network check", "expect storage (session): as local storage",
        _state_check("storage", sm.ExpectStorage, "key", area="session"), cells="options",
        options=("path", "equals", "contains", "matches", "absent")),
    _kw('local storage keys starting with "${prefix}"', GAT, "storage and network check",
        "expect storage_count (local): `equals=`, `at_least=` or `at_most=`, `where=path=value`",
        _state_check("storage_count", sm.ExpectStorageCount, "prefix", area="local"), cells="options",
        options=("equals", "at_least", "at_most", "where"), repeatable=("where",)),
    _kw('session storage keys starting with "${prefix}"', GAT, "storage and network check", "expect storage_count (session)",
        _state_check("storage_count", sm.ExpectStorageCount, "prefix", area="session"), cells="options",
        options=("equals", "at_least", "at_most", "where"), repeatable=("where",)),
    _kw('cookie "${name}"', GAT, "storage and network check", "expect cookie: its attributes, its value (never shown), or "
        "`absent=true`", _state_check("cookie", sm.ExpectCookie, "name"), cells="options",
        options=("equals", "contains", "matches", "absent", "http_only", "secure", "same_site", "expires",
                 "expires_after_s")),
    _kw('js value "${expr}"', GAT, "storage and network check", "expect js: the expression's value `equals=`, `contains=` or "
        "`matches=`", _state_check("js", sm.ExpectJs, "expr"), cells="options",
        options=("equals", "contains", "matches")),
    _kw('request to "${url}"', GAT, "storage and network check", "expect request: `method=`, `body=path=value`, `status=`, or "
        "`absent=true`", _state_check("request", sm.ExpectRequest, "url"), cells="options",
        options=("method", "status", "absent", "body"), repeatable=("body",)),
    _kw('I click locator "${css}" and answer the dialog', (W, A), "interaction",
        "act click with dialog: `accept=`, `message=`, `answer=`", _click_answering, cells="options",
        options=("accept", "message", "answer")),
    # flowwalk's own: frames and popups (docs/flow-spec.md, "Popups and frames"), not in aitester-bdd
    _kw('I enter frame "${css}"', (W, A), "frame and popup",
        "the steps up to `I leave the frame` are a frame block: they run inside the iframe", _enter_frame),
    _kw("I leave the frame", (W, A), "frame and popup", "ends the innermost frame block", _leave("frame")),
    _kw('I click locator "${css}" and switch to the popup', (W, A), "frame and popup",
        "act click with `popup:`: the steps up to `I close the popup` run in the new tab or window", _click_to_popup),
    _kw("I close the popup", (W, A), "frame and popup", "ends the popup block; the popup is closed", _leave("popup")),
    _kw("I switch back from the popup", (W, A), "frame and popup",
        "ends the popup block and leaves the popup open (`close: false`)", _leave("popup", close=False)),
    # flowwalk's own: baselines and accessibility (docs/snapshots.md), not in aitester-bdd
    _kw('page matches aria snapshot "${name}"', GAT, "baseline check",
        "expect aria_snapshot of `body`, baseline `<suite>.robot.snapshots/<name>.yml`", _aria_snapshot),
    _kw('locator "${css}" matches aria snapshot "${name}"', GAT, "baseline check",
        "expect aria_snapshot of `css`, baseline `<suite>.robot.snapshots/<name>.yml`", _aria_snapshot),
    _kw('page matches screenshot "${name}"', GAT, "baseline check",
        "expect screenshot of the viewport (or the whole page), baseline `<suite>.robot.snapshots/<name>.png`",
        _screenshot, cells="options", options=("threshold", "max_diff_pixels", "max_diff_ratio", "mask", "full_page"),
        repeatable=("mask",)),
    _kw('locator "${css}" matches screenshot "${name}"', GAT, "baseline check",
        "expect screenshot of the element, baseline `<suite>.robot.snapshots/<name>.png`", _screenshot,
        cells="options", options=("threshold", "max_diff_pixels", "max_diff_ratio", "mask"), repeatable=("mask",)),
    _kw("page is accessible", GAT, "accessibility check", "expect accessible (axe-core) over the page", _accessible,
        cells="options", options=("impact", "include", "skip", "exclude"), repeatable=("exclude",)),
    _kw('locator "${css}" is accessible', GAT, "accessibility check", "expect accessible (axe-core) within `css`",
        _accessible, cells="options", options=("impact", "include", "skip", "exclude"), repeatable=("exclude",)),
    # flowwalk's own: saved sessions and the browser's environment (docs/sessions.md, environment.md)
    _kw('I save session "${name}"', (A, T), "session", "Rule.saves_session: the state is saved when the rule passes",
        _save_session),
    _kw('I use session "${name}"', (G, A), "session", "Scenario.session: the context starts from the saved state",
        _use_session),
    _kw('I use device "${name}"', (G, A), "environment", "environment device (Playwright's descriptor by name)",
        _string_setting("device", "name", "the device")),
    _kw("I set viewport to ${width} x ${height}", (G, A), "environment", "environment viewport {width, height}",
        _viewport),
    _kw('I set locale "${locale}"', (G, A), "environment", "environment locale (a BCP 47 tag)",
        _string_setting("locale", "locale", "the locale")),
    _kw('I set timezone "${timezone}"', (G, A), "environment", "environment timezone (an IANA id)",
        _string_setting("timezone", "timezone", "the time zone")),
    _kw('I set color scheme "${scheme}"', (G, A), "environment", "environment color_scheme (light | dark | no-preference)",
        _string_setting("color_scheme", "scheme", "the colour scheme")),
    _kw("I set geolocation to ${latitude}, ${longitude}", (G, A), "environment",
        "environment geolocation, the permission granted", _geolocation, cells="options", options=("accuracy",)),
)


# --- matching, the way Robot Framework resolves a name ----------------------------------------------


@dataclass(frozen=True)
class _Registration:
    keyword: Keyword
    name: str
    embedded: EmbeddedArguments | None
    #: the keyword's pattern without a BDD prefix, as RF would register it bare (for `_miss`)
    core: EmbeddedArguments | None
    #: `_shape(name)`, for did-you-mean ranking
    shape: str


def _normalize(name: str) -> str:
    return "".join(name.lower().split()).replace("_", "")


def _registrations() -> tuple[_Registration, ...]:
    out = []
    for keyword in KEYWORDS:
        core = EmbeddedArguments.from_name(keyword.pattern)
        for name in keyword.names():
            out.append(_Registration(keyword, name, EmbeddedArguments.from_name(name), core, _shape(name)))
    return tuple(out)


class _Index:
    """Registrations arranged so that a call is compared only with those that can match it.

    A normal (non-embedded) name is looked up by its normalized form. An embedded name's regular
    expression starts with its first word and a whitespace (`When\\s`); that head is compiled on
    its own, with the same flags, and a call is tried only against the registrations whose head
    matches its start. A full match implies a head match, so the filter never drops a match, and
    the candidates keep the table's order (ambiguity and did-you-mean depend on it).
    """

    def __init__(self, registrations: tuple[_Registration, ...]):
        self.normal: dict[str, list[_Registration]] = {}
        #: each embedded registration and the number of its head in `heads` (-1: tried for every call)
        self.embedded: list[tuple[_Registration, int]] = []
        heads: dict[tuple[str, int], int] = {}
        for reg in registrations:
            if reg.embedded is None:
                self.normal.setdefault(_normalize(reg.name), []).append(reg)
                continue
            words = reg.name.split(None, 1)
            head = re.escape(words[0]) + r"\s" if len(words) == 2 else ""
            number = -1
            if head and reg.embedded.name.pattern.startswith(head):
                number = heads.setdefault((head, reg.embedded.name.flags), len(heads))
            self.embedded.append((reg, number))
        self.heads = [re.compile(head, flags) for head, flags in heads]
        self._candidates: dict[frozenset[int], list[_Registration]] = {}

    def candidates(self, text: str) -> list[_Registration]:
        """The embedded registrations that may match `text` (a placeholdered call name), in order."""
        hit = frozenset(i for i, head in enumerate(self.heads) if head.match(text))
        found = self._candidates.get(hit)
        if found is None:  # at most one list per set of heads, so this stays small
            found = self._candidates[hit] = [reg for reg, n in self.embedded if n < 0 or n in hit]
        return found


_PREFIX = re.compile(r"(given|when|then|and|but)\s", re.IGNORECASE)


@dataclass(frozen=True)
class Match:
    keyword: Keyword
    #: embedded argument name -> raw value as written (variables not yet substituted)
    args: dict[str, str]


@dataclass(frozen=True)
class Miss:
    message: str
    hint: str


def _find(name: str, index: _Index) -> list[tuple[_Registration, tuple[str, ...]]]:
    normal = index.normal.get(_normalize(name))
    if normal:  # RF: a normal (non-embedded) match is exact and wins over embedded ones
        return [(r, ()) for r in normal]
    found: list[tuple[_Registration, tuple[str, ...]]] = []
    if index.embedded:
        text = _placeholdered(name)  # raises RF's DataError for a malformed `${`, as parse_args would
        for reg in index.candidates(text):
            assert reg.embedded is not None
            if reg.embedded.name.fullmatch(text):
                found.append((reg, reg.embedded.parse_args(name)))
    if len(found) > 1:
        # RF >= 6.0 (issue #4454): a match is better when the other pattern matches its name but not
        # the other way round, i.e. it spells out more of the call literally
        def better(a: _Registration, b: _Registration) -> bool:
            assert a.embedded is not None and b.embedded is not None
            return b.embedded.matches(a.name) and not a.embedded.matches(b.name)

        found = [f for f in found if not any(better(o[0], f[0]) and not better(f[0], o[0])
                                             for o in found if o is not f)] or found
    # registrations of one keyword under several prefixes are the same keyword
    unique: dict[int, tuple[_Registration, tuple[str, ...]]] = {}
    for reg, args in found:
        unique.setdefault(id(reg.keyword), (reg, args))
    return list(unique.values())


def _placeholdered(name: str) -> str:
    """The call name with each `${var}` replaced the way RF's matcher does, so values never split."""
    parts: list[str] = []
    for i, match in enumerate(VariableMatches(name), start=1):
        parts[-1:] = [match.before, f"={VARIABLE_PLACEHOLDER}-{i}=", match.after]
    return "".join(parts) if parts else name


def _shape(name: str) -> str:
    """A call or pattern reduced to its literal words, for did-you-mean ranking."""
    name = re.sub(r'"(?:[^"\\]|\\.)*"', '"…"', name)
    name = re.sub(r"\$\{[^}]*\}", "…", name)
    return " ".join(name.lower().split())


_REGISTRATIONS = _registrations()
_ALL = _Index(_REGISTRATIONS)
#: RF tries a call without its Given/When/Then/And/But only against names registered bare
_BARE = _Index(tuple(r for r in _REGISTRATIONS if not r.keyword.prefixes))


def match_keyword(name: str) -> Match | Miss:
    """Resolve one keyword call name against the registered names, as Robot Framework would."""
    found = _resolve(name)
    return Match(found.keyword, dict(found.args)) if isinstance(found, Match) else found


@functools.lru_cache(maxsize=8192)
def _resolve(name: str) -> Match | Miss:
    # remembered per call text: a suite repeats its calls a lot (`match_keyword` hands out copies)
    from robot.errors import DataError

    try:
        return _match_keyword(name)
    except DataError as error:  # RF's VariableError for a malformed `${...}` in the call's name
        return Miss(f"'{name}' cannot be read as a keyword call: {str(error).splitlines()[0]}",
                    "close every '${' with '}', or escape a literal one as '\\${'")


def _match_keyword(name: str) -> Match | Miss:
    found = _find(name, _ALL)
    if not found:
        # RF drops a leading Given/When/Then/And/But only when the full name is not registered
        prefix = _PREFIX.match(name)
        if prefix:
            found = _find(name[prefix.end():], _BARE)
    if len(found) > 1:
        names = ", ".join(f"'{r.name}'" for r, _ in found)
        return Miss(f"'{name}' matches several aitester-bdd keywords: {names}",
                    "Robot Framework would refuse it as ambiguous; change the call so only one matches")
    if found:
        reg, args = found[0]
        assert reg.embedded is not None or not args
        names_ = reg.embedded.args if reg.embedded is not None else ()
        return Match(reg.keyword, dict(zip(names_, args)))
    return _miss(name)


def _miss(name: str) -> Miss:
    prefix = _PREFIX.match(name)
    used = prefix.group(1).title() if prefix else ""
    bare = name[prefix.end():] if prefix else name
    # the name exists, only under other prefixes: say which
    shown: str | None = None
    for reg in _REGISTRATIONS:
        if not reg.keyword.prefixes:
            continue
        core = reg.core
        if core is not None and shown is None:
            shown = _placeholdered(bare)
        hit = core.name.fullmatch(shown) if core is not None and shown is not None else \
            _normalize(reg.keyword.pattern) == _normalize(bare)
        if hit:
            keyword = reg.keyword
            suggest = next(p for p in _SUGGEST_ORDER if p in keyword.prefixes)
            how = f"with '{used}'" if used else "without a Given/When/Then/And/But prefix"
            who = "flowwalk" if keyword.family in FLOWWALK_FAMILIES else "aitester-bdd"
            return Miss(f"{who} does not register '{name}' {how}",
                        f"did you mean '{suggest} {bare}'? it is registered only as {keyword.shown()}")
    hint = "see docs/robot.md for the keywords aitester-bdd registers"
    rewritten = _rewrite_shorthand(bare, used)
    if rewritten is not None:
        hint = f"did you mean '{rewritten}'? " + hint
    else:
        shape = _shape(name)
        # real_quick_ratio() bounds ratio() from above and costs nothing: without it a call name of
        # a few thousand characters costs a second of difflib per line (found by the loading fuzz)
        scored = sorted(((m.ratio(), r.name) for r in _REGISTRATIONS
                         for m in [difflib.SequenceMatcher(None, shape, r.shape)] if m.real_quick_ratio() >= 0.6),
                        reverse=True)
        if scored and scored[0][0] >= 0.6:
            hint = f"did you mean '{scored[0][1]}'? " + hint
    return Miss(f"aitester-bdd does not register a keyword named '{name}'", hint)


#: the shorthand of aitester-bdd's own prose docs and examples, which it does not register
#: (aitester-bdd.md section 6.1), each with the registered pattern it means
_SHORTHAND: tuple[tuple[str, str], ...] = (
    (r'selector exists "(?P<css>.*)"', 'selector "${css}" exists'),
    (r'selector (?:does not exist|missing) "(?P<css>.*)"', 'selector "${css}" does not exist'),
    (r'count (?:at least|gte|>=) "(?P<css>.*)" "?(?P<n>[^" ]+)"?', 'count of locator "${css}" is at least ${n}'),
    (r'count (?:at most|lte|<=) "(?P<css>.*)" "?(?P<n>[^" ]+)"?', 'count of locator "${css}" is at most ${n}'),
    (r'count (?:eq|equals|==) "(?P<css>.*)" "?(?P<n>[^" ]+)"?', 'count of locator "${css}" equals ${n}'),
    (r'has text "(?P<css>.*?)" "(?P<text>.*)"', 'locator "${css}" has text "${text}"'),
    (r'not contains "(?P<css>.*?)" "(?P<text>.*)"', 'locator "${css}" does not contain "${text}"'),
    (r'contains "(?P<css>.*?)" "(?P<text>.*)"', 'locator "${css}" contains "${text}"'),
    (r'(?P<state>visible|hidden|enabled|disabled|checked) "(?P<css>.*)"', 'locator "${css}" is ${state}'),
    (r'has class "(?P<css>.*?)" "(?P<name>.*)"', 'locator "${css}" has class "${name}"'),
    (r'attr eq "(?P<css>.*?)" "(?P<attr>.*?)" "(?P<value>.*)"',
     'locator "${css}" has attribute "${attr}" equal to "${value}"'),
    (r'input value "(?P<css>.*?)" "(?P<value>.*)"', 'input "${css}" has value "${value}"'),
    (r'select selected "(?P<css>.*?)" "(?P<value>.*)"', 'select "${css}" has selected "${value}"'),
    (r'table headers "(?:.*?)" "(?P<headers>.*)"', 'table headers are "${headers}"'),
    (r'last status "?(?P<code>[^"]*)"?', 'last response status equals ${code}'),
    (r'last body contains "(?P<text>.*)"', 'last response body contains "${text}"'),
    (r'last shell exit "?(?P<code>[^"]*)"?', 'last shell exit equals ${code}'),
    (r'visual semantic "(?P<prompt>.*)"', 'screenshot semantically matches "${prompt}"'),
    (r'semantic "(?P<prompt>.*)"', 'page semantically matches "${prompt}"'),
    (r'llm response contains "(?P<text>.*)"', 'last LLM response contains "${text}"'),
    (r'llm response semantic "(?P<criterion>.*)"', 'last LLM response semantically matches "${criterion}"'),
    (r'I type "(?P<value>.*?)" into "(?P<css>.*)"', 'I type "${value}" into locator "${css}"'),
    (r'I fill locator "(?P<css>.*?)" "(?P<value>.*)"', 'I fill locator "${css}" with "${value}"'),
    (r'I (?P<verb>check|uncheck|hover|focus) "(?P<css>.*)"', 'I ${verb} locator "${css}"'),
    (r'I upload file "(?P<path>.*?)" into (?:locator )?"(?P<css>.*)"', 'I upload file "${path}" to locator "${css}"'),
    (r'I set stepper "(?P<css>.*?)" "?(?P<count>[^"]*)"?', 'I set stepper "${css}" to ${count}'),
    (r'I set retry (?P<max>\S+) delay (?P<delay>\S+)', 'I set retry ${max} times with ${delay} ms delay'),
    (r'set rule timeout (?P<ms>.+)', 'I set rule timeout ${ms}'),
    (r'set child scope "(?P<css>.*)"', 'I scope children to "${css}"'),
    (r'I scope interrupts "(?P<selectors>.*)"', 'I scope interrupts to "${selectors}"'),
    (r'screenshot on (?P<when>enter|fail)', 'I screenshot on ${when}'),
)
_SHORTHAND_RE = tuple((re.compile(rx, re.IGNORECASE | re.DOTALL), pattern) for rx, pattern in _SHORTHAND)


def _rewrite_shorthand(bare: str, prefix: str) -> str | None:
    """The registered call a docs-dialect name means, with the caller's own values filled in."""
    for rx, pattern in _SHORTHAND_RE:
        found = rx.fullmatch(bare)
        if not found:
            continue
        call = re.sub(r"\$\{(\w+)\}", lambda m: found.group(m.group(1)), pattern)
        for candidate in ([f"{prefix} {call}"] if prefix else []) + [f"{p} {call}" for p in _SUGGEST_ORDER]:
            if isinstance(match_keyword(candidate), Match):
                return candidate
    return None


# --- keywords of the libraries a suite moves from ------------------------------------------------

#: what a suite's `Library` line names, and who that is
FOREIGN_LIBRARIES = {"SeleniumLibrary": SL, "Browser": BROWSER}


def _quoted(value: str) -> str:
    """`value` as it goes between a call's double quotes; _Unwritable when it cannot."""
    if '"' in value or "\n" in value:
        raise _Unwritable(value)
    return value


class _Unwritable(Exception):
    """A step of a translation that no registered call writes (a value that cannot be quoted, a check
    aitester-bdd has no keyword for)."""


#: the registered call of each act, by its action: {s} the selector, {v} the value
_ACT_CALLS = {"click": 'When I click locator "{s}"', "dblclick": 'When I double click locator "{s}"',
              "fill": 'When I fill locator "{s}" with "{v}"', "select": 'When I select "{v}" from locator "{s}"',
              "check": 'When I check locator "{s}"', "uncheck": 'When I uncheck locator "{s}"',
              "hover": 'When I hover locator "{s}"', "focus": 'When I focus locator "{s}"',
              "upload": 'When I upload file "{v}" to locator "{s}"'}
_SECRET_CALL = 'When I type secret "{v}" into locator "{s}"'
_HISTORY_CALLS = {"reload": "When I reload", "go_back": "When I go back", "go_forward": "When I go forward"}
#: the registered call of each check, by its kind (a text check on no selector: the page's)
_CHECK_CALLS = {"text_contains": 'Then locator "{s}" contains "{v}"', "has_text": 'Then locator "{s}" has text "{v}"',
                "text_not_contains": 'Then locator "{s}" does not contain "{v}"',
                "selector_exists": 'Then locator "{s}" exists', "selector_absent": 'Then selector "{s}" does not exist',
                "url_contains": 'Then url contains "{v}"', "input_value": 'Then input "{s}" has value "{v}"',
                **{kind: f'Then locator "{{s}}" is {kind}' for kind in ("visible", "hidden", "enabled", "disabled",
                                                                         "checked")}}
_PAGE_CHECK_CALLS = {"text_contains": 'Then page contains text "{v}"',
                     "text_not_contains": 'Then page does not contain text "{v}"'}
_COUNT_CALLS = {"equals": "equals", "at_least": "is at least", "at_most": "is at most"}
#: what aitester-bdd calls what flowwalk does as no step
_NO_STEP_CALLS = {"screenshot": "When I take screenshot"}


def _calls_of(step: BaseModel, secret: str | None) -> list[str]:
    """The registered calls that write `step` of the authoring tree, one a line; `secret`: the value
    a fill types that is a secret."""
    if isinstance(step, sm.FrameStep):
        inside = [call for child in step.steps for call in _calls_of(child, secret)]
        return [f'When I enter frame "{_quoted(step.frame)}"', *inside, "When I leave the frame"]
    if isinstance(step, sm.GotoStep):
        return [f'When I open "{_quoted(step.url)}"']
    if isinstance(step, sm.HistoryStep):
        return [_HISTORY_CALLS[step.type]]
    if isinstance(step, sm.ActStep):
        value = step.value if step.value is not None else ""
        pattern = _SECRET_CALL if step.action == "fill" and secret is not None and value == secret else \
            _ACT_CALLS.get(step.action)
        if pattern is None:
            raise _Unwritable(step.action)
        return [pattern.format(s=_quoted(step.selector or ""), v=_quoted(value))]
    if isinstance(step, sm.ExpectCount):
        bound = next(k for k in _COUNT_CALLS if getattr(step, k) is not None)
        return [f'Then count of locator "{_quoted(step.selector)}" {_COUNT_CALLS[bound]} {getattr(step, bound)}']
    if isinstance(step, sm.ExpectAttribute) and step.equals is not None:
        return [f'Then locator "{_quoted(step.selector)}" has attribute "{_quoted(step.name)}" equal to '
                f'"{_quoted(step.equals)}"']
    if isinstance(step, sm.ExpectBase):
        kind, selector = step.__dict__["kind"], step.__dict__.get("selector")
        pattern = (_PAGE_CHECK_CALLS if selector is None and kind in _PAGE_CHECK_CALLS else _CHECK_CALLS).get(kind)
        if pattern is None:
            raise _Unwritable(kind)
        return [pattern.format(s=_quoted(selector or ""), v=_quoted(step.__dict__.get("value") or ""))]
    raise _Unwritable(type(step).__name__)


def _written(translation: foreign.Translation) -> Foreign | None:
    """A translation as the registered calls that do the same, each one a call aitester-bdd matches;
    None when a step has none (`_Unwritable`)."""
    try:
        calls = [call for step in translation.steps for call in _calls_of(step, translation.secret)]
    except _Unwritable:
        return None
    if translation.no_step:
        calls.append(_NO_STEP_CALLS[translation.no_step])
    if not calls or not all(isinstance(match_keyword(call), Match) for call in calls):
        return None
    if any(isinstance(step, sm.FrameStep) for step in translation.steps):
        return Foreign(translation.tools, tuple(calls), "the calls for it are, one a line: " + ", then ".join(calls)
                       + "   (the locator's '>>>' enters a frame; docs/robot.md lists them all)")
    return Foreign(translation.tools, tuple(calls))


@dataclass(frozen=True)
class Foreign:
    """A call of another library's keyword, and the registered call (or calls, in order) that do the same."""

    libraries: tuple[str, ...]
    calls: tuple[str, ...]
    #: what the hint says after naming the library (None: "aitester-bdd's call for it is: <call>")
    note: str | None = None

    @property
    def call(self) -> str:
        return self.calls[0]

    def says(self) -> str:
        """The hint after "'X' is a keyword of <library>; "."""
        if self.note is not None:
            return self.note
        return f"aitester-bdd's call for it is: {self.call}   (docs/robot.md lists them all)"


#: SeleniumLibrary's and the Browser library's keywords that switch frames and windows, with
#: flowwalk's calls for them (its frame and popup blocks; `foreign_call` reads the call before a
#: `Switch Window    NEW` to name the click that opens the window)
_SWITCHES: dict[str, tuple[tuple[str, ...], str]] = {
    "selectframe": ((SL,), 'When I enter frame "{L0}"'),
    "unselectframe": ((SL,), "When I leave the frame"),
    "closewindow": ((SL,), "When I close the popup"),
    "closepage": ((BROWSER,), "When I close the popup"),
    "switchwindow": ((SL,), ""),
    "switchpage": ((BROWSER,), ""),
}
_CLICKS = ("clickelement", "clickbutton", "clicklink", "clickimage", "click")


def _unprefixed(name: str) -> str:
    """A keyword name without its Given/When/Then/And/But."""
    prefix = _PREFIX.match(name)
    return name[prefix.end():] if prefix else name


def _key(name: str) -> str:
    """A keyword name without its Given/When/Then/And/But, normalized."""
    return _normalize(_unprefixed(name))


def _switch(key: str, values: list[str], before: tuple[str, Sequence[str], int] | None) -> Foreign | None:
    """flowwalk's call for one of `_SWITCHES`: a frame or a popup block's start or end."""
    libraries, pattern = _SWITCHES[key]
    own = "flowwalk's call for it is: {}   ({}docs/robot.md lists them all)"
    if pattern:
        frame = foreign.as_selector(values[0]) if values else None
        if "{L0}" in pattern and (frame is None or '"' in frame):
            return None
        call = pattern.replace("{L0}", frame or "")
        return Foreign(libraries, (call,), own.format(call, ""))
    target = (values[0].removeprefix("locator=").strip().upper() if values else "MAIN")
    if target == "MAIN":
        if before is not None and _key(before[0]) in ("closewindow", "closepage"):
            return Foreign(libraries, (), f"delete this line: the line before it (line {before[2]}) becomes "
                           "When I close the popup, which comes back to the page by itself")
        call = "When I switch back from the popup"
        return Foreign(libraries, (call,), own.format(call, "the window stays open, as it does here; "))
    if target != "NEW":
        return None
    click = foreign_call(before[0], before[1]) if before is not None and _key(before[0]) in _CLICKS else None
    if click is None or len(click.calls) != 1:
        return Foreign(libraries, (), "flowwalk switches to a new window with the click that opens it: "
                       "When I click locator \"<css>\" and switch to the popup, and comes back with When I close "
                       "the popup   (docs/robot.md lists them all)")
    assert before is not None
    call = f"{click.call} and switch to the popup"
    return Foreign(libraries, (call,), f"with the click on the line before it (line {before[2]}), flowwalk's call "
                   f"for both is: {call}   (it replaces both lines; docs/robot.md lists them all)")


def foreign_call(name: str, cells: Sequence[str], before: tuple[str, Sequence[str], int] | None = None) -> Foreign | None:
    """When `name` is a keyword of SeleniumLibrary or the Browser library (after an optional
    Given/When/Then/And/But), the registered call that does what it does, with the call's own
    arguments; None when neither `foreign.translate` nor `_SWITCHES` knows it, or its arguments do not fit.
    `before`: the call on the line before (name, cells, line), which a `Switch Window    NEW` takes
    the click that opened the window from."""
    key = _key(name)
    # (an escaped '#' starts no comment inside the call's quotes)
    values = [strip_outer_quotes(c).replace("\\#", "#") for c in cells]
    if key in _SWITCHES:
        return _switch(key, values, before)
    translation = foreign.translate(foreign.ForeignCall(_unprefixed(name), tuple(values)))
    return _written(translation) if translation is not None else None


# --- small shared helpers ---------------------------------------------------------------------------


def strip_outer_quotes(value: str) -> str:
    """Drop one pair of matching outer quotes, as aitester-bdd's `_strip_quotes` does."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


# --- the docs table ---------------------------------------------------------------------------------

DOC_START = "<!-- keyword-table:start (generated by `python -m flowwalk.spec.robot_keywords docs/robot.md`) -->"
DOC_END = "<!-- keyword-table:end -->"
_CELLS_DOC = {"none": "", "options": "k=v options", "keys": "key cells", "rows": "k=v rows",
              "words": "cells", "setup": "k=v cells", "items": "a cell per item"}


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def render_keyword_table() -> str:
    """The Markdown table docs/robot.md carries between its keyword-table markers."""
    lines = ["| family | keyword (registered prefixes) | extra cells | flowwalk |",
             "|---|---|---|---|"]
    for kw in KEYWORDS:
        cells = _CELLS_DOC[kw.cells] + (f" ({', '.join(o + '=' for o in kw.options)})" if kw.options else "")
        if kw.refused:
            what = f"**refused**: {kw.refused[0]}. Instead: {kw.refused[1]}."
        else:
            what = kw.maps_to
        lines.append(f"| {kw.family} | `{_md(kw.shown())}` | {_md(cells)} | {_md(what)} |")
    return "\n".join(lines)


def replace_doc_table(doc: str) -> str:
    head, start, rest = doc.partition(DOC_START)
    _, end, tail = rest.partition(DOC_END)
    if not start or not end:
        raise ValueError("the document has no keyword-table markers")
    return f"{head}{DOC_START}\n{render_keyword_table()}\n{DOC_END}{tail}"


def main(argv: list[str] | None = None) -> int:
    """Rewrite the keyword table of the given Markdown file (docs/robot.md) from KEYWORDS."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m flowwalk.spec.robot_keywords docs/robot.md", file=sys.stderr)
        return 2
    path = Path(args[0])
    path.write_text(replace_doc_table(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
