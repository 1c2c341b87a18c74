"""The run's heals: one accepted heal per (page signature, broken selector), shared by its workers.

A refactor breaks the same selector in many steps and specs. The first step that heals it
records here what it became and the renames it showed (heal/rename.py); every later step on a page
with the same signature that pins that selector, or another selector naming a renamed token, tries
the mended selector with one read before anything else (walk/healing.py), instead of waiting for
the broken one and reading the page's candidates again.

A page's signature is its origin and path: the same page whatever its query and fragment (a
single-page app's routes in the fragment are one page; its ids and classes are the same).
Thread-safe: the run's workers share one map.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Mapping
from urllib.parse import urlsplit

__all__ = ["Accepted", "HealMap", "signature"]


def signature(url: str) -> str:
    """A page's signature: its origin and path."""
    parts = urlsplit(url or "")
    return f"{parts.scheme}://{parts.netloc}{parts.path or '/'}"


@dataclass(frozen=True)
class Accepted:
    """A heal accepted in this run: the selector it became and the renames it showed."""

    selector: str
    renames: Mapping[str, str] = field(default_factory=dict)


class HealMap:
    """(page signature, broken selector) -> the accepted heal; and the renames seen per page."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._heals: dict[tuple[str, str], Accepted] = {}
        self._renames: dict[str, dict[str, str]] = {}

    def __len__(self) -> int:
        with self._lock:
            return len(self._heals)

    def put(self, page: str, broken: str, accepted: Accepted) -> None:
        with self._lock:
            self._heals[(page, broken)] = accepted
            known = self._renames.setdefault(page, {})
            for old, new in accepted.renames.items():
                known.setdefault(old, new)

    def get(self, page: str, broken: str) -> Accepted | None:
        with self._lock:
            return self._heals.get((page, broken))

    def drop(self, page: str, broken: str) -> None:
        """A heal the one read no longer confirms: the next step finds its element afresh."""
        with self._lock:
            self._heals.pop((page, broken), None)

    def renames(self, page: str) -> dict[str, str]:
        """Every rename a heal on this page showed."""
        with self._lock:
            return dict(self._renames.get(page, {}))
