"""Calls in another tool's language as steps of the authoring tree: the keywords of SeleniumLibrary
and of the Browser library (robotframework-browser) today, an importer's Playwright and Cypress
calls next.

A call is a `ForeignCall`: its name as the tool spells it, its positional and named arguments as
plain text (no file format's quoting or escaping left in them) and where it is written.
`translate` gives the steps of the authoring tree (spec/models/'s step models) that do what it
does, or None when flowwalk has no equivalent or the arguments do not fit. Nothing here knows a
file format: spec/robot_foreign.py writes a translation as aitester-bdd calls for the hint of a
`.robot` line that calls one, an importer writes it into a spec.

The steps are built from the arguments as they are (`models.node`): what writes them out checks
them (the `.robot` hint is a call that must match a registered keyword).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, Sequence

from pydantic import BaseModel

from flowwalk.errors import Location
from flowwalk.spec import models as sm

__all__ = ["BROWSER", "KEYWORD_NAMES", "SL", "ForeignCall", "Translation", "as_selector", "translate"]

SL, BROWSER = "SeleniumLibrary", "the Browser library"


@dataclass(frozen=True)
class ForeignCall:
    """One call in another tool's language."""

    #: as the tool spells it (`Input Text`); the libraries' names match as Robot Framework matches
    #: keywords: case, spaces and underscores aside
    name: str
    args: tuple[str, ...] = ()
    named: Mapping[str, str] = field(default_factory=dict)
    loc: Location | None = None


@dataclass(frozen=True)
class Translation:
    """What a foreign call becomes: steps of the authoring tree, in order."""

    #: whose call it is ("SeleniumLibrary", "the Browser library")
    tools: tuple[str, ...]
    #: a call whose locator pierces frames (`#pay >>> #card`) is its step inside `FrameStep`s
    steps: tuple[BaseModel, ...]
    #: the value the call types that is a secret (a password), as written
    secret: str | None = None
    #: what the call does that flowwalk does as no step: "screenshot" (taken per rule, not as a step)
    no_step: str = ""
    loc: Location | None = None


_STRATEGY = re.compile(r"(id|name|css|xpath|class|tag|link|partial link|text|identifier|dom|jquery|sizzle|data)"
                       r"\s*[=:]\s*(.+)", re.IGNORECASE | re.DOTALL)


def as_selector(locator: str) -> str | None:
    """SeleniumLibrary's and the Browser library's locator strategies as a flowwalk selector
    (Playwright's selectors): `id=x` -> `#x`, `name=n` -> `[name='n']`, `css=` (or `css:`) dropped,
    `xpath=` and a bare `//...` an `xpath=`, `link=` a `text=`. Anything else is taken as CSS, as
    both libraries do; None for a strategy with no equivalent here (`dom=`, `partial link=`, ...)."""
    if locator.startswith(("//", "(//")):
        return f"xpath={locator}"
    found = _STRATEGY.fullmatch(locator)
    if found is None:
        return locator
    strategy, value = found.group(1).lower(), found.group(2)
    if strategy == "css":
        return value
    if strategy == "xpath":
        return f"xpath={value}"
    if strategy == "id":
        return f"#{value}" if re.fullmatch(r"[A-Za-z_][\w-]*", value) else f"[id='{value}']"
    if strategy in ("name", "class", "tag") and "'" not in value:
        return {"name": f"[name='{value}']", "class": f".{value}", "tag": value}[strategy]
    if strategy in ("link", "text"):
        return f"text={value}"
    return None


# --- the libraries' keywords ------------------------------------------------------------------------


class _Unfit(Exception):
    """The call's arguments do not fit its translation (one missing, a locator with no equivalent)."""


def _arg(args: Sequence[str], i: int) -> str:
    if i >= len(args):
        raise _Unfit
    return args[i]


def _selector(args: Sequence[str], i: int) -> str:
    selector = as_selector(_arg(args, i))
    if selector is None:
        raise _Unfit
    return selector


Make = Callable[[Sequence[str]], Translation]


def _goto(args: Sequence[str]) -> Translation:
    return Translation((), (sm.node(sm.GotoStep, type="goto", url=_arg(args, 0)),))


def _act(action: str, value: int | None = None, secret: bool = False) -> Make:
    """An act on the element the first argument locates, `value` the index of its value."""
    def make(args: Sequence[str]) -> Translation:
        selector = _selector(args, 0)
        typed = _arg(args, value) if value is not None else None
        step = sm.node(sm.ActStep, type="act", action=action, selector=selector, value=typed)
        return Translation((), (step,), secret=typed if secret else None)
    return make


