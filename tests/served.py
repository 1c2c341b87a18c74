"""A server the tests start on 127.0.0.1: a child process in its own process group, stopped by its
pid (`ServedProcess`), or a request handler served on a thread of the test's own process (`serving`)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterator

__all__ = ["ServedProcess", "free_port", "serving"]


@contextmanager
def serving(handler: "Callable[..., BaseHTTPRequestHandler] | Any") -> Iterator[str]:
    """`handler` served on 127.0.0.1 (port 0) from a thread while the block runs; yields its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServedProcess:
    """`command` run in `cwd` (its output appended to `log`) until `probe` answers, within `wait_s`."""

    def __init__(self, command: list[str], *, cwd: Path, log: Path, probe: str, wait_s: float = 60):
        self.command, self.cwd, self.log, self.probe, self.wait_s = command, cwd, log, probe, wait_s
        self._server: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self._server = subprocess.Popen(self.command, cwd=self.cwd, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        deadline = time.monotonic() + self.wait_s
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.probe, timeout=2).close()
                return
            except OSError:
                if self._server.poll() is not None:
                    raise RuntimeError(f"{self.command[1:3]} exited: see {self.log}") from None
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"{self.probe} did not answer within {self.wait_s:g} s")

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None or server.poll() is not None:
            return
        os.killpg(server.pid, signal.SIGTERM)   # its own process group: the server and only it
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
