"""flowwalk's MCP server: coding agents validate, run, explain and fix flowwalk checks through it.

`flowwalk mcp` serves it over stdio (or streamable HTTP on 127.0.0.1). `server.py` is the
protocol side, on the official MCP Python SDK; `operations.py` holds the tool bodies over the
functions the CLI calls; `explain.py` reads a failure back from a report; `bounds.py` keeps every
answer small; `workspace.py` confines every path to the server's working directory.

This package is `flowwalk.mcp`; the SDK is the top-level package `mcp`. Import the SDK only
with absolute imports (`from mcp.server.mcpserver import MCPServer`), never relatively.
"""

from __future__ import annotations
