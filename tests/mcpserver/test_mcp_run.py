"""The MCP `run` tool in real headless Chromium, against examples/site served on 127.0.0.1: a failing
run explained, progress, the change notifications, secrets, the run timeout cap and cancellation."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import in_own_thread, with_client
from mcp import Client
from mcp_types import ResourceUpdatedNotification

from flowwalk.mcp.bounds import ANSWER_LIMIT
from flowwalk.mcp.server import build_server

pytestmark = pytest.mark.browser

SECRET = "correct-horse-battery"
FAILING = ["examples/failing/assertion-failed.flow.yaml", "examples/failing/selector-unresolvable.flow.yaml",
           "examples/failing/navigation-blocked.flow.yaml", "examples/flows/login.flow.json",
           "examples/failing/parent-failed.rules.yaml"]
PARENT = "examples/failing/parent-failed.rules.yaml#wrong password/"


def test_a_failing_run_is_reported_explained_and_announced(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_PASSWORD", SECRET)
    progress: list[tuple[float, float | None, str | None]] = []
    uri = "flowwalk://reports/checks-report/verdict.json"

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def body(client: Client) -> Any:
        events: list[Any] = []
        async with client.listen(resource_subscriptions=[uri]) as subscription:
            async def collect() -> None:
                async for event in subscription:
                    events.append(event)

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(collect)
                run = await client.call_tool("run", {
                    "paths": FAILING, "serve": "examples/site", "out_dir": "checks-report",
                    "variables": {"DEMO_USER": "ada@example.com"}, "secret_names": ["DEMO_PASSWORD"],
                    "run_timeout_s": 900}, progress_callback=on_progress)
                with anyio.move_on_after(5):
                    while not any(getattr(e, "uri", None) == uri for e in events):
                        await anyio.sleep(0.05)
                tasks.cancel_scope.cancel()
        causes = {c["test_id"].split("#")[0]: c for c in run.structured_content["root_causes"]}
        explained = await client.call_tool("explain_failure", {
            "report_dir": "checks-report", "test_id": causes["examples/failing/assertion-failed.flow.yaml"]["test_id"]})
        summary = await client.read_resource("flowwalk://reports/checks-report/summary.md")
        skipped = await client.call_tool("explain_failure", {"report_dir": "checks-report",
                                                             "test_id": PARENT + "dashboard"})
        missed = await client.call_tool("explain_failure", {
            "report_dir": "checks-report",
            "test_id": causes["examples/failing/selector-unresolvable.flow.yaml"]["test_id"]})
        return run, explained, summary, events, skipped, missed

    run, explained, summary, events, skipped, missed = with_client(workdir, body, max_run_timeout_s=120)
    data = run.structured_content
    assert data["outcome"] == "site_misbehaved" and data["exit_code"] == 1
    assert data["counts"] == {"total": 8, "passed": 2, "failed": 4, "skipped": 2, "flaky": 0}
    assert data["report_dir"] == "checks-report" and data["verdict_uri"] == uri
    # the run asked for 900 s; the server allows 120
    assert "run_timeout_s 900 is above this server's limit; the run had 120 s" in data["note"]
    causes = {c["test_id"].split("#")[0]: c for c in data["root_causes"]}
    assertion = causes["examples/failing/assertion-failed.flow.yaml"]
    assert (assertion["failure_class"], assertion["label"]) == ("assertion_failed", "assertion_mismatch")
    assert assertion["step"] == "step 5 (expect text_contains 'Report sent to your inbox')"
    assert assertion["expected"] == "text containing 'Report sent to your inbox' in '[data-testid=report-status]'"
    assert "Report ready" in assertion["observed"] and assertion["line"] == 25
    unresolvable = causes["examples/failing/selector-unresolvable.flow.yaml"]
    assert (unresolvable["failure_class"], unresolvable["label"]) == ("spec_step_unresolvable", "not_found")
    blocked = causes["examples/failing/navigation-blocked.flow.yaml"]
    assert (blocked["runtime_code"], blocked["label"]) == ("NAVIGATION_BLOCKED", "off_allowlist")
    # the secret was typed (the login passed) and is nowhere in the answer
    assert "examples/flows/login.flow.json" not in causes
    assert SECRET not in run.content[0].text and SECRET not in json.dumps(data)
    assert len(run.content[0].text) + len(json.dumps(data, separators=(",", ":"), ensure_ascii=False)) <= ANSWER_LIMIT

    login = causes["examples/failing/parent-failed.rules.yaml"]
    assert login["test_id"] == PARENT + "login" and login["dependents"] == [PARENT + "dashboard", PARENT + "account"]
    # one progress notification per finished test, after the one that announces the total
    assert progress[0][:2] == (0.0, 8.0) and [p[0] for p in progress[1:]] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    assert all(p[1] == 8.0 for p in progress) and any("failed: examples/failing" in str(p[2]) for p in progress)

    # the subscriber heard that the report changed
    assert any(getattr(e, "uri", None) == uri for e in events)

    ex = explained.structured_content
    assert ex["label"] == "assertion_mismatch" and ex["status"] == "failed" and ex["step_index"] == 5
    assert ex["url"].endswith("/reports.html") and ex["title"] == "Reports · Acme Notes"
    assert "Report ready" in ex["snapshot"] and ex["network"] and ex["network"][0]["url"].startswith("http")
    assert ex["screenshot"].startswith("checks-report/screenshots/") and ex["screenshot_uri"]
    [image] = [block for block in explained.content if block.type == "image"]
    assert image.mime_type == "image/png" and base64.b64decode(image.data).startswith(b"\x89PNG")
    assert (workdir / ex["screenshot"]).read_bytes() == base64.b64decode(image.data)
    assert summary.contents[0].text.startswith("## ❌ flowwalk: the site misbehaved: 4 of 8 tests failed")
    # a test skipped below a failed parent points at the parent, the one cause
    sk = skipped.structured_content
    assert sk["status"] == "skipped" and sk["runtime_code"] == "PARENT_FAILED" and sk["label"] is None
    assert f"test_id '{PARENT}login' for the cause" in sk["note"]
    # a heal that found nothing: the three best candidates, their scores and what each lacked
    heal = missed.structured_content
    assert heal["label"] == "not_found" and "nothing else is good enough to heal to" in heal["message"]
    assert heal["message"].count("lacked:") >= 2 and "the words 'export', 'pdf'" in heal["message"], heal["message"]
    best = heal["candidates"][0]
    assert isinstance(best["score"], float) and best["lacked"] and best["element"]


SLOW = """\
spec_version: "1"
name: slow page
url: /index.html
steps:
  - type: goto
    url: /index.html
  - type: wait
    ms: 15000
  - type: wait
    ms: 15000
