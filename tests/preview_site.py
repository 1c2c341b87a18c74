"""A protected preview deployment on 127.0.0.1, for the readiness wait and the run's HTTP headers and
credentials: it answers 503 until it has been asked `up_after` times (a deployment still building),
then serves its pages only to requests with the bypass header and basic auth (403 and 401
otherwise, as Vercel's protection and a basic-auth ingress do). Beside it, another origin that
records every request's headers: what reaches it must never hold a secret."""

from __future__ import annotations

import base64
import http.server
import threading
from typing import Any, Iterator

HEADER = "x-preview-bypass"
TOKEN = "bypass-7f3a9c2e51d84b60"
USER, PASSWORD = "preview", "hunter2-open-sesame"

PAGES = {
    "/": "<title>Preview home</title><h1>Preview home</h1><a id=app href='/app'>app</a>"
         "<img src='{other}/pixel.png' alt=''><script>fetch('{other}/api/ping').catch(() => 0)</script>",
    "/app/": "<title>App</title><h1 id=greeting>Welcome to the app</h1>",
    "/echo": "<title>Echo</title><pre id=seen>{seen}</pre>",
}


class _Quiet(http.server.BaseHTTPRequestHandler):
    server: Any

    def log_message(self, *args: Any) -> None:
        pass

    def send(self, status: int, body: str = "", headers: dict[str, str] | None = None) -> None:
        data = body.encode()
        self.send_response(status)
        for name, value in {"Content-Type": "text/html; charset=utf-8", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Preview(_Quiet):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        site = self.server.site
        with site.lock:
            site.asked += 1
            building = site.asked <= site.up_after
        if building:
            self.send(503, "<h1>Deployment is building</h1>")
            return
        if self.headers.get(HEADER) != TOKEN:
            self.send(403, "<h1>Protected preview</h1>")
            return
        expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        if self.headers.get("Authorization") != expected:
            self.send(401, "<h1>Sign in</h1>", {"WWW-Authenticate": 'Basic realm="preview"'})
            return
        path = self.path.split("?")[0]
        if path == "/app":
            self.send(302, "", {"Location": "/app/"})
            return
        if path == "/out":
            self.send(302, "", {"Location": f"{site.other_url}/landing"})
            return
        if path not in PAGES:
            self.send(404, "<h1>Not found</h1>")
            return
        # /echo shows what the request carried, as a debugging page of a real app might
        seen = "\n".join(f"{k}: {v}" for k, v in self.headers.items())
        self.send(200, PAGES[path].format(other=site.other_url, seen=seen))


class _Other(_Quiet):
    def do_GET(self) -> None:  # noqa: N802
        self.server.site.other_requests.append({"path": self.path, "headers": dict(self.headers.items())})
        if self.path.startswith("/pixel.png"):
            self.send(204)
        else:
            self.send(200, "<title>Elsewhere</title><h1>Another origin</h1>")


class PreviewSite:
    """The preview (`url`) and the other origin (`other_url`), each on 127.0.0.1:<free port>."""

    def __init__(self, up_after: int = 3, never_up: bool = False):
        self.up_after = 1 << 30 if never_up else up_after
        self.asked = 0
        self.lock = threading.Lock()
        #: every request the other origin got: its path and headers
        self.other_requests: list[dict[str, Any]] = []
        self._servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) for handler in (_Preview, _Other)]
        for server in self._servers:
            server.site = self  # type: ignore[attr-defined]
            server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._servers[0].server_address[1]}"
        self.other_url = f"http://127.0.0.1:{self._servers[1].server_address[1]}"

    def __enter__(self) -> "PreviewSite":
        for server in self._servers:
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()


def secret_forms() -> Iterator[str]:
    """Every form the secrets could take in an artifact."""
    yield TOKEN
    yield PASSWORD
    yield f"{USER}:{PASSWORD}"
    yield base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
