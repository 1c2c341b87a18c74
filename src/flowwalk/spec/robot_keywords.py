"""The aitester-bdd keyword table: every registered name, how Robot Framework matches it, what it becomes.

One table (`KEYWORDS`) holds, for each keyword aitester-bdd registers, its pattern with embedded
`${args}`, the BDD prefixes it is registered with, and either a builder (`spec/robot_builders.py`)
that turns a call into steps of the authoring tree (spec/models/, lowered by `lower.StepBuilder`)
and rule fields, or the reason flowwalk refuses it. `match_keyword` resolves a call
name the way Robot Framework does (full registered names first, best embedded match, then the
Given/When/Then/And/But prefix stripped); `render_keyword_table` writes the same table as the
Markdown that `docs/robot.md` carries. Reading files, variables and assembling the model is
`spec/robot.py`; this module only knows the grammar.
"""

from __future__ import annotations

import difflib
import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from robot.running.arguments.embedded import VARIABLE_PLACEHOLDER, EmbeddedArguments
from robot.variables import VariableMatches

from flowwalk.spec import models as sm
from flowwalk.spec.robot_builders import (build_attribute, build_class_check, build_click, build_click_text,
                                          build_click_to_popup, build_configure_interrupts,
                                          build_configure_state_setup, build_count, build_dblclick,
                                          build_declare_parents, build_declare_parents_cells, build_define_rule,
                                          build_dispatch, build_drag, build_emit, build_enter_frame, build_fill,
                                          build_finalize, build_guard_policy, build_history, build_input_value,
                                          build_leave, build_open, build_pause_interrupts, build_press_keys,
                                          build_rule_timeout, build_rule_timeout_cells, build_scope_children,
                                          build_scope_interrupts, build_screenshot_on_enter, build_screenshot_on_fail,
                                          build_scroll_down, build_select, build_selector_check, build_set_retry,
                                          build_set_stepper, build_simple_action, build_start_scenario,
                                          build_start_verification, build_table_headers, build_text_check,
                                          build_type_keys, build_type_secret, build_upload, build_url_check)
from flowwalk.spec.robot_calls import Builder, Cell, Cells, Keyword, strip_outer_quotes
from flowwalk.spec.robot_validated import (SETTING_BUILDERS, build_accessible, build_aria_snapshot,
                                           build_click_answering, build_geolocation, build_items_check,
                                           build_save_session, build_screenshot, build_state_check,
                                           build_string_setting, build_use_session, build_viewport)

G, W, T, A, B = "Given", "When", "Then", "And", "But"
BDD_PREFIXES = (G, W, T, A, B)
#: the order in which a did-you-mean picks among a keyword's registered prefixes
_SUGGEST_ORDER = (A, T, W, G, B)

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
    build_start_scenario: "scenario", build_define_rule: "rule", build_type_secret: "secret",
    build_configure_state_setup: "setup", build_use_session: "setting", build_viewport: "setting",
    build_geolocation: "setting",
}


