"""The builders of the aitester-bdd keywords whose values the authoring tree's models validate, each
problem located at the call's own cells: baselines and accessibility, lists, state beyond the
page, dialogs, and the scenario settings (saved sessions, the browser's environment). The other builders
are `spec/robot_builders.py`'s; the table that names them all is `spec/robot_keywords.py`.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Literal, Optional

from pydantic import BaseModel, ValidationError

from flowwalk.errors import Location
from flowwalk.spec import models as sm
from flowwalk.spec.problems import errors_to_problems
from flowwalk.spec.robot_builders import add_tree_steps
from flowwalk.spec.robot_calls import Builder, Call, CallError, Cell, PlanDraft, ScenarioDraft, all_of
from flowwalk.spec.source import PathKey, Source


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
    add_tree_steps(call, plan, sm.node(sm.ActStep, type="act", action="click", selector=selector, dialog=dialog))


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
