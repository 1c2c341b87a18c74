"""Radicale's web UI (PyPI `radicale`), served on 127.0.0.1 for discover's single-page-app tests.

`Radicale(folder).start()` runs `python -m radicale` on a free port with its storage under
`folder` and authentication `none` (any user name and password sign in: the web UI still asks for
them, in the page), in its own process group, stopped by its pid. Its web UI is a single page
whose scenes (log in, collections, create, upload, edit, delete) swap in place, reached by links
with an empty href and buttons. `collections()` lists what the storage holds now.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

__all__ = ["LOGIN_FLOW_YAML", "Radicale", "USER"]

USER = "ada"

LOGIN_FLOW_YAML = """spec_version: "1.1"
name: log in to Radicale
url: /.web/
steps:
  - {type: act, action: fill, target: the Username field, selector: "#loginscene input[data-name=user]", value: "{{RADICALE_USER}}"}
  - {type: act, action: fill, target: the Password field, selector: "#loginscene input[data-name=password]", value: "{{RADICALE_PASSWORD}}"}
  - {type: act, action: click, target: the Next button, selector: "#loginscene form[data-name=form] button"}
  - {type: expect, kind: visible, selector: "#collectionsscene"}
"""


class Radicale:
    def __init__(self, folder: Path):
        self.folder = folder
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = int(sock.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self._server: subprocess.Popen[bytes] | None = None

    def start(self) -> "Radicale":
        (self.folder / "collections").mkdir(parents=True, exist_ok=True)
        log = open(self.folder / "radicale.log", "ab")
        self._server = subprocess.Popen(
            [sys.executable, "-m", "radicale", "--server-hosts", f"127.0.0.1:{self.port}", "--auth-type", "none",
             "--storage-filesystem-folder", str(self.folder / "collections")],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{self.url}/.web/", timeout=2).close()
                return self
            except OSError:
                if self._server.poll() is not None:
                    raise RuntimeError(f"radicale exited: see {self.folder / 'radicale.log'}") from None
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("radicale did not answer within 30 s")

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None or server.poll() is not None:
            return
        os.killpg(server.pid, signal.SIGTERM)   # its own process group: radicale and only it
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()

    def collections(self) -> list[str]:
        """The collections stored now, as paths under the storage's root ("ada/5f1e...")."""
        root = self.folder / "collections" / "collection-root"
        return sorted(p.relative_to(root).as_posix() for p in root.glob("*/*") if p.is_dir()) if root.is_dir() else []
