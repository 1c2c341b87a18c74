"""Saved sessions across files: every `session:` names a session one setup saves (`saves_session:`).

A setup (a flow, or a rule of a rule file) saves its context's storage state under a name when it
passes; a scenario that declares `session: NAME` starts from that state. Which file saves a name
is only known once every file of the run is loaded, so these checks run over all the suites
(`loader.load_suites`), each problem at the key that is wrong. docs/sessions.md has the format.
"""

from __future__ import annotations

import re
from typing import Any, Optional, Sequence

from flowwalk.errors import Location, Problem
from flowwalk.model import Rule, Scenario, Suite
from flowwalk.spec.models import RULE_NAME_PATTERN
from flowwalk.spec.source import NAME_SHOWN, Source, quote
from flowwalk.spec.spelling import choices_hint

__all__ = ["session_key", "session_problems", "setups_by_key"]

#: a session as the run knows it: each project (environment profile) signs in on its own
SessionKey = tuple[Optional[str], str]


def session_key(scenario: Scenario, name: str) -> SessionKey:
    return (scenario.project, name)


def setups_by_key(scenarios: Sequence[Scenario]) -> dict[SessionKey, tuple[Scenario, Rule]]:
    """The first scenario (and its rule) that saves each session, per project (a scenario that also
    starts from a session is refused, and saves nothing)."""
    out: dict[SessionKey, tuple[Scenario, Rule]] = {}
    for scenario in scenarios:
        if scenario.session is not None:
            continue
        for name, rule in scenario.saves:
            out.setdefault(session_key(scenario, name), (scenario, rule))
    return out


def written(sources: Sequence[Source]) -> tuple[set[str], list[tuple[Location, str]]]:
    """The sessions files that did not load save, and where they start from one, read as written
    (a flow's top level, a rule file's scenarios and rules)."""
    saves: set[str] = set()
    uses: list[tuple[Location, str]] = []
    for source in sources:
        scenarios = source.get(("scenarios",))
        listed = scenarios if isinstance(scenarios, list) else []
        scopes = [((), source.data)] + [(("scenarios", i), s) for i, s in enumerate(listed)]
        for path, node in scopes:
            if not isinstance(node, dict):
                continue
            rules: list[Any] = node["rules"] if isinstance(node.get("rules"), list) else []
            saving = {n["saves_session"] for n in [node, *rules]
                      if isinstance(n, dict) and isinstance(n.get("saves_session"), str)}
            saves.update(saving)
            name = node.get("session")
            # a bad name, or a setup that starts from a session, is a problem of its own
            if isinstance(name, str) and re.fullmatch(RULE_NAME_PATTERN, name) and not saving:
                uses.append((source.loc(path + ("session",)), name))
    return saves, uses


def session_problems(suites: Sequence[Suite], unloaded: Sequence[Source] = ()) -> list[Problem]:
    """Every session named but saved by no setup, saved twice, or used by a setup itself. Files that
    did not load (`unloaded`) count as written: a session one of them saves is saved, and one it
    starts from is checked in the same pass as what else is wrong with it."""
    scenarios = [sc for suite in suites for sc in suite.scenarios]
    saved = setups_by_key(scenarios)
    saved_unloaded, used_unloaded = written(unloaded)
    problems: list[Problem] = []
    for scenario in scenarios:
        for name, rule in scenario.saves:
            first_scenario, first_rule = saved.get(session_key(scenario, name), (scenario, rule))
            if first_rule is not rule:
                problems.append(Problem(rule.saves_loc or rule.loc, f"session {_q(name)} is saved twice (first by "
                                                  f"{_q(first_scenario.test_id(first_rule))} at "
                                                  f"{first_rule.saves_loc or first_rule.loc})",
                                        "give each setup its own session name"))
        if scenario.session is None:
            continue
        loc = scenario.session_loc or scenario.loc
        if scenario.saves:
            problems.append(Problem(loc, f"{_q(scenario.name)} saves a session and starts from session "
                                         f"{_q(scenario.session)}",
                                    "a setup starts signed out: remove 'session' here, or move the saving "
                                    "step into a scenario of its own"))
        elif session_key(scenario, scenario.session) not in saved and scenario.session not in saved_unloaded:
            problems.append(_unsaved(loc, scenario.session, saved))
    problems.extend(_unsaved(loc, name, saved) for loc, name in used_unloaded
                    if (None, name) not in saved and name not in saved_unloaded)
    return problems


def _unsaved(loc: Location, name: str, saved: dict[SessionKey, tuple[Scenario, Rule]]) -> Problem:
    if saved:
        hint = choices_hint(name, sorted({n for _, n in saved}), "sessions saved by the specs of this run")
    else:
        hint = ("no spec of this run saves a session: mark the flow (or rule) that signs in with "
                f"'saves_session: {name}', and run it together with this spec")
    return Problem(loc, f"no setup saves session {_q(name)}", hint)


def _q(text: str) -> str:
    return quote(text, NAME_SHOWN)
