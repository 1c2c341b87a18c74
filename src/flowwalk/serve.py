"""A static file server on 127.0.0.1 for `flowwalk run --serve DIR` and for the tests.

Serves a folder with no caching, quietly, on a free port, in a daemon thread; `stop()` shuts it
down. `LoopbackServer` is that server's life (bind, thread, `url`, `start`, `stop`) for any
request handler: the tests' sites (tests/adminlike.py) are served by it too. A handful of dynamic routes make example and test sites realistic without a framework:
`/__status/<code>` answers that status, `/__redirect?to=<path>` redirects (302), `/__slow?ms=N`
answers after N ms (bounded to 30 s), `/__echo` returns the query string as JSON.
"""

from __future__ import annotations

import json
import threading
import time
from functools import partial
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Self
from urllib.parse import parse_qs, urlsplit

__all__ = ["LoopbackServer", "StaticServer"]


class _Handler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # quiet: the run's console is the user's
        return

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        if parts.path.startswith("/__status/"):
            code = int(parts.path.rsplit("/", 1)[1] or 500)
            self._send(code, f"<html><body><h1>status {code}</h1></body></html>")
        elif parts.path == "/__redirect":
            self.send_response(302)
            self.send_header("Location", query.get("to", ["/"])[0])
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif parts.path == "/__slow":
            time.sleep(min(int(query.get("ms", ["1000"])[0]), 30_000) / 1000)
            self._send(200, "<html><body><h1>slow page</h1></body></html>")
        elif parts.path == "/__echo":
            self._send(200, json.dumps({k: v[0] for k, v in query.items()}), "application/json")
        else:
            super().do_GET()

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        parts = urlsplit(self.path)
        if parts.path == "/__redirect":
            self.send_response(303)
            self.send_header("Location", parse_qs(parts.query).get("to", ["/"])[0])
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._send(200, json.dumps({"ok": True}), "application/json")

    def _send(self, code: int, body: str, ctype: str = "text/html; charset=utf-8") -> None:
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class LoopbackServer:
    """`with LoopbackServer(handler) as server: server.url` -> "http://127.0.0.1:<port>": `handler`
    answers on 127.0.0.1 (port 0: a free one), a thread per request, in a daemon thread named `name`."""

    def __init__(self, handler: Callable[..., BaseHTTPRequestHandler], port: int = 0, *,
                 name: str = "flowwalk-serve"):
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self._httpd.daemon_threads = True
        # a browser that gives up on a slow answer closes the socket: no traceback on the run's console
        self._httpd.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self._thread = threading.Thread(target=self._httpd.serve_forever, name=name, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


class StaticServer(LoopbackServer):
    """`with StaticServer(folder) as server: server.url` -> "http://127.0.0.1:<port>"."""

    def __init__(self, root: str | Path, port: int = 0):
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise FileNotFoundError(f"cannot serve '{root}': not a folder")
        super().__init__(partial(_Handler, directory=str(self.root)), port)
