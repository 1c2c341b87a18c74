"""`discover/crawl.json`: the crawl as data, its pydantic model and the JSON Schema generated from it.

`build_record` turns the crawl state, the features and the spec outcomes into a `CrawlRecord`;
crawl.json is that model's JSON, so the file always satisfies `schemas/crawl.v1.schema.json`
(`flowwalk schema` writes it with the others; a contract test fails when it drifts).
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CRAWL_SCHEMA", "CrawlRecord", "build_record", "generate_schemas"]

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


def build_record(state: dict[str, Any], features: list[dict[str, Any]], specs: list[dict[str, Any]], *,
                 limits: dict[str, Any], duration_s: float, drops: list[dict[str, Any]],
                 calls: list[dict[str, Any]] | None = None) -> CrawlRecord:
    pages = []
    for page in state["pages"]:
        links_to = sorted({e["to"] for e in state["edges"] if e["from"] == page["id"] and e["to"] != page["id"]})
        pages.append({
            **{k: page[k] for k in ("id", "slug", "url", "path", "title", "status", "depth", "signature", "template",
                                     "outline", "visits", "console_errors", "snapshot", "screenshot")},
            "reached_by": ({"kind": page["reached_by"].get("kind", "link"), "from": page["reached_by"].get("from", ""),
                            "selector": page["reached_by"].get("selector", ""),
                            "name": page["reached_by"].get("name", "")} if page.get("reached_by") else None),
            "links_to": links_to,
            "features": [f["id"] for f in features if f["page"] == page["id"]],
        })
    return CrawlRecord.model_validate({
        "start_url": state["start_url"], "stopped_reason": state.get("stopped_reason") or "done",
        "duration_s": round(duration_s, 1), "actions": state.get("actions", 0), "limits": limits,
        "dismiss_selectors": state.get("dismiss") or [], "pages": pages, "edges": state["edges"],
        "skipped": state["skipped"], "loops": state["loops"],
        "features": [{k: f[k] for k in ("id", "kind", "page", "name", "reason", "pages")} for f in features],
        "specs": specs, "model_drops": drops, "model_calls": calls or [],
        "journeys": [_journey(j, specs) for j in state.get("journeys") or ()],
        "failed_resources": sorted({f"{p['path']}: {r}" for p in state["pages"] for r in p.get("failed_resources") or ()}),
    })


def _journey(journey: dict[str, Any], specs: list[dict[str, Any]]) -> dict[str, Any]:
    from flowwalk.discover.effects import checks_per_move

    spec = next((s["path"] for s in specs if s.get("feature") == journey["id"]), "")
    # the checks the spec has: a move's most telling ones (generate.journey_spec keeps as many)
    kept = checks_per_move(len(journey["moves"]))
    return {"id": journey["id"], "page": journey["page"], "name": journey["name"], "why": journey["why"], "spec": spec,
            "moves": [{"name": m["name"], "checks": [e["what"] for e in m["effects"] if e.get("check")][:kept]}
                      for m in journey["moves"]],
            "noted": list(journey.get("noted") or ()), "dropped": list(journey.get("dropped") or ())}


def generate_schemas() -> dict[str, dict[str, Any]]:
    """The crawl.json schema, in the form `spec.schemas` gives the input schemas (`app.reports.schema_texts`
    gathers them all)."""
    from flowwalk.spec.schemas import generate_schema

    return {CRAWL_SCHEMA: generate_schema(CrawlRecord, CRAWL_SCHEMA, "flowwalk discover crawl",
                                          "discover/crawl.json: pages, signatures, links, features and the "
                                          "specs written by `flowwalk discover`.")}
