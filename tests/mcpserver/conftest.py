"""Fixtures of the MCP server tests: a working directory holding the examples, and a client on it.

The server is connected in process through the SDK's own client (`mcp.Client(server)`), as its
documentation says tests should; `tests/e2e/test_mcp_stdio.py` spawns `flowwalk mcp` instead.
"""

from __future__ import annotations

import shutil
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

    return anyio.run(main)
