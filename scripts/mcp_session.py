"""The worked session of docs/mcp.md, for real: an MCP client drives `flowwalk mcp` over stdio.

    .venv/bin/python scripts/mcp_session.py /tmp/mcp-demo

Copies examples/site into the folder (a fresh one), starts `flowwalk mcp` there as Claude Code,
VS Code or Cursor would, and plays write -> validate -> fix -> validate -> run -> explain_failure ->
the fix-failing-check prompt -> fix -> run, then a login check whose run asks the person for a
variable nobody gave (elicitation), printing each answer's text as the client receives it.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp_types import ElicitResult

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

# a login check: the user is a variable the agent does not know, the password a secret of the server
LOGIN = """\
spec_version: "1.1"
name: the demo user logs in
url: /login.html
steps:
  - type: goto
    url: /login.html
  - type: act
    action: fill
    target: the Email field
    selector: "#login-email"
    value: "{{DEMO_USER}}"
  - type: act
    action: fill
    target: the Password field
    selector: "#login-password"
    value: "{{DEMO_PASSWORD}}"
  - type: act
    action: press
    target: the Password field
    selector: "#login-password"
    value: Enter
  - type: expect
    kind: text_contains
    value: Welcome back, Ada
    selector: "[data-testid=greeting]"
"""
#: only the server knows it (its environment, as a client's env block sets it); never sent anywhere
PASSWORD = "correct-horse-battery"


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


def show_prompt(title: str, result: Any) -> None:
    print(f"### {title}")
    for message in result.messages:
        print(f"[{message.role}]")
        print(message.content.text)
    print()


async def person(_context: Any, params: Any) -> ElicitResult:
    """The person at the client: shown the server's question, types the one value asked for."""
    print("### elicitation/create (the server asks the person)")
    print(json.dumps(params.model_dump(mode="json", by_alias=True, exclude_none=True), indent=2, ensure_ascii=False))
    answer = ElicitResult(action="accept", content={"DEMO_USER": "ada@example.com"})
    print("### the person answers")
    print(json.dumps(answer.model_dump(mode="json", by_alias=True, exclude_none=True), indent=2))
    print()
    return answer


async def session(folder: Path) -> None:
    spec = folder / "checks" / "report.flow.yaml"
    params = StdioServerParameters(command=str(FLOWWALK), args=["mcp"], cwd=folder,
                                   env={**os.environ, "DEMO_PASSWORD": PASSWORD})
    async with Client(params, mode="legacy", elicitation_callback=person) as client:
        spec.write_text(FIRST)
        show("validate", await client.call_tool("validate", {"paths": ["checks/report.flow.yaml"]}))
        spec.write_text(SECOND)
        show("validate again", await client.call_tool("validate", {"paths": ["checks/report.flow.yaml"]}))
        run = {"paths": ["checks"], "serve": "site"}
        show("run", await client.call_tool("run", run, progress_callback=progress))
        show("explain_failure", await client.call_tool("explain_failure", {
            "report_dir": "flowwalk-report", "test_id": "checks/report.flow.yaml#weekly report is sent"}))
        show_prompt("prompts/get fix-failing-check", await client.get_prompt("fix-failing-check", {
            "report_dir": "flowwalk-report", "test_id": "checks/report.flow.yaml#weekly report is sent"}))
        spec.write_text(THIRD)
        show("run again", await client.call_tool("run", run, progress_callback=progress))
        (folder / "checks" / "login.flow.yaml").write_text(LOGIN)
        show("run the login check", await client.call_tool("run", {
            "paths": ["checks/login.flow.yaml"], "serve": "site", "out_dir": "login-report",
            "secret_names": ["DEMO_PASSWORD"]}, progress_callback=progress))


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
