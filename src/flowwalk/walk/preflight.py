"""Before the browser: the variable check, and the events of scenarios that are never walked.

- `check_variables` lists every `{{NAME}}` a scenario needs that the run cannot supply, with its
  line. Such a scenario is refused before any browser starts (`refused_events`): the step that
  needs the variable (or, for the entry URL, the first rule's setup) fails `VARIABLE_MISSING`
  (credential_rejected), naming the variable and how to give it; the other rules are skipped
  (`credential_rejected`, or `parent_failed` below a refused parent), never walked;
- `not_run_events`: a scenario the run did not start (cancelled, run timeout, no browser) has
  every rule reported skipped with that reason, or, with a failure, the first rule failed.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable, Sequence

from flowwalk import events as ev
from flowwalk.errors import Location
from flowwalk.model import Rule, Scenario, Step, titled
from flowwalk.dag import topo_order
from flowwalk.settings import Settings
from flowwalk.spec.variables import missing_variables, placeholders
from flowwalk.walk.context import RunContext
from flowwalk.walk.outcomes import StepFailed, Unit, parent_failure, rule_finished, skipped_steps

__all__ = ["check_variables", "not_run_events", "refused_events"]


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if f.name in ("loc", "text", "pattern"):
                continue
            yield from _strings(getattr(value, f.name))
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict) or hasattr(value, "items"):
        for v in value.values():
            yield from _strings(v)


def _step_names(step: Step) -> set[str]:
    names: set[str] = set()
    for text in _strings(step):
        names.update(placeholders(text))
    if getattr(step, "kind", None) == "url_matches":
        # url_matches is a literal regex, never substituted (flow-spec v1)
        names.difference_update(placeholders(getattr(step, "value", None) or ""))
    return names


def check_variables(scenario: Scenario, settings: Settings,
                    run_vars: dict[str, str]) -> list[tuple[Location, str]]:
    """(location, name) of every variable `scenario` needs that the run cannot supply."""
    found = missing_variables(scenario, set(run_vars) | set(settings.secrets.names()))
    out: list[tuple[Location, str]] = []
    for item in found:
        a, b = item
        loc, name = (a, b) if isinstance(a, Location) else (b, a)
        out.append((loc, str(name)))
    return out


def refused_events(scenario: Scenario, missing: list[tuple[Location, str]], run: RunContext,
                    attempt: int = 1) -> list[ev.Event]:
    """The events of a scenario refused before the browser: every rule reported, none walked."""
    names = sorted({n for _, n in missing})
    where = {n: loc for loc, n in sorted(missing, key=lambda m: (m[0].line, m[0].col))}
    hint = ("give each a value with --var NAME=VALUE (or in flowwalk.yaml), or, for a secret, "
            "--secret NAME with the value in the environment variable NAME")
    events: list[ev.Event] = [ev.ScenarioStarted(scenario_id=scenario.id, attempt=attempt, worker=0,
                                                 t=run.elapsed_s())]
    results: dict[str, ev.RuleFinished] = {}
    order = topo_order(list(scenario.rules))
    scenario_level = [n for n in names if not any(n in _step_names(s) for r in scenario.rules for s in r.steps)]

    def finished(rule: Rule, status: ev.Status, **kw: Any) -> ev.RuleFinished:
        return rule_finished(scenario, rule, attempt, status, 0.0, **kw)

    for pos, rule in enumerate(order):
        all_steps = skipped_steps(rule.steps)
        needing = [(i, s, sorted(_step_names(s) & set(names))) for i, s in enumerate(rule.steps, 1)]
        needing = [(i, s, ns) for i, s, ns in needing if ns]
        if scenario_level and pos == 0:
            name = scenario_level[0]
            loc = where.get(name, scenario.loc)
            opening = f"open the entry URL {scenario.entry_url}" if scenario.entry_url else ""
            failure = Unit("setup", loc, opening).failure(StepFailed(
                "VARIABLE_MISSING", f"no value for {_braces(scenario_level)}: {hint}",
                expected=f"a value for {', '.join(scenario_level)}", observed="not supplied"))
            result = finished(rule, "failed", failure=failure, skipped_steps=all_steps)
        elif scenario_level:
            result = finished(rule, "skipped", reason="setup_failed")
        elif needing:
            index, step, step_names = needing[0]
            rule_names = sorted({n for _, _, ns in needing for n in ns})
            loc = where.get(step_names[0], step.loc)
            if loc.path != step.loc.path or loc.line < step.loc.line:
                loc = step.loc
            failure = Unit("setup", loc, titled(step), index).failure(StepFailed(
                "VARIABLE_MISSING", f"no value for {_braces(rule_names)}: {hint}",
                expected=f"a value for {', '.join(rule_names)}", observed="not supplied"))
            # the step that needs the variable is the failure; every other step was not run
            not_run = tuple(text for i, text in enumerate(all_steps, 1) if i != index)
            result = finished(rule, "failed", failure=failure, skipped_steps=not_run)
        else:
            parent = next((p for p in rule.parents if results.get(p) is None or results[p].status != "passed"),
                          None)
            if parent is not None and results.get(parent) is not None and results[parent].failure is not None:
                result = finished(rule, "skipped", reason="parent_failed",
                                  failure=parent_failure(rule, parent, results[parent]))
            else:
                # nothing of this rule is wrong, but its scenario cannot run without the variable
                result = finished(rule, "skipped", reason="credential_rejected")
        results[rule.name] = result
        events.append(result)
    status: ev.Status = "failed" if any(r.status == "failed" for r in results.values()) else "skipped"
    events.append(ev.ScenarioFinished(scenario_id=scenario.id, attempt=attempt, status=status, duration_ms=0.0))
    return events


def _braces(names: Sequence[str]) -> str:
    return ", ".join("{{" + n + "}}" for n in names)


def not_run_events(scenario: Scenario, reason: ev.SkipReason, run: RunContext, *, attempt: int = 1,
                    failure: ev.Failure | None = None, blame: ev.Failure | None = None) -> list[ev.Event]:
    """A scenario that never reached the browser (cancelled, run timeout, no browser; `failure`:
    its first rule fails with it). `blame`: every rule skipped with `reason`, carrying this failure
    of something else (the setup of its session)."""
    events: list[ev.Event] = [ev.ScenarioStarted(scenario_id=scenario.id, attempt=attempt, worker=0,
                                                 t=run.elapsed_s())]
    order = topo_order(list(scenario.rules))
    for pos, rule in enumerate(order):
        if blame is not None:
            events.append(rule_finished(scenario, rule, attempt, "skipped", 0.0, reason=reason, failure=blame,
                                        skipped_steps=skipped_steps(rule.steps)))
        elif failure is not None and pos == 0:
            events.append(rule_finished(scenario, rule, attempt, "failed", 0.0, failure=failure,
                                        skipped_steps=skipped_steps(rule.steps)))
        else:
            events.append(rule_finished(scenario, rule, attempt, "skipped", 0.0,
                                        reason="setup_failed" if failure is not None else reason))
    events.append(ev.ScenarioFinished(scenario_id=scenario.id, attempt=attempt,
                                      status="failed" if failure is not None else "skipped", duration_ms=0.0))
    return events
