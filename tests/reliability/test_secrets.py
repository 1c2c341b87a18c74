"""Secrets typed, then every kind of failure: no secret value anywhere flowwalk writes or sends.

`tests/reliability/flows/secrets/` types two secrets (one plain, one full of characters that change
under URL, HTML and JSON encoding) into `tests/site/pages/hostile/secrets.html`, a page that spreads
what is typed into its DOM, title, attributes, console, an uncaught error, a request URL and, through
a GET form, the page URL; then the flows and rules fail every way: an action error (also on the
step that types the secret), an expectation over the typed text, a URL check, a timeout, Chromium
killed mid-flow, and (`flows/secrets-cancel/`) SIGTERM mid-flow. Screenshots are taken on every
step, traces on failure.

Searched for each secret in every form a leak could take (raw, percent-encoded three ways, HTML-
and JSON-escaped): every file under the report folder (names and bytes), the run's and publish's
console, and every request body `flowwalk publish` sent to the fake GitHub.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import quote, quote_plus

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "github"))

from fake_github import HEAD_SHA, REPOSITORY, TOKEN, FakeGitHub  # noqa: E402

from runkit import FLOWS, SITE, Flowwalk, browser_processes, by_file, records, publish_cli, wait_for  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc")]

SECRETS = {"PASSWORD": 'Zq7&Secret Value/9é"<x>', "TOKEN": "tok3nPLAIN7731"}
SECRET_ARGS = ["--secret", "PASSWORD", "--secret", "TOKEN"]
CONFIG = ["--config", str(FLOWS / "flowwalk.yaml")]


def leak_forms(values: Iterable[str]) -> dict[str, str]:
    """Every spelling of each value a report, a log or an HTTP body could carry."""
    forms: dict[str, str] = {}
    for value in values:
        for how, text in {
            "raw": value, "percent": quote(value, safe=""), "percent-path": quote(value),
            "form": quote_plus(value), "uri-component": quote(value, safe="-_.!~*'()"),
            "html": html.escape(value), "json": json.dumps(value)[1:-1],
            "json-ascii": json.dumps(value, ensure_ascii=True)[1:-1],
        }.items():
            forms[f"{value[:3]}…/{how}"] = text
    return forms


FORMS = leak_forms(SECRETS.values())


def leaks_in_text(text: str, where: str) -> list[str]:
    return [f"{where}: {how}" for how, form in FORMS.items() if form in text]


def leaks_in_folder(folder: Path) -> tuple[list[str], int]:
    found: list[str] = []
    files = 0
    for path in folder.rglob("*"):
        found += leaks_in_text(str(path.relative_to(folder)), f"file name {path.name}")
        if path.is_file():
            files += 1
            data = path.read_bytes()
            found += [f"{path.relative_to(folder)}: {how}" for how, form in FORMS.items()
                      if form.encode("utf-8") in data]
    return found, files


def publish_to_fake(report: Path, tmp_path: Path) -> tuple[list[str], Any, FakeGitHub]:
    """Publish the report (comment, check run, status) to a fresh fake; the leaks in what was sent."""
    with FakeGitHub() as github:
        github.add_pull(7)
        done, _ = publish_cli(report, github.url, tmp_path, "--check-run", "--commit-status", token=TOKEN,
                              repository=REPOSITORY, head_sha=HEAD_SHA)
        assert github.problems == []
        sent = [json.dumps(r.body, ensure_ascii=False) for r in github.requests if r.body is not None]
        comments = github.flowwalk_comments(7)
    assert len(comments) == 1, done.stderr
    found = leaks_in_text(done.stdout + done.stderr, "publish console")
    for body in sent:
        found += leaks_in_text(body, "a request body sent to GitHub")
    found += leaks_in_text(comments[0]["body"], "the PR comment")
    for name in ("step_summary.md", "output"):
        if (tmp_path / name).is_file():
            found += leaks_in_text((tmp_path / name).read_text(), name)
    return found, done, github


@pytest.mark.long
def test_no_secret_leaks_from_failures_of_every_kind_or_a_crash(tmp_path: Path) -> None:
    out = tmp_path / "report"
    run = Flowwalk(["run", str(FLOWS / "secrets"), *CONFIG, "--serve", str(SITE), "--out", str(out), *SECRET_ARGS,
                    "--workers", "1", "--screenshots", "on", "--trace", "on-failure"], env=SECRETS, logs=tmp_path)
    try:
        def crash_flow_typed() -> bool:
            return (out / "emit.jsonl").is_file() and any(
                r["event"] == "step_finished" and "f-crash" in r["scenario_id"] and r["index"] == 3
                for r in records(out))

        assert wait_for(crash_flow_typed, 150), "the crash flow never typed its secrets"
        time.sleep(1.0)
        victims = browser_processes(run.pid)
        assert victims
        for pid in victims:
            os.kill(pid, signal.SIGKILL)
        done = run.finish(timeout=150)
    finally:
        run.kill_tree()
    assert not done.timed_out and done.returncode == 1, done.output   # an assertion_failed is among them

    # the failures happened as designed (else this test would prove nothing)
    result = json.loads((out / "verdict.json").read_text())
    files = by_file(result)
    classes = {name: (t.get("failure") or {}).get("runtime_code") for name, t in files.items() if t["kind"] == "flow"}
    assert classes == {"a-action-error.flow.yaml": "ELEMENT_NOT_FOUND", "b-fill-missing.flow.yaml": "ELEMENT_NOT_FOUND",
                       "c-expect-failure.flow.yaml": "EXPECT_STATE_MISMATCH",
                       "d-url-failure.flow.yaml": "EXPECT_STATE_MISMATCH", "e-timeout.flow.yaml": "TIMEOUT",
                       "f-crash.flow.yaml": "BROWSER_CRASHED"}, classes
    rules = {t["rule"]: (t["status"], (t.get("failure") or {}).get("failure_class")) for t in result["tests"]
             if t["kind"] == "rules"}
    assert rules == {"type_secrets": ("passed", None), "expect_fails": ("failed", "assertion_failed"),
                     "input_value_fails": ("failed", "assertion_failed"),
                     "action_fails": ("failed", "spec_step_unresolvable"),   # the rule's 2 s cut the 3 s action
                     "after_failure": ("skipped", "assertion_failed")}, rules
    observed = files["c-expect-failure.flow.yaml"]["failure"]["observed"]
    assert observed.count("***") == 2, f"the typed values are in the evidence, redacted: {observed!r}"
    assert "?token=***&pw=***" in files["d-url-failure.flow.yaml"]["failure"]["observed"]

    leaks, file_count = leaks_in_folder(out)
    leaks += leaks_in_text(done.output, "run console")
    published, _, _ = publish_to_fake(out, tmp_path)
    assert leaks + published == [], "secret values leaked:\n" + "\n".join(leaks + published)
    shots = len(list((out / "screenshots").glob("*.png")))
    print(f"\nFIGURE secrets: {file_count} files ({shots} screenshots) searched for {len(FORMS)} spellings "
          f"of 2 secrets, plus the run and publish consoles and every request body: 0 found")


def test_no_secret_leaks_from_a_cancelled_run(tmp_path: Path) -> None:
    out = tmp_path / "report"
    run = Flowwalk(["run", str(FLOWS / "secrets-cancel"), *CONFIG, "--serve", str(SITE), "--out", str(out),
                    *SECRET_ARGS, "--workers", "1", "--screenshots", "on"], env=SECRETS, logs=tmp_path)
    try:
        assert wait_for(lambda: (out / "emit.jsonl").is_file() and any(
            r["event"] == "step_finished" and r["index"] == 3 for r in records(out)), 90)
        time.sleep(1.0)
        os.killpg(run.pid, signal.SIGTERM)
        done = run.finish(timeout=30)
    finally:
        run.kill_tree()
    assert done.returncode == 5, done.output
    assert records(out)[-2]["event"] == "run_cancelled"
    leaks, _ = leaks_in_folder(out)
    leaks += leaks_in_text(done.output, "run console")
    published, publish_done, _ = publish_to_fake(out, tmp_path)
    assert publish_done.returncode == 5
    assert leaks + published == [], "secret values leaked:\n" + "\n".join(leaks + published)


def _start_failure_shot(tmp_path: Path, token: str, label: str) -> Flowwalk:
    return Flowwalk(["run", str(FLOWS / "secrets" / "c-expect-failure.flow.yaml"), *CONFIG, "--serve", str(SITE),
                     "--out", str(tmp_path / label), *SECRET_ARGS, "--workers", "1"],
                    env={"PASSWORD": "pw-fixed-value", "TOKEN": token}, logs=tmp_path / f"{label}-logs")


def _failure_shot(run: Flowwalk, out: Path) -> str:
    done = run.finish(timeout=90)
    assert done.returncode == 1, done.output
    shot = next((out / "screenshots").glob("*-fail-*.png"))
    return hashlib.sha256(shot.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def failure_shots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The failure screenshot's hash: twice with one token, once with another of the same length
    (three runs at once: each mostly waits for its check to give up)."""
    tmp = tmp_path_factory.mktemp("shots")
    tokens = {"first": "tok3nPLAIN7731", "again": "tok3nPLAIN7731", "other": "zzzzQQQQ999900"}
    runs = {label: _start_failure_shot(tmp, token, label) for label, token in tokens.items()}
    return {label: _failure_shot(run, tmp / label) for label, run in runs.items()}


# the two tests of `failure_shots` run on one worker: its three runs are made once a suite run
@pytest.mark.xdist_group("secrets_shots")
def test_failure_screenshots_are_deterministic(failure_shots: dict[str, str]) -> None:
    """(the control of the next test: the same page, the same values give the same bytes)"""
    assert failure_shots["first"] == failure_shots["again"]


@pytest.mark.xdist_group("secrets_shots")
def test_a_screenshot_does_not_depend_on_a_secrets_value(failure_shots: dict[str, str]) -> None:
    assert failure_shots["other"] == failure_shots["first"], \
        "the failure screenshot changes with the secret's value: the value is in its pixels"
