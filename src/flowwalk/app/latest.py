"""The report folder of a watch: the latest walk of each scenario, as one run's emit.jsonl.

Each walk of `flowwalk run --watch` walks only what changed. `Latest` is that walk's event sink:
it keeps each scenario's events, and after the walk rewrites emit.jsonl as one run that a one-shot
run of the same files could have written: the newest `run_started` with the whole plan, each
planned scenario's events from its latest walk (in plan order), and a `run_finished` whose counts
and exit code are the verdict's own (`report.verdict.decide` over the file just written). Then every
report is rebuilt from it (`report.build.build_reports`), as after any run. A scenario no longer in
the plan (its file deleted, or refused for now) leaves the report.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flowwalk import events as ev

if TYPE_CHECKING:
    from flowwalk.report.verdict_model import Verdict

__all__ = ["Latest"]


class Latest:
    """`Latest(out_dir)`: call it with each event of a walk, then `write(plan_record)`."""

    def __init__(self, out_dir: str | Path):
        self.out = Path(out_dir)
        #: scenario id -> the records of its latest walk
        self._kept: dict[str, list[dict[str, Any]]] = {}
        self._walk: dict[str, list[dict[str, Any]]] = {}
        self._started: dict[str, Any] | None = None
        self._cancelled: dict[str, Any] | None = None
        self._duration_ms = 0.0

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.RunStarted):
            self._started, self._cancelled, self._walk = event.record(), None, {}
        elif isinstance(event, ev.RunCancelled):
            self._cancelled = event.record()
        elif isinstance(event, ev.RunFinished):
            self._duration_ms = event.duration_ms
        else:
            scenario = getattr(event, "scenario_id", None)
            if isinstance(scenario, str):
                self._walk.setdefault(scenario, []).append(event.record())

    @property
    def kept(self) -> tuple[str, ...]:
        """The scenarios the report holds a walk of."""
        return tuple(self._kept)

    def write(self, plan: dict[str, Any]) -> Verdict:
        """Keep the last walk's scenarios, write emit.jsonl for the whole `plan` (a `Plan.record()`)
        and every report; returns the verdict."""
        from flowwalk.report.build import build_reports, write_atomic
        from flowwalk.report.emit import dump_record
        from flowwalk.report.records import read_run
        from flowwalk.report.verdict import decide
        from flowwalk.reportfolder import ReportFolder

        self._kept.update(self._walk)
        self._walk = {}
        planned = [str(s.get("id")) for s in plan.get("scenarios") or () if isinstance(s, dict)]
        self._kept = {sid: self._kept[sid] for sid in planned if sid in self._kept}
        started = {**(self._started or {}), "plan": plan}
        lines = [dump_record(started), *(dump_record(r) for sid in planned for r in self._kept.get(sid, ()))]
        if self._cancelled is not None:
            lines.append(dump_record(self._cancelled))
        emit = self.out / ReportFolder.EMIT
        write_atomic(emit, "".join(line + "\n" for line in lines))
        records = read_run(self.out)
        _outcome, code = decide(records)
        finished = ev.RunFinished(finished_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                  duration_ms=self._duration_ms, exit_code=code,
                                  counts=ev.tally(t.status for t in records.tests),
                                  cancelled=self._cancelled is not None)
        write_atomic(emit, "".join(line + "\n" for line in [*lines, dump_record(finished.record())]))
        return build_reports(self.out)
