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

import re
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

from flowwalk.browser import InvalidSelector, NavigationBlocked, PageError
from flowwalk.browser.explore import ExplorePage, Mark
from flowwalk.browser.explored import Survey
from flowwalk.cooperative import CancelToken
from flowwalk.discover import inpage
from flowwalk.discover.goal import goal_words, score
from flowwalk.discover.inpage import Found, Hands, resolve_survey
from flowwalk.discover.listview import explore_list
from flowwalk.discover.options import DiscoverOptions, StopReason
from flowwalk.discover.safety import destructive, host_in_scope, is_hash_route, url_key
from flowwalk.discover.selectors import choose_selector
from flowwalk.discover.signature import dom_signature, outline, template_key, url_template
from flowwalk.discover.state import CrawledPage, CrawlState, Edge, Queued, Skipped, Via

__all__ = ["Crawler", "STATE_FILE"]

STATE_FILE = "discover.state.json"
#: with --submit-forms, a destructive link to such a path is followed to see the confirmation page
#: it asks on (Django's `/books/3/delete/`), whose form is never submitted
_CONFIRMATION = re.compile(r"/(delete|remove)/?$", re.I)
#: URLs of one path (a list under other filters, sorts, pages) visited as pages: the crawl spends
#: its pages on views, not query strings (a list's own moves, listview.py, turn it)
VIEWS = 1
#: instances of a URL template (`/books/7/change/`, `/books/9/change/`) loaded before the others,
#: when those were all one page, are taken to be that page without a load
INSTANCES = 2
_EXTENSIONS = (".pdf", ".zip", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".mp4", ".mp3", ".csv",
               ".xlsx", ".docx", ".exe", ".dmg", ".gz", ".tar", ".json", ".xml", ".txt")


def _slug(url: str) -> str:
    parts = urlsplit(url)
    path = re.sub(r"\.(html?|php|aspx?)$", "", parts.path.strip("/"))
    if parts.fragment and is_hash_route(parts.fragment):
        route = parts.fragment.strip("/!") or "root"
        path = f"{path}-{route}" if path else route
    slug = re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")
    return slug[:60] or "home"


