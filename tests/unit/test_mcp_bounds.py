"""The MCP server's pure parts: answers cut to the limit, snapshots trimmed around the failure, the
deterministic failure labels, and paths confined to the working directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flowwalk.events import Failure
from flowwalk.mcp.bounds import compact, fit, trim_snapshot
from flowwalk.mcp.explain import failure_label
from flowwalk.mcp.workspace import OutsideRootError, Workspace, report_uri


def test_fit_halves_the_largest_part_until_the_answer_fits() -> None:
    data = {"truncated": False, "note": "", "problems": [{"text": f"problem {i} " + "x" * 200} for i in range(300)],
            "message": "m" * 5000}
    cut, was_cut = fit(data, 10_000)
    assert was_cut and len(compact(cut)) <= 10_000
    assert cut["problems"][0] == data["problems"][0]  # the first entries are kept, whole where possible
    assert isinstance(cut["message"], str) and isinstance(cut["problems"], list)
    assert fit(data, 10_000) == (cut, True)  # deterministic
    small = {"a": [1, 2], "b": "short"}
    assert fit(small, 10_000) == (small, False)


def snapshot_with(target_at: int, lines: int = 800) -> str:
    rows = ["- main:"]
    for i in range(lines):
        rows.append(f"  - region \"Section {i}\":")
        rows.append(f"    - button \"Do thing {i}\"" if i != target_at else "    - button \"Export to PDF\"")
    return "\n".join(rows)


def test_a_long_snapshot_is_trimmed_around_the_line_the_failure_is_about() -> None:
    snapshot = snapshot_with(600)
    trimmed, was_trimmed = trim_snapshot(snapshot, "act click 'the Export to PDF button'", "one element")
    assert was_trimmed and len(trimmed) <= 4_000
    assert '    - button "Export to PDF"' in trimmed
    assert trimmed.startswith("- main:")  # the ancestors of the window are kept
    assert "line(s) above left out" in trimmed and "line(s) below left out" in trimmed
    # a quoted phrase wins over loose words; no match keeps the beginning
    head, _ = trim_snapshot(snapshot, "expect text_contains 'nothing like this'")
    assert head.startswith("- main:\n  - region \"Section 0\"")
    short = snapshot_with(1, lines=3)
    assert trim_snapshot(short, "anything") == (short, False)


def failed(code: str, *, message: str = "", candidates: int = 0) -> Failure:
    """A failure record as the walker writes it, with the runtime code under test."""
    return Failure(failure_class="spec_step_unresolvable", runtime_code=code, retryable=False, step_kind="action",
                   message=message, candidates=tuple({"s": n} for n in range(candidates)))


@pytest.mark.parametrize(("failure", "label"), [
    (failed("ELEMENT_NOT_FOUND"), "not_found"),
    (failed("STALE_REFERENCE"), "not_found"),
    (failed("AMBIGUOUS_TARGET", candidates=3), "ambiguous(3)"),
    (failed("AMBIGUOUS_TARGET", message="ambiguous: 7 elements match the best candidate"), "ambiguous(7)"),
    (failed("TIMEOUT"), "timeout"),
    (failed("RUN_TIMEOUT"), "timeout"),
    (failed("EXPECT_STATE_MISMATCH"), "assertion_mismatch"),
    (failed("VERIFICATION_FAILED"), "assertion_mismatch"),
    (failed("NAVIGATION_BLOCKED"), "off_allowlist"),
    (failed("VARIABLE_MISSING"), None),
    (failed("BROWSER_CRASHED"), None),
    (None, None),
])
def test_failure_labels_come_from_the_runtime_code(failure: Failure | None, label: str | None) -> None:
    assert failure_label(failure) == label


def test_paths_are_confined_to_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "checks").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (root / "escape").symlink_to(tmp_path / "outside")
    ws = Workspace.at(root)
    assert ws.confine("checks") == root.resolve() / "checks"
    assert ws.confine(str(root / "checks" / "new.flow.yaml")).name == "new.flow.yaml"  # need not exist
    for bad in ("..", "../outside", str(tmp_path / "outside"), "escape", "escape/x.flow.yaml", "checks/../../x"):
        with pytest.raises(OutsideRootError, match="outside the server's working directory"):
            ws.confine(bad)
    assert ws.relative(root.resolve() / "runs" / "one") == "runs/one"
    assert report_uri("runs/one", "summary.md") == "flowwalk://reports/runs%2Fone/summary.md"
    assert json.loads(json.dumps(report_uri("a b", "verdict.json"))) == "flowwalk://reports/a%20b/verdict.json"
