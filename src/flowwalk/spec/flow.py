"""Flow specs: a validated `FlowSpecModel` becomes one `model.Scenario` with one rule (one per row
of its `examples`); its steps are lowered by spec/lower.py's `StepBuilder`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from flowwalk import model as m
from flowwalk.errors import Problem
from flowwalk.settings import Settings
from flowwalk.spec import models as sm
from flowwalk.spec.calls import StepsLibrary, bind, unknown_placeholders
from flowwalk.spec.lower import StepBuilder, axe_options, shared_baselines, show
from flowwalk.spec.problems import errors_to_problems, merged
from flowwalk.spec.routes import build_routes
from flowwalk.spec.source import PathKey, Source, escape

_V1X_HINT = 'set spec_version to "1.1" (flow-spec v1 plus the documented v1.x additions) to use it'


# --- flow specs ---------------------------------------------------------------------------------


_BLOCK_NAMES = {"use": "call", "group": "group", "frame": "frame block"}


def v1x_problems(spec: sm.FlowSpecModel, source: Source) -> list[Problem]:
    """A `spec_version: "1"` spec may use only flow-spec v1 itself: point at every v1.x addition."""
    problems: list[Problem] = []

    def add(path: PathKey, what: str, key: bool = False) -> None:
        loc = source.key_loc(path) if key else source.loc(path)
        problems.append(Problem(loc, f"{what} is a v1.x addition, not part of spec_version \"1\"", _V1X_HINT))

    def selectors(step: Any, path: PathKey) -> None:
        for name, key in (("selector", "selector"), ("for_", "for"), ("await_", "await")):
            value = step.__dict__.get(name)
            if isinstance(value, str) and sm.has_pipe(value):
                add(path + (key,), f"pipe-fallback selector {sm.quote(value)}")

    if spec.tags is not None:
        add(("tags",), "'tags'", key=True)
    for i, step in enumerate(spec.steps):
        path: PathKey = ("steps", i)
        if isinstance(step, (sm.CallStep, sm.GroupStep, sm.FrameStep)):
            key = next(k for k, model in sm.BLOCK_STEPS.items() if isinstance(step, model))
            add(path + (key,), f"a {_BLOCK_NAMES[key]} ('{key}')", key=True)
            continue
        if isinstance(step, (sm.EmitStep, sm.HistoryStep)):
            add(path + ("type",), f"step type '{step.type}'")
            continue
        if isinstance(step, sm.ActStep):
            if step.action not in sm.V1_ACTIONS:
                add(path + ("action",), f"action '{step.action}'")
            if step.await_ is not None:
                add(path + ("await",), "'await'", key=True)
            if step.verify is not None:
                add(path + ("verify",), "'verify'", key=True)
            for key in ("delay_ms", "to", "event", "detail", "dialog", "popup"):
                if key in step.model_fields_set:
                    add(path + (key,), f"'{key}'", key=True)
        if isinstance(step, sm.ExpectBase):
            if step.kind not in sm.V1_EXPECT_KINDS:
                add(path + ("kind",), f"expect kind '{step.kind}'")
            for key in ("timeout_ms", "stabilize"):
                if getattr(step, key) is not None:
                    add(path + (key,), f"'{key}'", key=True)
            if "match_case" in step.model_fields_set:
                add(path + ("match_case",), "'match_case'", key=True)
        selectors(step, path)
    for key in ("saves_session", "session", "before_each", "after_each", "examples", "routes", *sm.ENVIRONMENT_KEYS):
        if getattr(spec, key) is not None:
            add((key,), f"'{key}'", key=True)
    for i, item in enumerate(spec.assertions):
        if item.kind not in ("no_console_errors", "beacon_fires"):
            add(("assertions", i, "kind"), f"assertion kind '{item.kind}'")
    return problems


def environment_of(block: Any) -> m.Environment:
    """The environment keys of a validated model (a flow spec, a rule file's scenario, flowwalk.yaml,
    a project) as a `model.Environment`."""
    viewport, geo = block.viewport, block.geolocation
    return m.Environment(
        viewport=(viewport.width, viewport.height) if viewport is not None else None,
        device=block.device, locale=block.locale, timezone=block.timezone, color_scheme=block.color_scheme,
        geolocation=(float(geo.latitude), float(geo.longitude), float(geo.accuracy)) if geo is not None else None)


def assertion_text(item: Any) -> str:
    if item.kind == "no_accessibility_violations" and item.impact != "minor":
        return f"no_accessibility_violations (impact {item.impact} and above)"
    if item.kind == "beacon_fires":
        return f"beacon_fires {item.vendor}" + (f" {show(item.event)}" if item.event else "")
    return str(item.kind)


def load_flow(source: Source, settings: Settings,
              library: StepsLibrary | None = None) -> tuple[m.Suite | None, list[Problem]]:
    """One flow spec file into a Suite of one flow scenario (one per row of its `examples`), or the
    problems that refuse it."""
    library = library or StepsLibrary(settings.root)
    rows = table_rows(source.data)
    if rows is None:
        scenario, problems = _flow(source, settings, library)
        return (m.Suite(path=source.path, kind="flow", scenarios=(scenario,)), []) if scenario else (None, problems)
    found: dict[str, list[Problem]] = {}
    scenarios: list[m.Scenario] = []
    columns = list(next(iter(rows.values())))
    typos: list[Problem] = []
    unknown_placeholders({k: v for k, v in source.data.items() if k not in ("examples", "name")}, columns,
                         list(settings.variables) + ["BASE_URL"], source, (), typos, "column")
    try:
        _Table.model_validate({"examples": rows})
    except ValidationError as exc:
        # rows that disagree cannot each be bound: the rest of the flow is checked with the first
        # row's valid cells
        first = {k: v for k, v in next(iter(rows.values())).items() if _valid(_Cell, {"cell": v}) is not None}
        bound = {key: value if key in ("examples", "name") else bind(value, first, source, (key,), [], "column")
                 for key, value in source.data.items()}
        _, problems = _flow(dataclasses.replace(source, data=bound), settings, library)
        return None, list(dict.fromkeys(typos + errors_to_problems(exc, source, _Table) + problems))
    for row, cells in rows.items():
        binding: list[Problem] = []
        bound = {key: value if key in ("examples", "name") else bind(value, cells, source, (key,), binding, "column")
                 for key, value in source.data.items()}
        scenario, problems = _flow(dataclasses.replace(source, data=bound), settings, library, row)
        found[row] = binding + problems
        if scenario is not None and not binding:
            scenarios.append(scenario)
    problems = typos + rows_problems(found)
    if problems:
        return None, problems
    return m.Suite(path=source.path, kind="flow", scenarios=tuple(scenarios)), []


class _Table(BaseModel):
    """A flow's `examples` alone: checked before its rows are bound to the rest of the flow."""

    model_config = ConfigDict(extra="ignore", strict=True, defer_build=True)
    examples: sm.Examples


