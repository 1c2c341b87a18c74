"""The builders of the aitester-bdd keywords: for each call, the steps of the authoring tree
(spec/models/, lowered by the file's `lower.StepBuilder`) and the rule and scenario fields it
declares in the `PlanDraft`. Each public builder is the `build` of rows of the table in
`spec/robot_keywords.py`; a factory (`build_text_check`, `build_state_check`, ...) makes the
builder of a family of rows.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Literal, Optional

from pydantic import BaseModel, ValidationError

from flowwalk.errors import Location
from flowwalk.events import StepFrame
from flowwalk.model import EMIT_SOURCES, Act, PopupPlan, Retry
from flowwalk.spec import models as sm
from flowwalk.spec.problems import errors_to_problems
from flowwalk.spec.robot_calls import (Builder, Call, CallError, Cell, OpenPlace, PlanDraft, RuleDraft,
                                       ScenarioDraft, SecretMode, SetupAction, all_of, strip_outer_quotes)
from flowwalk.spec.source import PathKey, Source, quote
from flowwalk.spec.spelling import choices_hint


# --- builders: lifecycle and rule structure ---------------------------------------------------------


def build_start_verification(call: Call, plan: PlanDraft) -> None:
    call.nonempty("name", "verification name")
    if plan.scenarios or plan.dismiss or plan.setup_actions:
        raise CallError(f"'{call.name}' comes after scenarios or settings were declared",
                        "aitester-bdd would discard everything declared before it; "
                        "start the verification first, in the Suite Setup")
    plan.verification_started = True


def build_finalize(call: Call, plan: PlanDraft) -> None:
    # flowwalk walks every scenario once after loading; finalize only marks the end of Phase A.
    return None


def build_start_scenario(call: Call, plan: PlanDraft) -> None:
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


def build_define_rule(call: Call, plan: PlanDraft) -> None:
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


def build_declare_parents(call: Call, plan: PlanDraft) -> None:
    _add_parents(call, plan, call.arg("names"))


def build_declare_parents_cells(call: Call, plan: PlanDraft) -> None:
    # aitester-bdd joins the cells with a space and then splits on commas
    if not call.cells:
        raise CallError(f"'{call.name}' names no parent", "write: And I declare parents \"login, open_case\"")
    _add_parents(call, plan, " ".join(call.cell(c) for c in call.cells))


# --- builders: configuration ------------------------------------------------------------------------


def build_set_retry(call: Call, plan: PlanDraft) -> None:
    rule = plan.current_rule(call)
    rule.retry = Retry(max=call.integer("max", 0, 100), delay_ms=call.integer("delay", 0, 600_000))


def build_guard_policy(call: Call, plan: PlanDraft) -> None:
    policy = call.arg("policy").strip()
    if policy not in ("skip", "abort"):
        raise CallError(f"unknown guard policy '{policy}'",
                        choices_hint(policy, ("skip", "abort"), "valid policies")
                        + "; aitester-bdd would treat it as skip")
    plan.current_rule(call).guard_policy = policy  # type: ignore[assignment]


def build_pause_interrupts(call: Call, plan: PlanDraft) -> None:
    rule = plan.current_rule(call)
    if rule.interrupts == "override":
        raise CallError(f"rule '{rule.name}' both pauses and scopes its interrupts",
                        f"the other one is at {rule.interrupts_loc}; keep one of them")
    rule.interrupts, rule.interrupts_loc = "paused", call.loc


def build_scope_interrupts(call: Call, plan: PlanDraft) -> None:
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


def build_rule_timeout(call: Call, plan: PlanDraft) -> None:
    raw = call.raw_args["ms"]
    text = call.arg("ms") + (" ms" if call.keyword.pattern.endswith(" ms") else "")
    _apply_timeout(call, plan, text, call.arg_loc(raw))


def build_rule_timeout_cells(call: Call, plan: PlanDraft) -> None:
    if not call.cells:
        raise CallError(f"'{call.name}' has no duration", "write: And I set rule timeout    30 s")
    _apply_timeout(call, plan, " ".join(call.cell(c) for c in call.cells), call.cells[0].loc)


def build_scope_children(call: Call, plan: PlanDraft) -> None:
    plan.current_rule(call).child_scope = call.nonempty("css", "scope selector")


def build_screenshot_on_enter(call: Call, plan: PlanDraft) -> None:
    plan.current_rule(call).screenshot_on_enter = True


def build_screenshot_on_fail(call: Call, plan: PlanDraft) -> None:
    plan.current_rule(call).screenshot_on_fail = True


def build_configure_interrupts(call: Call, plan: PlanDraft) -> None:
    options = call.options()
    if "dismiss" not in options:
        raise CallError(f"'{call.name}' has no dismiss= cell", "write: And I configure interrupts    dismiss=#cookie-accept")
    plan.dismiss.append(options["dismiss"])


_SETUP_ACTIONS: dict[str, tuple[str, ...]] = {
    "open": ("url",), "input": ("css", "value"), "password": ("css", "value"), "click": ("css",),
}


def build_configure_state_setup(call: Call, plan: PlanDraft) -> None:
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
# Every call becomes steps of the authoring tree (spec/models/'s step models), which the file's
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


def build_open(call: Call, plan: PlanDraft) -> None:
    url = call.nonempty("url", "URL")
    _not_in_frame(call, plan)
    _add(call, plan, sm.node(sm.GotoStep, type="goto", url=url))


def build_history(move: str) -> Builder:
    """`When I reload`, `When I go back`, `When I go forward`: the browser's buttons."""
    def build(call: Call, plan: PlanDraft) -> None:
        _not_in_frame(call, plan)
        _add(call, plan, sm.node(sm.HistoryStep, type=move))
    return build