def _history(move: str) -> Make:
    return lambda args: Translation((), (sm.node(sm.HistoryStep, type=move),))


def _screenshot(args: Sequence[str]) -> Translation:
    return Translation((), (), no_step="screenshot")


def _expect(kind: str, value: int | None = None, selector: bool = True) -> Make:
    """A check of `kind` on the element the first argument locates (`selector`), `value` the index
    of the text it compares with."""
    def make(args: Sequence[str]) -> Translation:
        fields: dict[str, object] = {"selector": _selector(args, 0) if selector else None}
        if value is not None:
            fields["value"] = _arg(args, value)
        return Translation((), (sm.node(sm.expect_model(kind), type="expect", kind=kind, **fields),))
    return make


def _attribute(args: Sequence[str]) -> Translation:
    step = sm.node(sm.ExpectAttribute, type="expect", kind="attribute", selector=_selector(args, 0),
                   name=_arg(args, 1), equals=_arg(args, 2))
    return Translation((), (step,))


#: the Browser library's element states that flowwalk checks, by their name there
_STATES = ("visible", "hidden", "enabled", "disabled", "checked")


def _state(args: Sequence[str]) -> Translation:
    """`Wait For Elements State    <locator>    <state>`: a check waits until it holds."""
    state = _normalize(_arg(args, 1))
    if state not in _STATES:
        raise _Unfit
    return _expect(state)(args)


#: the Browser library's assertion operators that `Get Text`, `Get Url` and `Get Element Count`
#: translate, by the operator: what the check is
_TEXT_OPERATORS = {"==": "has_text", "equal": "has_text", "*=": "text_contains", "contains": "text_contains"}
_URL_OPERATORS = {"*=": "url_contains", "contains": "url_contains"}
_COUNT_OPERATORS = {"==": "equals", ">=": "at_least", "<=": "at_most"}


def _operator(args: Sequence[str], at: int, known: Mapping[str, str]) -> str:
    """What the assertion operator at `at` (after the selector, if there is one) translates to."""
    operator = args[at].strip().lower() if len(args) > at else ""
    if operator not in known:
        raise _Unfit
    return known[operator]


def _get_text(args: Sequence[str]) -> Translation:
    return _expect(_operator(args, 1, _TEXT_OPERATORS), value=2)(args)


def _get_url(args: Sequence[str]) -> Translation:
    kind = _operator(args, 0, _URL_OPERATORS)
    return Translation((), (sm.node(sm.expect_model(kind), type="expect", kind=kind, value=_arg(args, 1)),))


def _get_element_count(args: Sequence[str]) -> Translation:
    bound = _operator(args, 1, _COUNT_OPERATORS)
    try:
        count = int(_arg(args, 2))
    except ValueError:
        raise _Unfit from None
    step = sm.node(sm.ExpectCount, type="expect", kind="count", selector=_selector(args, 0), **{bound: count})
    return Translation((), (step,))


