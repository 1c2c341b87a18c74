"""The crawl: breadth first from the start URL, within the limits, never touching a destructive control.

Each new page (a new DOM signature and template) is surveyed, its accessibility snapshot and
screenshot saved, its in-page controls (tabs, disclosures, filters) clicked one at a time from a
fresh load, its search fields tried, its forms submitted only with `--submit-forms`, and its links
queued. A page whose signature or template was seen already is a visit of that page, not a new
page. An action that leads from a signature to one it already led to is a loop and is not taken
again. After every page the whole state goes to `discover.state.json`, so `--resume` continues a
crawl that stopped where it stopped, loop detection included.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from flowwalk.browser import InvalidSelector, NavigationBlocked, PageError, PageSession
from flowwalk.browser.errors import translating
from flowwalk.discover.options import DiscoverOptions, StopReason
from flowwalk.discover.safety import destructive_word, host_in_scope, is_hash_route, url_key
from flowwalk.discover.inpage import InPage
from flowwalk.discover.selectors import choose_selector
from flowwalk.discover.signature import dom_signature, outline, template_key

__all__ = ["CrawlState", "Crawler", "STATE_FILE", "STATE_VERSION"]

STATE_FILE = "discover.state.json"
STATE_VERSION = 1
SETTLE_MS = 1_500
_EXTENSIONS = (".pdf", ".zip", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".mp4", ".mp3", ".csv",
               ".xlsx", ".docx", ".exe", ".dmg", ".gz", ".tar", ".json", ".xml", ".txt")


@dataclass
class CrawlState:
    """Everything the crawl knows; JSON as `discover.state.json` between pages."""

    start_url: str
    queue: list[dict[str, Any]] = field(default_factory=list)
    pages: list[dict[str, Any]] = field(default_factory=list)
    #: url key -> page id, for every URL that was loaded
    seen: dict[str, str] = field(default_factory=dict)
    edges: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    loops: list[dict[str, Any]] = field(default_factory=list)
    #: "signature|action" -> the signature that action led to (loop detection)
    transitions: dict[str, str] = field(default_factory=dict)
    #: how often each signature was reached
    signature_visits: dict[str, int] = field(default_factory=dict)
    dismiss: list[dict[str, Any]] = field(default_factory=list)
    #: the journeys explored with --submit-forms (journeys.Journey.to_dict), in page order
    journeys: list[dict[str, Any]] = field(default_factory=list)
    #: the URL key of the page an in-page login (a single-page app) left the session at
    login_landing: str = ""
    actions: int = 0
    elapsed_s: float = 0.0
    stopped_reason: str = ""
    version: int = STATE_VERSION

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "CrawlState":
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("version") != STATE_VERSION or "start_url" not in data:
            raise ValueError("not a discover state file of this version")
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})

    def page(self, page_id: str) -> dict[str, Any]:
        return next(p for p in self.pages if p["id"] == page_id)


def _slug(url: str) -> str:
    parts = urlsplit(url)
    path = re.sub(r"\.(html?|php|aspx?)$", "", parts.path.strip("/"))
    if parts.fragment and is_hash_route(parts.fragment):
        route = parts.fragment.strip("/!") or "root"
        path = f"{path}-{route}" if path else route
    slug = re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")
    return slug[:60] or "home"


class Crawler:
    """One crawl over one `PageSession` (kept for the whole crawl, so a login holds)."""

    def __init__(self, options: DiscoverOptions, session: PageSession, state: CrawlState, folder: Path, *,
                 action_timeout_ms: int, navigation_timeout_ms: int,
                 progress: Callable[[str], None], cancel: threading.Event, started: float):
        self.options = options
        self.session = session
        self.state = state
        self.folder = folder
        self.action_timeout_ms = action_timeout_ms
        self.navigation_timeout_ms = navigation_timeout_ms
        self.progress = progress
        self.cancel = cancel
        self.started = started - state.elapsed_s   # a resumed crawl's budget counts what it spent
        self.start_host = urlsplit(state.start_url).hostname or ""
        self.words = options.destructive_words()
        #: with --login: the URL the login left the page at, and how to log in again. A single-page
        #: app that keeps its login in the page is explored from that state: loading its URL again
        #: would show the login form, so "load this page" there means "log in again"
        self.landing: str | None = None
        self.relogin: Callable[[], None] | None = None
        self._by_signature = {p["signature"]: p["id"] for p in state.pages}
        self._by_template = {p["template"]: p["id"] for p in state.pages}
        #: the banner, controls, searches and forms of each new page
        self.inpage = InPage(self)

    # --- the loop ---------------------------------------------------------------------------------

    def run(self) -> StopReason:
        state = self.state
        if not state.pages and not state.queue:
            state.queue.append({"url": state.start_url, "depth": 0, "via": None})
        reason: StopReason = "done"
        while state.queue:
            if self.cancel.is_set():
                reason = "cancelled"
                break
            if self._elapsed() >= self.options.budget_s:
                reason = "budget"
                break
            if len(state.pages) >= self.options.max_pages:
                reason = "max_pages"
                break
            item = state.queue.pop(0)
            try:
                with translating():
                    self._visit(item)
            except NavigationBlocked as blocked:
                self.skip(item.get("via"), item["url"], f"left the allowed hosts ({blocked})")
            except (PageError, InvalidSelector) as error:
                self.skip(item.get("via"), item["url"], f"could not be loaded: {str(error).splitlines()[0][:200]}")
                if item["depth"] == 0 and not state.pages:
                    reason = "unreachable"
                    break
            self._save()
        if not state.pages and reason == "done":
            reason = "unreachable"   # the start URL answered an error: nothing to write specs for
        state.stopped_reason = reason
        self._save()
        return reason

    def _elapsed(self) -> float:
        return time.monotonic() - self.started

    def _save(self) -> None:
        self.state.elapsed_s = round(self._elapsed(), 3)
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / STATE_FILE
        tmp = path.with_suffix(".tmp")
        tmp.write_text(self.state.to_json(), encoding="utf-8")
        tmp.replace(path)

    # --- what the in-page actions (discover/inpage.py) and the journeys act through -----------------

    def skip(self, via: dict[str, Any] | None, what: str, reason: str) -> None:
        """List `what` (reached `via`) as not visited or not clicked, and why, once."""
        entry = {"from": (via or {}).get("from", ""), "what": what[:300], "reason": reason[:300]}
        if entry not in self.state.skipped:
            self.state.skipped.append(entry)

    def out_of_time(self) -> bool:
        return self._elapsed() >= self.options.budget_s or self.cancel.is_set()

    def take_action(self) -> bool:
        """Count one action (a click, a search, a form, a journey's move) against --max-actions;
        False when none is left."""
        if self.state.actions >= self.options.max_actions:
            return False
        self.state.actions += 1
        return True

    # --- one page ---------------------------------------------------------------------------------

    def _load(self, url: str) -> int | None:
        """Go to `url` and let it settle; the document's HTTP status when the page knows it."""
        if self.relogin is not None and self.landing is not None and url_key(url) == self.landing:
            self.relogin()
        else:
            self.session.goto(url, timeout_ms=self.navigation_timeout_ms)
        self.settle()
        try:
            with translating():
                status = self.session.playwright_page.evaluate(
                    "() => { const n = performance.getEntriesByType('navigation')[0]; return n ? n.responseStatus || null : null; }")
        except (PageError, InvalidSelector):
            status = None
        return int(status) if isinstance(status, int) else None

    def settle(self) -> None:
        """Let the page settle after a load or a click: network idle (up to SETTLE_MS), then 100 ms."""
        try:
            with translating():
                self.session.playwright_page.wait_for_load_state("networkidle", timeout=SETTLE_MS)
        except (PageError, InvalidSelector):
            pass   # a page that keeps polling is settled enough
        self.session.wait(100)

    def _visit(self, item: dict[str, Any]) -> None:
        state = self.state
        via = item.get("via")
        loaded_before = {id(entry) for entry in self.session.network}
        if via and via.get("kind") == "route":
            # a client-side route: reached by clicking on its page, as the generated spec will
            self._load(via["from_url"])
            self.inpage.dismiss_banner(None)
            self.click(via["selector"])
            self.settle()
            status = None
        else:
            status = self._load(item["url"])
        url = self.session.page.last_url()
        key = url_key(url)
        if status is not None and status >= 400:
            # a broken link is worth knowing about, not worth a spec that checks the error page
            state.seen.setdefault(key, "")
            self.skip(via, item["url"], f"answered HTTP {status}")
            self.progress(f"  {item['url']} answered HTTP {status}: not a page to write specs for")
            return
        before = self.session.console_error_count
        survey = self.inpage.dismiss_banner(self.session.page.survey())
        signature = dom_signature(survey)
        template = template_key(url, survey)
        state.signature_visits[signature] = state.signature_visits.get(signature, 0) + 1
        same = self._by_signature.get(signature) or self._by_template.get(template)
        if same is None and state.seen.get(key):
            same = state.seen[key]
        if same is not None:
            known = state.page(same)
            if url not in known["visits"]:
                known["visits"].append(url)
            state.seen.setdefault(key, same)
            state.seen.setdefault(url_key(item["url"]), same)
            self._edge(via, same)
            self.progress(f"  = {url} is {known['path']} again (signature {signature}, {len(known['visits'])} visits)")
            return
        page_id = f"p{len(state.pages) + 1:03d}"
        slug = _slug(url)
        taken = {p["slug"] for p in state.pages}
        if slug in taken:
            n = 2
            while f"{slug}-{n}" in taken:
                n += 1
            slug = f"{slug}-{n}"
        self._resolve_text_candidates(survey)
        page: dict[str, Any] = {
            "id": page_id, "slug": slug, "url": url, "path": _display_path(url), "title": survey.get("title", ""),
            "status": status, "depth": item["depth"], "signature": signature, "template": template,
            "outline": outline(survey), "visits": [url], "reached_by": via, "survey": survey,
            "banner": state.dismiss[0] if state.dismiss else None, "console_errors": 0,
            "controls": [], "searches": [], "submits": [], "snapshot": "", "screenshot": "",
        }
        state.pages.append(page)
        state.seen[key] = page_id
        state.seen.setdefault(url_key(item["url"]), page_id)
        self._by_signature[signature] = page_id
        self._by_template[template] = page_id
        self._edge(via, page_id)
        self._evidence(page)
        page["console_errors"] = self.session.console_error_count - before
        counts = (f"{len(survey.get('links') or [])} links, {len(survey.get('forms') or [])} forms, "
                  f"{len(survey.get('lists') or [])} lists")
        self.progress(f"page {len(state.pages)}/{self.options.max_pages} depth {item['depth']} {page['path']}: "
                      f"{survey.get('title') or '(no title)'} ({counts}; signature {signature})")
        self.inpage.explore_controls(page)
        self.inpage.try_searches(page)
        self._queue_links(page, page["survey"], item["depth"])
        if self.options.submit_forms and self.inpage.submit_forms(page):
            # what a submit added (TodoMVC's filters appear with the first todo) may link on
            try:
                with translating():
                    self._queue_links(page, self.session.page.survey(), item["depth"])
            except (PageError, InvalidSelector):
                pass
        page["console_errors"] = self.session.console_error_count - before
        page["failed_resources"] = self._failed_resources(loaded_before)

    def _failed_resources(self, known: set[int]) -> list[str]:
        """Sub-resources of the page that did not load (a missing favicon): a finding for index.md,
        and the reason the page's specs do not assert `no_console_errors` (the browser logs each)."""
        out: list[str] = []
        for entry in list(self.session.network):
            if id(entry) in known:
                continue
            status = entry.get("status")
            if entry.get("resource_type") == "document" or not ((status or 0) >= 400 or entry.get("failure")):
                continue
            path = urlsplit(str(entry.get("url") or "")).path or "/"
            said = f"{path} answered HTTP {status}" if status else f"{path} failed ({entry.get('failure')})"
            if said not in out:
                out.append(said)
        return out[:10]

    def _edge(self, via: dict[str, Any] | None, to: str) -> None:
        if not via:
            return
        edge = {"from": via.get("from", ""), "to": to, "kind": via.get("kind", "link"),
                "selector": via.get("selector", ""), "name": via.get("name", "")}
        if edge not in self.state.edges:
            self.state.edges.append(edge)

    def _evidence(self, page: dict[str, Any]) -> None:
        """The page's accessibility snapshot and screenshot, under discover/pages/<slug>/."""
        folder = self.folder / "pages" / page["slug"]
        folder.mkdir(parents=True, exist_ok=True)
        snapshot = self.session.a11y_snapshot()
        (folder / "snapshot.md").write_text(
            f"# {page['title'] or page['path']}\n\nURL: {page['url']}\n\nsignature: {page['signature']}\n\n"
            f"```yaml\n{snapshot}\n```\n", encoding="utf-8")
        page["snapshot"] = f"pages/{page['slug']}/snapshot.md"
        if self.session.screenshot(folder / "screenshot.png"):
            page["screenshot"] = f"pages/{page['slug']}/screenshot.png"

    def _resolve_text_candidates(self, survey: dict[str, Any]) -> None:
        """`text=` candidates cannot be counted by the page's CSS engine: count those that matter
        (no better candidate is unique) with Playwright."""
        for group in ("links", "buttons"):
            for element in survey.get(group) or ():
                self.resolve_element(element)
        for form in survey.get("forms") or ():
            if form.get("submit"):
                self.resolve_element(form["submit"])
        for dialog in survey.get("dialogs") or ():
            for button in dialog.get("buttons") or ():
                self.resolve_element(button)

    def resolve_element(self, element: dict[str, Any]) -> None:
        """Count `element`'s `text=` candidates in the page when no better candidate is unique."""
        for candidate in element.get("candidates") or ():
            if candidate.get("count") == 1 and candidate.get("how") != "position":
                return
            if candidate.get("how") == "text" and candidate.get("count") == -1:
                candidate["count"] = self.session.page.count(candidate["selector"])


    # --- actions on one page ----------------------------------------------------------------------

    def click(self, selector: str) -> bool:
        """Click the first element `selector` finds; False when none is there or the click failed
        (a navigation off the allowed hosts raises NavigationBlocked)."""
        from flowwalk.browser.locate import locate

        try:
            with translating():
                found = locate(self.session.playwright_page, selector)
                if found.count == 0:
                    return False
                with self.session.translating():
                    found.locator.first.click(timeout=self.action_timeout_ms)
                self.session.check_navigation()
                return True
        except NavigationBlocked:
            raise
        except (PageError, InvalidSelector):
            return False

    def reload(self, page: dict[str, Any]) -> bool:
        """Bring `page` back fresh: load its URL, or its route's page and the click that opened it;
        False when it cannot be had."""
        try:
            with translating():
                via = page.get("reached_by")
                if via and via.get("kind") == "route":
                    self._load(via["from_url"])
                    self.click(via["selector"])
                    self.settle()
                else:
                    self._load(page["url"])
                return True
        except (PageError, InvalidSelector, NavigationBlocked):
            return False


    # --- links ------------------------------------------------------------------------------------

    def enqueue(self, item: dict[str, Any]) -> None:
        """Queue a page to visit (`url`, `depth`, `via`) unless it was seen or is queued already."""
        key = url_key(item["url"])
        if key in self.state.seen or any(url_key(q["url"]) == key for q in self.state.queue):
            return
        self.state.queue.append(item)

    def _queue_links(self, page: dict[str, Any], survey: dict[str, Any], depth: int) -> None:
        for link in survey.get("links") or ():
            href = str(link.get("href") or "")
            parts = urlsplit(href)
            name = str(link.get("name") or href)[:80]
            if parts.scheme not in ("http", "https"):
                continue
            if parts.fragment and not is_hash_route(parts.fragment) \
                    and url_key(href) == url_key(page["url"]):
                continue   # an anchor on this page
            attrs = link.get("attrs") or {}
            if "download" in attrs or parts.path.lower().endswith(_EXTENSIONS):
                continue
            if not host_in_scope(parts.hostname or "", self.start_host, self.options.allow_hosts):
                self.skip({"from": page["id"]}, href, "outside the allowed hosts")
                continue
            word = destructive_word(link, self.words)
            if word:
                self.skip({"from": page["id"]}, href, f"destructive ('{word}'): link {name!r}")
                continue
            key = url_key(href)
            if key in self.state.seen:
                if not self.state.seen[key]:
                    continue   # a broken link, listed once
                self._edge({"from": page["id"], "kind": "link", "selector": choose_selector(link) or "",
                            "name": name}, self.state.seen[key])
                continue
            if depth + 1 > self.options.max_depth:
                self.skip({"from": page["id"]}, href, f"deeper than --max-depth {self.options.max_depth}")
                continue
            self.enqueue({"url": href, "depth": depth + 1,
                          "via": {"kind": "link", "from": page["id"], "selector": choose_selector(link) or "",
                                  "name": name}})


# --- pure helpers -----------------------------------------------------------------------------------


def _display_path(url: str) -> str:
    parts = urlsplit(url)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    if parts.fragment and is_hash_route(parts.fragment):
        path += "#" + parts.fragment
    return path


