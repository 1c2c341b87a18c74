"""Fixtures of the MCP server tests: a working directory holding the examples, and a client on it.

The server is connected in process through the SDK's own client (`mcp.Client(server)`), as its
documentation says tests should; `tests/e2e/test_mcp_stdio.py` spawns `flowwalk mcp` instead.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any, Awaitable, Callable

import anyio
import pytest
from mcp import Client

from flowwalk.mcp.server import build_server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with examples/ in it; the server (and its runs) work from there."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("workflows"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def with_client(root: Path, body: Callable[[Client], Awaitable[Any]], **server_options: Any) -> Any:
    """Connect the SDK's in-process client to a server on `root` and run `body` with it."""
    async def main() -> Any:
        async with Client(build_server(root, **server_options)) as client:
            return await body(client)

    return in_own_thread(lambda: anyio.run(main))


def in_own_thread(work: Callable[[], Any]) -> Any:
    """`work()` on a fresh thread: the session's Playwright (sync API) keeps an event loop on the
    main thread, and anyio.run refuses to start a second one there."""
    box: list[Any] = []

    def target() -> None:
        try:
            box.append((True, work()))
        except BaseException as error:  # noqa: BLE001 - re-raised on the test's thread
            box.append((False, error))

    thread = threading.Thread(target=target, name="mcp-test-client")
    thread.start()
    thread.join()
    ok, value = box[0]
    if not ok:
        raise value
    return value


HEALED_FLOW = """\
spec_version: "1"
name: sign in
url: /login.html
steps:
  - type: act
    action: click
    target: the Sign in button
    selector: '#submit'   # pinned by discover
"""


def write_healed_report(root: Path, name: str = "healed") -> Path:
    """checks/sign-in.flow.yaml and a report (no browser) whose run healed its '#submit' selector."""
    from sample_run import healed_events, write_sample_run

    from flowwalk.events import Heal

    spec = root / "checks" / "sign-in.flow.yaml"
    spec.parent.mkdir(exist_ok=True)
    spec.write_text(HEALED_FLOW)
    heal = Heal(old_selector="#submit", new_selector="[data-testid=sign-in]", method="deterministic", score=0.93,
                target="the Sign in button", step_index=1, path="checks/sign-in.flow.yaml", line=5)
    write_sample_run(root / name, healed_events([("checks/sign-in.flow.yaml#sign in", heal)]))
    return spec
