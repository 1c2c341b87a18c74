"""A small shop the state checks are walked against: a sign-in that sets a session cookie, a cart kept
in localStorage and posted to a JSON API, a visit noted in sessionStorage, a value on `window`, and
pages to go back and forward between. `bugs` plants realistic faults, each breaking one kind of state:

- `cookie-readable`: the session cookie lacks HttpOnly (scripts can read it);
- `no-user`: the app forgets who signed in (`window.shop.user` is null);
- `cart-unsaved`: the cart is never written to localStorage;
- `no-lines`: the cart's line keys are not written;
- `cart-500`: the cart API answers 500;
- `tracks`: the page posts to /track on every add;
- `replaces-history`: the About link replaces the history entry instead of adding one.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable

from flowwalk.serve import LoopbackServer

__all__ = ["SECRET", "ShopServer"]

#: the session cookie's value: no report may ever show it
SECRET = "S3CR3T-SESSION-4f9c2a7e"

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title></head>
<body>
<h1>Shop</h1>
<button id="sign-in">Sign in</button> <button id="add">Add to cart</button>
<p id="status" role="status"></p>
<a id="about" href="/about">About</a>
<script>
const BUGS = %(bugs)s;
const post = (url, body) => fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'},
                                        body: JSON.stringify(body)});
document.getElementById('sign-in').addEventListener('click', async () => {
  const answer = await post('/api/login', {user: 'ada'});
  window.shop = {user: BUGS.includes('no-user') ? null : 'ada', signedIn: answer.ok};
  sessionStorage.setItem('shop-visit', JSON.stringify({user: 'ada', pages: 1}));
  document.getElementById('status').textContent = 'Signed in';
});
document.getElementById('add').addEventListener('click', async () => {
  const cart = JSON.parse(localStorage.getItem('cart') || '{"items": []}');
  cart.items.push({sku: 'A-1', qty: 1});
  if (!BUGS.includes('cart-unsaved')) localStorage.setItem('cart', JSON.stringify(cart));
  if (!BUGS.includes('no-lines')) localStorage.setItem('cart-line-' + cart.items.length, 'A-1');
  if (BUGS.includes('tracks')) post('/track', {event: 'add'});
  const answer = await post('/api/cart', {sku: 'A-1', qty: 1});
  document.getElementById('status').textContent = answer.ok ? 'Added' : 'Not added';
});
if (BUGS.includes('replaces-history')) {
  document.getElementById('about').addEventListener('click', (e) => {
    e.preventDefault();
    location.replace('/about');
  });
}
</script>
</body></html>
"""
ABOUT = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>About</title></head>
<body><h1>About the shop</h1><a href="/">Back to the shop</a></body></html>"""


def _handler(bugs: frozenset[str]) -> Callable[..., BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return

        def _send(self, code: int, body: str, ctype: str, headers: dict[str, str] | None = None) -> None:
            data = body.encode()
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            if self.path.split("?")[0] == "/about":
                self._send(200, ABOUT, "text/html; charset=utf-8")
            elif self.path.split("?")[0] == "/":
                self._send(200, PAGE % {"bugs": json.dumps(sorted(bugs))}, "text/html; charset=utf-8")
            else:
                self._send(404, "not found", "text/plain")

        def do_POST(self) -> None:  # noqa: N802
            body: Any = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"null")
            if self.path == "/api/login":
                flags = "" if "cookie-readable" in bugs else "; HttpOnly"
                cookie = f"sid={SECRET}; Path=/; Max-Age=3600; SameSite=Strict{flags}"
                self._send(200, json.dumps({"user": body.get("user")}), "application/json", {"Set-Cookie": cookie})
            elif self.path == "/api/cart":
                code = 500 if "cart-500" in bugs else 201
                self._send(code, json.dumps({"ok": code == 201}), "application/json")
            else:
                self._send(204, "", "text/plain")

    return Handler


class ShopServer(LoopbackServer):
    """`with ShopServer(bugs={"cart-500"}) as shop: shop.url`"""

    def __init__(self, bugs: frozenset[str] | set[str] = frozenset()):
        super().__init__(_handler(frozenset(bugs)), name="shop-app")
