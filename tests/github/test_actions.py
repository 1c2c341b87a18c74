"""Job summary, step outputs and annotations: the files and workflow commands a runner reads."""

from __future__ import annotations

import io
import re
from pathlib import Path

from markdown_tables import broken_tables
from verdicts import ACCOUNT, CHECKOUT, SHOP, failing_verdict, gated_verdict, many_failures, typed

from flowwalk.github.actions import (
    SUMMARY_LIMIT, Annotation, annotation_commands, append_job_summary, collect_annotations, format_outputs,
    print_annotations, repo_relative, verdict_outputs, workflow_command, write_outputs,
)


def parse_output_file(text: str) -> dict[str, str]:
    """Read GITHUB_OUTPUT the way the runner does (name=value lines and name<<DELIM blocks)."""
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            out[name] = "\n".join(lines[i + 1:end])
            i = end + 1
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
            i += 1
        else:
            i += 1
    return out


def test_outputs_use_a_random_delimiter_and_survive_multiline_values(tmp_path: Path) -> None:
    path = tmp_path / "output"
    path.write_text("earlier=kept\n")
    write_outputs(path, {"verdict": "site_misbehaved", "note": "line one\nline two\nEOF\n", "skipped": None,
                         "flag": True})
    text = path.read_text()
    assert re.search(r"^verdict<<ghadelimiter_[0-9a-f-]{36}$", text, re.M)
    assert parse_output_file(text) == {"earlier": "kept", "verdict": "site_misbehaved",
                                       "note": "line one\nline two\nEOF\n", "flag": "true"}


def test_verdict_outputs_carry_counts_report_dir_and_comment_url() -> None:
    outputs = verdict_outputs(typed(failing_verdict()), "flowwalk-report", "https://github.example/c/1")
    assert outputs == {"verdict": "site_misbehaved", "exit-code": 1, "total": 8, "passed": 2, "failed": 3,
                       "skipped": 2, "flaky": 1, "report-dir": "flowwalk-report",
                       "comment-url": "https://github.example/c/1", "check-run-url": ""}
    assert parse_output_file(format_outputs(outputs))["failed"] == "3"


def test_job_summary_is_appended(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    path.write_text("# an earlier step's part\n")
    append_job_summary(path, "## flowwalk\n")
    assert path.read_text() == "# an earlier step's part\n## flowwalk\n"


def test_job_summary_is_cut_below_one_mebibyte_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    path.write_text("x" * 1000 + "\n")
    huge = "".join(f"| row {i} | {'é' * 50} |\n" for i in range(20_000))  # ~2.1 MB, multi-byte
    written = append_job_summary(path, huge)
    data = path.read_bytes()
    assert len(data) <= SUMMARY_LIMIT and written == len(data) - 1001
    text = data.decode("utf-8")  # never a broken character
    assert text.rstrip().endswith("report.html in the report artifact has everything.")
    assert "Cut to fit GitHub's 1024 KiB job-summary limit" in text


def test_a_job_summary_cut_ends_on_a_whole_block_so_no_table_is_cut(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    path.write_text("x" * (SUMMARY_LIMIT - 2000) + "\n")
    table = "### Slowest\n\n| test | duration |\n|---|---:|\n" + "".join(f"| t{i} | 1 s |\n" for i in range(200))
    append_job_summary(path, "## flowwalk\n\nfirst block\n\n" + table + "\nlast block\n")
    text = path.read_text()
    assert len(text.encode()) <= SUMMARY_LIMIT and "first block" in text
    assert "| test | duration |" not in text and broken_tables(text) == []
    assert text.rstrip().endswith("report.html in the report artifact has everything.")


def test_annotations_put_the_site_first_then_specs_then_infrastructure_then_dependents_and_flaky() -> None:
    annotations = collect_annotations(typed(failing_verdict()))
    assert [(a.level, a.title.split(":")[0]) for a in annotations] == [
        ("error", "assertion_failed"), ("error", "spec_step_unresolvable"), ("error", "infrastructure_error"),
        ("warning", "skipped"), ("warning", "skipped"), ("warning", "flaky")]
    first = annotations[0]
    assert (first.path, first.line) == (CHECKOUT, 12)
    assert "step: expect text_contains 'Saved'" in first.message and "observed: '#status' reads" in first.message
    assert annotations[3].path == SHOP and annotations[3].line == 24
    assert "not run because examples/rules/shop.rules.yaml#shop/login failed" in annotations[3].message


def test_workflow_commands_escape_data_and_properties() -> None:
    line = workflow_command(Annotation("error", "specs/a,b.flow.yaml", 7, "assertion_failed: x#y: z",
                                       "100% wrong\nsecond line"))
    assert line == ("::error file=specs/a%2Cb.flow.yaml,line=7,title=assertion_failed%3A x#y%3A z"
                    "::100%25 wrong%0Asecond line")


def test_annotations_are_capped_per_step_with_a_notice_for_the_rest() -> None:
    annotations = collect_annotations(typed(many_failures(25)))  # 25 errors, 750 dependents, 200 flaky
    lines = annotation_commands(annotations)
    assert [line.split(" ", 1)[0] for line in lines] == ["::error"] * 10 + ["::warning"] * 10 + ["::notice"]
    assert f"{len(annotations) - 20} more annotation(s) not shown" in lines[-1]
    stream = io.StringIO()
    assert print_annotations(annotations, stream) == 21
    assert stream.getvalue().count("\n") == 21


def test_paths_are_made_relative_to_the_repository() -> None:
    assert repo_relative("/github/workspace/specs/a.flow.yaml") == "specs/a.flow.yaml"
    assert repo_relative("./specs/a.flow.yaml") == "specs/a.flow.yaml"
    assert repo_relative("/work/repo/specs/a.flow.yaml", "/work/repo/") == "specs/a.flow.yaml"


def test_paths_relative_to_a_project_root_in_a_subfolder_name_the_repository_file(monkeypatch) -> None:
    # flowwalk.yaml in e2e/ makes e2e/ the root: the report says specs/a.flow.yaml, GitHub knows e2e/specs/...
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    assert repo_relative("specs/a.flow.yaml", root="/github/workspace/e2e") == "e2e/specs/a.flow.yaml"
    assert repo_relative("specs/a.flow.yaml", "/work/repo", "/work/repo/apps/web") == "apps/web/specs/a.flow.yaml"
    # a root this checkout does not hold (a report from another machine) leaves the path alone
    assert repo_relative("specs/a.flow.yaml", "/work/repo", "/elsewhere/e2e") == "specs/a.flow.yaml"
    verdict = dict(gated_verdict(), root="/github/workspace/e2e")
    assert {a.path.split("/", 1)[0] for a in collect_annotations(typed(verdict))} == {"e2e"}


def test_excused_failures_are_warnings_and_new_failures_come_first() -> None:
    notes = collect_annotations(typed(gated_verdict()))
    errors = [a.title for a in notes if a.level == "error"]
    assert errors[0] == f"new assertion_failed: {CHECKOUT}#Checkout saves the order"
    assert errors[1] == f"spec_step_unresolvable: {SHOP}#shop/login"
    quarantined = next(a for a in notes if a.title.endswith(f"{ACCOUNT}#Account settings"))
    assert quarantined.level == "warning"
    assert quarantined.title.startswith("quarantined, did not fail the job: new infrastructure_error")
