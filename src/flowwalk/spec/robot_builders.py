"""The builders of the aitester-bdd keywords whose values the keyword grammar has checked: for each
call, the steps of the authoring tree (spec/models/, lowered by the file's `lower.StepBuilder`)
and the rule and scenario fields it declares in the `PlanDraft`: the lifecycle, a rule's
configuration, actions, state checks, emit rows, frames and popups. The builders whose values the
models validate are `spec/robot_validated.py`'s. Each public builder is the `build` of rows of the
table in `spec/robot_keywords.py`; a factory (`build_text_check`, `build_url_check`, ...) makes the
builder of a family of rows.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Literal

from pydantic import BaseModel

from flowwalk.errors import Location
from flowwalk.events import StepFrame
from flowwalk.model import EMIT_SOURCES, Act, PopupPlan, Retry
from flowwalk.spec import models as sm
from flowwalk.spec.robot_calls import (Builder, Call, CallError, Cell, OpenPlace, PlanDraft, RuleDraft,
                                       ScenarioDraft, SecretMode, SetupAction, strip_outer_quotes)
from flowwalk.spec.source import quote
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
# the models' own (baselines, lists, storage, dialogs) are validated by them (spec/robot_validated.py).


def add_tree_steps(call: Call, plan: PlanDraft, *steps: BaseModel, popup: PopupPlan | None = None) -> None:
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
    add_tree_steps(call, plan, sm.node(sm.ActStep, type="act", action=action, selector=selector, value=value,
                                       target=target, await_=_await(call)))


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
    add_tree_steps(call, plan, sm.node(sm.GotoStep, type="goto", url=url))


def build_history(move: str) -> Builder:
    """`When I reload`, `When I go back`, `When I go forward`: the browser's buttons."""
    def build(call: Call, plan: PlanDraft) -> None:
        _not_in_frame(call, plan)
        add_tree_steps(call, plan, sm.node(sm.HistoryStep, type=move))
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
    add_tree_steps(call, plan, sm.node(sm.ActStep, type="act", action="drag", selector=call.nonempty("css", "selector"),
                           to=call.nonempty("to", "drop target")))


def build_dispatch(call: Call, plan: PlanDraft) -> None:
    event = call.nonempty("event", "event type")
    if not re.match(sm.EVENT_NAME_PATTERN, event):
        raise CallError(f"'{event}' is not an event type", sm.EVENT_NAME_HINT)
    add_tree_steps(call, plan, sm.node(sm.ActStep, type="act", action="dispatch",
                                       selector=call.nonempty("css", "selector"), event=event))


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
    add_tree_steps(call, plan, *steps)


def build_upload(call: Call, plan: PlanDraft) -> None:
    _act(call, plan, "upload", call.nonempty("css", "selector"), call.nonempty("path", "file path"))


def build_scroll_down(call: Call, plan: PlanDraft) -> None:
    # aitester-bdd scrolls the page by 1000 px; on `body` the walker scrolls the window
    add_tree_steps(call, plan, sm.node(sm.ActStep, type="act", action="scroll", selector="body", value="1000"))


def build_set_stepper(call: Call, plan: PlanDraft) -> None:
    css = call.nonempty("css", "selector")
    count = call.integer("count", 1, 100)
    add_tree_steps(call, plan, *(sm.node(sm.ActStep, type="act", action="click", selector=css) for _ in range(count)))


# --- builders: state checks -------------------------------------------------------------------------


def _expect(call: Call, plan: PlanDraft, kind: str, **fields: object) -> None:
    """A check of `kind`, its keys as a flow spec's (`selector`, `value`, `equals`, ...)."""
    add_tree_steps(call, plan, sm.node(sm.expect_model(kind), type="expect", kind=kind, **fields))


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
    add_tree_steps(call, plan, *steps)


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
    add_tree_steps(call, plan, sm.node(sm.EmitStep, type="emit", name=name, fields=built))


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
    add_tree_steps(call, plan, sm.node(sm.ActStep, type="act", action="click", selector=selector),
                   popup=PopupPlan(block.id))
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
