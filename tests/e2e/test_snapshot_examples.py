"""The baseline and accessibility checks end to end, through the CLI (issue 28).

- examples/snapshots/pricing.flow.yaml passes against its committed baselines;
- each flow of examples/snapshots/broken/ fails `assertion_failed`, and report.html shows the
  diff: the aria tree diff as text, the expected / observed / difference images, the axe rules;
- a baseline written by one run (`--update-snapshots`) compares equal on the next, and a missing
  baseline fails without writing anything (the CI case).

Rendering differs between machines (fonts, anti-aliasing), so the committed PNG baselines are made
on the machine kind the suite runs on; inside the Action's image, the container tests repeat the
write-then-compare round trip (docs/snapshots.md).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.e2e._cli import ROOT, flowwalk

pytestmark = pytest.mark.browser

SITE = "examples/snapshots/site"


def _tests(out: Path) -> dict[str, dict]:
    verdict = json.loads((out / "verdict.json").read_text())
    return {t["test_id"].split("#")[0]: t for t in verdict["tests"]}


def test_the_pricing_flow_matches_its_committed_baselines(tmp_path: Path) -> None:
    out = tmp_path / "report"
    done = flowwalk("run", "examples/snapshots/pricing.flow.yaml", "--serve", SITE, "--out", str(out), "--workers", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (out / "baselines").exists()   # nothing to review: every baseline matched


def test_each_broken_example_fails_with_its_diff_in_report_html(tmp_path: Path) -> None:
    out = tmp_path / "report"
    done = flowwalk("run", "examples/snapshots/broken", "--serve", SITE, "--out", str(out), "--workers", "2")
    assert done.returncode == 1, done.stdout + done.stderr
    tests = _tests(out)
    aria = tests["examples/snapshots/broken/aria.flow.yaml"]["failure"]
    assert aria["failure_class"] == "assertion_failed"
    assert "-      - paragraph: $14 / seat" in aria["baseline"]["text_diff"]
    assert "+      - paragraph: $16 / seat" in aria["baseline"]["text_diff"]
    shot = tests["examples/snapshots/broken/screenshot.flow.yaml"]["failure"]
    assert shot["failure_class"] == "assertion_failed" and shot["baseline"]["diff_pixels"] > 0
    for key in ("expected", "observed", "diff"):
        assert (out / shot["baseline"][key]).is_file()
    a11y = tests["examples/snapshots/broken/accessible.flow.yaml"]["failure"]
    assert a11y["failure_class"] == "assertion_failed"
    rules = {v["rule"]: v for v in a11y["violations"]}
    assert {"image-alt", "color-contrast"} <= set(rules)
    assert rules["image-alt"]["impact"] == "critical" and rules["image-alt"]["targets"]
    assert rules["image-alt"]["help_url"].startswith("https://dequeuniversity.com/rules/axe/")

    html = (out / "report.html").read_text()
    assert "$16 / seat" in html                       # the aria tree diff, as text
    for key in ("expected", "observed", "diff"):       # the three images
        assert shot["baseline"][key] in html
    assert "image-alt" in html and rules["image-alt"]["help_url"].replace("&", "&amp;") in html
    junit = (out / "junit.xml").read_text()
    summary = (out / "summary.md").read_text()
    for text in (junit, summary):
        assert "image-alt" in text and "critical" in text


ROUND_TRIP = ROOT / "tests" / "corpus" / "flows" / "good" / "baselines-round-trip.flow.yaml"


def test_a_baseline_written_by_one_run_compares_equal_on_the_next(tmp_path: Path) -> None:
    work = tmp_path / "work"
    shutil.copytree(ROOT / SITE, work / "site")
    shutil.copyfile(ROUND_TRIP, work / "trip.flow.yaml")
    spec, site = str(work / "trip.flow.yaml"), str(work / "site")
    baselines = work / "trip.flow.yaml.snapshots"

    missing = flowwalk("run", spec, "--serve", site, "--out", str(tmp_path / "r0"), "--workers", "1",
                       env={"CI": "true"})
    assert missing.returncode == 2, missing.stdout + missing.stderr   # spec_needs_review
    assert "no baseline yet, run with --update-snapshots" in missing.stdout
    assert "--update-snapshots to write" in (tmp_path / "r0" / "summary.md").read_text()
    assert not baselines.exists()                                     # never written silently
    saved = tmp_path / "r0" / "baselines"
    assert saved.is_dir()                                             # but kept for review (heal)

    write = flowwalk("run", spec, "--serve", site, "--out", str(tmp_path / "r1"), "--workers", "1",
                     "--update-snapshots")
    assert write.returncode == 0, write.stdout + write.stderr
    assert sorted(p.name for p in baselines.iterdir()) == ["cards.png", "page.png", "step-1.yml"]
    # the console names each baseline it wrote, not only "N warnings"
    assert "baselines written: 3, by --update-snapshots" in write.stdout
    listed = [line.strip() for line in write.stdout.splitlines() if line.startswith("  ") and ".snapshots/" in line]
    assert sorted(Path(line).name for line in listed) == ["cards.png", "page.png", "step-1.yml"], write.stdout
    summary = (tmp_path / "r1" / "summary.md").read_text()
    assert "### Baselines written (3)" in summary and "trip.flow.yaml.snapshots/cards.png" in summary
    written = {p.name: p.read_bytes() for p in baselines.iterdir()}

    again = flowwalk("run", spec, "--serve", site, "--out", str(tmp_path / "r2"), "--workers", "1")
    assert again.returncode == 0, again.stdout + again.stderr
    assert not (tmp_path / "r2" / "baselines").exists()
    assert {p.name: p.read_bytes() for p in baselines.iterdir()} == written
