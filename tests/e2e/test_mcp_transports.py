"""`flowwalk mcp` as MCP clients (Claude Code, VS Code, Cursor) drive it. Over stdio: spawn the
process, initialize, list the tools, call `run` on an example spec against examples/site served on
127.0.0.1, and hang up, with plain JSON-RPC lines on the pipes (no SDK on this side). Over
streamable HTTP (`--http PORT`): listening on 127.0.0.1 only, and answering the SDK's client."""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from flowwalk.serve import StaticServer

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


class StdioPeer:
    """The client end of a spawned server: send a message, read the next one (with a deadline)."""

    def __init__(self, process: subprocess.Popen[str]):
        self.process = process
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        self.process.stdin.flush()

    def until_response(self, request_id: int, timeout: float = 120) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The response to `request_id` and the notifications that came before it."""
        notes: list[dict[str, Any]] = []
        while True:
            line = self.lines.get(timeout=timeout)
            assert line is not None, "the server closed its stdout"
            message = json.loads(line)  # every line on stdout is one JSON-RPC message, nothing else
            if message.get("id") == request_id and "method" not in message:
                return message, notes
            notes.append(message)


def test_flowwalk_mcp_over_stdio_runs_an_example_spec(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("workflows"))
    env = {**os.environ, "FLOWWALK_OFFLINE": "1"}
    env.pop("GITHUB_ACTIONS", None)
    with StaticServer(ROOT / "examples" / "site") as site:
        process = subprocess.Popen([sys.executable, "-m", "flowwalk.cli", "mcp"], cwd=tmp_path, env=env,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, encoding="utf-8")
        try:
            peer = StdioPeer(process)
            peer.send({"id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "e2e", "version": "1"}}})
            init, _ = peer.until_response(1, timeout=60)
            assert init["result"]["serverInfo"]["name"] == "flowwalk"
            assert init["result"]["capabilities"]["resources"]["subscribe"] is True
            peer.send({"method": "notifications/initialized"})

            peer.send({"id": 2, "method": "tools/list"})
            tools, _ = peer.until_response(2)
            names = {tool["name"] for tool in tools["result"]["tools"]}
            assert {"validate", "run", "explain_failure", "propose_heal", "schema", "list_reports"} <= names

            peer.send({"id": 3, "method": "tools/call", "params": {
                "name": "run", "_meta": {"progressToken": "walk-1"},
                "arguments": {"paths": ["examples/flows/home.flow.yaml"], "base_url": site.url,
                              "out_dir": "mcp-report"}}})
            response, notes = peer.until_response(3, timeout=240)
            result = response["result"]
            assert result.get("isError") is not True, result
            data = result["structuredContent"]
            assert data["outcome"] == "passed" and data["exit_code"] == 0
            assert data["counts"]["passed"] == data["counts"]["total"] >= 1
            assert json.loads(result["content"][0]["text"]) == data
            progress = [n["params"] for n in notes if n.get("method") == "notifications/progress"]
            assert progress and all(p["progressToken"] == "walk-1" for p in progress)
            assert progress[-1]["progress"] == progress[-1]["total"] == data["counts"]["total"]
            assert (tmp_path / "mcp-report" / "verdict.json").is_file()
        finally:
            assert process.stdin is not None
            process.stdin.close()  # the client hangs up: the server ends
            code = process.wait(timeout=30)
            stderr = process.stderr.read() if process.stderr else ""
    assert code == 0, stderr
    assert "Traceback" not in stderr


def test_flowwalk_mcp_http_serves_streamable_http_on_loopback_only(tmp_path: Path) -> None:
    import anyio
    from mcp import Client

    # port 0: the server binds a free port itself and names it on stderr's first line (a port
    # picked by the test and freed before the server bound it could be taken in between)
    env = {**os.environ, "FLOWWALK_OFFLINE": "1"}
    process = subprocess.Popen([sys.executable, "-m", "flowwalk.cli", "mcp", "--http", "0"], cwd=tmp_path,
                               env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stderr or ()], daemon=True).start()
    try:
        first = lines.get(timeout=60)
        found = re.fullmatch(r"flowwalk mcp: streamable HTTP at http://127\.0\.0\.1:(\d+)/mcp\n", first)
        assert found, first
        port = int(found.group(1))
        assert port != 0
        sockets = [line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:]]
        mine = [s for s in sockets if s[1].endswith(f":{port:04X}") and s[3] == "0A"]  # 0A: LISTEN
        # 127.0.0.1:port, the address little-endian as Linux lists it: loopback only, not 0.0.0.0
        assert [s[1] for s in mine] == [f"0100007F:{port:04X}"]

        async def call() -> Any:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                tools = await client.list_tools()
                result = await client.call_tool("schema", {"kind": "config"})
                return {t.name for t in tools.tools}, result

        box: list[Any] = []
        thread = threading.Thread(target=lambda: box.append(anyio.run(call)))  # off the main thread: a
        thread.start()                                                          # session Playwright may own its loop
        thread.join(timeout=120)
        names, result = box[0]
        assert "run" in names and result.structured_content["name"] == "config.v1.schema.json"
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_flowwalk_mcp_http_on_a_port_in_use_is_refused_with_a_hint(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "flowwalk.cli", "mcp", "--http", str(port)], cwd=tmp_path,
                                capture_output=True, text=True, timeout=60)
    assert result.returncode == 3
    assert result.stderr == (f"flowwalk: error: cannot listen on 127.0.0.1:{port}: Address already in use\n"
                             f"  hint: choose another port with --http (0 picks a free one), or stop what "
                             f"listens there\n")