class _Cell(BaseModel):
    """One cell of a data table alone."""

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)
    cell: sm.ArgValue


def table_rows(data: Any) -> dict[str, dict[str, Any]] | None:
    """The rows of a flow's `examples` when they can be bound (a mapping of mappings); None otherwise
    (no table, or one the model refuses: the flow is then validated as written, which says why)."""
    rows = data.get("examples") if isinstance(data, dict) else None
    if not isinstance(rows, dict) or not rows or not all(isinstance(r, dict) and r for r in rows.values()):
        return None
    return rows


def rows_problems(found: dict[str, list[Problem]]) -> list[Problem]:
    """The problems of every row, each once; one that only some rows have names them in its hint."""
    out: list[Problem] = []
    for problem in dict.fromkeys(p for problems in found.values() for p in problems):
        rows = [row for row, problems in found.items() if problem in problems]
        if len(rows) < len(found):
            shown = ", ".join(f"'{escape(r)}'" for r in rows)
            problem = dataclasses.replace(problem, hint=f"{problem.hint} (row{'s' * (len(rows) > 1)} {shown})".lstrip())
        out.append(problem)
    return out


def _flow(source: Source, settings: Settings, library: StepsLibrary,
          row: str | None = None) -> tuple[m.Scenario | None, list[Problem]]:
    """The flow scenario of `source` (for `row` of its table: the data already bound to the row)."""
    try:
        spec = sm.FlowSpecModel.model_validate(source.data)
    except ValidationError as exc:
        hooked = isinstance(source.data, dict) and "before_each" in source.data or library.hooks(source.path,
                                                                                                  "before_each")
        return None, merged(errors_to_problems(exc, source, sm.FlowSpecModel),
                            shared_baselines(source, [(("steps",), None if hooked else "")])
                            + salvaged_flow(source, settings, library, exc))
    problems: list[Problem] = []
    if spec.spec_version == "1":
        problems.extend(v1x_problems(spec, source))
        problems.extend(hook_problems(source, library))
    # a step's own `stabilize` keys override the flow default (one read), not the rule files' two
    builder = StepBuilder(source, settings, stabilize=settings.stabilize_for("flow"), library=library)
    builder.start_test()
    blocks = builder.blocks
    steps = blocks.folder_hooks("before_each")
    if spec.before_each:
        steps += blocks.file_hook("before_each", spec.before_each, ("before_each",))
    steps += builder.steps(spec.steps, ("steps",))
    if spec.after_each:
        steps += blocks.file_hook("after_each", spec.after_each, ("after_each",))
    steps += blocks.folder_hooks("after_each")
    problems.extend(builder.problems)
    routes, route_problems = build_routes(spec.routes or (), source, spec.url, spec.allowed_hosts,
                                          settings.root)
    problems.extend(route_problems)
    if problems:
        return None, problems
    rel = source.path
    loc = source.loc(("name",))
    name, test_id = (spec.name, f"{rel}#{spec.name}") if row is None else (f"{spec.name} [{row}]",
                                                                           f"{rel}#{spec.name}[{row}]")
    rule = m.Rule(name=name, loc=loc, steps=steps, guards_enabled=False, saves_session=spec.saves_session,
                  saves_loc=source.key_loc(("saves_session",)) if spec.saves_session else None)
    assertions = tuple(
        m.Assertion(kind=a.kind, loc=source.loc(("assertions", i)), text=assertion_text(a), severity=a.severity,
                    vendor=getattr(a, "vendor", None), event=getattr(a, "event", None),
                    axe=axe_options(a) if a.kind == "no_accessibility_violations" else None)
        for i, a in enumerate(spec.assertions))
    return m.Scenario(id=test_id, name=name, source=rel, kind="flow", loc=loc,
                      entry_url=spec.url, rules=(rule,), description=spec.description or "",
                      allowed_hosts=tuple(h.lower() for h in spec.allowed_hosts), assertions=assertions,
                      session=spec.session,
                      session_loc=source.loc(("session",)) if spec.session is not None else None,
                      tags=m.merge_tags(spec.tags or ()),
                      environment=environment_of(spec), routes=routes), []


