"""The worked session of docs/mcp.md, for real: an MCP client drives `flowwalk mcp` over stdio.

    .venv/bin/python scripts/mcp_session.py /tmp/mcp-demo

Copies examples/site into the folder (a fresh one), starts `flowwalk mcp` there as Claude Code,
VS Code or Cursor would, and plays write -> validate -> fix -> validate -> run -> explain_failure ->
fix -> run, printing each answer's text as the client receives it.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[1]
FLOWWALK = Path(sys.executable).parent / "flowwalk"

# what the agent writes first: one typo in the expect kind, and an expectation the site does not meet
FIRST = """\
spec_version: "1.1"
name: weekly report is sent
url: /reports.html
steps:
  - type: goto
    url: /reports.html
  - type: act
    action: click
    target: the Accept all cookies button
    selector: "[data-testid=cookie-accept]"
  - type: act
    action: click
    target: the Generate report button
    selector: "[data-testid=generate-report]"
  - type: wait
    for: "[data-testid=report-ready]"
  - type: expect
    kind: text_contain
    value: Report sent to your inbox
    selector: "[data-testid=report-status]"
    timeout_ms: 5000
"""
SECOND = FIRST.replace("kind: text_contain\n", "kind: text_contains\n")
THIRD = SECOND.replace("Report sent to your inbox", "Report ready").replace("report is sent", "report is ready")


def show(title: str, result: Any) -> None:
    print(f"### {title}")
    for block in result.content:
        if block.type == "text":
            print(json.dumps(json.loads(block.text), indent=2, ensure_ascii=False))
        else:
            print(f"[{block.type} content: {block.mime_type}, {len(block.data)} base64 characters]")
    print()


async def progress(done: float, total: float | None, message: str | None) -> None:
    print(f"progress {done:g}/{total:g}: {message}" if total is not None else f"progress: {message}")


async def session(folder: Path) -> None:
    spec = folder / "checks" / "report.flow.yaml"
    params = StdioServerParameters(command=str(FLOWWALK), args=["mcp"], cwd=folder)
    async with Client(params, mode="legacy") as client:
        spec.write_text(FIRST)
        show("validate", await client.call_tool("validate", {"paths": ["checks/report.flow.yaml"]}))
        spec.write_text(SECOND)
        show("validate again", await client.call_tool("validate", {"paths": ["checks/report.flow.yaml"]}))
        run = {"paths": ["checks"], "serve": "site"}
        show("run", await client.call_tool("run", run, progress_callback=progress))
        show("explain_failure", await client.call_tool("explain_failure", {
            "report_dir": "flowwalk-report", "test_id": "checks/report.flow.yaml#weekly report is sent"}))
        spec.write_text(THIRD)
        show("run again", await client.call_tool("run", run, progress_callback=progress))


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = Path(sys.argv[1]).resolve()
    if folder.exists():
        sys.exit(f"{folder} exists: name a new folder")
    shutil.copytree(ROOT / "examples" / "site", folder / "site")
    (folder / "checks").mkdir()
    anyio.run(session, folder)


if __name__ == "__main__":
    main()
