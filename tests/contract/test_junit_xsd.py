"""junit.xml validates against the common JUnit XSD (tests/contract/junit.xsd)."""

from __future__ import annotations

from pathlib import Path

import pytest
import xmlschema

from flowwalk.plan.shard import plan_run
from flowwalk.report.build import build_reports
from flowwalk.report.merge import merge_reports
from sample_run import sample_events, sample_suites, write_sample_run
from flowwalk.settings import Settings

XSD = xmlschema.XMLSchema(str(Path(__file__).with_name("junit.xsd")))


def write(folder: Path, k: int = 1, n: int = 1, **kw: object) -> Path:
    suites = sample_suites(extra=30)
    write_sample_run(folder, sample_events(suites, plan_run(suites, Settings(shard_index=k, shard_total=n)).record(),
                                           **kw))  # type: ignore[arg-type]
    return folder


@pytest.mark.parametrize("kw", [{}, {"cancel_after": 3}, {"retries": 0}])
def test_junit_of_a_run_is_valid(tmp_path: Path, kw: dict[str, object]) -> None:
    build_reports(write(tmp_path, **kw), warn=False)
    XSD.validate(str(tmp_path / "junit.xml"))


def test_junit_of_a_merge_with_a_missing_shard_is_valid(tmp_path: Path) -> None:
    merge_reports([write(tmp_path / "s1", 1, 3), write(tmp_path / "s3", 3, 3)], tmp_path / "merged")
    XSD.validate(str(tmp_path / "merged" / "junit.xml"))


def test_the_xsd_refuses_what_reporters_cannot_read(tmp_path: Path) -> None:
    # the contract test is only worth something if the schema can say no
    bad = ('<testsuites><testsuite name="a" tests="1" failures="1" errors="0" skipped="0" time="1">'
           '<testcase name="x" classname="a" time="0.1"><failure type="assertion_failed"/></testcase>'
           '</testsuite></testsuites>')
    assert not XSD.is_valid(bad)  # a failure without a message
    no_time = bad.replace(' time="0.1"', "").replace('<failure type="assertion_failed"/>', "")
    assert not XSD.is_valid(no_time)
    good = no_time.replace('classname="a"', 'classname="a" time="0.100"')
    assert XSD.is_valid(good)