def salvaged_flow(source: Source, settings: Settings, library: StepsLibrary, exc: ValidationError) -> list[Problem]:
    """What is wrong in a flow that did not validate besides its shape (`exc`): in each step, hook
    and route that validates on its own (`StepBuilder.salvage`), and in the folder's hook files."""
    data = source.data if isinstance(source.data, dict) else {}
    builder = StepBuilder(source, settings, stabilize=settings.stabilize_for("flow"), library=library)
    builder.start_test()
    blocks = builder.blocks
    blocks.folder_hooks("before_each")
    for key in ("before_each", "steps", "after_each"):
        builder.salvage(data.get(key), (key,))
    blocks.folder_hooks("after_each")
    routes = data.get("routes")
    items = [_valid(sm.RouteModel, raw) for raw in routes] if isinstance(routes, list) else []
    # a route's host is checked against the entry URL and allowed_hosts only when both are valid
    hosts_known = not any(str(e["loc"][0]) in ("url", "allowed_hosts") for e in exc.errors() if e["loc"])
    allowed = data.get("allowed_hosts") or []
    _, route_problems = build_routes(items, source, str(data.get("url")) if hosts_known else None, allowed,
                                     settings.root)
    return builder.problems + route_problems


def _valid(model: type[BaseModel], raw: Any) -> Any:
    """`raw` as `model`, or None when it does not validate."""
    try:
        return model.model_validate(raw)
    except ValidationError:
        return None


def hook_problems(source: Source, library: StepsLibrary) -> list[Problem]:
    """A `spec_version: "1"` flow in a folder with hook files: they would change what it runs."""
    hooks = library.hooks(source.path, "before_each") + library.hooks(source.path, "after_each")
    if not hooks:
        return []
    return [Problem(source.loc(("spec_version",)),
                    f"{', '.join(escape(h) for h in hooks)} run{'s' * (len(hooks) == 1)} around each flow of "
                    "its folder, a v1.x addition not part of spec_version \"1\"", _V1X_HINT)]
