"""`--login FLOW`: the flow spec that logs in before the crawl, played in the crawl's own session.

The flow is loaded and validated like any spec (secrets through `--secret`, refused where a
secret may not go). Its steps are then walked in the session the crawl keeps, by the walker
itself (`walk.rule.walk_rule`, every step through the step envelope of walk/step.py, exactly as
`flowwalk run` walks them: stabilised checks, the allowlist, `optional` steps, secrets substituted
at the browser and redacted everywhere else), so the crawl sees the site logged in. A relative
entry URL is the crawled site's. The same steps, as written, start every generated spec.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast
from urllib.parse import urljoin

from flowwalk.browser import PageSession
from flowwalk.discover import state
from flowwalk.errors import Location, Problem, SpecError, UsageError
from flowwalk.model import Expect, Scenario, Step
from flowwalk.settings import Settings

__all__ = ["LoginFlow", "LoginFailed", "load_login", "play_login"]

class LoginFailed(UsageError):
    """The login flow did not get through (the crawl would only see the logged-out site)."""


@dataclass(frozen=True)
class LoginFlow:
    scenario: Scenario
    #: the entry URL and the steps as written in the file, for the generated specs
    url: str
    steps: tuple[state.Step, ...]


def load_login(path: Path, settings: Settings, site: str) -> LoginFlow:
    from flowwalk.spec.loader import display_path, load_file
    from flowwalk.spec.source import load_source
    from flowwalk.spec.variables import secret_misuse

    display = display_path(path)
    if not path.is_file():
        raise SpecError([Problem(Location(display, 1, 1), f"--login '{display}' does not exist",
                                 "name a flow spec (*.flow.yaml) that logs in")])
    suite, problems = load_file(path, settings)
    if suite is not None:
        for scenario in suite.scenarios:
            problems.extend(secret_misuse(scenario, set(settings.secret_names)))
    if problems or suite is None:
        raise SpecError(problems)
    if suite.kind != "flow" or len(suite.scenarios) != 1:
        raise SpecError([Problem(Location(display, 1, 1), "--login needs a flow spec",
                                 "write the login as a *.flow.yaml with goto, act and expect steps")])
    scenario = suite.scenarios[0]
    data = load_source(path, display).data
    url = urljoin(site, scenario.entry_url or "")
    if not url.lower().startswith(("http://", "https://")):
        raise SpecError([Problem(scenario.loc, f"--login flow's url '{scenario.entry_url}' is not a page of the site",
                                 "write the login page's URL, e.g. /login or https://staging.example.com/login")])
    return LoginFlow(scenario=scenario, url=url, steps=tuple(cast(state.Step, dict(s)) for s in data.get("steps") or []))


def play_login(login: LoginFlow, session: PageSession, settings: Settings, browser: Any) -> None:
    """Play the login flow in `session` through the walker's own step envelope (walk/step.py, as
    `flowwalk run` plays it: stabilised checks, the allowlist, optional steps, secrets and their
    redaction); LoginFailed names the step that did not work."""
    from flowwalk.walk.actions import goto
    from flowwalk.walk.attempt import Attempt
    from flowwalk.walk.context import RunContext
    from flowwalk.walk.outcomes import StepFailed
    from flowwalk.walk.rule import walk_rule

    values = dict(settings.variables)
    values.update({n: settings.secrets.get(n) or "" for n in settings.secrets.names()})
    missing = sorted({n for s in login.scenario.rules[0].steps for n in _names(s)} - set(values))
    if missing:
        raise LoginFailed(f"the login flow needs {', '.join('{{' + n + '}}' for n in missing)}\n"
                          "  hint: give variables with --var NAME=VALUE and secrets with --secret NAME")
    quiet = replace(settings, screenshots="off", trace="off")
    attempt = Attempt(login.scenario, browser, quiet, RunContext.create(quiet), 1, lambda event: None)
    attempt.session = session
    attempt.entry_url = login.url
    try:
        goto(attempt, login.url, attempt.budget)
    except StepFailed as failed:
        raise LoginFailed(f"{login.scenario.loc}: the login page {login.url} did not load: {failed.message}") from None
    result = walk_rule(attempt, login.scenario.rules[0])
    if result.status != "passed":
        failure = result.failure
        where = f"{failure.path}:{failure.line}" if failure is not None and failure.path and failure.line \
            else str(login.scenario.loc)
        step = f"step {failure.step_index} ({failure.step_text})" if failure is not None else "a step"
        said = (failure.message if failure is not None else result.reason) or result.status
        raise LoginFailed(f"{where}: the login flow failed at {step}: {said}"[:600])


def _names(step: Step) -> set[str]:
    from flowwalk.spec.variables import placeholders

    out: set[str] = set()
    for text in (getattr(step, "url", None), getattr(step, "selector", None), getattr(step, "value", None)):
        if isinstance(text, str):
            out.update(placeholders(text))
    if isinstance(step, Expect) and step.kind == "url_matches":
        out.clear()
    return out
