"""The page a journey walks, as journeys and refusals see it, and the failure of a move on it
(one module below both, so neither imports the other for them)."""

from __future__ import annotations

from typing import Protocol

from flowwalk.browser.explore import Action, Mark
from flowwalk.browser.explored import Acted, FormAsks, Observation, Request, Survey

__all__ = ["JourneyPage", "MoveFailed"]


class JourneyPage(Protocol):
    """The page a journey walks (`browser.explore.ExplorePage`), opened fresh for each walk."""

    @property
    def url(self) -> str: ...

    def goto(self, url: str) -> None: ...

    def act(self, action: Action, selector: str, value: str = "", *, then_ms: float = 0) -> Acted: ...

    def settle_quiet(self, max_ms: int = ..., quiet_ms: int = ...) -> None: ...

    def observe(self) -> Observation: ...

    def form(self, selector: str) -> FormAsks | None: ...

    def survey(self) -> Survey: ...

    def text(self) -> str: ...

    def raw_texts(self, selector: str) -> tuple[str, ...]: ...

    def mark(self) -> Mark: ...

    def requests(self, since: Mark = ...) -> tuple[Request, ...]: ...

    def close(self) -> None: ...


class MoveFailed(Exception):
    """A move could not be made (its element is gone, the page would not answer)."""
