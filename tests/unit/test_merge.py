"""flowwalk merge: shard folders in, exactly what one unsharded run would have written out."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from flowwalk.errors import UsageError
from flowwalk.plan.shard import plan_run
from flowwalk.report.build import build_reports
from flowwalk.report.verdict_json import verdict_data
from flowwalk.report.merge import merge_reports
from sample_run import sample_events, sample_suites, write_sample_run
from flowwalk.settings import Settings

#: verdict fields that describe the run, not its tests (they differ between any two runs)
RUN_FIELDS = ("run_id", "started_at", "duration_ms", "shards", "warnings")


def write(folder: Path, k: int = 1, n: int = 1, durations: Path | None = None, extra: int = 12, **kw: Any) -> Path:
    suites = sample_suites(extra=extra)
    settings = Settings(shard_index=k, shard_total=n, durations_file=str(durations) if durations else None)
    write_sample_run(folder, sample_events(suites, plan_run(suites, settings).record(), run_id=f"run-{k}-of-{n}", **kw))
    return folder


def junit_without_timestamps(folder: Path) -> str:
    return re.sub(r' timestamp="[^"]*"', "", (folder / "junit.xml").read_text())


def summary_without_footer(folder: Path) -> str:
    return (folder / "summary.md").read_text().rsplit("<sub>", 1)[0]


@pytest.mark.parametrize("total, use_durations", [(2, False), (3, True)])
def test_a_merged_sharded_run_equals_the_unsharded_run_test_by_test(tmp_path: Path, total: int,
                                                                    use_durations: bool) -> None:
    # the unsharded run's workers finished scenarios in another order than the shards did
    whole = write(tmp_path / "whole", arrival="reversed")
    build_reports(whole)
    durations = (whole / "emit.jsonl") if use_durations else None
    shards = [write(tmp_path / f"shard-{k}", k, total, durations) for k in range(1, total + 1)]
    result = merge_reports(list(reversed(shards)), tmp_path / "merged")  # folder order must not matter
    merged = tmp_path / "merged"

    assert result.warnings == ()
    assert result.shards == {"total": total, "reported": list(range(1, total + 1)), "missing": [],
                             "duplicated": [], "mismatched": []}
    one = json.loads((whole / "verdict.json").read_text())
    both = json.loads((merged / "verdict.json").read_text())
    assert both == verdict_data(result.verdict)
    for key in set(one) - set(RUN_FIELDS):
        assert both[key] == one[key], key
    assert junit_without_timestamps(merged) == junit_without_timestamps(whole)
    assert summary_without_footer(merged) == summary_without_footer(whole)
    # every screenshot the merged records reference is in the merged folder
    shots = [s for t in both["tests"] for s in t["screenshots"]]
    assert shots and all((merged / s).is_file() for s in shots)
    # each shard's own verdict holds its own tests, and together they are the whole run's
    owns = [verdict_data(build_reports(s, warn=False)) for s in shards]
    assert [v["shards"]["shard"] for v in owns] == list(range(1, total + 1))
    assert sorted(t["test_id"] for v in owns for t in v["tests"]) == sorted(t["test_id"] for t in one["tests"])
    assert sum(v["counts"]["total"] for v in owns) == one["counts"]["total"]
    # `flowwalk report` on the merged folder rebuilds the merged verdict, not a shard's
    assert {k: v for k, v in verdict_data(build_reports(merged, warn=False)).items() if k != "warnings"} == \
        {k: v for k, v in both.items() if k != "warnings"}


def test_the_merged_emit_jsonl_holds_each_shard_in_shard_order(tmp_path: Path) -> None:
    shards = [write(tmp_path / f"s{k}", k, 3) for k in (3, 1, 2)]
    merge_reports(shards, tmp_path / "m")
    records = [json.loads(line) for line in (tmp_path / "m" / "emit.jsonl").read_text().splitlines()]
    starts = [r["shard"]["index"] for r in records if r["event"] == "run_started"]
    assert starts == [1, 2, 3]
    expected = sum(len((s / "emit.jsonl").read_text().splitlines()) for s in shards)
    assert len(records) == expected


def test_a_missing_shard_is_said_plainly_and_never_reads_as_a_pass(tmp_path: Path) -> None:
    result = merge_reports([write(tmp_path / "s1", 1, 3), write(tmp_path / "s3", 3, 3)], tmp_path / "m")
    assert "shard 2 of 3 is missing: its scenarios are reported as not run" in result.warnings
    assert result.shards["missing"] == [2] and result.shards["reported"] == [1, 3]
    not_run = [t for t in verdict_data(result.verdict)["tests"] if t["reason"] == "shard_missing"]
    assert not_run and all(t["status"] == "skipped" for t in not_run)
    summary = (tmp_path / "m" / "summary.md").read_text()
    assert f"### Did not run: {len(not_run)} test" in summary
    assert "2 of 3 shards reported (missing: 2)" in summary
    junit = ET.parse(tmp_path / "m" / "junit.xml").getroot()
    assert any(s.get("message") == "shard_missing: shard 2 did not report" for s in junit.iter("skipped"))


def test_a_missing_shard_turns_an_all_passed_run_into_infrastructure_failed(tmp_path: Path) -> None:
    # only generated flows, none of the scripted failures: every test that ran passed
    suites = [s for s in sample_suites(extra=40) if s.path.startswith("generated/")]
    plan = plan_run(suites, Settings(shard_index=1, shard_total=2))
    write_sample_run(tmp_path / "s1", sample_events(suites, plan.record(), retries=3))
    folders = [tmp_path / "s1"]
    result = merge_reports(folders, tmp_path / "m")
    assert result.verdict.counts.failed == 0
    assert (result.verdict.outcome, result.verdict.exit_code) == ("infrastructure_failed", 6)


def test_a_shard_given_twice_is_counted_once_and_reported(tmp_path: Path) -> None:
    first = write(tmp_path / "s1", 1, 2, started_at="2024-05-01T12:00:00Z")
    again = write(tmp_path / "s1-rerun", 1, 2, started_at="2024-05-01T12:30:00Z")
    second = write(tmp_path / "s2", 2, 2)
    result = merge_reports([again, first, second], tmp_path / "m")
    assert result.shards["duplicated"] == [1]
    assert any(w.startswith("shard 1 of 2 was reported 2 times") for w in result.warnings)
    whole = write(tmp_path / "whole")
    one = verdict_data(build_reports(whole))
    assert verdict_data(result.verdict)["counts"] == one["counts"]


def test_shards_that_planned_differently_are_flagged(tmp_path: Path) -> None:
    whole = write(tmp_path / "whole")
    by_count = write(tmp_path / "s1", 1, 2)
    by_time = write(tmp_path / "s2", 2, 2, durations=whole / "emit.jsonl")
    result = merge_reports([by_count, by_time], tmp_path / "m")
    assert result.shards["mismatched"] == [2]
    assert any("shard 2 recorded a different plan from shard 1" in w for w in result.warnings)


def test_screenshots_that_clash_are_reported(tmp_path: Path) -> None:
    s1, s2 = write(tmp_path / "s1", 1, 2), write(tmp_path / "s2", 2, 2)
    (s1 / "screenshots" / "same.png").write_bytes(b"one")
    (s2 / "screenshots").mkdir(exist_ok=True)
    (s2 / "screenshots" / "same.png").write_bytes(b"two")
    (s1 / "traces").mkdir()
    (s1 / "traces" / "t.zip").write_bytes(b"zip")
    result = merge_reports([s1, s2], tmp_path / "m")
    assert f"screenshots/same.png differs between {s1} and {s2}; kept the one from {s2}" in result.warnings
    assert (tmp_path / "m" / "screenshots" / "same.png").read_bytes() == b"two"
    assert (tmp_path / "m" / "traces" / "t.zip").read_bytes() == b"zip"


def test_bad_inputs_are_refused_with_a_hint(tmp_path: Path) -> None:
    s1 = write(tmp_path / "s1", 1, 2)
    with pytest.raises(UsageError, match="is also an input folder"):
        merge_reports([s1], s1)
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError) as caught:
        merge_reports([s1, tmp_path / "empty"], tmp_path / "m")
    assert f"'{tmp_path / 'empty'}' has no emit.jsonl" in str(caught.value) and "hint:" in str(caught.value)
    with pytest.raises(UsageError, match="nothing to merge"):
        merge_reports([], tmp_path / "m")


def test_merging_a_merge_with_the_last_shard_completes_it(tmp_path: Path) -> None:
    s = [write(tmp_path / f"s{k}", k, 3) for k in (1, 2, 3)]
    merge_reports(s[:2], tmp_path / "partial")
    result = merge_reports([tmp_path / "partial", s[2]], tmp_path / "full")
    assert result.shards["missing"] == [] and result.shards["reported"] == [1, 2, 3]
    direct = merge_reports(s, tmp_path / "direct")
    assert junit_without_timestamps(tmp_path / "full") == junit_without_timestamps(tmp_path / "direct")
    assert verdict_data(direct.verdict)["tests"] == verdict_data(result.verdict)["tests"]
