"""An attempt's Playwright trace: whether it is kept, and the secrets scrubbed out of it (flowwalk/scrub.py).

- **kept**: `on` every attempt; `on-failure` an attempt where a rule failed; `retain-on-failure`
  those and the passing retry of a flaky test (`flaky` in this attempt), as Playwright Test keeps
  the traces of tests that failed or were flaky; `off` none. An attempt whose browser crashed has
  no trace to keep;
- **scrubbed**: Playwright saves the trace into a private temporary folder; it is rewritten into
  `traces/` with every spelling of every secret replaced, and the raw archive is deleted whatever
  happens. The secrets are the run's (`--secret`, the HTTP headers and credentials in each form
  they take), the file's (`secrets:`, robot `type secret`), and the values of the cookies and
  local storage of a session the scenario starts from or saves, or of the context itself when
  the attempt typed a secret (a sign-in makes a session);
- **screencast**: off for a context a secret can reach (the run or the file has a secret, a session,
  HTTP headers or credentials): the trace keeps actions, DOM snapshots, network and console, but
  no screencast frames, whose pixels cannot be scrubbed;
- a trace that cannot be scrubbed is not kept: `trace_withheld` says why.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterable, Sequence

from flowwalk import events as ev
from flowwalk.scrub import scrub_trace
from flowwalk.walk.attempt import Attempt
from flowwalk.walk.boundary import short
from flowwalk.walk.evidence import slug
from flowwalk.walk.sessions import state_values

__all__ = ["keep_trace", "screencast_allowed", "trace_wanted"]


def trace_wanted(mode: str, walked: Sequence[ev.RuleFinished]) -> bool:
    """Is this attempt's trace kept under trace mode `mode`?"""
    if mode == "on":
        return True
    failed = any(r.status == "failed" for r in walked)
    if mode == "on-failure":
        return failed
    if mode == "retain-on-failure":
        return failed or any(r.status == "flaky" for r in walked)
    return False


def screencast_allowed(attempt: Attempt) -> bool:
    """May the trace record the screencast? Not where a secret can reach the page."""
    sc = attempt.scenario
    return not (attempt.run.secrets.values() or attempt.bindings.secret_values or sc.session or sc.saves
                or attempt.settings.http_access)


def _secrets(attempt: Attempt, context_state: dict[str, Any] | None) -> list[str]:
    return [*attempt.run.secrets.values(), *attempt.bindings.secret_values.values(),
            *attempt.bindings.hidden_values, *state_values(context_state)]


def _reads_state(attempt: Attempt) -> bool:
    """Are the context's own cookies and storage secrets of this attempt (see the module docstring)?"""
    sc = attempt.scenario
    return bool(sc.session or sc.saves or attempt.bindings.typed_secret)


def keep_trace(attempt: Attempt, walked: Sequence[ev.RuleFinished]) -> tuple[str | None, str | None]:
    """Close the attempt's context, keeping its trace scrubbed when it is wanted:
    (the trace's path in the report folder, why a wanted trace was not kept)."""
    session = attempt.session
    assert session is not None
    settings = attempt.settings
    if not trace_wanted(settings.trace, walked) or attempt.control.crashed:
        session.close(None)
        return None, None
    name = f"traces/{slug(attempt.scenario.id)}-a{attempt.number}.zip"
    scratch = Path(tempfile.mkdtemp(prefix="flowwalk-trace-"))
    try:
        raw = scratch / "raw.zip"
        saved = session.stop_trace(raw)
        state: dict[str, Any] | None = None
        if saved and _reads_state(attempt):
            try:
                state = session.storage_state()
            except Exception:  # noqa: BLE001 - without the state the trace cannot be proved clean
                session.close(None)
                return None, "the context's cookies could not be read, so its trace could not be scrubbed of them"
        session.close(None)
        if not saved:
            return None, None
        target = attempt.run.out_dir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        values: Iterable[str] = _secrets(attempt, state) if settings.scrub_traces else ()
        try:
            scrub_trace(raw, target, values)
        except Exception as exc:  # noqa: BLE001 - a trace that cannot be rewritten is not kept
            return None, f"the trace could not be scrubbed of secrets ({short(exc)}), so it was not kept"
        return name, None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
