"""What the crawl does on a page in place: accept its cookie banner, click its in-page controls (tabs,
disclosures, toggles, filters) one at a time from a fresh load, type into its search fields, and,
with `--submit-forms`, submit its forms empty.

Functions over a narrow `Hands` (the page and what the crawl lends: a fresh load of the page,
one action off the budget), each returning what it found as records; the crawler
(discover/crawl.py) writes them into the crawl state. None clicks a destructive control.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from dataclasses import dataclass, replace
from typing import Callable, Protocol, TypeVar
from urllib.parse import urlsplit

from flowwalk.browser import InvalidSelector, NavigationBlocked, PageError
from flowwalk.browser.explore import Action
from flowwalk.browser.explored import Acted, Element, Form, Listed, Survey, Tables
from flowwalk.discover.safety import destructive, is_hash_route
from flowwalk.discover.selectors import choose_selector, target_of
from flowwalk.discover.signature import dom_signature
from flowwalk.discover.state import (ControlRecord, CrawledPage, Dismissal, ListCount, Loop, SearchRecord, Skipped,
                                     SubmitRecord)
from flowwalk.discover.values import CRAWL_TEXT

__all__ = ["CONTROLS_PER_PAGE", "Found", "Hands", "Page", "Route", "dismiss_banner", "explore_controls",
           "resolve_survey", "submit_forms", "try_searches"]

#: in-page controls clicked per page, search fields tried per page
CONTROLS_PER_PAGE = 8
#: words of a button that accepts or dismisses a cookie banner
_ACCEPT = re.compile(r"\b(accept|agree|allow|ok|okay|got it|i understand|continue|dismiss|close)\b", re.I)
#: what a single field that takes Enter (TodoMVC's new-todo input) gets when its form is submitted
SAMPLE_ENTRY = CRAWL_TEXT


class Page(Protocol):
    """The page the in-page functions act on (`browser.explore.ExplorePage`)."""

    @property
    def url(self) -> str: ...

    def act(self, action: Action, selector: str, value: str = "", *, then_ms: float = 0) -> Acted: ...

    def tap(self, selector: str) -> bool: ...

    def settle(self, idle_ms: int = ...) -> None: ...

    def wait(self, ms: float) -> None: ...

    def survey(self) -> Survey: ...

    def text(self) -> str: ...

    def messages(self) -> list[str]: ...

    def count(self, selector: str) -> int: ...

    def tables(self, limit: int = ...) -> Tables: ...


@dataclass(frozen=True)
class Hands:
    """What the crawl lends the in-page functions for one page."""

    page: Page
    #: bring the page back fresh (False: it cannot be had)
    fresh: Callable[[], bool]
    #: count one action against --max-actions (False: none is left)
    take_action: Callable[[], bool]
    words: tuple[str, ...]
    progress: Callable[[str], None]


@dataclass(frozen=True)
class Route:
    """A control whose click led to another URL without a document load: a page to queue."""

    url: str
    selector: str
    name: str


@dataclass(frozen=True)
class Found:
    """What one in-page pass found; the crawler writes it into the crawl state."""

    controls: tuple[ControlRecord, ...] = ()
    searches: tuple[SearchRecord, ...] = ()
    submits: tuple[SubmitRecord, ...] = ()
    #: (state key, signature) pairs: "signature|action" -> where it led; "submit|..." -> the page
    transitions: tuple[tuple[str, str], ...] = ()
    loops: tuple[Loop, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    routes: tuple[Route, ...] = ()
    #: submit_forms: the page is as the last submit left it (what it revealed may link on)
    submitted: bool = False


# --- the cookie banner ----------------------------------------------------------------------------

E = TypeVar("E", bound=Element)


def resolved(element: E, count: Callable[[str], int]) -> E:
    """`element` with its `text=` candidates counted in the page (`count`: the page's CSS engine cannot)
    where no better candidate before them is unique."""
    out = []
    done = False
    for candidate in element.candidates:
        if not done and candidate.count == 1 and candidate.how != "position":
            done = True
        elif not done and candidate.how == "text" and candidate.count == -1:
            candidate = replace(candidate, count=count(candidate.selector))
        out.append(candidate)
    return replace(element, candidates=tuple(out))


def resolve_survey(survey: Survey, count: Callable[[str], int]) -> Survey:
    """The survey with the `text=` candidates that matter counted (`resolved`): its links' and
    buttons', its forms' submit buttons', its dialogs' buttons'."""
    return replace(
        survey, links=tuple(resolved(e, count) for e in survey.links),
        buttons=tuple(resolved(e, count) for e in survey.buttons),
        forms=tuple(replace(f, submit=resolved(f.submit, count)) if f.submit is not None else f for f in survey.forms),
        dialogs=tuple(replace(d, buttons=tuple(resolved(b, count) for b in d.buttons)) for d in survey.dialogs))


def dismiss_banner(page: Page, survey: Survey, words: tuple[str, ...]) -> tuple[Survey, Dismissal | None]:
    """Accept a cookie banner: it covers the page, and every generated spec starts by accepting it
    too. Returns the survey after it (the same one when there was none) and the accept button."""
    for dialog in survey.dialogs:
        if not dialog.cookie:
            continue
        for button in dialog.buttons:
            if not _ACCEPT.search(button.name) or destructive(button, words):
                continue
            selector = choose_selector(resolved(button, page.count))
            if selector is None or not page.tap(selector):
                continue
            page.settle()
            return page.survey(), Dismissal(selector=selector, target=target_of(button),
                                            banner=choose_selector(dialog) or "", text=dialog.text[:200])
    return survey, None


# --- in-page controls -----------------------------------------------------------------------------


def controls_of(survey: Survey, words: tuple[str, ...], page: str) -> tuple[list[Element], list[Skipped]]:
    """The buttons of a page that change it in place (tabs, disclosures, toggles, filters), and
    every destructive button, listed as not clicked whether or not it looked in-place. A link that
    leads nowhere (`href="#"`, `href=""`, `role="button"`: a single-page app's control) is a button."""
    out: list[Element] = []
    skipped: list[Skipped] = []
    links = [replace(link, type="button", group="link") for link in survey.links
             if link.raw_href.strip() in ("", "#") or link.role == "button"]
    for button in [*survey.buttons, *links]:
        if button.disabled or (button.in_form and button.type in ("submit", "reset")):
            continue
        word = destructive(button, words)
        if word:
            skipped.append(Skipped(page, f"button {button.name!r}", f"destructive ('{word}')"))
            continue
        in_place = (button.role == "tab" or button.expanded is not None or button.pressed is not None
                    or button.controls or button.tag == "summary" or (button.type == "button" and button.group))
        if in_place and choose_selector(button) is not None:
            out.append(button)
    return out[:CONTROLS_PER_PAGE], skipped


def explore_controls(hands: Hands, record: CrawledPage, transitions: dict[str, str], visits: dict[str, int]) -> Found:
    """Click each in-page control of the page `record` from a fresh load and note what it changed.

    `transitions` and `visits` are the crawl's ("signature|action" -> the signature it led to; how
    often each signature was reached): a click made before from this signature, or one that led
    (without leaving the URL) to a signature already reached, is a loop."""
    page = hands.page
    buttons, skipped = controls_of(record.survey, hands.words, record.id)
    out: list[ControlRecord] = []
    taken: list[tuple[str, str]] = []
    loops: list[Loop] = []
    routes: list[Route] = []
    known = dict(transitions)
    for button in buttons:
        selector = choose_selector(button)
        assert selector is not None
        action = f"click {selector}"
        transition = f"{record.signature}|{action}"
        if transition in known:
            loops.append(Loop(record.id, action, known[transition]))
            continue
        # the same control on every form (a date widget's calendar link) is a widget of the site
        # when its click showed new text and left the page's outline as it was: clicked on the
        # first page that shows it
        widget = f"control|{selector}|{button.name}"
        if widget in known:
            continue
        if not hands.take_action() or not hands.fresh():
            break
        before_text, before_url = page.text(), page.url
        try:
            clicked = page.tap(selector)
        except NavigationBlocked as blocked:
            skipped.append(Skipped(record.id, action, f"left the allowed hosts ({blocked})"))
            continue
        if not clicked:
            continue
        page.wait(300)
        after_url = page.url
        after = page.survey()
        after_sig = dom_signature(after)
        known[transition] = after_sig
        taken.append((transition, after_sig))
        said = tuple(new_lines(before_text, page.text()))
        if after_sig == record.signature and said:
            taken.append((widget, record.signature))   # it showed something over the page as it was
        if after_sig != record.signature and visits.get(after_sig, 0) >= 1 and after_url == before_url:
            loops.append(Loop(record.id, action, after_sig))
        route = ""
        if after_url != before_url and (
                urlsplit(after_url)._replace(fragment="") != urlsplit(before_url)._replace(fragment="")
                or is_hash_route(urlsplit(after_url).fragment)):
            route = after_url
            routes.append(Route(after_url, selector, button.name))
        out.append(ControlRecord(
            selector=selector, target=target_of(button), name=button.name, role=button.role, controls=button.controls,
            pressed=button.pressed, expanded=button.expanded, url_before=before_url, url_after=after_url,
            signature_after=after_sig, new_text=said, lists=list_counts(after),
            attrs_after=_state_of(after, button), route=route))
        hands.progress(f"  clicked {target_of(button)} ({selector}) on {record.path}")
    return Found(controls=tuple(out), transitions=tuple(taken), loops=tuple(loops), skipped=tuple(skipped),
                 routes=tuple(routes))


# --- search fields --------------------------------------------------------------------------------


def try_searches(hands: Hands, record: CrawledPage, transitions: dict[str, str]) -> Found:
    """Type a word from the page's biggest list into each search or filter field and note what
    the lists show then (no form is submitted: only the field's own input events). A filter that
    sits in no form (Django's navigation filter, on every page) is typed into on the first page
    that shows it (`transitions` holds those already typed into)."""
    page = hands.page
    lists = sorted((entry for entry in record.survey.lists if entry.count >= 2), key=lambda entry: -entry.count)
    out: list[SearchRecord] = []
    taken: list[tuple[str, str]] = []
    for index, form in enumerate(record.survey.forms):
        fields = [f for f in form.fields if _is_search_field(form, f)]
        if not fields or not lists:
            continue
        field_ = fields[0]
        selector = choose_selector(field_)
        term = _search_term(lists[0])
        once = f"search|{selector}"
        if form.implicit and once in transitions:
            continue
        if selector is None or not term or not hands.take_action() or not hands.fresh():
            continue
        if form.implicit:
            taken.append((once, record.signature))
        try:
            page.act("fill", selector, term)
            page.wait(500)
            after = page.survey()
        except (PageError, InvalidSelector, NavigationBlocked):
            continue
        if page.url != record.url:
            continue   # typing navigated: not a filter to keep
        out.append(SearchRecord(form=index, selector=selector, target=target_of(field_), term=term,
                                lists=list_counts(after)))
        hands.progress(f"  typed {term!r} into {target_of(field_)} on {record.path}")
    return Found(searches=tuple(out), transitions=tuple(taken))


# --- forms ----------------------------------------------------------------------------------------


def submit_forms(hands: Hands, record: CrawledPage, transitions: dict[str, str]) -> Found:
    """With --submit-forms: submit each (non-destructive) form empty and note its validation
    message; a single-field form without a button gets a sample value and Enter. The same form
    on another page (a site-wide search, TodoMVC's input on every route) is submitted once, the
    first time (`transitions` holds the forms submitted before): each submit changes what the
    next pages show. `submits` is empty when nothing was submitted; else the page is left as the
    last submit made it."""
    page = hands.page
    out: list[SubmitRecord] = []
    taken: list[tuple[str, str]] = []
    skipped: list[Skipped] = []
    done = set(transitions)
    for index, form in enumerate(record.survey.forms):
        submit = form.submit
        word = destructive(form, hands.words) or (destructive(submit, hands.words) if submit else None)
        if word:
            skipped.append(Skipped(record.id, f"form {form.name or index}", f"destructive ('{word}')"))
            continue
        once = f"submit|{choose_selector(submit) if submit else ''}|" + "|".join(
            str(choose_selector(f) or "") for f in form.fields)
        if once in done:
            continue
        done.add(once)
        taken.append((once, record.signature))
        text_fields = [f for f in form.fields if f.type in ("text", "email", "search", "textarea")]
        selector = choose_selector(submit) if submit and not submit.disabled else None
        if submit is not None and selector is not None:
            if not hands.take_action() or not hands.fresh():
                return Found(submits=tuple(out), transitions=tuple(taken), skipped=tuple(skipped))
            before, before_messages = page.text(), page.messages()
            try:
                clicked = page.tap(selector)
            except NavigationBlocked:
                continue
            if not clicked:
                continue
            page.wait(400)
            # a validation message is what a form's alert or live region says now; failing that, a
            # line of text with a word the page did not show before
            said = [m for m in page.messages() if m not in before_messages]
            out.append(SubmitRecord(form=index, kind="empty", selector=selector, target=target_of(submit),
                                    url_after=page.url, new_text=tuple(said or new_lines(before, page.text())),
                                    lists=list_counts(page.survey())))
            hands.progress(f"  submitted {form.name or 'a form'} empty on {record.path}")
        elif form.implicit and len(text_fields) == 1 and not form.search:
            selector = choose_selector(text_fields[0])
            if selector is None or not hands.take_action() or not hands.fresh():
                continue
            try:
                page.act("fill", selector, SAMPLE_ENTRY)
                page.act("press", selector, "Enter", then_ms=400)
            except (PageError, InvalidSelector, NavigationBlocked):
                continue
            out.append(SubmitRecord(form=index, kind="enter", selector=selector, target=target_of(text_fields[0]),
                                    value=SAMPLE_ENTRY, url_after=page.url, lists=list_counts(page.survey())))
            hands.progress(f"  entered a sample value into {target_of(text_fields[0])} on {record.path}")
    return Found(submits=tuple(out), transitions=tuple(taken), skipped=tuple(skipped), submitted=bool(out))


# --- pure helpers ---------------------------------------------------------------------------------


def new_lines(before: str, after: str) -> list[str]:
    """Lines of text the page shows now and did not before, each with a word it did not show
    before (a label that only moved is not news): at most 5, each at most 200 characters. A line
    with no letter or digit ("<", "›") says nothing, and one that names the current year (a
    calendar's "NOVEMBER 2026", a copyright line) says what a later run will not see."""
    old = Counter(line.strip() for line in before.splitlines())
    known = set(before.lower().split())
    year = re.compile(rf"\b{date.today().year}\b")
    out: list[str] = []
    for line in after.splitlines():
        line = line.strip()
        if not line or not any(c.isalnum() for c in line) or year.search(line):
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


def list_counts(survey: Survey) -> tuple[ListCount, ...]:
    return tuple(ListCount(selector=choose_selector(entry) or "", item_tag=entry.item_tag, count=entry.count,
                           total=entry.total, first_item=entry.first_item, items=entry.items)
                 for entry in survey.lists)


def _state_of(survey: Survey, button: Element) -> dict[str, str | None]:
    """The clicked control's own state after the click (aria-pressed, -expanded, -selected)."""
    selector = choose_selector(button)
    for other in survey.buttons:
        if choose_selector(other) == selector:
            return {"pressed": other.pressed, "expanded": other.expanded, "selected": other.selected}
    return {}


def _is_search_field(form: Form, field_: Element) -> bool:
    if field_.type not in ("text", "search"):
        return False
    words = " ".join((field_.name, field_.field_name, field_.id, field_.testid)).lower()
    return bool(form.search or field_.type == "search" or re.search(r"\b(search|filter|query|find)\b|^q$", words))


def _search_term(entry: Listed) -> str:
    """A word of the list's first item that is likely to narrow the list: its longest word."""
    words = re.findall(r"[A-Za-z][A-Za-z'-]{2,}", entry.first_item)
    return max(words, key=len) if words else ""