def _kw(pattern: str, prefixes: tuple[str, ...], family: str, maps_to: str, build: Builder | None = None,
        cells: Cells = "none", options: tuple[str, ...] = (), refused: tuple[str, str] | None = None,
        repeatable: tuple[str, ...] = ()) -> Keyword:
    role = (_ROLES.get(build) or ("setting" if build in SETTING_BUILDERS else "")) if build is not None else ""
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
        build_start_verification),
    _kw("I finalize verification", (T,), "lifecycle", "accepted; flowwalk walks every scenario once", build_finalize),
    _kw('I start scenario "${name}" at "${url}"', (G,), "lifecycle",
        "starts the test case's Scenario, entry URL `url`", build_start_scenario),
    _kw('I start scenario "${name}"', (G,), "lifecycle", "starts the test case's Scenario, no entry URL",
        build_start_scenario),
    # 1.2 rule structure
    _kw('I define rule "${name}"', (), "rule structure", "a new Rule (declaration order)", build_define_rule),
    _kw('I declare parents "${names}"', (A,), "rule structure", "Rule.parents (comma separated, cumulative)",
        build_declare_parents),
    _kw("I declare parents", (A,), "rule structure", "Rule.parents from the cells (joined, split on commas)",
        build_declare_parents_cells, cells="words"),
    _kw("I explore", (), "explore", "refused", cells="words", refused=_EXPLORE),
    _kw("I explore and author", (), "explore", "refused", cells="words", refused=_EXPLORE),
    # 1.3 configuration, per rule
    _kw("I set retry ${max} times with ${delay} ms delay", (A,), "configuration",
        "Rule.retry = {max, delay_ms}", build_set_retry),
    _kw('I set guard policy "${policy}"', (A,), "configuration", "Rule.guard_policy (skip | abort)",
        build_guard_policy),
    _kw("I pause interrupts", (A,), "configuration", "Rule.interrupts = paused", build_pause_interrupts),
    _kw('I scope interrupts to "${selectors}"', (A,), "configuration",
        "Rule.interrupts = override, Rule.interrupt_selectors (comma separated)", build_scope_interrupts),
    _kw("I set rule timeout ${ms} ms", (A,), "configuration", "Rule.timeout_ms and guard_timeout_ms",
        build_rule_timeout),
    _kw("I set rule timeout ${ms}", (A, W), "configuration",
        "Rule.timeout_ms and guard_timeout_ms (30000, 30000 ms, 30 s, 30s)", build_rule_timeout),
    _kw("I set rule timeout", (A, W), "configuration", "Rule.timeout_ms from the cells", build_rule_timeout_cells,
        cells="words"),
    _kw('I scope children to "${css}"', (A,), "configuration", "Rule.child_scope", build_scope_children),
    _kw("I screenshot on enter", (A,), "configuration", "Rule.screenshot_on_enter", build_screenshot_on_enter),
    _kw("I screenshot on fail", (A,), "configuration", "Rule.screenshot_on_fail", build_screenshot_on_fail),
    # 1.3 configuration, verification level
    _kw("I configure interrupts", (A,), "configuration",
        "appends `dismiss=` to every Scenario.dismiss_selectors", build_configure_interrupts, cells="options",
        options=("dismiss",)),
    _kw("I configure state setup", (A,), "configuration",
        "a first rule `state_setup` in every scenario (optional steps; guard from `skip_when=`)",
        build_configure_state_setup, cells="setup"),
    _kw('I register hook "${name}" at "${point}"', (A,), "capture", "refused", cells="words", refused=_CAPTURE),
    _kw('I register artifact "${artifact}"', (G,), "capture", "refused", cells="words", refused=_CAPTURE),
    _kw('I set artifact options for "${artifact}"', (A,), "capture", "refused", cells="words", refused=_CAPTURE),
    _kw("I set quality gate min records to ${count}", (A,), "capture", "refused", refused=_CAPTURE),
    _kw('I set filled percentage for "${field}" to ${percent}', (A,), "capture", "refused", refused=_CAPTURE),
    _kw("I set max failed percentage to ${percent}", (A,), "capture", "refused", refused=_CAPTURE),
    # 1.4 actions
    _kw('I open "${url}"', (W,), "action", "goto url", build_open),
    _kw("I reload", (W,), "action", "reload", build_history("reload")),
    _kw("I go back", (W,), "action", "go_back", build_history("go_back")),
    _kw("I go forward", (W,), "action", "go_forward", build_history("go_forward")),
    _kw('I add url params "${params}"', (W,), "action", "refused", refused=(
        "flowwalk's step language has no URL-editing step", "open the full URL with its parameters: When I open \"<url>\"")),
    _kw('I click locator "${css}"', (W,), "action", "act click", build_click, cells="options", options=("await",)),
    _kw('I click text "${text}"', (W,), "action", 'act click `text="X" | text=X`, target X', build_click_text,
        cells="options", options=("await",)),
    _kw('I double click locator "${css}"', (W,), "action", "act dblclick", build_dblclick),
    _kw('I type "${value}" into locator "${css}"', (W, A), "action", "act fill", build_fill, cells="options",
        options=("await",)),
    _kw('I type "" into locator "${css}"', (W, A), "action", "act fill with an empty value", build_fill,
        cells="options", options=("await",)),
    _kw('I fill locator "${css}" with "${value}"', (W, A), "action", "act fill", build_fill, cells="options",
        options=("await",)),
    _kw('I fill "${css}" with "${value}"', (W, A), "action", "act fill", build_fill, cells="options",
        options=("await",)),
    _kw('I type secret "${value}" into locator "${css}"', (W,), "action",
        "act fill with `{{NAME}}`; NAME becomes a Scenario secret", build_type_secret, cells="options",
        options=("await",)),
    _kw('I select "${value}" from locator "${css}"', (W,), "action", "act select (by option value)", build_select),
    _kw('I check locator "${css}"', (W,), "action", "act check", build_simple_action("check")),
    _kw('I uncheck locator "${css}"', (W,), "action", "act uncheck", build_simple_action("uncheck")),
    _kw('I hover locator "${css}"', (W,), "action", "act hover", build_simple_action("hover")),
    _kw('I focus locator "${css}"', (W,), "action", "act focus", build_simple_action("focus")),
    _kw('I press keys "${css}"', (W,), "action", "one act press per key cell", build_press_keys, cells="keys"),
    _kw('I upload file "${path}" to locator "${css}"', (W,), "action", "act upload", build_upload),
    _kw("I scroll down", (W,), "action", "act scroll 1000 px", build_scroll_down),
    _kw("I wait for idle", (W,), "action", "refused", refused=(
        "flowwalk has no network-idle wait: every check already waits until it holds (up to the rule timeout)",
        "add await=<css> to the action, or a state check that waits for the element")),
    _kw("I take screenshot", (W,), "action", "refused", cells="words", refused=(
        "flowwalk takes screenshots per rule, not as a step",
        "use And I screenshot on enter, And I screenshot on fail, or --screenshots on")),
    _kw('I set stepper "${css}" to ${count}', (W,), "action", "`count` act clicks", build_set_stepper),
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
    _kw('url contains "${pattern}"', GAT, "state check", "expect url_contains", build_url_check("url_contains")),
    _kw('url matches "${pattern}"', GAT, "state check", "expect url_matches", build_url_check("url_matches")),
    _kw('selector "${css}" exists', GAT, "state check", "expect selector_exists",
        build_selector_check("selector_exists")),
    _kw('locator "${css}" exists', GAT, "state check", "expect selector_exists",
        build_selector_check("selector_exists")),
    _kw('count of locator "${css}" equals ${n}', GAT, "state check", "expect count eq", build_count("equals")),
    _kw('count of locator "${css}" is at least ${n}', GAT, "state check", "expect count gte", build_count("at_least")),
    _kw('count of locator "${css}" is at most ${n}', GAT, "state check", "expect count lte", build_count("at_most")),
    _kw('table headers are "${headers}"', GAT, "state check",
        "one expect has_text per header on `table thead th:nth-of-type(i) | table tr:first-child th:nth-of-type(i)`",
        build_table_headers),
    _kw('locator "${css}" has text "${text}"', GAT, "state check", "expect has_text", build_text_check("has_text")),
    _kw('locator "${css}" contains "${text}"', GAT, "state check", "expect text_contains",
        build_text_check("text_contains")),
    _kw('page contains text "${text}"', (G, A, T, B), "state check", "expect text_contains on body",
        build_text_check("text_contains", page=True)),
    _kw('locator "${css}" matches "${regex}"', GAT, "state check", "expect text_matches",
        build_text_check("text_matches")),
    _kw('locator "${css}" is visible', GAT, "state check", "expect visible", build_selector_check("visible")),
    _kw('locator "${css}" is enabled', GAT, "state check", "expect enabled", build_selector_check("enabled")),
    _kw('locator "${css}" is checked', GAT, "state check", "expect checked", build_selector_check("checked")),
    _kw('locator "${css}" has class "${name}"', GAT, "state check",
        'expect selector_exists on `css >> css=:scope[class~="name"]`', build_class_check(True)),
    _kw('locator "${css}" has attribute "${attr}" equal to "${value}"', GAT, "state check",
        "expect attribute (match equals)", build_attribute("equals")),
    _kw('locator "${css}" has attribute "${attr}" containing "${value}"', GAT, "state check",
        "expect attribute (match contains)", build_attribute("contains")),
    _kw('input "${css}" has value "${value}"', GAT, "state check", "expect input_value", build_input_value),
    _kw('input "${css}" has value ""', (T, A), "state check", "expect input_value ''", build_input_value),
    _kw('select "${css}" has selected "${value}"', GAT, "state check", "expect input_value (the option value)",
        build_input_value),
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
        build_url_check("url_not_contains")),
    _kw('selector "${css}" does not exist', (G, B, A, T), "negative check", "expect selector_absent",
        build_selector_check("selector_absent")),
    _kw('locator "${css}" does not contain "${text}"', (B, A, T), "negative check", "expect text_not_contains",
        build_text_check("text_not_contains")),
    _kw('page does not contain text "${text}"', (T, B, A), "negative check", "expect text_not_contains on body",
        build_text_check("text_not_contains", page=True)),
    _kw('locator "${css}" does not have class "${name}"', (B, A, T), "negative check",
        'expect selector_absent on `css >> css=:scope[class~="name"]`', build_class_check(False)),
    _kw('locator "${css}" is hidden', GAT, "negative check", "expect hidden", build_selector_check("hidden")),
    _kw('locator "${css}" is disabled', GAT, "negative check", "expect disabled", build_selector_check("disabled")),
    # 1.7 emit
    _kw('I emit "${name}"', (T, W, A), "emit",
        "emit step; rows `field= source= locator= attr= expr=` become EmitFields", build_emit, cells="rows"),
    # 1.8 capture pipeline
    _kw("I extract fields", (T,), "capture", "refused", cells="words", refused=_CAPTURE),
    _kw('I extract table "${name}" from "${locator}"', (T,), "capture", "refused", cells="words", refused=_CAPTURE),
    _kw('I emit to artifact "${artifact}"', (A,), "capture", "refused", refused=_CAPTURE),
    _kw('I emit to artifact "${artifact}" flattened by "${field}"', (A,), "capture", "refused", refused=_CAPTURE),
    _kw('I merge into artifact "${artifact}" on key "${key}"', (A,), "capture", "refused", refused=_CAPTURE),
    # flowwalk's own: typing key by key, drag and drop, events, blur (docs/flow-spec.md), not in aitester-bdd
    _kw('I type keys "${value}" into locator "${css}"', (W, A), "interaction", "act type (key by key)",
        build_type_keys),
    _kw('I drag locator "${css}" to locator "${to}"', (W, A), "interaction", "act drag", build_drag),
    _kw('I dispatch event "${event}" on locator "${css}"', (W, A), "interaction", "act dispatch", build_dispatch),
    _kw('I blur locator "${css}"', (W, A), "interaction", "act blur (the focus moves away)",
        build_simple_action("blur")),
    # flowwalk's own: lists item by item (docs/flow-spec.md, "Lists and exact text"), not in aitester-bdd
    _kw('locator "${css}" has texts', GAT, "list check", "expect texts (equals): a cell per element, in order",
        build_items_check("texts", "equals"), cells="items"),
    _kw('locator "${css}" contains texts', GAT, "list check", "expect texts (contains): these among them, in order",
        build_items_check("texts", "contains"), cells="items"),
    _kw('locator "${css}" has classes', GAT, "list check", "expect classes (equals): a cell per element",
        build_items_check("classes", "equals"), cells="items"),
    _kw('locator "${css}" contains classes', GAT, "list check", "expect classes (contains): a cell per element",
        build_items_check("classes", "contains"), cells="items"),
    # flowwalk's own: state beyond the page and dialogs (docs/flow-spec.md), not in aitester-bdd
    _kw('local storage "${key}"', GAT, "storage and network check", "expect storage (local): the key's value, at `path=`, or "
        "`absent=true`", build_state_check("storage", sm.ExpectStorage, "key", area="local"), cells="options",
        options=("path", "equals", "contains", "matches", "absent")),
    _kw('session storage "${key}"', GAT, "storage and network check", "expect storage (session): as local storage",
        build_state_check("storage", sm.ExpectStorage, "key", area="session"), cells="options",
        options=("path", "equals", "contains", "matches", "absent")),
    _kw('local storage keys starting with "${prefix}"', GAT, "storage and network check",
        "expect storage_count (local): `equals=`, `at_least=` or `at_most=`, `where=path=value`",
        build_state_check("storage_count", sm.ExpectStorageCount, "prefix", area="local"), cells="options",
        options=("equals", "at_least", "at_most", "where"), repeatable=("where",)),
    _kw('session storage keys starting with "${prefix}"', GAT, "storage and network check", "expect storage_count (session)",
        build_state_check("storage_count", sm.ExpectStorageCount, "prefix", area="session"), cells="options",
        options=("equals", "at_least", "at_most", "where"), repeatable=("where",)),
    _kw('cookie "${name}"', GAT, "storage and network check", "expect cookie: its attributes, its value (never shown), or "
        "`absent=true`", build_state_check("cookie", sm.ExpectCookie, "name"), cells="options",
        options=("equals", "contains", "matches", "absent", "http_only", "secure", "same_site", "expires",
                 "expires_after_s")),
    _kw('js value "${expr}"', GAT, "storage and network check", "expect js: the expression's value `equals=`, `contains=` or "
        "`matches=`", build_state_check("js", sm.ExpectJs, "expr"), cells="options",
        options=("equals", "contains", "matches")),
    _kw('request to "${url}"', GAT, "storage and network check", "expect request: `method=`, `body=path=value`, `status=`, or "
        "`absent=true`", build_state_check("request", sm.ExpectRequest, "url"), cells="options",
        options=("method", "status", "absent", "body"), repeatable=("body",)),
    _kw('I click locator "${css}" and answer the dialog', (W, A), "interaction",
        "act click with dialog: `accept=`, `message=`, `answer=`", build_click_answering, cells="options",
        options=("accept", "message", "answer")),
    # flowwalk's own: frames and popups (docs/flow-spec.md, "Popups and frames"), not in aitester-bdd
    _kw('I enter frame "${css}"', (W, A), "frame and popup",
        "the steps up to `I leave the frame` are a frame block: they run inside the iframe", build_enter_frame),
    _kw("I leave the frame", (W, A), "frame and popup", "ends the innermost frame block", build_leave("frame")),
    _kw('I click locator "${css}" and switch to the popup', (W, A), "frame and popup",
        "act click with `popup:`: the steps up to `I close the popup` run in the new tab or window",
        build_click_to_popup),
    _kw("I close the popup", (W, A), "frame and popup", "ends the popup block; the popup is closed",
        build_leave("popup")),
    _kw("I switch back from the popup", (W, A), "frame and popup",
        "ends the popup block and leaves the popup open (`close: false`)", build_leave("popup", close=False)),
    # flowwalk's own: baselines and accessibility (docs/snapshots.md), not in aitester-bdd
    _kw('page matches aria snapshot "${name}"', GAT, "baseline check",
        "expect aria_snapshot of `body`, baseline `<suite>.robot.snapshots/<name>.yml`", build_aria_snapshot),
    _kw('locator "${css}" matches aria snapshot "${name}"', GAT, "baseline check",
        "expect aria_snapshot of `css`, baseline `<suite>.robot.snapshots/<name>.yml`", build_aria_snapshot),
    _kw('page matches screenshot "${name}"', GAT, "baseline check",
        "expect screenshot of the viewport (or the whole page), baseline `<suite>.robot.snapshots/<name>.png`",
        build_screenshot, cells="options",
        options=("threshold", "max_diff_pixels", "max_diff_ratio", "mask", "full_page"), repeatable=("mask",)),
    _kw('locator "${css}" matches screenshot "${name}"', GAT, "baseline check",
        "expect screenshot of the element, baseline `<suite>.robot.snapshots/<name>.png`", build_screenshot,
        cells="options", options=("threshold", "max_diff_pixels", "max_diff_ratio", "mask"), repeatable=("mask",)),
    _kw("page is accessible", GAT, "accessibility check", "expect accessible (axe-core) over the page",
        build_accessible, cells="options", options=("impact", "include", "skip", "exclude"), repeatable=("exclude",)),
    _kw('locator "${css}" is accessible', GAT, "accessibility check", "expect accessible (axe-core) within `css`",
        build_accessible, cells="options", options=("impact", "include", "skip", "exclude"), repeatable=("exclude",)),
    # flowwalk's own: saved sessions and the browser's environment (docs/sessions.md, environment.md)
    _kw('I save session "${name}"', (A, T), "session", "Rule.saves_session: the state is saved when the rule passes",
        build_save_session),
    _kw('I use session "${name}"', (G, A), "session", "Scenario.session: the context starts from the saved state",
        build_use_session),
    _kw('I use device "${name}"', (G, A), "environment", "environment device (Playwright's descriptor by name)",
        build_string_setting("device", "name", "the device")),
    _kw("I set viewport to ${width} x ${height}", (G, A), "environment", "environment viewport {width, height}",
        build_viewport),
    _kw('I set locale "${locale}"', (G, A), "environment", "environment locale (a BCP 47 tag)",
        build_string_setting("locale", "locale", "the locale")),
    _kw('I set timezone "${timezone}"', (G, A), "environment", "environment timezone (an IANA id)",
        build_string_setting("timezone", "timezone", "the time zone")),
    _kw('I set color scheme "${scheme}"', (G, A), "environment", "environment color_scheme (light | dark | no-preference)",
        build_string_setting("color_scheme", "scheme", "the colour scheme")),
    _kw("I set geolocation to ${latitude}, ${longitude}", (G, A), "environment",
        "environment geolocation, the permission granted", build_geolocation, cells="options", options=("accuracy",)),
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


def normalize_name(name: str) -> str:
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
                self.normal.setdefault(normalize_name(reg.name), []).append(reg)
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


#: a BDD prefix and the space after it, at the start of a call's name, in any case
PREFIX_RE = re.compile(r"(given|when|then|and|but)\s", re.IGNORECASE)


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
    normal = index.normal.get(normalize_name(name))
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
        prefix = PREFIX_RE.match(name)
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
    prefix = PREFIX_RE.match(name)
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
            normalize_name(reg.keyword.pattern) == normalize_name(bare)
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
