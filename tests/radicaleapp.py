"""Radicale's web UI (PyPI `radicale`), served on 127.0.0.1 for discover's single-page-app tests.

`Radicale(folder).start()` runs `python -m radicale` on a free port with its storage under
`folder` and authentication `none` (any user name and password sign in: the web UI still asks for
them, in the page), through tests/served.py. Its web UI is a single page
whose scenes (log in, collections, create, upload, edit, delete) swap in place, reached by links
with an empty href and buttons. `collections()` lists what the storage holds now.

`Radicale(folder, deletes=False)` plants a bug: its storage answers a collection's DELETE as done
and keeps the collection (the web UI goes back to its list, which shows it still).
"""

from __future__ import annotations

import sys
from pathlib import Path

from served import ServedProcess, free_port

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


#: a storage plugin (`--storage-type`, imported from the server's working folder) whose
#: collections are never deleted
_KEEPS_COLLECTIONS = """from radicale.storage import multifilesystem


class Collection(multifilesystem.Collection):
    def delete(self, href=None):
        if href is not None:
            super().delete(href)


class Storage(multifilesystem.Storage):
    _collection_class = Collection
"""


class Radicale:
    def __init__(self, folder: Path, *, deletes: bool = True):
        self.folder = folder
        self.deletes = deletes
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        storage = () if deletes else ("--storage-type", "keeps_collections")
        self._server = ServedProcess(
            [sys.executable, "-m", "radicale", "--server-hosts", f"127.0.0.1:{self.port}", "--auth-type", "none",
             "--storage-filesystem-folder", str(folder / "collections"), *storage],
            cwd=folder, log=folder / "radicale.log", probe=f"{self.url}/.web/", wait_s=30)

    def start(self) -> "Radicale":
        (self.folder / "collections").mkdir(parents=True, exist_ok=True)
        if not self.deletes:
            (self.folder / "keeps_collections.py").write_text(_KEEPS_COLLECTIONS)
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    def collections(self) -> list[str]:
        """The collections stored now, as paths under the storage's root ("ada/5f1e...")."""
        root = self.folder / "collections" / "collection-root"
        return sorted(p.relative_to(root).as_posix() for p in root.glob("*/*") if p.is_dir()) if root.is_dir() else []
