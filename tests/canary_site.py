"""The canary's site, on 127.0.0.1: every path asks for basic auth; a sign-in that sets a session
cookie and local storage; an account page that spreads the session's values, the Authorization
header and the extra header into its DOM and console; and the leaky page of tests/site (DOM, title,
attributes, console, an uncaught error, a GET form's query, a POST body) served from here, with
`/__echo` answering a GET's query or a POST's body as JSON, so the secrets are in response bodies too.

The cookie and storage values are made here, fresh per site: flowwalk learns them only as a
browser does (Set-Cookie, the page's script).
"""

from __future__ import annotations

import base64
import json
import secrets
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from flowwalk.serve import LoopbackServer

__all__ = ["CanarySite"]

LEAKY = (Path(__file__).parent / "site" / "pages" / "hostile" / "secrets.html").read_text()
# the leaky page, and a button that POSTs what was typed as JSON (a request body, echoed back)
LEAKY = LEAKY.replace('<p id="echo">', '<button id="post" type="button">Post it</button>\n<p id="echo">').replace(
    "</script>", """  document.getElementById('post').addEventListener('click', () => {
    fetch('/__echo', {method: 'POST', headers: {'Content-Type': 'application/json'},
                      body: JSON.stringify({typed: read()})}).then((r) => r.text()).then((t) => {
      document.getElementById('echo').setAttribute('data-answer', t); });
  });
</script>""", 1)

LOGIN = """<!doctype html><html><head><meta charset="utf-8"><title>Sign in</title></head><body>
<form method="post" action="/session"><input id="user" name="user"> <input id="pw" name="pw" type="password">
<button id="go" type="submit">Sign in</button></form></body></html>"""

SIGNED_IN = """<!doctype html><html><head><meta charset="utf-8"><title>Signed in</title></head><body>
<h1 id="welcome">Welcome back</h1><script>localStorage.setItem('api_token', %s);</script></body></html>"""

ACCOUNT = """<!doctype html><html><head><meta charset="utf-8"><title>Account</title></head><body>
<h1>Account</h1><p id="seen">authorization: %s | header: %s | cookie: %s</p><p id="stored"></p>
<script>const t = localStorage.getItem('api_token'); document.getElementById('stored').textContent = 'token ' + t;
document.title = 'Account ' + t; console.log('session', document.cookie, t);</script></body></html>"""


class CanarySite(LoopbackServer):
    def __init__(self, user: str, password: str, header: str):
        self.user, self.password, self.header = user, password, header
        self.cookie = "ck" + secrets.token_hex(8)
        self.storage = "ls" + secrets.token_hex(8)
        self.expected_auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def _authorized(self) -> bool:
                if self.headers.get("Authorization") == site.expected_auth:
                    return True
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="canary"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return False

            def _send(self, body: str, ctype: str = "text/html; charset=utf-8", cookie: str | None = None) -> None:
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Cache-Control", "no-store")
                if cookie:
                    self.send_header("Set-Cookie", cookie)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                if not self._authorized():
                    return
                parts = urlsplit(self.path)
                if parts.path == "/login":
                    self._send(LOGIN)
                elif parts.path == "/account":
                    signed = f"sid={site.cookie}" in (self.headers.get("Cookie") or "")
                    self._send(ACCOUNT % (self.headers.get("Authorization"), self.headers.get(site.header),
                                          site.cookie if signed else "none"))
                elif parts.path == "/__echo":
                    self._send(json.dumps({k: v[0] for k, v in parse_qs(parts.query).items()}), "application/json")
                elif parts.path.startswith("/leaky"):
                    self._send(LEAKY.replace('action="secrets.html"', 'action="/leaky"'))
                else:
                    self.send_error(404)

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                if not self._authorized():
                    return
                if self.path == "/session":
                    form = parse_qs(body)
                    ok = form.get("pw", [""])[0] != ""
                    self._send(SIGNED_IN % json.dumps(site.storage) if ok else LOGIN,
                               cookie=f"sid={site.cookie}; Path=/; HttpOnly" if ok else None)
                elif self.path == "/__echo":
                    self._send(body, "application/json")
                else:
                    self.send_error(404)

        super().__init__(Handler, name="canary-site")
