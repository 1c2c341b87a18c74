"""SeleniumLibrary and Browser-library calls in a `.robot` suite, written as the aitester-bdd calls
that do the same: `foreign_call` gives the lines a refused call's hint names. The translation into
tree steps is `spec/foreign.py`'s; this module writes its steps as keyword calls and checks each
against the table (`match_keyword`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from pydantic import BaseModel

from flowwalk.spec import foreign
from flowwalk.spec import models as sm
from flowwalk.spec.foreign import BROWSER, SL
from flowwalk.spec.robot_calls import strip_outer_quotes
from flowwalk.spec.robot_keywords import PREFIX_RE, Match, match_keyword, normalize_name

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
    prefix = PREFIX_RE.match(name)
    return name[prefix.end():] if prefix else name


def _key(name: str) -> str:
    """A keyword name without its Given/When/Then/And/But, normalized."""
    return normalize_name(_unprefixed(name))


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
