"""The Action's entrypoint as the runner starts it: INPUT_* variables in, a real `flowwalk run`
over the example site, a real `flowwalk publish` to the fake GitHub, the run's exit code out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_actions import parse_output_file

from fake_github import HEAD_SHA, REPOSITORY, TOKEN, FakeGitHub
from flowwalk.github.entrypoint import main

ROOT = Path(__file__).resolve().parents[2]
PR = 12


def runner_env(github: FakeGitHub, tmp_path: Path, **inputs: str) -> dict[str, str]:
    """What GitHub's runner gives a Docker action on a pull_request event (plus PATH/HOME to run)."""
    import os

    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": PR, "pull_request": {
        "number": PR, "head": {"sha": HEAD_SHA, "repo": {"full_name": REPOSITORY}},
        "base": {"repo": {"full_name": REPOSITORY}}}, "repository": {"full_name": REPOSITORY}}))
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "FLOWWALK_CHROMIUM")}
    env.update({
        "GITHUB_ACTIONS": "true", "CI": "true", "GITHUB_API_URL": github.url,
        "GITHUB_SERVER_URL": "https://github.example", "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": "9" * 40,
        "GITHUB_RUN_ID": "808", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_WORKSPACE": str(ROOT),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "step_summary"), "GITHUB_OUTPUT": str(tmp_path / "output"),
        # defaults from action.yml, as the runner applies them
        "INPUT_TOKEN": TOKEN, "INPUT_OUTPUT-DIR": str(tmp_path / "report"), "INPUT_WORKERS": "1",
        "INPUT_COMMENT-MODE": "always", "INPUT_CHECK-RUN": "false", "INPUT_COMMIT-STATUS": "false",
    })
    env.update({f"INPUT_{name.upper()}": value for name, value in inputs.items()})
    return env


@pytest.mark.browser
def test_the_action_walks_the_specs_and_comments_on_the_pr(github: FakeGitHub, tmp_path: Path, capfd,  # type: ignore[no-untyped-def]
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the runner starts the container in the workspace
    github.add_pull(PR)
    env = runner_env(github, tmp_path, **{"PATHS": "examples/flows/home.flow.yaml", "SERVE": "examples/site",
                                          "COMMIT-STATUS": "true"})
    assert main(env) == 0
    out = capfd.readouterr().out
    assert "flowwalk run --workers 1" in out and "flowwalk publish --report" in out
    assert TOKEN not in out  # the token is never echoed
    (comment,) = github.flowwalk_comments(PR)
    assert "### ✅ flowwalk: all checks passed" in comment["body"]
    assert "https://github.example/octo-org/shop/actions/runs/808" in comment["body"]
    assert github.statuses[HEAD_SHA][0]["state"] == "success"
    outputs = parse_output_file((tmp_path / "output").read_text())
    assert outputs["verdict"] == "passed" and outputs["exit-code"] == "0" and outputs["total"] == "1"
    assert outputs["comment-url"] == comment["html_url"]
    assert (tmp_path / "step_summary").read_text().strip()
    pr = json.loads((tmp_path / "report" / "pr.json").read_text())  # for a fork-safe publish later
    assert pr["pr_number"] == PR and pr["head_sha"] == HEAD_SHA


@pytest.mark.browser
def test_a_failing_run_keeps_its_exit_code_and_annotates_the_spec_line(github: FakeGitHub, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                       capfd, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    github.add_pull(PR)
    env = runner_env(github, tmp_path, PATHS="examples/failing/missing-variable.flow.yaml", SERVE="examples/site")
    assert main(env) == 2  # credential_rejected: a spec needs review
    out = capfd.readouterr().out
    assert "::error file=examples/failing/missing-variable.flow.yaml,line=" in out
    (comment,) = github.flowwalk_comments(PR)
    assert "#### A spec needs review (1)" in comment["body"] and "credential_rejected" in comment["body"]
    assert parse_output_file((tmp_path / "output").read_text())["verdict"] == "spec_needs_review"


def test_refused_input_publishes_nothing_and_says_so_in_the_outputs(github: FakeGitHub, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(runner_env(github, tmp_path, PATHS="no/such/checks")) == 3
    assert github.requests == []
    outputs = parse_output_file((tmp_path / "output").read_text())
    assert outputs["verdict"] == "input_refused" and outputs["exit-code"] == "3"


def test_a_bad_input_value_is_an_annotated_error(github: FakeGitHub, tmp_path: Path, capfd) -> None:  # type: ignore[no-untyped-def]
    assert main(runner_env(github, tmp_path, **{"CHECK-RUN": "sometimes"})) == 3
    captured = capfd.readouterr()
    assert "::error title=flowwalk action input::input 'check-run' is 'sometimes'" in captured.out
    assert "hint: use true or false" in captured.err
    assert github.requests == []


def test_sigterm_to_the_entrypoint_reaches_the_run(github: FakeGitHub, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """As the container's PID 1 the entrypoint gets `docker stop`'s SIGTERM; the run must get it too."""
    import os
    import signal
    import sys
    import threading

    fake = tmp_path / "fake_flowwalk.py"
    fake.write_text(
        "import signal, sys, time, pathlib\n"
        "if sys.argv[1] == 'publish':\n    sys.exit(0)\n"
        "def stop(signum, frame):\n"
        "    pathlib.Path('got').write_text(signal.Signals(signum).name)\n"
        "    sys.exit(5)\n"
        "signal.signal(signal.SIGTERM, stop)\n"
        "pathlib.Path('started').write_text('')\n"
        "time.sleep(60)\n"
        "sys.exit(0)\n")
    monkeypatch.chdir(tmp_path)
    before = signal.getsignal(signal.SIGTERM)
    sender = threading.Thread(target=lambda: (_wait_for(tmp_path / "started"), os.kill(os.getpid(), signal.SIGTERM)))
    sender.start()
    code = main(runner_env(github, tmp_path, PATHS="checks"), flowwalk=(sys.executable, str(fake)))
    sender.join()
    assert code == 5 and (tmp_path / "got").read_text() == "SIGTERM"
    assert signal.getsignal(signal.SIGTERM) == before  # this process's own handling is back


def _wait_for(path: Path, seconds: float = 30) -> None:
    import time

    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_sigterm_while_the_run_is_starting_is_passed_on_once_it_exists(  # type: ignore[no-untyped-def]
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The handlers are in place before the child starts: a SIGTERM that lands while it is being
    started neither ends the entrypoint (the default handler would) nor is lost."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from flowwalk.github import entrypoint

    real = subprocess.Popen

    def starting(*args, **kw):  # type: ignore[no-untyped-def]
        os.kill(os.getpid(), signal.SIGTERM)   # arrives before the child exists
        return real(*args, **kw)

    monkeypatch.setattr(entrypoint.subprocess, "Popen", starting)
    before = signal.getsignal(signal.SIGTERM)
    started = time.monotonic()
    code = entrypoint.call_forwarding_signals([sys.executable, "-c", "import time; time.sleep(30)"], os.environ)
    assert code == -signal.SIGTERM and time.monotonic() - started < 20   # the child got it and ended
    assert signal.getsignal(signal.SIGTERM) == before