#: keywords of SeleniumLibrary and of the Browser library that a suite moved from them is likely to
#: call: (their names, whose they are, what they become). Their frame and window keywords are not
#: here: they are lines of a suite around other calls, not steps (spec/robot_foreign.py `_SWITCHES`).
_KEYWORDS: tuple[tuple[tuple[str, ...], tuple[str, ...], Make], ...] = (
    (("Go To",), (SL, BROWSER), _goto),
    (("Open Browser",), (SL,), _goto),
    (("New Page",), (BROWSER,), _goto),
    (("Click Element", "Click Button", "Click Link", "Click Image"), (SL,), _act("click")),
    (("Click",), (BROWSER,), _act("click")),
    (("Double Click Element",), (SL,), _act("dblclick")),
    (("Input Text",), (SL,), _act("fill", value=1)),
    (("Fill Text", "Type Text"), (BROWSER,), _act("fill", value=1)),
    (("Input Password",), (SL,), _act("fill", value=1, secret=True)),
    (("Fill Secret", "Type Secret"), (BROWSER,), _act("fill", value=1, secret=True)),
    (("Select From List By Value", "Select From List By Label"), (SL,), _act("select", value=1)),
    (("Select Checkbox",), (SL,), _act("check")),
    (("Check Checkbox",), (BROWSER,), _act("check")),
    (("Unselect Checkbox",), (SL,), _act("uncheck")),
    (("Uncheck Checkbox",), (BROWSER,), _act("uncheck")),
    (("Mouse Over",), (SL,), _act("hover")),
    (("Hover",), (BROWSER,), _act("hover")),
    (("Set Focus To Element",), (SL,), _act("focus")),
    (("Focus",), (BROWSER,), _act("focus")),
    (("Choose File",), (SL,), _act("upload", value=1)),
    (("Upload File By Selector",), (BROWSER,), _act("upload", value=1)),
    (("Reload Page",), (SL,), _history("reload")),
    (("Reload",), (BROWSER,), _history("reload")),
    (("Go Back",), (SL, BROWSER), _history("go_back")),
    (("Capture Page Screenshot",), (SL,), _screenshot),
    (("Take Screenshot",), (BROWSER,), _screenshot),
    # a check of flowwalk waits until it holds (verify-until-stable): the waits become checks
    (("Element Should Contain", "Wait Until Element Contains"), (SL,), _expect("text_contains", value=1)),
    (("Element Text Should Be",), (SL,), _expect("has_text", value=1)),
    (("Element Should Not Contain",), (SL,), _expect("text_not_contains", value=1)),
    (("Element Should Be Visible", "Wait Until Element Is Visible"), (SL,), _expect("visible")),
    (("Element Should Not Be Visible", "Wait Until Element Is Not Visible"), (SL,), _expect("hidden")),
    (("Element Should Be Enabled", "Wait Until Element Is Enabled"), (SL,), _expect("enabled")),
    (("Element Should Be Disabled",), (SL,), _expect("disabled")),
    (("Checkbox Should Be Selected",), (SL,), _expect("checked")),
    (("Page Should Contain", "Wait Until Page Contains"), (SL,), _expect("text_contains", value=0, selector=False)),
    (("Page Should Not Contain", "Wait Until Page Does Not Contain"), (SL,),
     _expect("text_not_contains", value=0, selector=False)),
    (("Page Should Contain Element", "Wait Until Page Contains Element"), (SL,), _expect("selector_exists")),
    (("Page Should Not Contain Element", "Wait Until Page Does Not Contain Element"), (SL,),
     _expect("selector_absent")),
    (("Location Should Contain", "Wait Until Location Contains"), (SL,), _expect("url_contains", value=0,
                                                                                 selector=False)),
    (("Textfield Value Should Be",), (SL,), _expect("input_value", value=1)),
    (("Element Attribute Value Should Be",), (SL,), _attribute),
    (("Wait For Elements State",), (BROWSER,), _state),
    (("Get Text",), (BROWSER,), _get_text),
    (("Get Url",), (BROWSER,), _get_url),
    (("Get Element Count",), (BROWSER,), _get_element_count),
)
#: every keyword name the table translates, as the libraries spell them
KEYWORD_NAMES: tuple[str, ...] = tuple(name for names, _, _ in _KEYWORDS for name in names)


def _normalize(name: str) -> str:
    """A keyword name as Robot Framework compares them: case, spaces and underscores aside."""
    return name.lower().replace(" ", "").replace("_", "")


_BY_NAME = {_normalize(name): (tools, make) for names, tools, make in _KEYWORDS for name in names}


def translate(call: ForeignCall) -> Translation | None:
    """The steps that do what `call` does; None when its name is not one the table knows, or its
    arguments do not fit (too few, a locator strategy with no equivalent, an operator not listed).
    A locator that pierces frames (`#pay >>> #card`, the Browser library's) puts the step inside a
    frame block for each frame."""
    found = _BY_NAME.get(_normalize(call.name))
    if found is None:
        return None
    tools, make = found
    pierced = next((i for i, arg in enumerate(call.args) if ">>>" in arg), None)
    if pierced is not None:
        parts = [part.strip() for part in call.args[pierced].split(">>>")]
        frames = [as_selector(part) for part in parts[:-1]]
        inside = translate(replace(call, args=(*call.args[:pierced], parts[-1], *call.args[pierced + 1:])))
        if inside is None or len(inside.steps) != 1 or any(frame is None for frame in frames):
            return None
        step = inside.steps[0]
        for frame in reversed(frames):
            step = sm.node(sm.FrameStep, frame=frame, steps=[step])
        return replace(inside, steps=(step,))
    try:
        made = make(call.args)
    except _Unfit:
        return None
    return replace(made, tools=tools, loc=call.loc)