def build_click(call: Call, plan: PlanDraft) -> None:
    _act(call, plan, "click", call.nonempty("css", "selector"))


def build_click_text(call: Call, plan: PlanDraft) -> None:
    text = call.nonempty("text", "text")
    if " | " in text:
        raise CallError(f"text '{text}' contains ' | ', which flowwalk reads as a selector fallback",
                        "use When I click locator \"<css>\" for this element")
    quoted = text.replace("\\", "\\\\").replace('"', '\\"')
    # aitester-bdd tries text="X" (exact) and then text=X (substring); the walker's pipe fallback
    # does the same, and the target lets it re-resolve by text when neither matches
    _act(call, plan, "click", f'text="{quoted}" | text={text}', target=text)


def build_dblclick(call: Call, plan: PlanDraft) -> None:
    _act(call, plan, "dblclick", call.nonempty("css", "selector"))


def build_type_keys(call: Call, plan: PlanDraft) -> None:
    """flowwalk's own: type key by key (aitester-bdd's `I type ... into` fills at once)."""
    _act(call, plan, "type", call.nonempty("css", "selector"), value=call.nonempty("value", "text"))


def build_drag(call: Call, plan: PlanDraft) -> None:
    _add(call, plan, sm.node(sm.ActStep, type="act", action="drag", selector=call.nonempty("css", "selector"),
                           to=call.nonempty("to", "drop target")))


def build_dispatch(call: Call, plan: PlanDraft) -> None:
    event = call.nonempty("event", "event type")
    if not re.match(sm.EVENT_NAME_PATTERN, event):
        raise CallError(f"'{event}' is not an event type", sm.EVENT_NAME_HINT)
    _add(call, plan, sm.node(sm.ActStep, type="act", action="dispatch", selector=call.nonempty("css", "selector"),
                           event=event))


def build_fill(call: Call, plan: PlanDraft) -> None:
    value = call.arg("value", "placeholder") if "value" in call.raw_args else ""
    _act(call, plan, "fill", call.nonempty("css", "selector"), value)


def build_type_secret(call: Call, plan: PlanDraft) -> None:
    value = call.arg("value", "only")
    _act(call, plan, "fill", call.nonempty("css", "selector"), value)


def build_select(call: Call, plan: PlanDraft) -> None:
    _act(call, plan, "select", call.nonempty("css", "selector"), call.arg("value"))


def build_simple_action(action: str) -> Builder:
    def build(call: Call, plan: PlanDraft) -> None:
        _act(call, plan, action, call.nonempty("css", "selector"))
    return build


def build_press_keys(call: Call, plan: PlanDraft) -> None:
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


