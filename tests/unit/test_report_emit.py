"""The emit.jsonl writer: one flushed JSON line per event, run_started first, safe under workers."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from flowwalk.events import EmitRecorded, RunStarted, ScenarioStarted
from flowwalk.report.emit import EmitWriter


def started() -> RunStarted:
    return RunStarted(run_id="r", started_at="2024-05-01T12:00:00Z", flowwalk_version="0.1.0",
                      shard={"index": 1, "total": 1}, plan={"scenarios": [], "assigned": []}, settings={})


def test_each_event_is_one_compact_line_readable_before_close(tmp_path: Path) -> None:
    writer = EmitWriter(tmp_path / "out")
    writer(started())
    writer(EmitRecorded(scenario_id="a#a", rule="r", name="prices", url="http://127.0.0.1/€",
                        fields={"total": "12,50 €", "items": 3}, t=1.25))
    # flushed per line: a job killed now still leaves both records on disk
    lines = (tmp_path / "out" / "emit.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["event"] for line in lines] == ["run_started", "emit_recorded"]
    assert json.loads(lines[0])["schema"] == "flowwalk.emit/1"
    assert ", " not in lines[1] and '": ' not in lines[1]  # compact separators
    assert "12,50 €" in lines[1]  # not \u20ac: ensure_ascii is off
    writer.close()
    writer.close()  # twice is fine: the run and its cleanup both close it


def test_the_first_record_must_be_run_started(tmp_path: Path) -> None:
    writer = EmitWriter(tmp_path)
    with pytest.raises(ValueError, match="first record .* must be run_started, not ScenarioStarted"):
        writer(ScenarioStarted(scenario_id="a#a", attempt=1, worker=1, t=0.0))
    writer.close()


def test_writing_after_close_is_refused(tmp_path: Path) -> None:
    writer = EmitWriter(tmp_path)
    writer(started())
    writer.close()
    with pytest.raises(ValueError, match="closed"):
        writer(started())


def test_concurrent_workers_never_interleave_lines(tmp_path: Path) -> None:
    writer = EmitWriter(tmp_path)
    writer(started())
    big = "x" * 20_000  # larger than any buffer, so an unlocked write would tear

    def work(worker: int) -> None:
        for i in range(200):
            writer(EmitRecorded(scenario_id=f"s{worker}", rule="r", name=str(i), url="u", fields={"v": big}, t=0.0))

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    writer.close()
    records = [json.loads(line) for line in (tmp_path / "emit.jsonl").read_text().splitlines()]
    assert len(records) == 1 + 4 * 200 == writer.count
    for w in range(4):
        assert [r["name"] for r in records if r.get("scenario_id") == f"s{w}"] == [str(i) for i in range(200)]


def test_odd_values_in_details_are_written_as_text_not_lost(tmp_path: Path) -> None:
    with EmitWriter(tmp_path) as writer:
        writer(started())
        writer(EmitRecorded(scenario_id="a#a", rule="r", name="n", url="u", fields={"when": Path("/x")},
                            t=0.0))
    record = json.loads((tmp_path / "emit.jsonl").read_text().splitlines()[1])
    assert record["fields"] == {"when": "/x"}
