"""A fake OpenAI-compatible chat-completions server over real HTTP on 127.0.0.1 (port 0).

It answers `POST /v1/chat/completions` like a real server: a `choices[0].message.content` and a
`usage` block. What it answers is scripted and deterministic:

- `script(...)` queues replies for the next requests, in order: `Reply(content=...)` (a JSON
  object is dumped), `Reply(status=503)`, `Reply(delay_s=2.0, ...)` (answers late), `Reply(drop=True)`
  (closes the connection without an answer), `Reply(raw="not a completion")`;
- with the queue empty, `default` decides: a function of the request body returning a reply.

Every request is kept (`requests`: the parsed JSON body, the headers, the raw body) so tests can
look at exactly what flowwalk sent, the secrets test included.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Reply:
    content: Any = None          # a str is sent as is; anything else as JSON text
    status: int = 200
    delay_s: float = 0.0
    drop: bool = False
    raw: str | None = None       # a body that is not a chat completion


@dataclass
class Seen:
    body: dict[str, Any]
    raw: bytes
    headers: dict[str, str]
    path: str

    @property
    def text(self) -> str:
        """Every message's content, joined (what the model was shown)."""
        return "\n".join(m.get("content", "") for m in self.body.get("messages", []))


@dataclass
class FakeModel:
    default: Callable[[dict[str, Any]], Reply] = field(
        default=lambda body: Reply({"candidate": None, "reason": "nothing fits"}))
    requests: list[Seen] = field(default_factory=list)
    _queue: deque[Reply] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None
    _stopping: threading.Event = field(default_factory=threading.Event)

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return self.default(body)

    def __enter__(self) -> "FakeModel":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {}
                with fake._lock:
                    fake.requests.append(Seen(body, raw, dict(self.headers), self.path))
                if self.path != "/v1/chat/completions":
                    self._send(404, {"error": {"message": "not found"}})
                    return
                reply = fake._next(body)
                if reply.delay_s:
                    fake._stopping.wait(reply.delay_s)
                if reply.drop:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if reply.raw is not None:
                    self._send(reply.status, reply.raw)
                    return
                if reply.status != 200:
                    self._send(reply.status, {"error": {"message": f"scripted {reply.status}"}})
                    return
                content = reply.content if isinstance(reply.content, str) else json.dumps(reply.content)
                self._send(200, {
                    "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
                    "model": body.get("model", ""),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": len(raw) // 4, "completion_tokens": len(content) // 4,
                              "total_tokens": len(raw) // 4 + len(content) // 4},
                })

            def _send(self, status: int, payload: Any) -> None:
                data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass   # the client gave up (a timeout test): nothing to answer

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
