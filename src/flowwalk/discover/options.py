"""What a discover run is asked to do (`DiscoverOptions`) and what it did (`DiscoverResult`).

Both are plain frozen dataclasses: the CLI builds the options from its flags (`cli.discover`),
the MCP server from its tool arguments, the tests from keywords. The defaults are the documented
limits (docs/discover.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Mapping

from flowwalk.model import DEFAULT_DESTRUCTIVE

__all__ = ["DEFAULT_DESTRUCTIVE", "DISCOVER_DIR", "DiscoverOptions", "DiscoverResult", "JourneySummary", "StopReason"]

#: the folder under `out_dir` a crawl writes its index.md, crawl.json and page snapshots into
DISCOVER_DIR = "discover"


StopReason = Literal["done", "max_pages", "max_actions", "budget", "cancelled", "unreachable"]


@dataclass(frozen=True)
class DiscoverOptions:
    """One discover run. `url` is where the crawl starts; `out_dir` where the specs go."""

    url: str
    out_dir: Path = Path("checks")
    #: hosts besides the start URL's host that links may lead to (bare host names)
    allow_hosts: tuple[str, ...] = ()
    max_pages: int = 50
    max_depth: int = 4
    #: clicks on in-page controls, fills and submits together
    max_actions: int = 200
    budget_s: float = 600.0
    resume: bool = False
    submit_forms: bool = False
    #: a flow spec that logs in first: the setup whose session every generated spec starts from
    login: Path | None = None
    #: what the crawl should reach first, in a person's words ("create a book"): links, buttons and
    #: pages whose words match go first, in the queue and in the journeys
    goal: str = ""
    variables: tuple[tuple[str, str], ...] = ()
    secret_names: tuple[str, ...] = ()
    destructive_add: tuple[str, ...] = ()
    destructive_remove: tuple[str, ...] = ()
    #: run every generated spec twice before writing it (off only for quick looks)
    verify: bool = True
    #: ask the configured model (flowwalk.yaml `model:`) for names, descriptions and which checks to keep
    use_model: bool = True
    #: an answer to the model's question given instead of asking a model (an agent's, through MCP):
    #: validated and applied exactly as a model's answer would be
    advice: Mapping[str, Any] | None = None
    config_path: Path | None = None
    executable: str | None = None
    workers: int | None = None
    #: the attributes elements' test ids are in (the `test_id_attribute` setting; empty: flowwalk.yaml's)
    test_id_attribute: tuple[str, ...] = ()

    def destructive_words(self) -> tuple[str, ...]:
        removed = {w.strip().lower() for w in self.destructive_remove}
        words = [w for w in DEFAULT_DESTRUCTIVE if w not in removed]
        for word in self.destructive_add:
            word = word.strip().lower()
            if word and word not in words:
                words.append(word)
        return tuple(words)


@dataclass(frozen=True)
class JourneySummary:
    """A journey discover explored and what it covers (crawl.json `journeys` has the full record)."""

    id: str
    name: str
    #: the page's path the journey starts on
    page: str
    #: why it was chosen
    why: str
    #: the spec it became (a path under --out; empty when it was not written) and its status
    spec: str
    status: Literal["written", "needs_review", "not_verified", "not_written"]
    #: one line per move: what it did and what its checks assert
    covers: tuple[str, ...]


@dataclass(frozen=True)
class DiscoverResult:
    """What a discover run found and wrote (the same figures `discover/crawl.json` holds)."""

    out_dir: Path
    pages: int
    features: int
    specs_written: tuple[str, ...]
    needs_review: tuple[str, ...]
    duration_s: float
    stopped_reason: StopReason
    #: where index.md, crawl.json, the snapshots and screenshots are
    discover_dir: Path = field(default=Path("discover"))
    #: model proposals that were dropped, and why (empty without a model)
    dropped: tuple[str, ...] = ()
    #: the journeys (with --submit-forms), in page order
    journeys: tuple[JourneySummary, ...] = ()
    #: with no model configured: the question (an `agent.Question`) a model would have been asked
    model_question: Any = None
