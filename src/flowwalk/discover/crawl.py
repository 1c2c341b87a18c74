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
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from flowwalk.browser import InvalidSelector, NavigationBlocked, PageError, PageSession
from flowwalk.browser.errors import translating
from flowwalk.browser.survey import count_matches, messages, page_text, survey_page
from flowwalk.discover.options import DiscoverOptions, StopReason
from flowwalk.discover.safety import destructive_word, host_in_scope, is_hash_route, url_key
from flowwalk.discover.selectors import choose_selector, target_of
from flowwalk.discover.signature import dom_signature, outline, template_key

__all__ = ["CrawlState", "Crawler", "STATE_FILE", "STATE_VERSION"]

STATE_FILE = "discover.state.json"
STATE_VERSION = 1
#: in-page controls clicked per page, search fields tried per page
CONTROLS_PER_PAGE = 8
SETTLE_MS = 1_500
#: words of a button that accepts or dismisses a cookie banner
_ACCEPT = re.compile(r"\b(accept|agree|allow|ok|okay|got it|i understand|continue|dismiss|close)\b", re.I)
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
                self._skip(item.get("via"), item["url"], f"left the allowed hosts ({blocked})")
            except (PageError, InvalidSelector) as error:
                self._skip(item.get("via"), item["url"], f"could not be loaded: {str(error).splitlines()[0][:200]}")
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

    def _skip(self, via: dict[str, Any] | None, what: str, reason: str) -> None:
        entry = {"from": (via or {}).get("from", ""), "what": what[:300], "reason": reason[:300]}
        if entry not in self.state.skipped:
            self.state.skipped.append(entry)

    def take_journey_action(self) -> bool:
        """A journey's move counts against --max-actions like any click."""
        return self._take_action()

    def out_of_time(self) -> bool:
        return self._elapsed() >= self.options.budget_s or self.cancel.is_set()

    def _take_action(self) -> bool:
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
        self._settle()
        try:
            with translating():
                status = self.session.page.evaluate(
                    "() => { const n = performance.getEntriesByType('navigation')[0]; return n ? n.responseStatus || null : null; }")
        except (PageError, InvalidSelector):
            status = None
        return int(status) if isinstance(status, int) else None

    def _settle(self) -> None:
        try:
            with translating():
                self.session.page.wait_for_load_state("networkidle", timeout=SETTLE_MS)
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
            self._dismiss_banner(None)
            self._click(via["selector"])
            self._settle()
            status = None
        else:
            status = self._load(item["url"])
        url = self.session.page.url
        key = url_key(url)
        if status is not None and status >= 400:
            # a broken link is worth knowing about, not worth a spec that checks the error page
            state.seen.setdefault(key, "")
            self._skip(via, item["url"], f"answered HTTP {status}")
            self.progress(f"  {item['url']} answered HTTP {status}: not a page to write specs for")
            return
        before = self.session.console_error_count
        survey = self._dismiss_banner(survey_page(self.session))
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
        self._explore_controls(page)
        self._try_searches(page)
        self._queue_links(page, page["survey"], item["depth"])
        if self.options.submit_forms and self._submit_forms(page):
            # what a submit added (TodoMVC's filters appear with the first todo) may link on
            try:
                with translating():
                    self._queue_links(page, survey_page(self.session), item["depth"])
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
                self._resolve_element(element)
        for form in survey.get("forms") or ():
            if form.get("submit"):
                self._resolve_element(form["submit"])
        for dialog in survey.get("dialogs") or ():
            for button in dialog.get("buttons") or ():
                self._resolve_element(button)

    def _resolve_element(self, element: dict[str, Any]) -> None:
        for candidate in element.get("candidates") or ():
            if candidate.get("count") == 1 and candidate.get("how") != "position":
                return
            if candidate.get("how") == "text" and candidate.get("count") == -1:
                candidate["count"] = count_matches(self.session, candidate["selector"])

    # --- banners ----------------------------------------------------------------------------------

    def _dismiss_banner(self, survey: dict[str, Any] | None) -> dict[str, Any]:
        """Accept a cookie banner the first time one shows: it covers the page, and every generated
        spec will start by accepting it too (it is the crawl's `dismiss_selectors`)."""
        if survey is None:
            survey = survey_page(self.session)
        for dialog in survey.get("dialogs") or ():
            if not dialog.get("cookie"):
                continue
            for button in dialog.get("buttons") or ():
                name = str(button.get("name") or "")
                if not _ACCEPT.search(name) or destructive_word(button, self.words):
                    continue
                self._resolve_element(button)
                selector = choose_selector(button)
                if selector is None:
                    continue
                banner_selector = choose_selector(dialog) or ""
                if not self._click(selector):
                    continue
                entry = {"selector": selector, "target": target_of(button), "banner": banner_selector,
                         "text": str(dialog.get("text") or "")[:200]}
                if not any(d["selector"] == selector for d in self.state.dismiss):
                    self.state.dismiss.append(entry)
                    self.progress(f"  dismissed the cookie banner with {selector}")
                self._settle()
                return survey_page(self.session)
        return survey

    # --- actions on one page ----------------------------------------------------------------------

    def _click(self, selector: str) -> bool:
        from flowwalk.browser.locate import locate

        try:
            with translating():
                found = locate(self.session.page, selector)
                if found.count == 0:
                    return False
                with self.session.guard():
                    found.locator.first.click(timeout=self.action_timeout_ms)
                self.session.check_navigation()
                return True
        except NavigationBlocked:
            raise
        except (PageError, InvalidSelector):
            return False

    def _reload(self, page: dict[str, Any]) -> bool:
        try:
            with translating():
                via = page.get("reached_by")
                if via and via.get("kind") == "route":
                    self._load(via["from_url"])
                    self._click(via["selector"])
                    self._settle()
                else:
                    self._load(page["url"])
                return True
        except (PageError, InvalidSelector, NavigationBlocked):
            return False

    def _controls(self, page: dict[str, Any]) -> list[dict[str, Any]]:
        """The buttons of a page that change it in place: tabs, disclosures, toggles, filters."""
        out = []
        for button in page["survey"].get("buttons") or ():
            if button.get("disabled") or (button.get("in_form") and button.get("type") in ("submit", "reset")):
                continue
            # every destructive button is listed as not clicked, whether or not it looked in-place
            word = destructive_word(button, self.words)
            if word:
                self._skip({"from": page["id"]}, f"button {button.get('name')!r}", f"destructive ('{word}')")
                continue
            in_place = (button.get("role") == "tab" or button.get("expanded") is not None
                        or button.get("pressed") is not None or button.get("controls") or button.get("tag") == "summary"
                        or (button.get("type") == "button" and button.get("group")))
            if not in_place:
                continue
            if choose_selector(button) is None:
                continue
            out.append(button)
        return out[:CONTROLS_PER_PAGE]

    def _explore_controls(self, page: dict[str, Any]) -> None:
        for button in self._controls(page):
            selector = choose_selector(button)
            assert selector is not None
            action = f"click {selector}"
            transition = f"{page['signature']}|{action}"
            if transition in self.state.transitions:
                self.state.loops.append({"page": page["id"], "action": action,
                                         "signature": self.state.transitions[transition]})
                continue
            if not self._take_action():
                return
            if not self._reload(page):
                return
            before_text = page_text(self.session)
            before_url = self.session.page.url
            try:
                clicked = self._click(selector)
            except NavigationBlocked as blocked:
                self._skip({"from": page["id"]}, action, f"left the allowed hosts ({blocked})")
                continue
            if not clicked:
                continue
            self.session.wait(300)
            after_url = self.session.page.url
            after = survey_page(self.session)
            after_sig = dom_signature(after)
            self.state.transitions[transition] = after_sig
            if after_sig != page["signature"] and self.state.signature_visits.get(after_sig, 0) >= 1 \
                    and after_url == before_url:
                self.state.loops.append({"page": page["id"], "action": action, "signature": after_sig})
            record = {"selector": selector, "target": target_of(button), "name": button.get("name", ""),
                      "role": button.get("role", ""), "controls": button.get("controls", ""),
                      "pressed": button.get("pressed"), "expanded": button.get("expanded"),
                      "url_before": before_url, "url_after": after_url, "signature_after": after_sig,
                      "new_text": _new_lines(before_text, page_text(self.session)),
                      "lists": _list_counts(after), "attrs_after": _state_of(after, button)}
            if after_url != before_url:
                if urlsplit(after_url)._replace(fragment="") != urlsplit(before_url)._replace(fragment="") \
                        or is_hash_route(urlsplit(after_url).fragment):
                    record["route"] = after_url
                    self._queue({"url": after_url, "depth": page["depth"] + 1,
                                 "via": {"kind": "route", "from": page["id"], "from_url": page["url"],
                                         "selector": selector, "name": button.get("name", "")}})
            page["controls"].append(record)
            self.progress(f"  clicked {target_of(button)} ({selector}) on {page['path']}")

    def _try_searches(self, page: dict[str, Any]) -> None:
        """Type a word from the page's biggest list into each search or filter field and note
        what the lists show then (no form is submitted: only the field's own input events)."""
        survey = page["survey"]
        lists = sorted((entry for entry in survey.get("lists") or () if entry.get("count", 0) >= 2),
                       key=lambda entry: -int(entry.get("count", 0)))
        for index, form in enumerate(survey.get("forms") or ()):
            fields = [f for f in form.get("fields") or () if _is_search_field(form, f)]
            if not fields or not lists:
                continue
            field_ = fields[0]
            selector = choose_selector(field_)
            term = _search_term(lists[0])
            if selector is None or not term or not self._take_action() or not self._reload(page):
                continue
            try:
                with translating():
                    from flowwalk.browser.locate import locate

                    with self.session.guard():
                        locate(self.session.page, selector).locator.first.fill(term, timeout=self.action_timeout_ms)
                    self.session.wait(500)
                    after = survey_page(self.session)
            except (PageError, InvalidSelector):
                continue
            if self.session.page.url != page["url"]:
                continue   # typing navigated: not a filter to keep
            page["searches"].append({"form": index, "selector": selector, "target": target_of(field_),
                                     "term": term, "lists": _list_counts(after)})
            self.progress(f"  typed {term!r} into {target_of(field_)} on {page['path']}")

    def _submit_forms(self, page: dict[str, Any]) -> bool:
        """With --submit-forms: submit each (non-destructive) form empty and note its validation
        message; a single-field form without a button gets a sample value and Enter. True when
        the page was left as the last submit made it."""
        submitted = False
        for index, form in enumerate(page["survey"].get("forms") or ()):
            word = destructive_word(form, self.words) or (destructive_word(form["submit"], self.words)
                                                          if form.get("submit") else None)
            if word:
                self._skip({"from": page["id"]}, f"form {form.get('name') or index}", f"destructive ('{word}')")
                continue
            submit = form.get("submit")
            # the same form on another page (a site-wide search, TodoMVC's input on every route)
            # is submitted once: each submit changes what the next pages show
            once = f"submit|{choose_selector(submit) if submit else ''}|" + "|".join(
                str(choose_selector(f) or "") for f in form.get("fields") or ())
            if once in self.state.transitions:
                continue
            self.state.transitions[once] = page["signature"]
            text_fields = [f for f in form.get("fields") or () if f.get("type") in ("text", "email", "search", "textarea")]
            if submit and not submit.get("disabled") and choose_selector(submit):
                if not self._take_action() or not self._reload(page):
                    return False
                before = page_text(self.session)
                before_messages = messages(self.session)
                selector = choose_selector(submit)
                assert selector is not None
                try:
                    clicked = self._click(selector)
                except NavigationBlocked:
                    continue
                if not clicked:
                    continue
                self.session.wait(400)
                # a validation message is what a form's alert or live region says now; failing
                # that, a line of text with a word the page did not show before
                said = [m for m in messages(self.session) if m not in before_messages]
                page["submits"].append({"form": index, "kind": "empty", "selector": selector,
                                        "target": target_of(submit), "url_after": self.session.page.url,
                                        "new_text": said or _new_lines(before, page_text(self.session)),
                                        "lists": _list_counts(survey_page(self.session))})
                submitted = True
                self.progress(f"  submitted {form.get('name') or 'a form'} empty on {page['path']}")
            elif form.get("implicit") and len(text_fields) == 1 and not form.get("search"):
                selector = choose_selector(text_fields[0])
                if selector is None or not self._take_action() or not self._reload(page):
                    continue
                value = "Written by flowwalk discover"
                try:
                    with translating():
                        from flowwalk.browser.locate import locate

                        with self.session.guard():
                            field_loc = locate(self.session.page, selector).locator.first
                            field_loc.fill(value, timeout=self.action_timeout_ms)
                            field_loc.press("Enter", timeout=self.action_timeout_ms)
                        self.session.wait(400)
                        self.session.check_navigation()
                except (PageError, InvalidSelector, NavigationBlocked):
                    continue
                page["submits"].append({"form": index, "kind": "enter", "selector": selector,
                                        "target": target_of(text_fields[0]), "value": value,
                                        "url_after": self.session.page.url,
                                        "lists": _list_counts(survey_page(self.session))})
                submitted = True
                self.progress(f"  entered a sample value into {target_of(text_fields[0])} on {page['path']}")
        return submitted

    # --- links ------------------------------------------------------------------------------------

    def _queue(self, item: dict[str, Any]) -> None:
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
                self._skip({"from": page["id"]}, href, "outside the allowed hosts")
                continue
            word = destructive_word(link, self.words)
            if word:
                self._skip({"from": page["id"]}, href, f"destructive ('{word}'): link {name!r}")
                continue
            key = url_key(href)
            if key in self.state.seen:
                if not self.state.seen[key]:
                    continue   # a broken link, listed once
                self._edge({"from": page["id"], "kind": "link", "selector": choose_selector(link) or "",
                            "name": name}, self.state.seen[key])
                continue
            if depth + 1 > self.options.max_depth:
                self._skip({"from": page["id"]}, href, f"deeper than --max-depth {self.options.max_depth}")
                continue
            self._queue({"url": href, "depth": depth + 1,
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


def _new_lines(before: str, after: str) -> list[str]:
    """Lines of text the page shows now and did not before, each with a word it did not show
    before (a label that only moved is not news): at most 5, each at most 200 characters."""
    old = Counter(line.strip() for line in before.splitlines())
    known = set(before.lower().split())
    out: list[str] = []
    for line in after.splitlines():
        line = line.strip()
        if not line:
            continue
        if old[line] > 0:
            old[line] -= 1
            continue
        if not set(line.lower().split()) - known:
            continue
        if line not in out:
            out.append(line[:200])
        if len(out) >= 5:
            break
    return out


def _list_counts(survey: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"selector": choose_selector(entry) or "", "item_tag": entry.get("item_tag", ""),
             "count": entry.get("count", 0), "total": entry.get("total", entry.get("count", 0)),
             "first_item": entry.get("first_item", ""), "items": list(entry.get("items") or ())}
            for entry in survey.get("lists") or ()]


def _state_of(survey: dict[str, Any], button: dict[str, Any]) -> dict[str, Any]:
    """The clicked control's own state after the click (aria-pressed, -expanded, -selected)."""
    selector = choose_selector(button)
    for other in survey.get("buttons") or ():
        if choose_selector(other) == selector:
            return {"pressed": other.get("pressed"), "expanded": other.get("expanded"),
                    "selected": other.get("selected")}
    return {}


def _is_search_field(form: dict[str, Any], field_: dict[str, Any]) -> bool:
    if field_.get("type") not in ("text", "search"):
        return False
    words = " ".join(str(field_.get(k) or "") for k in ("name", "field_name", "id", "testid")).lower()
    return bool(form.get("search") or field_.get("type") == "search"
                or re.search(r"\b(search|filter|query|find)\b|^q$", words))


def _search_term(entry: dict[str, Any]) -> str:
    """A word of the list's first item that is likely to narrow the list: its longest word."""
    words = re.findall(r"[A-Za-z][A-Za-z'-]{2,}", str(entry.get("first_item") or ""))
    return max(words, key=len) if words else ""