"""


@pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")
def test_a_cancelled_run_stops_and_its_report_says_so(workdir: Path) -> None:
    (workdir / "slow.flow.yaml").write_text(SLOW)
    uri = "flowwalk://reports/slow-report/verdict.json"
    notified: list[str] = []

    async def on_message(message: Any) -> None:
        message = getattr(message, "root", message)
        if isinstance(message, ResourceUpdatedNotification):
            notified.append(str(message.params.uri))

    async def main() -> tuple[float, Any]:
        # the handshake era: cancelling sends notifications/cancelled; subscriptions are resources/subscribe
        async with Client(build_server(workdir), mode="legacy", message_handler=on_message) as client:
            await client.session.subscribe_resource(uri)  # deprecated at 2026-07-28, still what 2025 clients send
            started = time.monotonic()
            with anyio.move_on_after(6):
                await client.call_tool("run", {"paths": ["slow.flow.yaml"], "serve": "examples/site",
                                               "out_dir": "slow-report"})
            cancelled_after = time.monotonic() - started
            # the run's thread finishes its reports for what ran; then the folder is free again
            deadline = time.monotonic() + 20
            while not (workdir / "slow-report" / "verdict.json").is_file() and time.monotonic() < deadline:
                await anyio.sleep(0.1)
            await anyio.sleep(WATCH_SLACK_S)
            listed = await client.call_tool("list_reports", {})
            return cancelled_after, listed

    cancelled_after, listed = in_own_thread(lambda: anyio.run(main))
    assert cancelled_after < 8  # the call came back when cancelled, not after the 30 s of waits
    verdict = json.loads((workdir / "slow-report" / "verdict.json").read_text())
    assert verdict["outcome"] == "cancelled" and verdict["exit_code"] == 5
    [entry] = [r for r in listed.structured_content["reports"] if r["dir"] == "slow-report"]
    assert entry["outcome"] == "cancelled"
    assert uri in notified


WATCH_SLACK_S = 1.5  # the report watcher looks once a second



def test_discover_crawls_within_its_limits_and_writes_starter_specs(workdir: Path) -> None:
    from flowwalk.serve import StaticServer

    lines: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        lines.append(str(message))

    async def body(client: Client) -> Any:
        with StaticServer(workdir / "examples" / "site") as site:
            found = await client.call_tool("discover", {
                "url": f"{site.url}/index.html", "out_dir": "checks", "max_pages": 3, "max_depth": 1,
                "use_model": False}, progress_callback=on_progress)
            outside = await client.call_tool("discover", {"url": site.url, "out_dir": "/tmp"})
            # the crawl it started goes on where it stopped, with a larger limit
            resumed = await client.call_tool("discover", {
                "url": f"{site.url}/index.html", "out_dir": "checks", "max_pages": 4, "max_depth": 1,
                "use_model": False, "resume": True, "verify": False}, progress_callback=on_progress)
        ran = await client.call_tool("validate", {"paths": ["checks"]})
        return found, outside, ran, resumed

    found, outside, ran, resumed = with_client(workdir, body)
    assert resumed.is_error is not True, resumed.content[0].text
    assert resumed.structured_content["pages"] == 4
    assert any(line.startswith("resuming the crawl of") and "3 pages" in line for line in lines)
    assert found.is_error is not True, found.content[0].text
    data = found.structured_content
    assert data["out_dir"] == "checks" and data["pages"] == 3 and data["stopped_reason"] == "max_pages"
    assert data["specs_written"] and all(p.startswith("checks/") for p in data["specs_written"])
    assert all((workdir / p).is_file() for p in data["specs_written"] + data["needs_review"])
    assert data["index"] == "checks/discover/index.md" and (workdir / data["index"]).is_file()
    assert any(line.startswith("crawl max_pages: 3 pages") for line in lines)
    assert outside.is_error and "outside the server's working directory" in outside.content[0].text
    assert ran.structured_content["ok"] is True  # what discover wrote validates
