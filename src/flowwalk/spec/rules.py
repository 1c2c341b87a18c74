"""Rule files (`*.rules.yaml`): a verification of scenarios, each an entry URL and a DAG of rules.

Validation happens in two layers: the pydantic `RulesFileModel` checks shape and limits, then this
module checks what spans several rules (duplicate names, unknown parents, cycles, a secret given a
default value) and builds one `model.Scenario` of kind "rules" per scenario. The format is
documented in `docs/rules.md`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic import ValidationError

from flowwalk import model as m
from flowwalk.errors import Problem
from flowwalk.dag import cycle_problem, find_cycle
from flowwalk.settings import Settings
from flowwalk.spec import models as sm
from flowwalk.spec.calls import StepsLibrary
from flowwalk.spec.problems import errors_to_problems, merged
from flowwalk.spec.spelling import did_you_mean
from flowwalk.spec.flow import environment_of
from flowwalk.spec.lower import StepBuilder, shared_baselines, snapshot_slug
from flowwalk.spec.source import NAME_SHOWN, PathKey, Source, quote


def _q(name: str) -> str:
    """A name for a message: quoted, control characters escaped, so the message stays one line."""
    return quote(name, NAME_SHOWN)


def _entries(value: Any) -> list[Any]:
    """A list as written, or none when it is not one (the models say what it should be)."""
    return value if isinstance(value, list) else []


def load_rules(source: Source, settings: Settings,
               library: StepsLibrary | None = None) -> tuple[m.Suite | None, list[Problem]]:
    """One rule file into a Suite of rule scenarios, or the problems that refuse it."""
    try:
        spec = sm.RulesFileModel.model_validate(source.data)
    except ValidationError as exc:
        lists = [(("scenarios", s, "rules", r, "steps"), f"{snapshot_slug(str(sc.get('name')))}-"
                  f"{snapshot_slug(str(rule.get('name')))}-")
                 for s, sc in enumerate(_entries(source.get(("scenarios",)))) if isinstance(sc, dict)
                 for r, rule in enumerate(_entries(sc.get("rules"))) if isinstance(rule, dict)]
        builder = StepBuilder(source, settings, library=library)
        for path, _ in lists:
            # each rule's steps that validate on their own are checked in the same pass
            builder.start_test()
            builder.salvage(source.get(path), path)
        return None, merged(errors_to_problems(exc, source, sm.RulesFileModel),
                            shared_baselines(source, lists) + builder.problems)
    problems: list[Problem] = []
    for i, name in enumerate(spec.secrets):
        if name in spec.variables and name not in spec.secrets[:i]:
            problems.append(Problem(source.key_loc(("variables", name)),
                                    f"secret {_q(name)} has a default value in 'variables'",
                                    "a secret's value comes only from its environment variable; remove the default"))
        if name in spec.secrets[:i]:
            problems.append(Problem(source.loc(("secrets", i)), f"secret {_q(name)} is listed twice",
                                    "list each secret once"))

    defaults = spec.defaults or sm.DefaultsModel()
    stabilize = settings.stabilize
    overridden = bool(defaults.stabilize and defaults.stabilize.overrides())
    if defaults.stabilize is not None:
        stabilize = dataclasses.replace(stabilize, **defaults.stabilize.overrides())
    builder = StepBuilder(source, settings, stabilize=stabilize, stabilize_overridden=overridden, library=library)

    scenarios: list[m.Scenario] = []
    seen_scenarios: dict[str, int] = {}
    for s_index, scenario in enumerate(spec.scenarios):
        s_path: PathKey = ("scenarios", s_index)
        if scenario.name in seen_scenarios:
            first = source.loc(("scenarios", seen_scenarios[scenario.name], "name"))
            problems.append(Problem(source.loc(s_path + ("name",)), f"duplicate scenario name {_q(scenario.name)}",
                                    f"the first one is at line {first.line}; scenario names must be unique in a file"))
        seen_scenarios.setdefault(scenario.name, s_index)
        built = _scenario(scenario, s_path, spec, defaults, builder, problems)
        if built is not None:
            scenarios.append(built)
    problems.extend(builder.problems)
    if problems:
        return None, problems
    return m.Suite(path=source.path, kind="rules", scenarios=tuple(scenarios)), []


def _scenario(scenario: sm.ScenarioModel, s_path: PathKey, spec: sm.RulesFileModel, defaults: sm.DefaultsModel,
              builder: StepBuilder, problems: list[Problem]) -> m.Scenario | None:
    source = builder.source
    names: dict[str, int] = {}
    count_before = len(problems)
    for r_index, rule in enumerate(scenario.rules):
        if rule.name in names:
            first = source.loc(s_path + ("rules", names[rule.name], "name"))
            problems.append(Problem(source.loc(s_path + ("rules", r_index, "name")),
                                    f"duplicate rule name {_q(rule.name)} in scenario {_q(scenario.name)}",
                                    f"the first one is at line {first.line}; rule names must be unique in a scenario"))
        names.setdefault(rule.name, r_index)
    for r_index, rule in enumerate(scenario.rules):
        for p_index, parent in enumerate(rule.parents):
            p_path = s_path + ("rules", r_index, "parents", p_index)
            if parent in rule.parents[:p_index]:
                problems.append(Problem(source.loc(p_path),
                                        f"parent {_q(parent)} of rule {_q(rule.name)} is listed twice",
                                        "list each parent once"))
            elif parent not in names:
                known = list(names)
                guess = did_you_mean(parent, known)
                hint = (f"did you mean {_q(guess)}? " if guess else "") + (
                    f"rules of scenario {_q(scenario.name)}: {', '.join(known)}")
                problems.append(Problem(source.loc(p_path), f"unknown parent {_q(parent)} of rule {_q(rule.name)}",
                                        hint))

    rules = tuple(_rule(rule, s_path + ("rules", i), defaults, builder, scenario.name)
                  for i, rule in enumerate(scenario.rules))
    if len(problems) == count_before:
        cycle = find_cycle(rules)
        if cycle is not None:
            problems.append(cycle_problem(rules, cycle))
    if len(problems) != count_before:
        return None
    rel = source.path
    return m.Scenario(
        id=f"{rel}#{scenario.name}", name=scenario.name, source=rel, kind="rules",
        loc=source.loc(s_path + ("name",)), entry_url=scenario.url, rules=rules,
        description=scenario.description or spec.description or spec.verification,
        allowed_hosts=tuple(h.lower() for h in scenario.allowed_hosts),
        dismiss_selectors=tuple(spec.dismiss), variables=dict(spec.variables), secrets=frozenset(spec.secrets),
        session=scenario.session,
        session_loc=source.loc(s_path + ("session",)) if scenario.session is not None else None,
        tags=m.merge_tags(spec.tags, scenario.tags),
        environment=environment_of(scenario))


def _rule(rule: sm.RuleModel, path: PathKey, defaults: sm.DefaultsModel, builder: StepBuilder,
          scenario: str) -> m.Rule:
    # a baseline's default name: <scenario>-<rule>-step-<n> (docs/rules.md)
    builder.snapshot_prefix = f"{snapshot_slug(scenario)}-{snapshot_slug(rule.name)}-"
    retry = rule.retry or defaults.retry
    screenshot = rule.screenshot or defaults.screenshot or sm.ScreenshotModel()
    interrupts: Any = "inherit"
    selectors: tuple[str, ...] = ()
    if rule.interrupts == "pause":
        interrupts = "paused"
    elif isinstance(rule.interrupts, sm.InterruptOverride):
        interrupts = "override"
        selectors = tuple(rule.interrupts.override)
    return m.Rule(
        name=rule.name, loc=builder.loc(path + ("name",)), steps=builder.test_steps(rule.steps, path + ("steps",)),
        parents=tuple(rule.parents),
        retry=m.Retry(max=retry.max, delay_ms=retry.delay_ms) if retry else m.Retry(),
        guard_policy=rule.guard_policy,
        timeout_ms=rule.timeout_ms if rule.timeout_ms is not None else defaults.timeout_ms,
        guard_timeout_ms=rule.guard_timeout_ms if rule.guard_timeout_ms is not None else defaults.guard_timeout_ms,
        child_scope=rule.child_scope, interrupts=interrupts, interrupt_selectors=selectors,
        screenshot_on_enter=screenshot.on_enter, screenshot_on_fail=screenshot.on_fail,
        guards_enabled=True, verify=builder.verifiers(rule.verify, path + ("verify",)),
        saves_session=rule.saves_session, tags=m.merge_tags(rule.tags),
        saves_loc=builder.source.key_loc(path + ("saves_session",)) if rule.saves_session else None)
