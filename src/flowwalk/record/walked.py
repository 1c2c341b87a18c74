"""Specs walked in the recording's own browser before the person records: a session's setup
(`--session NAME`) and the spec being continued (`--append`).

The walk is a run's (walk/run.py's `run_plan`, one worker), with the run's variables and secrets
(`--var`, `--secret`), on the recording's Chromium lent as a run's browser (browser/recorder.py's
`LentBrowser`): each scenario's session is over the recording's one context and first page, and
its close leaves both open, so
the next scenario (the dependant after its setup) and then the person go on from where the last
left the page, signed in. Nothing is recorded meanwhile (`Recording.quiet`) and no report, trace
or screenshot is written; a walk that does not pass is a UsageError naming the failing step at
path:line and what it found, and nothing is recorded.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from flowwalk import events as ev
from flowwalk.browser.recorder import LentBrowser, Recording
from flowwalk.errors import UsageError
from flowwalk.model import Scenario
from flowwalk.settings import Overrides, Settings
from flowwalk.spec.config import settings_for

__all__ = ["WalkRequest", "walk_first"]


class WalkRequest:
    """What the walk is told: the variables (`--var NAME=VALUE`) and the secrets' names (`--secret`,
    their values in the environment), as a run is, and the base URL a setup's relative `url`
    resolves against (the recording URL's origin)."""

    def __init__(self, variables: Mapping[str, str] | None = None, secret_names: Sequence[str] = (),
                 test_ids: Sequence[str] = (), base_url: str | None = None):
        self.base_url = base_url
        self.variables = dict(variables or {})
        self.secret_names = tuple(secret_names)
        self.test_ids = tuple(test_ids)

    def settings(self, paths: Sequence[Path]) -> Settings:
        overrides = Overrides(paths=tuple(str(p) for p in paths), variables=self.variables,
                              secret_names=self.secret_names, test_id_attribute=self.test_ids, workers=1,
                              retries=0, screenshots="off", trace="off", offline=False, base_url=self.base_url)
        return settings_for(overrides, os.environ, None)


class _Here:
    """A `BrowserHost` that runs the run's first worker in this thread, the recording's."""

    def __init__(self, browser: LentBrowser):
        self.browser = browser

    def hand(self, job: Callable[[Any], None]) -> None:
        job(self.browser)

    def close(self) -> None:
        return None

    def join(self) -> None:
        return None


def _first_failure(events: Sequence[Any]) -> str | None:
    for event in events:
        if isinstance(event, ev.RuleFinished) and event.status not in ("passed", "flaky"):
            failure = event.failure
            if failure is None:
                return f"{event.path}:{event.line}: {event.rule} was {event.status} ({event.reason})"
            where = f"{failure.path or event.path}:{failure.line or event.line}"
            if failure.col:
                where += f":{failure.col}"
            said = failure.message.splitlines()[0] if failure.message else failure.runtime_code
            return f"{where}: {failure.step_text or event.rule}: {said}"
    return None


def walk_first(recording: Recording, scenarios: Sequence[Scenario], settings: Settings) -> None:
    """Walk `scenarios` (setups first) in the recording's browser, recording nothing; a UsageError
    when one does not pass (see the module docstring)."""
    from flowwalk.walk.run import run_plan   # the walker: only for a recording that walks first

    events: list[Any] = []
    lent = LentBrowser(settings, recording)
    with recording.quiet():
        try:
            run_plan(list(scenarios), settings, events.append, prelaunched=_Here(lent))
        finally:
            lent.release()
    problem = _first_failure(events)
    if problem is not None:
        raise UsageError(f"the walk before recording did not pass, so nothing was recorded\n  {problem}\n"
                         "  hint: `flowwalk run` the spec (with the same --var and --secret) and fix it first")
