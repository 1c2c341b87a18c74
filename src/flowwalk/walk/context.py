"""What one run hands every scenario it walks: variables, secrets, the redactor, clocks, cancel.

`RunContext` is built once per run (`RunContext.create`) and copied per worker; the walker only
reads it. It also owns `redact_event`, the last gate every event passes on its way out of the
walker, so that no string of any event (message, observed text, evidence, emit field) can carry
a secret value even when a code path forgot to redact it.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import time
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal, Mapping

from flowwalk.agent import Agent
from flowwalk.cooperative import CancelToken
from flowwalk.events import Event
from flowwalk.heal.cache import HealMap
from flowwalk.heal.fingerprint import FingerprintStore
from flowwalk.settings import Secrets, Settings
from flowwalk.spec.variables import Redactor
from flowwalk.walk.sessions import SessionBook


def run_variables(settings: Settings) -> dict[str, str]:
    """The run's own variables: `--var`/config values plus `BASE_URL` from `--base-url`.

    An explicit `--var BASE_URL=...` wins over `--base-url`, as any explicit variable does.
    """
    values: dict[str, str] = {}
    if settings.base_url:
        values["BASE_URL"] = settings.base_url.rstrip("/")
    values.update(settings.variables)
    return values


class RunStop:
    """The one owner of whether the run has stopped, and why; every worker reads it through
    `RunContext.stop_reason` / `is_stopped`.

    Three things stop a run, first one wins: a cancel (SIGINT/SIGTERM sets `cancel`), the run
    timeout (`deadline`), and `--max-failures N` (`note_failure` counts scenarios whose final
    attempt failed). The first two also cut what is in flight; the third only stops new scenarios
    from starting, and those in flight finish.
    """

    def __init__(self, max_failures: int | None = None):
        self.max_failures = max_failures
        self._failures = 0
        self._lock = threading.Lock()

    def note_failure(self) -> None:
        with self._lock:
            self._failures += 1

    def max_failures_reached(self) -> bool:
        with self._lock:
            return self.max_failures is not None and self._failures >= self.max_failures


@dataclass(frozen=True)
class RunContext:
    """Read-only state shared by every scenario of one run (copied per worker)."""

    variables: Mapping[str, str]
    secrets: Secrets
    redactor: Redactor
    out_dir: Path
    #: time.monotonic() when the run started; event times are seconds since then
    started: float
    #: time.monotonic() after which nothing new starts and the step in flight is cut; None: no limit
    deadline: float | None
    cancel: CancelToken = field(default_factory=CancelToken, compare=False)
    worker: int = 1
    #: the project root: the spec paths of the model (a baseline's) are relative to it
    root: Path = Path(".")
    #: the run's model (None: not configured); one per run, so its cap holds across workers
    agent: Agent | None = field(default=None, compare=False)
    #: the last fingerprint of each pinned selector (an earlier run's, then this run's own)
    fingerprints: FingerprintStore = field(default_factory=FingerprintStore, compare=False)
    #: the heals accepted in this run, per page and broken selector (heal/cache.py); shared by every worker
    heals: HealMap = field(default_factory=HealMap, compare=False, repr=False)
    #: the sessions this run's setups save (walk/sessions.py); shared by every worker
    sessions: SessionBook = field(default_factory=SessionBook, compare=False, repr=False)
    #: --max-failures' count, shared by every worker (see stop_reason)
    stop: RunStop = field(default_factory=RunStop, compare=False, repr=False)

    @classmethod
    def create(cls, settings: Settings, *, out_dir: Path | None = None, cancel: CancelToken | None = None,
               worker: int = 1, started: float | None = None) -> "RunContext":
        start = time.monotonic() if started is None else started
        timeout = settings.run_timeout_s
        return cls(
            variables=run_variables(settings),
            secrets=settings.secrets,
            redactor=Redactor(settings.secrets.values()),
            out_dir=Path(settings.out_dir if out_dir is None else out_dir),
            started=start,
            deadline=start + timeout if timeout and timeout > 0 else None,
            cancel=cancel if cancel is not None else CancelToken(),
            worker=worker,
            root=Path(settings.root),
            agent=_agent(settings),
            fingerprints=FingerprintStore.load(settings.fingerprints_file or settings.durations_file),
            stop=RunStop(settings.max_failures),
        )

    def for_worker(self, worker: int) -> "RunContext":
        # the agent, the fingerprint store, the heals and the sessions stay shared: one of each per run
        return dataclasses.replace(self, worker=worker)

    def elapsed_s(self) -> float:
        return round(time.monotonic() - self.started, 3)

    def timed_out(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def stop_reason(self, *, in_flight: bool = False) -> Literal["cancelled", "run_timeout", "max_failures"] | None:
        """Why the run starts nothing more (None: it goes on). `in_flight`: only the reasons that also
        cut the work in flight (a cancel, the run timeout), not --max-failures."""
        if self.cancel.is_set():
            return "cancelled"
        if self.timed_out():
            return "run_timeout"
        if not in_flight and self.stop.max_failures_reached():
            return "max_failures"
        return None

    def is_stopped(self) -> bool:
        """Start no new scenario (see stop_reason)."""
        return self.stop_reason() is not None


def _agent(settings: Settings) -> Agent | None:
    if settings.llm is None:
        return None
    secrets = {name: settings.secrets.get(name) or "" for name in settings.secrets.names()}
    return Agent.open(settings.llm, secrets=secrets)


@functools.lru_cache(maxsize=None)
def _vocabulary(cls: type) -> frozenset[str]:
    """The fields of an event class typed with a `Literal` (events.py's vocabularies: kinds, roles,
    statuses, failure classes). flowwalk writes them from a closed set, so they never hold user
    data; and a short secret inside one of their words ("pass" in "passed") would, redacted, make
    the record unreadable to every report. Any class whose hints cannot be read keeps none."""
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - redact every field then: the safe side
        return frozenset()
    found = set()
    for name, hint in hints.items():
        parts = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
        if any(typing.get_origin(part) is typing.Literal for part in parts):
            found.add(name)
    return frozenset(found)


@functools.lru_cache(maxsize=None)
def _free_text(cls: type) -> tuple[str, ...]:
    """The fields of a dataclass that redaction goes through: every init field but the vocabulary."""
    keep = _vocabulary(cls)
    return tuple(f.name for f in dataclasses.fields(cls) if f.init and f.name not in keep)


def _redact(value: Any, text: Callable[[str], str]) -> Any:
    """`value` with `text` applied to every string in it; the very same object where nothing in it
    changed (most events hold no secret: nothing is copied or rebuilt for them)."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, Event) or (dataclasses.is_dataclass(value) and not isinstance(value, type)):
        changes = {}
        for name in _free_text(type(value)):
            before = getattr(value, name)
            after = _redact(before, text)
            if after is not before:
                changes[name] = after
        return dataclasses.replace(value, **changes) if changes else value
    if isinstance(value, (tuple, list)):
        items = [_redact(v, text) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return tuple(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        pairs = [((_redact(k, text) if isinstance(k, str) else k), _redact(v, text)) for k, v in value.items()]
        if all(k2 is k and v2 is v for (k2, v2), (k, v) in zip(pairs, value.items())):
            return value
        return dict(pairs)
    return value


def redact_event(event: Event, text: Callable[[str], str]) -> Event:
    """A copy of `event` with `text` applied to every string in it, however deeply nested."""
    redacted: Event = _redact(event, text)
    return redacted