def build_upload(call: Call, plan: PlanDraft) -> None:
    _act(call, plan, "upload", call.nonempty("css", "selector"), call.nonempty("path", "file path"))


def build_scroll_down(call: Call, plan: PlanDraft) -> None:
    # aitester-bdd scrolls the page by 1000 px; on `body` the walker scrolls the window
    _add(call, plan, sm.node(sm.ActStep, type="act", action="scroll", selector="body", value="1000"))


def build_set_stepper(call: Call, plan: PlanDraft) -> None:
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
                        call.arg_loc(call.raw_args[name])) from None


def build_url_check(kind: str) -> Builder:
    def build(call: Call, plan: PlanDraft) -> None:
        if kind == "url_matches":
            _expect(call, plan, kind, value=_regex(call, "pattern"))
        else:
            _expect(call, plan, kind, value=call.arg("pattern"))
    return build


def build_selector_check(kind: str) -> Builder:
    def build(call: Call, plan: PlanDraft) -> None:
        _expect(call, plan, kind, selector=call.nonempty("css", "selector"))
    return build


def build_count(bound: Literal["equals", "at_least", "at_most"]) -> Builder:
    def build(call: Call, plan: PlanDraft) -> None:
        _expect(call, plan, "count", selector=call.nonempty("css", "selector"), **{bound: call.integer("n", 0)})
    return build


def build_text_check(kind: str, page: bool = False) -> Builder:
    def build(call: Call, plan: PlanDraft) -> None:
        selector = "body" if page else call.nonempty("css", "selector")
        if kind == "text_matches":
            _expect(call, plan, kind, selector=selector, value=_regex(call, "regex"))
        else:
            _expect(call, plan, kind, selector=selector, value=call.arg("text"))
    return build


def build_class_check(present: bool) -> Builder:
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


def build_attribute(match: Literal["equals", "contains"]) -> Builder:
    def build(call: Call, plan: PlanDraft) -> None:
        _expect(call, plan, "attribute", selector=call.nonempty("css", "selector"),
                name=call.nonempty("attr", "attribute name"), **{match: call.arg("value")})
    return build


def build_input_value(call: Call, plan: PlanDraft) -> None:
    value = call.arg("value") if "value" in call.raw_args else ""
    _expect(call, plan, "input_value", selector=call.nonempty("css", "selector"), value=value)


def build_table_headers(call: Call, plan: PlanDraft) -> None:
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


def build_emit(call: Call, plan: PlanDraft) -> None:
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
                        call.arg_loc(call.raw_args.get("name", "")))
    plan.add_steps(call, dataclasses.replace(expect, text=call.text))


def _target(call: Call, kind: str) -> tuple[dict[str, object], dict[PathKey, Location]]:
    """A check's model data so far: its kind, its baseline `name` and its `selector` when written."""
    data: dict[str, object] = {"kind": kind}
    places: dict[PathKey, Location] = {}
    for arg, key in (("name", "name"), ("css", "selector")):
        if arg in call.raw_args:
            data[key] = call.nonempty(arg, "selector") if arg == "css" else call.arg(arg).strip()
            places[(key,)] = call.arg_loc(call.raw_args[arg])
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


def build_aria_snapshot(call: Call, plan: PlanDraft) -> None:
    data, places = _target(call, "aria_snapshot")
    _add_check(call, plan, sm.ExpectAriaSnapshot, data, places)


def build_screenshot(call: Call, plan: PlanDraft) -> None:
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


def build_accessible(call: Call, plan: PlanDraft) -> None:
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


def build_items_check(kind: Literal["texts", "classes"], match: Literal["equals", "contains"]) -> Builder:
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


def build_state_check(kind: str, model: type[BaseModel], arg: str, **fixed: str) -> Builder:
    """`local storage "theme"    equals=dark`: a state check, its first argument `arg`, the rest
    option cells as a flow spec's keys (`where=` and `body=` repeat, each `path=value`)."""

    def build(call: Call, plan: PlanDraft) -> None:
        data: dict[str, object] = {"kind": kind, **fixed, arg: call.nonempty(arg, arg)}
        places: dict[PathKey, Location] = {(arg,): call.arg_loc(call.raw_args[arg])}
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


