"""`discover/crawl.json`: the crawl as data, its pydantic model and the JSON Schema generated from it.

`build_record` turns the crawl state, the features and the spec outcomes into a `CrawlRecord`;
crawl.json is that model's JSON, so the file always satisfies `schemas/crawl.v1.schema.json`
(`flowwalk schema` writes it with the others; a contract test fails when it drifts).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Literal, Optional, Sequence

from pydantic import BaseModel, ConfigDict, Field

from flowwalk.discover.effects import checks_per_move, kept_checks
from flowwalk.discover.features import Feature
from flowwalk.discover.state import CrawlState, Journey

__all__ = ["CRAWL_SCHEMA", "CrawlRecord", "Limits", "ModelCallRecord", "ModelDrop", "SpecRecord", "build_record",
           "generate_schemas"]

CRAWL_SCHEMA = "crawl.v1.schema.json"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Limits(_Model):
    max_pages: int
    max_depth: int
    max_actions: int
    budget_s: float
    submit_forms: bool
    allow_hosts: list[str]
    destructive_words: list[str]


class Outline(_Model):
    """What the DOM signature hashes."""

    landmarks: list[str]
    headings: list[str]
    fields: list[str]
    buttons: list[str]
    links: list[str]


class Via(_Model):
    kind: Literal["link", "route"]
    #: the page id it was found on
    from_: str = Field(alias="from")
    selector: str = ""
    name: str = ""


class PageRecord(_Model):
    id: str = Field(pattern=r"^p\d{3,}$")
    slug: str
    url: str
    path: str
    title: str
    #: the document's HTTP status when the browser reported it
    status: Optional[int]
    depth: int = Field(ge=0)
    signature: str = Field(pattern=r"^[0-9a-f]{12}$")
    template: str
    outline: Outline
    #: every URL that turned out to be this page (a template's instances)
    visits: list[str]
    reached_by: Optional[Via]
    console_errors: int = Field(ge=0)
    snapshot: str
    screenshot: str
    links_to: list[str]
    features: list[str]


class Edge(_Model):
    from_: str = Field(alias="from")
    to: str
    kind: Literal["link", "route"]
    selector: str
    name: str


class Skipped(_Model):
    from_: str = Field(alias="from")
    what: str
    reason: str


class Loop(_Model):
    page: str
    action: str
    signature: str


class Dismiss(_Model):
    selector: str
    target: str
    banner: str
    text: str


class FeatureRecord(_Model):
    id: str
    kind: Literal["page", "navigation", "search", "filter", "login", "signup", "form", "list", "table",
                  "dialog", "cookie_banner", "control"]
    page: str
    name: str
    reason: str
    pages: list[str]


class SpecRecord(_Model):
    path: str
    feature: str
    status: Literal["written", "needs_review", "not_verified"]
    failure: Optional[str] = None
    variables: list[str] = Field(default_factory=list)


class ModelDrop(_Model):
    """A model proposal that was not used, and why."""

    feature: str
    what: str
    reason: str


class ModelCallRecord(_Model):
    """One request to the model (discover asks at most one question, retried once)."""

    purpose: str
    outcome: str
    decision: str
    latency_ms: float


class MoveRecord(_Model):
    """One move of a journey and the checks of what it changed."""

    name: str
    checks: list[str]


class JourneyRecord(_Model):
    """A journey: moves from a page's start state, each checked by what it changed (twice seen)."""

    id: str
    page: str
    name: str
    #: why the journey was chosen
    why: str
    #: the spec it became (relative to --out), empty when it was not written
    spec: str
    moves: list[MoveRecord]
    #: effects that were seen but are not checked in a spec (storage, requests)
    noted: list[str]
    #: checks left out because the two walks saw different values
    dropped: list[str]


