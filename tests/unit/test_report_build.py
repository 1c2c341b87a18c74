"""build_reports: every report from emit.jsonl alone; one broken reporter never costs the others."""

from __future__ import annotations

import io
import json
from pathlib import Path

from flowwalk.plan.shard import plan_run
from flowwalk.report.build import build_reports
from flowwalk.report.verdict_json import verdict_data
from sample_run import sample_events, sample_suites, write_sample_run
from flowwalk.settings import Settings

REPORTS = ("verdict.json", "junit.xml", "summary.md", "report.html")


def write(folder: Path) -> Path:
    suites = sample_suites()
    write_sample_run(folder, sample_events(suites, plan_run(suites, Settings()).record()))
    return folder


def test_every_report_is_rebuilt_from_emit_jsonl_alone(tmp_path: Path) -> None:
    folder = write(tmp_path / "run")
    first = build_reports(folder)
    texts = {name: (folder / name).read_text() for name in REPORTS}
    # copy only emit.jsonl somewhere else: the same reports come out
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "emit.jsonl").write_text((folder / "emit.jsonl").read_text())
    again = build_reports(alone)
    assert again == first
    for name in REPORTS:
        assert (alone / name).read_text() == texts[name], name
    assert json.loads(texts["verdict.json"]) == verdict_data(first)


def test_a_broken_reporter_is_reported_and_the_others_are_written(tmp_path: Path) -> None:
    folder = write(tmp_path)
    (folder / "junit.xml").mkdir()  # junit.xml cannot be written: a folder is in the way
    err = io.StringIO()
    verdict = build_reports(folder, stderr=err)
    assert verdict.exit_code == 1
    assert "flowwalk: error: could not write junit.xml: IsADirectoryError" in err.getvalue()
    assert "the other reports were written" in err.getvalue()
    for name in ("verdict.json", "summary.md", "report.html"):
        assert (folder / name).is_file(), name
    assert not list(folder.glob(".junit.xml.*"))  # no half-written temporary file is left behind


def test_reading_problems_are_warned_about(tmp_path: Path) -> None:
    folder = write(tmp_path)
    with (folder / "emit.jsonl").open("a") as handle:
        handle.write('{"event":"run_fin')
    err = io.StringIO()
    verdict = build_reports(folder, stderr=err)
    assert err.getvalue().startswith(f"flowwalk: warning: {folder / 'emit.jsonl'}:")
    assert "the last line is truncated or corrupt" in verdict.warnings[0]
