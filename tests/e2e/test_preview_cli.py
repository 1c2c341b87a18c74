"""Against a preview deployment: the site comes up late, behind a bypass header and basic auth.
flowwalk waits for it, walks it green, and neither the header's value nor the password is in any
artifact, the console, or a request to another origin. A site that never comes up is one verdict
(`site_not_ready`) and one exit code (7), not a pile of failed flows."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from _cli import flowwalk, verdict

from leakscan import blobs
from preview_site import HEADER, PASSWORD, TOKEN, USER, PreviewSite, secret_forms

pytestmark = pytest.mark.browser

FLOWS = {
    "home": ("/", "  - {type: expect, kind: text_contains, selector: h1, value: Preview home}\n"),
    # /app redirects to /app/ on the same origin: the hop needs the header too
    "app": ("/app", "  - {type: expect, kind: url_contains, value: /app/}\n"
                    "  - {type: expect, kind: text_contains, selector: '#greeting', value: Welcome to the app}\n"),
    # the page shows the request's headers, as a debugging page might: the reports must not
    "echo": ("/echo", f"  - {{type: expect, kind: text_contains, selector: '#seen', value: '{HEADER}'}}\n"),
    # /out redirects to another origin: that hop must carry neither secret
    "out": ("/out", "  - {type: expect, kind: text_contains, selector: h1, value: Another origin}\n"),
}


def specs(folder: Path) -> Path:
    folder.mkdir()
    for name, (url, steps) in FLOWS.items():
        (folder / f"{name}.flow.yaml").write_text(f'spec_version: "1"\nname: {name}\nurl: {url}\nsteps:\n{steps}')
    return folder


ENV = {"PREVIEW_BYPASS": TOKEN, "PREVIEW_AUTH": f"{USER}:{PASSWORD}"}


def preview_args(site: PreviewSite, out: Path, *extra: str) -> list[str]:
    return ["--base-url", site.url, "--out", str(out), "--http-header", f"{HEADER}=PREVIEW_BYPASS",
            "--http-credentials", "PREVIEW_AUTH", "--wait-for", "/", "--wait-interval", "0.2", *extra]


def leaks(*texts: str, folder: Path | None = None) -> list[str]:
    """Where a secret shows: in the texts, or in any file under `folder` (its bytes, any name, every
    member of every archive inflated)."""
    found = [f"text {n}: {form}" for n, text in enumerate(texts) for form in secret_forms() if form in text]
    for where, data in blobs(folder) if folder else ():
        found += [f"{where}: {form}" for form in secret_forms() if form.encode() in data]
    return found


def test_a_late_protected_preview_is_waited_for_and_walked_green_without_a_secret_in_any_artifact(
        tmp_path: Path) -> None:
    out = tmp_path / "report"
    with PreviewSite(up_after=3) as site:
        result = flowwalk("run", str(specs(tmp_path / "specs")), *preview_args(site, out, "--screenshots", "on",
                                                                                 "--trace", "on", "--workers", "2"),
                          env=ENV)
        other = site.other_requests
    assert result.returncode == 0, result.stdout + result.stderr
    # the wait: three 503s while the deployment built, then up; each answer in the log
    assert f"flowwalk: waiting for {site.url}/ to answer 2xx" in result.stderr
    assert "503 Service Unavailable" in result.stderr and f"flowwalk: {site.url}/ is up after" in result.stderr
    report = verdict(out)
    assert report["outcome"] == "passed" and report["counts"]["passed"] == len(FLOWS)
    [wait] = report["readiness"]
    assert wait["ready"] is True and wait["attempts"] == 4 and wait["last"] == "200 OK"
    # what reached the other origin (the home page's image, the redirect's hop) carried no secret
    assert {"/pixel.png", "/landing"} <= {r["path"] for r in other}, other
    assert not any(HEADER in {k.lower() for k in r["headers"]} or "Authorization" in r["headers"] for r in other)
    assert leaks(json.dumps(other)) == []
    # nowhere in the report folder (screenshots of /echo included), the console or the log
    assert (out / "screenshots").is_dir()
    assert leaks(result.stdout, result.stderr, folder=out) == []
    # every flow's trace is kept, its headers scrubbed (the leak search above inflated them)
    finished = [json.loads(line) for line in (out / "emit.jsonl").read_text().splitlines()]
    traces = [r["trace"] for r in finished if r["event"] == "scenario_finished"]
    assert len(traces) == len(FLOWS) and all(traces), traces
    with zipfile.ZipFile(out / traces[0]) as trace:
        network = trace.read("trace.network").decode()
    assert f'"name":"{HEADER}","value":"***"' in network.replace(" ", "")


def test_without_the_secrets_the_protected_preview_refuses_and_the_run_says_so(tmp_path: Path) -> None:
    out = tmp_path / "report"
    with PreviewSite(up_after=0) as site:
        result = flowwalk("run", str(specs(tmp_path / "specs")), *preview_args(site, out), env={"PREVIEW_AUTH": ""})
    assert result.returncode == 3, result.stdout + result.stderr
    assert "--http-credentials PREVIEW_AUTH: $PREVIEW_AUTH is set but empty" in result.stderr
    assert not (out / "verdict.json").exists()


def test_a_preview_that_never_comes_up_is_one_verdict_and_exit_code_7(tmp_path: Path) -> None:
    out = tmp_path / "report"
    with PreviewSite(never_up=True) as site:
        result = flowwalk("run", str(specs(tmp_path / "specs")),
                          *preview_args(site, out, "--wait-timeout", "1.5", "--wait-interval", "0.5"), env=ENV)
    assert result.returncode == 7, result.stdout + result.stderr
    report = verdict(out)
    assert report["outcome"] == "site_not_ready" and report["exit_code"] == 7
    assert report["counts"] == {"total": 4, "passed": 0, "failed": 0, "skipped": 4, "flaky": 0}
    assert report["root_causes"] == []
    assert {t["reason"] for t in report["tests"]} == {"site_not_ready"}
    [wait] = report["readiness"]
    assert wait["ready"] is False and wait["last"] == "503 Service Unavailable" and wait["attempts"] >= 2
    # no browser page was opened for any of them
    records = [json.loads(line) for line in (out / "emit.jsonl").read_text().splitlines()]
    assert {r["worker"] for r in records if r["event"] == "scenario_started"} == {0}
    # the verdict says it once, in words, in the console and the summary
    assert "verdict: the site never came up (exit 7)" in result.stdout
    assert f"{site.url}/ never came up" in result.stdout
    summary = (out / "summary.md").read_text()
    assert "never came up" in summary and "503 Service Unavailable" in summary
    assert f"flowwalk: the site never came up: {site.url}/ answered 503 Service Unavailable" in result.stderr
    assert leaks(result.stdout, result.stderr, folder=out) == []