def build_click_answering(call: Call, plan: PlanDraft) -> None:
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


def build_enter_frame(call: Call, plan: PlanDraft) -> None:
    """`When I enter frame "#pay"`: the steps up to `When I leave the frame` run in that iframe (a
    flow's `frame:` block)."""
    selector = call.nonempty("css", "frame selector")
    rule = plan.current_rule(call)
    block = plan.open_place(call, "frame", f"frame {quote(selector)}", selector)
    plan.places.append(OpenPlace(block, rule, plan.frames, call.loc))


def build_click_to_popup(call: Call, plan: PlanDraft) -> None:
    """`When I click locator "#terms" and switch to the popup`: a click that opens a popup; the
    steps up to `When I close the popup` run in it (a flow's `popup:`)."""
    selector = call.nonempty("css", "selector")
    rule = plan.current_rule(call)
    block = plan.open_place(call, "popup", f"popup of click {quote(selector)}")
    _add(call, plan, sm.node(sm.ActStep, type="act", action="click", selector=selector), popup=PopupPlan(block.id))
    plan.places.append(OpenPlace(block, rule, plan.frames, call.loc, act_index=len(rule.steps) - 1))


_ENTERS = {"frame": 'When I enter frame "<css>"', "popup": 'When I click locator "<css>" and switch to the popup'}
_LEAVES = {"frame": "When I leave the frame", "popup": "When I close the popup (or When I switch back from the popup)"}


def build_leave(kind: Literal["frame", "popup"], close: bool = True) -> Builder:
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


def build_string_setting(key: str, arg: str, what: str) -> Builder:
    def build(call: Call, plan: PlanDraft) -> None:
        _environment(call, plan, key, call.arg(arg).strip(), {(key,): call.arg_loc(call.raw_args[arg])}, what)
    SETTING_BUILDERS.append(build)
    return build


#: the builders of `build_string_setting`, for `_ROLES`
SETTING_BUILDERS: list[Builder] = []


def _coordinate(call: Call, name: str, whole: bool) -> int | float:
    value = call.arg(name).strip()
    try:
        return _as_number(value, whole)
    except ValueError:
        example = "1280 x 720" if whole else "48.8566, 2.3522"
        raise CallError(f"'{value}' is not {'a whole number' if whole else 'a number'} in '{call.name}'",
                        f"write digits only, e.g. {call.keyword.pattern.split(' to ')[0]} to {example}",
                        call.arg_loc(call.raw_args[name])) from None


def build_viewport(call: Call, plan: PlanDraft) -> None:
    data = {"width": _coordinate(call, "width", True), "height": _coordinate(call, "height", True)}
    places: dict[PathKey, Location] = {("viewport", k): call.arg_loc(call.raw_args[k]) for k in data}
    _environment(call, plan, "viewport", data, places, "the viewport")


def build_geolocation(call: Call, plan: PlanDraft) -> None:
    data: dict[str, object] = {}
    places: dict[PathKey, Location] = {}
    cells, errors = call.option_cells_and_errors()
    for name in ("latitude", "longitude"):
        places[("geolocation", name)] = call.arg_loc(call.raw_args[name])
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


def build_use_session(call: Call, plan: PlanDraft) -> None:
    scenario = _scenario_setting(call, plan, "the saved session")
    if scenario.session is not None:
        raise CallError(f"test case '{scenario.test_name}' uses two sessions",
                        f"the first is at {scenario.session_loc}; a scenario starts from one saved session")
    name = call.arg("name").strip()
    _located(call, _SuiteSettings, {"session": name}, {("session",): call.arg_loc(call.raw_args["name"])})
    scenario.session, scenario.session_loc = name, call.loc


def build_save_session(call: Call, plan: PlanDraft) -> None:
    rule = plan.current_rule(call)
    if rule.saves_session is not None:
        raise CallError(f"rule '{rule.name}' saves two sessions",
                        f"the first is at {rule.saves_session_loc}; save one session per rule")
    name = call.arg("name").strip()
    _located(call, _SuiteSettings, {"saves_session": name},
             {("saves_session",): call.arg_loc(call.raw_args["name"])})
    rule.saves_session, rule.saves_session_loc = name, call.loc
