"""`--login FLOW`: the flow spec that logs in before the crawl, played in the crawl's own session.

The flow is loaded and validated like any spec (secrets through `--secret`, refused where a
secret may not go). Its steps are then played in the session the crawl keeps, so the crawl sees
the site logged in: `goto`, `act` (click, fill, press, check, uncheck, select), `wait` and the
`url_contains` / `text_contains` expects, each bounded by the action timeout; other expects (a
beacon, a count) only observe and are left to the generated specs' runs, and a failed `optional`
step is passed over, as the walker does. An action of another kind is refused up front with a
hint. A relative entry URL is the crawled site's. The same steps, as written, start every
generated spec.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from urllib.parse import urljoin
from pathlib import Path
from typing import Any

from flowwalk.browser import PageSession, PlaywrightError
from flowwalk.browser.locate import locate
from flowwalk.errors import Location, Problem, SpecError, UsageError
from flowwalk.model import Act, Expect, Goto, Scenario, Step, Wait
from flowwalk.settings import Settings

__all__ = ["LoginFlow", "LoginFailed", "load_login", "play_login"]

_ACTIONS = ("click", "fill", "press", "check", "uncheck", "select")
_EXPECTS = ("url_contains", "text_contains")


class LoginFailed(UsageError):
    """The login flow did not get through (the crawl would only see the logged-out site)."""


@dataclass(frozen=True)
class LoginFlow:
    scenario: Scenario
    #: the entry URL and the steps as written in the file, for the generated specs
    url: str
    steps: list[dict[str, Any]]


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
    for step in scenario.rules[0].steps:
        if not _playable(step):
            raise SpecError([Problem(step.loc, f"--login cannot play the step '{step.text}'",
                                     "a login flow may use goto, act (click, fill, press, check, uncheck, "
                                     "select), wait and expect url_contains / text_contains")])
    data = load_source(path, display).data
    url = urljoin(site, scenario.entry_url or "")
    if not url.lower().startswith(("http://", "https://")):
        raise SpecError([Problem(scenario.loc, f"--login flow's url '{scenario.entry_url}' is not a page of the site",
                                 "write the login page's URL, e.g. /login or https://staging.example.com/login")])
    return LoginFlow(scenario=scenario, url=url, steps=[dict(s) for s in data.get("steps") or []])


def _playable(step: Step) -> bool:
    if isinstance(step, Act):
        return step.action in _ACTIONS and bool(step.selector)
    return isinstance(step, (Goto, Wait, Expect))


def play_login(login: LoginFlow, session: PageSession, settings: Settings, timeout_ms: int) -> None:
    """Play the login flow in `session`; LoginFailed names the step that did not work."""
    from flowwalk.spec.variables import substitute

    values = dict(settings.variables)
    values.update({n: settings.secrets.get(n) or "" for n in settings.secrets.names()})
    missing = sorted({n for s in login.scenario.rules[0].steps for n in _names(s)} - set(values))
    if missing:
        raise LoginFailed(f"the login flow needs {', '.join('{{' + n + '}}' for n in missing)}\n"
                          "  hint: give variables with --var NAME=VALUE and secrets with --secret NAME")
    session.goto(login.url, timeout_ms=settings.navigation_timeout_ms)
    for index, step in enumerate(login.scenario.rules[0].steps, 1):
        try:
            if isinstance(step, Goto):
                session.goto(urljoin(session.page.url, substitute(step.url, values)),
                             timeout_ms=settings.navigation_timeout_ms)
            elif isinstance(step, Act):
                assert step.selector is not None
                target = locate(session.page, substitute(step.selector, values)).locator.first
                value = substitute(step.value or "", values)
                with session.guard():
                    if step.action == "click":
                        target.click(timeout=timeout_ms)
                    elif step.action == "fill":
                        target.fill(value, timeout=timeout_ms)
                    elif step.action == "press":
                        target.press(value, timeout=timeout_ms)
                    elif step.action == "check":
                        target.check(timeout=timeout_ms)
                    elif step.action == "uncheck":
                        target.uncheck(timeout=timeout_ms)
                    else:
                        target.select_option(value, timeout=timeout_ms)
                session.check_navigation()
            elif isinstance(step, Wait):
                if step.ms:
                    session.wait(step.ms)
                elif step.for_selector:
                    locate(session.page, step.for_selector).locator.first.wait_for(state="visible", timeout=timeout_ms)
            elif isinstance(step, Expect) and step.kind in _EXPECTS:
                _expect(session, step, substitute(step.value or "", values), timeout_ms)
        except (PlaywrightError, AssertionError) as error:
            if step.optional:
                continue
            raise LoginFailed(f"{step.loc}: the login flow failed at step {index} ({step.text}): "
                              f"{str(error).splitlines()[0][:300] if str(error) else type(error).__name__}") from None


def _names(step: Step) -> set[str]:
    from flowwalk.spec.variables import placeholders

    out: set[str] = set()
    for text in (getattr(step, "url", None), getattr(step, "selector", None), getattr(step, "value", None)):
        if isinstance(text, str):
            out.update(placeholders(text))
    if isinstance(step, Expect) and step.kind == "url_matches":
        out.clear()
    return out


def _expect(session: PageSession, step: Expect, value: str, timeout_ms: int) -> None:
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        if step.kind == "url_contains":
            ok = value in session.page.url
        else:
            text = locate(session.page, step.selector or "body").locator.first.inner_text(timeout=timeout_ms)
            ok = value.lower() in text.lower()
        if ok:
            return
        if time.monotonic() >= deadline:
            raise AssertionError(f"expected {step.kind} '{value}'")
        session.wait(100)
