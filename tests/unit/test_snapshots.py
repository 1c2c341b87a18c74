"""Baselines without a browser: the pixel comparison, the aria diff, where the report keeps its
copies, the page kinds' judges in checks.KINDS, and `flowwalk heal`'s patch of baselines."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from flowwalk import events as ev
from flowwalk.browser.records import AriaRead
from flowwalk.errors import Location
from flowwalk.heal.baselines import apply_baselines, plan_baselines
from flowwalk.model import AxeOptions, Expect, Snapshot
from flowwalk.snapshots.aria import aria_diff, first_change, normalize_snapshot
from flowwalk.snapshots.images import ImageError, compare_png
from flowwalk.snapshots.store import read_baseline, report_name, write_baseline
from flowwalk.walk.checks import KINDS, judge_page


def png(width: int = 120, height: int = 80, box: tuple[int, int, int, int] | None = None,
        colour: str = "red") -> bytes:
    image = Image.new("RGBA", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((5, 5), "Pricing", fill="black")
    if box:
        draw.rectangle(box, fill=colour)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


# --- pixels -----------------------------------------------------------------------------------


def test_identical_images_pass_with_no_difference_image() -> None:
    result = compare_png(png(), png())
    assert result.passed and result.diff_pixels == 0 and result.diff_png is None


def test_a_changed_region_fails_and_the_difference_image_marks_it() -> None:
    result = compare_png(png(), png(box=(40, 40, 59, 49)))
    assert not result.passed
    assert result.diff_pixels == 200          # the 20 x 10 box, nothing else
    diff = Image.open(io.BytesIO(result.diff_png or b"")).convert("RGB")
    assert diff.size == (120, 80)
    assert diff.getpixel((50, 45)) == (255, 0, 0)      # marked red
    assert diff.getpixel((100, 70))[0] > 240            # unchanged: faded to near white


def test_tolerances_let_small_differences_pass() -> None:
    changed = png(box=(40, 40, 49, 49))                  # 100 pixels
    assert compare_png(png(), changed, max_diff_pixels=100).passed
    assert not compare_png(png(), changed, max_diff_pixels=99).passed
    assert compare_png(png(), changed, max_diff_ratio=0.011).passed   # 100 of 9600
    # a colour close to white is within a loose threshold (YIQ distance), not a strict one
    faint = png(box=(40, 40, 49, 49), colour="#fbfbfb")
    assert compare_png(png(), faint, threshold=0.2).passed
    assert not compare_png(png(), faint, threshold=0.0).passed


def test_a_size_change_never_passes_and_says_both_sizes() -> None:
    result = compare_png(png(), png(height=90))
    assert not result.passed and result.size_mismatch == "expected 120x80, observed 120x90"
    assert "image size differs" in result.describe()


def test_a_damaged_baseline_is_an_image_error() -> None:
    with pytest.raises(ImageError):
        compare_png(b"not a png", png())


# --- aria text --------------------------------------------------------------------------------


def test_the_aria_diff_leaves_out_comments_and_regex_lines_that_match() -> None:
    baseline = "# a note\n- main:\n  - paragraph: /Prices as of \\d+:\\d+/\n  - paragraph: $14 / seat\n"
    page = "- main:\n  - paragraph: Prices as of 07:01\n  - paragraph: $16 / seat\n"
    diff = aria_diff(baseline, page, baseline="b.yml")
    assert "# a note" not in diff and "Prices as of" not in diff.replace("  - paragraph: Prices as of 07:01", "")
    assert "-  - paragraph: $14 / seat" in diff and "+  - paragraph: $16 / seat" in diff
    assert first_change(diff) == "first difference: -  - paragraph: $14 / seat"


def test_snapshots_are_written_in_one_form() -> None:
    assert normalize_snapshot("- a  \r\n- b\r\n\r\n") == "- a\n- b\n"


# --- files ------------------------------------------------------------------------------------


def test_report_copies_keep_the_baseline_path_inside_the_report_folder() -> None:
    assert report_name("specs/a.flow.yaml.snapshots/home.png") == "baselines/specs/a.flow.yaml.snapshots/home.png"
    assert report_name("specs/a.flow.yaml.snapshots/home.png", "diff") == \
        "baselines/specs/a.flow.yaml.snapshots/home.diff.png"
    assert report_name("../x/a.flow.yaml.snapshots/t.yml") == "baselines/__up/x/a.flow.yaml.snapshots/t.yml"


def test_a_baseline_is_written_whole_with_its_folder(tmp_path: Path) -> None:
    target = tmp_path / "s.flow.yaml.snapshots" / "home.png"
    assert read_baseline(target) is None
    write_baseline(target, b"data")
    assert read_baseline(target) == b"data" and [p.name for p in target.parent.iterdir()] == ["home.png"]


def test_a_baseline_gets_the_mode_of_a_repository_file(tmp_path: Path) -> None:
    # --update-snapshots and heal --apply write into the repository: a later step running as another
    # user (a container run as root) must read what they wrote
    new, kept = tmp_path / "new.png", tmp_path / "kept.yml"
    kept.write_bytes(b"old")
    kept.chmod(0o640)
    umask = os.umask(0o022)
    try:
        write_baseline(new, b"data")
        write_baseline(kept, b"new")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o644
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640 and kept.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.yml", "new.png"]


# --- the page kinds' rows in checks.KINDS -------------------------------------------------------


def expect(kind: str, **kw: object) -> Expect:
    return Expect(loc=Location("s.flow.yaml", 3, 5), text=f"expect {kind}", kind=kind, **kw)  # type: ignore[arg-type]


SNAP = Snapshot(name="home", baseline="s.flow.yaml.snapshots/home.png")


def test_the_page_kinds_are_rows_of_the_one_table() -> None:
    assert {KINDS[k].reads for k in ("aria_snapshot", "screenshot", "accessible")} == {"page"}


def test_the_page_judges() -> None:
    aria = expect("aria_snapshot", selector="main", snapshot=Snapshot("plans", "s.flow.yaml.snapshots/plans.yml"))
    assert judge_page(aria, None, AriaRead(True)) == (
        True, "aria snapshot of 'main' matching s.flow.yaml.snapshots/plans.yml",
        "aria snapshot of 'main' matches its baseline")
    assert judge_page(aria, None, AriaRead(False))[0] is False
    assert judge_page(aria, None, AriaRead(False, "bad YAML at line 1"))[0] is None
    shot = expect("screenshot", snapshot=SNAP)
    ok, expected, observed = judge_page(shot, None, compare_png(png(), png(box=(80, 60, 89, 69))))
    assert ok is False and expected == "screenshot of the page like s.flow.yaml.snapshots/home.png"
    assert observed == "screenshot of the page: 100 pixel(s) differ (1.04% of 9600)"
    a11y = expect("accessible", axe=AxeOptions(impact="serious"))
    found = (ev.Violation(rule="image-alt", impact="critical", help="Images must have alternative text",
                          help_url="https://dequeuniversity.com/rules/axe/4.14/image-alt", targets=("img.hero",),
                          count=1),)
    assert judge_page(a11y, ".panel", found) == (
        False, "no axe-core violations of impact serious or above in '.panel'",
        "1 accessibility violation(s): image-alt (critical, 1 element: img.hero)")
    assert judge_page(a11y, None, ())[0] is True


# --- heal: the report's baselines as a patch ------------------------------------------------------


def _report(tmp: Path, records: list[ev.Baseline], files: dict[str, bytes]) -> Path:
    out = tmp / "report"
    out.mkdir()
    for name, data in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    failure = ev.Failure(failure_class="assertion_failed", runtime_code="EXPECT_STATE_MISMATCH", retryable=False,
                         step_kind="observation_or_assertion", message="differs", baseline=records[0])
    findings = tuple(ev.Finding(severity="warning", source="step", message="written", kind="baseline_written",
                                baseline=r) for r in records[1:])
    lines = [
        ev.RunStarted(run_id="r", started_at="2026-01-01T00:00:00Z", flowwalk_version="0", shard={"index": 1, "total": 1},
                      plan={"scenarios": [], "assigned": []}, settings={}),
        ev.RuleFinished(scenario_id="s.flow.yaml#s", rule="s", test_id="s.flow.yaml#s", attempt=1, status="failed",
                        duration_ms=1.0, path="s.flow.yaml", line=1, failure=failure, findings=findings),
    ]
    (out / "emit.jsonl").write_text("".join(json.dumps(e.record()) + "\n" for e in lines))
    return out


def test_heal_patches_new_and_changed_baselines_and_git_applies_it(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "s.flow.yaml.snapshots").mkdir(parents=True)
    old, new = png(), png(box=(1, 1, 5, 5))
    (root / "s.flow.yaml.snapshots" / "home.png").write_bytes(old)
    import hashlib

    record = ev.Baseline(kind="screenshot", name="home", path="s.flow.yaml.snapshots/home.png", status="mismatch",
                         observed="baselines/s.flow.yaml.snapshots/home.png", sha256=hashlib.sha256(new).hexdigest())
    written = ev.Baseline(kind="aria_snapshot", name="t", path="s.flow.yaml.snapshots/t.yml", status="written",
                          observed="baselines/s.flow.yaml.snapshots/t.yml")
    report = _report(tmp_path, [record, written], {"baselines/s.flow.yaml.snapshots/home.png": new})
    plan = plan_baselines(report, root)
    assert [c.path for c in plan.changes] == ["s.flow.yaml.snapshots/home.png"] and not plan.skipped
    assert plan.written == ("s.flow.yaml.snapshots/t.yml",)
    assert "GIT binary patch" in plan.diff
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (tmp_path / "p.diff").write_text(plan.diff)
    subprocess.run(["git", "apply", "--check", str(tmp_path / "p.diff")], cwd=root, check=True)
    (root / "s.flow.yaml.snapshots" / "home.png").chmod(0o644)
    apply_baselines(plan)
    assert (root / "s.flow.yaml.snapshots" / "home.png").read_bytes() == new
    assert stat.S_IMODE((root / "s.flow.yaml.snapshots" / "home.png").stat().st_mode) == 0o644
    assert not plan_baselines(report, root).changes     # kept: nothing left to do


def test_heal_refuses_a_report_copy_that_is_not_the_one_recorded(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    record = ev.Baseline(kind="aria_snapshot", name="t", path="s.flow.yaml.snapshots/t.yml", status="missing",
                         observed="baselines/s.flow.yaml.snapshots/t.yml", sha256="0" * 64)
    report = _report(tmp_path, [record], {"baselines/s.flow.yaml.snapshots/t.yml": b"- main\n"})
    plan = plan_baselines(report, root)
    assert not plan.changes and "sha256 differs" in plan.skipped[0][1]