class CrawlRecord(_Model):
    """discover/crawl.json"""

    model_config = ConfigDict(extra="forbid", title="flowwalk discover crawl")
    crawl_version: Literal["1"] = "1"
    start_url: str
    stopped_reason: Literal["done", "max_pages", "max_actions", "budget", "cancelled", "unreachable"]
    duration_s: float
    actions: int
    limits: Limits
    dismiss_selectors: list[Dismiss]
    pages: list[PageRecord]
    edges: list[Edge]
    skipped: list[Skipped]
    loops: list[Loop]
    features: list[FeatureRecord]
    specs: list[SpecRecord]
    journeys: list[JourneyRecord] = Field(default_factory=list)
    #: resources that did not load (a missing favicon): findings, not reasons to hold specs back
    failed_resources: list[str] = Field(default_factory=list)
    model_drops: list[ModelDrop] = Field(default_factory=list)
    model_calls: list[ModelCallRecord] = Field(default_factory=list)


def build_record(state: CrawlState, features: Sequence[Feature], specs: list[SpecRecord], *, limits: Limits,
                 duration_s: float, drops: list[ModelDrop], calls: list[ModelCallRecord] | None = None) -> CrawlRecord:
    pages = [PageRecord.model_validate({
        "id": page.id, "slug": page.slug, "url": page.url, "path": page.path, "title": page.title,
        "status": page.status, "depth": page.depth, "signature": page.signature, "template": page.template,
        "outline": asdict(page.outline), "visits": list(page.visits), "console_errors": page.console_errors,
        "snapshot": page.snapshot, "screenshot": page.screenshot,
        "reached_by": ({"kind": page.reached_by.kind, "from": page.reached_by.from_, "selector": page.reached_by.selector,
                        "name": page.reached_by.name} if page.reached_by is not None else None),
        "links_to": sorted({e.to for e in state.edges if e.from_ == page.id and e.to != page.id}),
        "features": [f.id for f in features if f.page == page.id]}) for page in state.pages]
    return CrawlRecord.model_validate({
        "start_url": state.start_url, "stopped_reason": state.stopped_reason or "done",
        "duration_s": round(duration_s, 1), "actions": state.actions, "limits": limits,
        "dismiss_selectors": [asdict(d) for d in state.dismiss], "pages": pages,
        "edges": [{"from": e.from_, "to": e.to, "kind": e.kind, "selector": e.selector, "name": e.name}
                  for e in state.edges],
        "skipped": [{"from": s.from_, "what": s.what, "reason": s.reason} for s in state.skipped],
        "loops": [asdict(loop) for loop in state.loops],
        "features": [{"id": f.id, "kind": f.kind, "page": f.page, "name": f.name, "reason": f.reason,
                      "pages": list(f.pages)} for f in features],
        "specs": specs, "model_drops": drops, "model_calls": calls or [],
        "journeys": [_journey(j, specs) for j in state.journeys],
        "failed_resources": sorted({f"{p.path}: {r}" for p in state.pages for r in p.failed_resources}),
    })


def _journey(journey: Journey, specs: list[SpecRecord]) -> JourneyRecord:
    spec = next((s.path for s in specs if s.feature == journey.id), "")
    # the checks the spec has: a move's most telling ones (generate.journey_spec keeps as many)
    kept = checks_per_move(len(journey.moves))
    return JourneyRecord(id=journey.id, page=journey.page, name=journey.name, why=journey.why, spec=spec,
                         moves=[MoveRecord(name=move.name, checks=[e.what for e in kept_checks(effects, kept)])
                                for move, effects in zip(journey.moves, journey.effects)],
                         noted=list(journey.noted), dropped=list(journey.dropped))


def generate_schemas() -> dict[str, dict[str, Any]]:
    """The crawl.json schema, in the form `spec.schemas` gives the input schemas (`app.reports.schema_texts`
    gathers them all)."""
    from flowwalk.spec.schemas import generate_schema

    return {CRAWL_SCHEMA: generate_schema(CrawlRecord, CRAWL_SCHEMA, "flowwalk discover crawl",
                                          "discover/crawl.json: pages, signatures, links, features and the "
                                          "specs written by `flowwalk discover`.")}