class Crawler:
    """One crawl over one page (its session kept for the whole crawl, so a login holds); the only
    writer of the crawl state."""

    def __init__(self, options: DiscoverOptions, view: ExplorePage, state: CrawlState, folder: Path, *,
                 progress: Callable[[str], None], cancel: CancelToken, started: float):
        self.options = options
        self.view = view
        self.state = state
        self.folder = folder
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
        self._by_signature = {p.signature: p.id for p in state.pages}
        self._by_template = {p.template: p.id for p in state.pages}
        self.goal = goal_words(options.goal)

    # --- the loop ---------------------------------------------------------------------------------

    def run(self) -> StopReason:
        state = self.state
        if not state.pages and not state.queue:
            state.queue.append(Queued(url=state.start_url, depth=0))
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
                self._visit(item)
            except NavigationBlocked as blocked:
                self.skip(item.via, item.url, f"left the allowed hosts ({blocked})")
            except (PageError, InvalidSelector) as error:
                self.skip(item.via, item.url, f"could not be loaded: {str(error).splitlines()[0][:200]}")
                if item.depth == 0 and not state.pages:
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

    # --- what the in-page functions (discover/inpage.py) and the journeys act through --------------

    def skip(self, via: Via | None, what: str, reason: str, page: str = "") -> None:
        """List `what` (reached `via`, or found on `page`) as not visited or not clicked, and why, once."""
        entry = Skipped(via.from_ if via is not None else page, what[:300], reason[:300])
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
            self.view.settle()
            return self.view.status()
        return self.view.load(url)

    def _dismiss_banner(self, survey: Survey) -> Survey:
        """Accept a cookie banner the first time one shows (discover/inpage.py); the survey after it."""
        survey, dismissed = inpage.dismiss_banner(self.view, survey, self.words)
        if dismissed is not None and not any(d.selector == dismissed.selector for d in self.state.dismiss):
            self.state.dismiss.append(dismissed)
            self.progress(f"  dismissed the cookie banner with {dismissed.selector}")
        return survey

    def _record(self, page: CrawledPage, found: Found) -> CrawledPage:
        """Write what an in-page pass found into the state: `page`'s records, the loops, the routes."""
        page = replace(page, controls=page.controls + found.controls, searches=page.searches + found.searches,
                       submits=page.submits + found.submits)
        self.state.put(page)
        for key, signature in found.transitions:
            self.state.transitions[key] = signature
        for skip in found.skipped:
            self.skip(None, skip.what, skip.reason, page.id)
        self.state.loops.extend(found.loops)
        for route in found.routes:
            self.enqueue(Queued(url=route.url, depth=page.depth + 1,
                                via=Via(kind="route", from_=page.id, from_url=page.url, selector=route.selector,
                                        name=route.name)))
        return page

    def _instance_of(self, url: str) -> str | None:
        """The page whose URL template (`/books/{id}/change/`) `url` has, when INSTANCES of its
        URLs were already loaded and all were that page: another row's page is that page again."""
        template = url_template(url)
        if "{id}" not in template:
            return None
        for page in self.state.pages:
            if sum(url_template(v) == template for v in page.visits) >= INSTANCES:
                return page.id
        return None

    def _visit(self, item: Queued) -> None:
        state = self.state
        via = item.via
        same = self._instance_of(item.url) if via is None or via.kind != "route" else None
        if same is not None:
            state.seen.setdefault(url_key(item.url), same)
            self._edge(via, same)
            self.skip(via, item.url, f"another instance of {state.page(same).path}'s URL template, which "
                                     f"{INSTANCES} instances showed to be one page")
            return
        loaded_before = self.view.mark()
        status: int | None
        if via is not None and via.kind == "route":
            # a client-side route: reached by clicking on its page, as the generated spec will
            self._load(via.from_url)
            self._dismiss_banner(self.view.survey())
            self.view.tap(via.selector)
            self.view.settle()
            status = None
        else:
            status = self._load(item.url)
        url = self.view.url
        key = url_key(url)
        if status is not None and status >= 400:
            # a broken link is worth knowing about, not worth a spec that checks the error page
            state.seen.setdefault(key, "")
            self.skip(via, item.url, f"answered HTTP {status}")
            self.progress(f"  {item.url} answered HTTP {status}: not a page to write specs for")
            return
        before = self.view.console_errors
        survey = self._dismiss_banner(self.view.survey())
        signature = dom_signature(survey)
        template = template_key(url, survey)
        state.signature_visits[signature] = state.signature_visits.get(signature, 0) + 1
        same = self._by_signature.get(signature) or self._by_template.get(template)
        if same is None and state.seen.get(key):
            same = state.seen[key]
        if same is not None:
            known = state.page(same)
            if url not in known.visits:
                known = replace(known, visits=known.visits + (url,))
                state.put(known)
            state.seen.setdefault(key, same)
            state.seen.setdefault(url_key(item.url), same)
            self._edge(via, same)
            self.progress(f"  = {url} is {known.path} again (signature {signature}, {len(known.visits)} visits)")
            return
        page_id = f"p{len(state.pages) + 1:03d}"
        slug = _slug(url)
        taken = {p.slug for p in state.pages}
        if slug in taken:
            n = 2
            while f"{slug}-{n}" in taken:
                n += 1
            slug = f"{slug}-{n}"
        survey = resolve_survey(survey, self.view.count)
        page = CrawledPage(id=page_id, slug=slug, url=url, path=_display_path(url), title=survey.title, status=status,
                           depth=item.depth, signature=signature, template=template, outline=outline(survey),
                           survey=survey, visits=(url,), reached_by=via,
                           banner=state.dismiss[0] if state.dismiss else None)
        state.put(page)
        state.seen[key] = page_id
        state.seen.setdefault(url_key(item.url), page_id)
        self._by_signature[signature] = page_id
        self._by_template[template] = page_id
        self._edge(via, page_id)
        page = replace(self._evidence(page), console_errors=self.view.console_errors - before)
        state.put(page)
        counts = f"{len(survey.links)} links, {len(survey.forms)} forms, {len(survey.lists)} lists"
        self.progress(f"page {len(state.pages)}/{self.options.max_pages} depth {item.depth} {page.path}: "
                      f"{survey.title or '(no title)'} ({counts}; signature {signature})")
        if via is not None and via.confirm:
            # a delete confirmation, reached to see what it says (a protected object refuses there):
            # nothing on it is clicked or submitted, and it links nowhere new
            self._finish(replace(page, confirmation=True), before, loaded_before)
            return
        hands = Hands(page=self.view, fresh=lambda: self.reload(page), take_action=self.take_action,
                      words=self.words, progress=self.progress)
        if self.options.submit_forms:
            # first, while the page is as a fresh visitor sees it: a control's click may be kept in
            # storage (Django keeps its filter panels folded once folded)
            page = replace(page, list=explore_list(hands, page))
            state.put(page)
        page = self._record(page, inpage.explore_controls(hands, page, self.state.transitions,
                                                          self.state.signature_visits))
        page = self._record(page, inpage.try_searches(hands, page, self.state.transitions))
        self._queue_links(page, page.survey, item.depth)
        if self.options.submit_forms:
            submitted = inpage.submit_forms(hands, page, self.state.transitions)
            page = self._record(page, submitted)
            if submitted.submitted:
                # what a submit added (TodoMVC's filters appear with the first todo) may link on
                try:
                    self._queue_links(page, self.view.survey(), item.depth)
                except (PageError, InvalidSelector):
                    pass
        self._finish(page, before, loaded_before)

    def _finish(self, page: CrawledPage, errors_before: int, loaded_before: Mark) -> None:
        """Keep `page` with the console errors and the failed loads since its visit began."""
        self.state.put(replace(page, console_errors=self.view.console_errors - errors_before,
                               failed_resources=self._failed_resources(loaded_before)))

    def _failed_resources(self, known: Mark) -> tuple[str, ...]:
        """Sub-resources of the page that did not load (a missing favicon): a finding for index.md,
        and the reason the page's specs do not assert `no_console_errors` (the browser logs each)."""
        out: list[str] = []
        for entry in self.view.requests(since=known):
            if entry.resource_type == "document" or not ((entry.status or 0) >= 400 or entry.failure):
                continue
            path = urlsplit(entry.url).path or "/"
            said = f"{path} answered HTTP {entry.status}" if entry.status else f"{path} failed ({entry.failure})"
            if said not in out:
                out.append(said)
        return tuple(out[:10])

    def _edge(self, via: Via | None, to: str) -> None:
        if via is None:
            return
        edge = Edge(from_=via.from_, to=to, kind=via.kind, selector=via.selector, name=via.name)
        if edge not in self.state.edges:
            self.state.edges.append(edge)

    def _evidence(self, page: CrawledPage) -> CrawledPage:
        """The page's accessibility snapshot and screenshot, under discover/pages/<slug>/."""
        folder = self.folder / "pages" / page.slug
        folder.mkdir(parents=True, exist_ok=True)
        snapshot = self.view.snapshot()
        (folder / "snapshot.md").write_text(
            f"# {page.title or page.path}\n\nURL: {page.url}\n\nsignature: {page.signature}\n\n"
            f"```yaml\n{snapshot}\n```\n", encoding="utf-8")
        shot = f"pages/{page.slug}/screenshot.png" if self.view.screenshot(folder / "screenshot.png") else ""
        page = replace(page, snapshot=f"pages/{page.slug}/snapshot.md", screenshot=shot)
        self.state.put(page)
        return page

    def reload(self, page: CrawledPage) -> bool:
        """Bring `page` back fresh: load its URL, or its route's page and the click that opened it;
        False when it cannot be had."""
        try:
            via = page.reached_by
            if via is not None and via.kind == "route":
                self._load(via.from_url)
                self.view.tap(via.selector)
                self.view.settle()
            else:
                self._load(page.url)
            return True
        except (PageError, InvalidSelector, NavigationBlocked):
            return False

    # --- links ------------------------------------------------------------------------------------

    def enqueue(self, item: Queued) -> None:
        """Queue a page to visit unless it was seen or is queued already; with --goal, a link whose
        words match it goes before those that match less."""
        key = url_key(item.url)
        if key in self.state.seen or any(url_key(q.url) == key for q in self.state.queue):
            return
        name = item.via.name if item.via is not None else ""
        match = score(self.goal, f"{name} {item.url}") if self.goal else 0
        if match:
            at = next((i for i, q in enumerate(self.state.queue) if q.goal < match), len(self.state.queue))
            self.state.queue.insert(at, replace(item, goal=match))
            return
        self.state.queue.append(item)

    def _views_of(self, href: str) -> int:
        """How many URLs of `href`'s path (any query) were loaded or are queued."""
        view = _view(href)
        return len({k for k in self.state.seen if _view(k) == view} | {url_key(q.url) for q in self.state.queue
                                                                          if _view(q.url) == view})

    def _queue_links(self, page: CrawledPage, survey: Survey, depth: int) -> None:
        for link in survey.links:
            href = link.href
            parts = urlsplit(href)
            name = (link.name or href)[:80]
            if parts.scheme not in ("http", "https"):
                continue
            if parts.fragment and not is_hash_route(parts.fragment) and url_key(href) == url_key(page.url):
                continue   # an anchor on this page
            if "download" in link.attrs or parts.path.lower().endswith(_EXTENSIONS):
                continue
            if not host_in_scope(parts.hostname or "", self.start_host, self.options.allow_hosts):
                self.skip(None, href, "outside the allowed hosts", page.id)
                continue
            word = destructive(link, self.words)
            confirm = bool(word) and self.options.submit_forms and bool(_CONFIRMATION.search(parts.path))
            if word and not confirm:
                self.skip(None, href, f"destructive ('{word}'): link {name!r}", page.id)
                continue
            key = url_key(href)
            if key in self.state.seen:
                if not self.state.seen[key]:
                    continue   # a broken link, listed once
                self._edge(Via(kind="link", from_=page.id, selector=choose_selector(link) or "", name=name),
                           self.state.seen[key])
                continue
            if parts.query and self._views_of(href) >= VIEWS:
                self.skip(None, href, "the same view as its path under another query (a filter, a sort, a page: "
                                      "the list's own moves explore those)", page.id)
                continue
            if depth + 1 > self.options.max_depth:
                self.skip(None, href, f"deeper than --max-depth {self.options.max_depth}", page.id)
                continue
            self.enqueue(Queued(url=href, depth=depth + 1, via=Via(kind="link", from_=page.id,
                                                                   selector=choose_selector(link) or "", name=name,
                                                                   confirm=confirm)))


# --- pure helpers -----------------------------------------------------------------------------------


def _view(url: str) -> str:
    """A URL without its query: the view that URLs differing only in query share."""
    return url_key(urlsplit(url)._replace(query="").geturl())


def _display_path(url: str) -> str:
    parts = urlsplit(url)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    if parts.fragment and is_hash_route(parts.fragment):
        path += "#" + parts.fragment
    return path
