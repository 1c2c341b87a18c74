"""A command line click cannot parse is bad input: exit 3 on every command, as through FLOWWALK_*.

Exit 2 means "a spec needs review" (README, exit codes); a CI script that branches on it must not
read its own typo as that.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from flowwalk.cli import main
from flowwalk.exitcodes import ExitCode
from sample_run import whole_verdict

MISTAKES = [
    (["--bogus"], "No such option"),
    (["nope"], "No such command"),
    ([], "Commands:"),
    (["run", "--bogus"], "No such option '--bogus'"),
    (["run", "--fail-on", "newest"], "'newest' is not one of 'any', 'new'"),
    (["run", "--flaky-policy", "never"], "is not one of"),
    (["run", "--screenshots", "always"], "is not one of"),
    (["run", "--workers", "abc"], "'abc' is not a valid integer"),
    (["run", "--retries", "1.5"], "is not a valid integer"),
    (["run", "--max-failures", "abc"], "'abc' is not a valid integer"),
    (["run", "--run-timeout", "soon"], "is not a valid float"),
    (["run", "--serve", "no/such/folder"], "does not exist"),
    (["plan", "--max-failures", "3"], "No such option '--max-failures'"),
    (["validate", "--quarantine"], "requires an argument"),
    (["merge", "a"], "does not exist"),
    (["merge"], "Missing argument"),
    (["report"], "Missing argument"),
    (["publish", "--comment-mode", "sometimes"], "is not one of"),
    (["heal", "--aply"], "No such option"),
    (["discover", "http://127.0.0.1:9/"], "Missing option '--out'"),
    (["discover", "http://127.0.0.1:9/", "--out", "x", "--max-pages", "many"], "is not a valid integer"),
    (["discover", "http://127.0.0.1:9/", "--out", "x", "--budget", "long"], "is not a valid float"),
    (["schema", "--bogus"], "No such option"),
    (["mcp", "--http", "70000"], "is not in the range"),
    (["mcp", "--run-timeout", "0"], "is not in the range"),
]


@pytest.mark.parametrize("args, said", MISTAKES, ids=[" ".join(a) or "(nothing)" for a, _ in MISTAKES])
def test_a_command_line_click_cannot_parse_exits_3(args: list[str], said: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == ExitCode.INPUT_REFUSED, result.output
    assert said in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("env", [{"FLOWWALK_WORKERS": "abc"}, {"FLOWWALK_MAX_FAILURES": "abc"},
                                 {"FLOWWALK_FAIL_ON": "newest"}])
def test_the_same_mistake_through_the_environment_exits_3_too(env: dict[str, str], tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["plan", "."], env=env)
    assert result.exit_code == ExitCode.INPUT_REFUSED, result.output


def test_help_and_version_still_exit_0() -> None:
    for args in (["--help"], ["run", "--help"], ["--version"]):
        assert CliRunner().invoke(main, args).exit_code == 0, args


def test_a_missing_quarantine_file_is_named_where_it_was_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.flow.yaml").write_text('spec_version: "1"\nname: a\nurl: https://example.com/\n'
                                          "steps:\n  - type: goto\n    url: /\n")
    (tmp_path / "flowwalk.yaml").write_text("retries: 1\nquarantine_file: flaky.yaml\n")
    result = CliRunner().invoke(main, ["validate", "a.flow.yaml"])
    assert result.exit_code == ExitCode.INPUT_REFUSED
    assert result.output.startswith("flowwalk.yaml:2:18: error: quarantine_file 'flaky.yaml' does not exist\n")
    (tmp_path / "flowwalk.yaml").unlink()
    for env, named in (({"FLOWWALK_QUARANTINE": "q.yaml"}, "FLOWWALK_QUARANTINE 'q.yaml'"),
                       ({"FLOWWALK_LAST_FAILED": "old"}, "FLOWWALK_LAST_FAILED 'old'")):
        result = CliRunner().invoke(main, ["validate" if "QUARANTINE" in next(iter(env)) else "plan", "a.flow.yaml"],
                                    env=env)
        assert result.exit_code == ExitCode.INPUT_REFUSED
        assert result.output.startswith(f"flowwalk: error: {named}"), result.output


def test_a_reader_that_leaves_early_is_not_a_bug(tmp_path: Path) -> None:
    """`flowwalk plan | head -1`: stdout closes before flowwalk writes; no 'internal error'."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "flowwalk", "plan", "examples/flows"], cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0, err
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.browser
def test_a_run_whose_reader_leaves_goes_on_to_its_verdict(tmp_path: Path) -> None:
    """`flowwalk run ... 2>&1 | head`: the pipe closes before the run says anything; the run still
    walks, writes its reports and exits with its verdict's code (1 here), not 0."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "flowwalk", "run", "examples/failing/assertion-failed.flow.yaml",
                             "--serve", "examples/site", "--out", str(tmp_path / "report"), "--workers", "1"],
                            cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    proc.stdout.close()
    assert proc.wait(timeout=240) == ExitCode.SITE_MISBEHAVED
    assert (tmp_path / "report" / "verdict.json").is_file()


def test_the_console_goes_quiet_when_its_reader_leaves() -> None:
    from flowwalk.report.console import ConsoleReporter

    class Gone:
        def write(self, _text: str) -> int:
            raise BrokenPipeError

        def flush(self) -> None:
            raise BrokenPipeError

        def isatty(self) -> bool:
            return False

        encoding = "utf-8"

    reporter = ConsoleReporter(Gone(), color=False)  # type: ignore[arg-type]
    reporter.finish(whole_verdict())   # no exception: the run's code stands


@pytest.mark.parametrize("env, said", [
    ({"FLOWWALK_COMMENT_MODE": "sometimes"}, "FLOWWALK_COMMENT_MODE='sometimes' is not one of"),
    ({"FLOWWALK_COMMENT_NAME": "a b"}, "hint: for example FLOWWALK_COMMENT_NAME=e2e-chrome"),
])
def test_publish_names_a_bad_variable_as_the_variable(env: dict[str, str], said: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["publish", "--report", "."], env=env)
    assert result.exit_code == ExitCode.INPUT_REFUSED and said in result.output, result.output


def test_validate_counts_the_steps_files_it_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "steps").mkdir()
    for name in ("a", "b"):
        (tmp_path / "steps" / f"{name}.steps.yaml").write_text('steps_version: "1"\nsteps:\n  - {type: wait, ms: 1}\n')
    result = CliRunner().invoke(main, ["validate", "steps"])
    assert result.exit_code == ExitCode.OK, result.output
    assert result.output == "ok: 0 files, 0 scenarios, 0 rules, 2 steps files; no errors\n"
