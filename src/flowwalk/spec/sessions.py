"""Saved sessions across files: every `session:` names a session one setup saves (`saves_session:`).

A setup (a flow, or a rule of a rule file) saves its context's storage state under a name when it
passes; a scenario that declares `session: NAME` starts from that state. Which file saves a name
is only known once every file of the run is loaded, so these checks run over all the suites
(`loader.load_suites`), each problem at the key that is wrong. docs/sessions.md has the format.
"""

from __future__ import annotations

from typing import Optional, Sequence

from flowwalk.errors import Problem
from flowwalk.model import Rule, Scenario, Suite
from flowwalk.spec.source import NAME_SHOWN, quote
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


def session_problems(suites: Sequence[Suite]) -> list[Problem]:
    """Every session named but saved by no setup, saved twice, or used by a setup itself."""
    scenarios = [sc for suite in suites for sc in suite.scenarios]
    saved = setups_by_key(scenarios)
    problems: list[Problem] = []
    for scenario in scenarios:
        for name, rule in scenario.saves:
            first_scenario, first_rule = saved.get(session_key(scenario, name), (scenario, rule))
            if first_rule is not rule:
                problems.append(Problem(rule.loc, f"session {_q(name)} is saved twice (first by "
                                                  f"{_q(first_scenario.test_id(first_rule))} at {first_rule.loc})",
                                        "give each setup its own session name"))
        if scenario.session is None:
            continue
        loc = scenario.session_loc or scenario.loc
        if scenario.saves:
            problems.append(Problem(loc, f"{_q(scenario.name)} saves a session and starts from session "
                                         f"{_q(scenario.session)}",
                                    "a setup starts signed out: remove 'session' here, or move the saving "
                                    "step into a scenario of its own"))
        elif session_key(scenario, scenario.session) not in saved:
            if saved:
                hint = choices_hint(scenario.session, sorted({n for _, n in saved}),
                                    "sessions saved by the specs of this run")
            else:
                hint = ("no spec of this run saves a session: mark the flow (or rule) that signs in with "
                        f"'saves_session: {scenario.session}', and run it together with this spec")
            problems.append(Problem(loc, f"no setup saves session {_q(scenario.session)}", hint))
    return problems


def _q(text: str) -> str:
    return quote(text, NAME_SHOWN)
