"""Features: what the crawl found, classified, each with the reason it was classified so.

Pure functions over the crawl state. A feature belongs to the page it was first found on; one
seen on many pages (the main navigation, a cookie banner) is listed once, with every page it is
on. The kinds: `page` (every page: it answers with its heading), `navigation` (a nav landmark's
links), `search` and `filter` (a search field or a group of filter buttons, with what they
showed), `login`, `signup` and `form` (fields, labels, validation), `list` and `table` (with
counts), `cookie_banner` (its accept button becomes a `dismiss_selectors` entry) and `dialog`,
and `control` (tabs and disclosures that change the page in place).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Literal, Sequence

from flowwalk.browser.explored import Element, Form
from flowwalk.discover.selectors import choose_selector
from flowwalk.discover.state import ControlRecord, CrawledPage, Dismissal

__all__ = ["Feature", "FeatureKind", "classify", "form_kind"]

#: at most this many features of one kind per page (a page of 40 tables gets 3 specs, not 40)
PER_KIND = 3

FeatureKind = Literal["page", "navigation", "search", "filter", "login", "signup", "form", "list", "table", "dialog",
                      "cookie_banner", "control"]


@dataclass(frozen=True)
class Feature:
    """A feature of the site, on the page it was first found on (`pages`: every page it is on), and
    what a spec of it needs: the fields of its kind are set, the others empty."""

    id: str
    kind: FeatureKind
    page: str
    name: str
    reason: str
    pages: tuple[str, ...]
    #: page: its h1
    heading: str = ""
    #: navigation: its landmark ('navigation:Main')
    landmark: str = ""
    #: search and the forms: the form's index in the page's survey
    form: int = -1
    #: filter: its toggle buttons' selectors; control: the control's
    controls: tuple[str, ...] = ()
    control: str = ""
    #: list and table: its selector, its items' tag, how many items it shows
    list: str = ""
    item_tag: str = ""
    count: int = 0
    #: dialog: its selector
    dialog: str = ""
    #: cookie_banner: the accept button's selector and the banner's
    dismiss: str = ""
    banner: str = ""


def form_kind(form: Form) -> tuple[FeatureKind, str]:
    """(kind, reason) of a surveyed form."""
    types = [f.type for f in form.fields]
    auto = " ".join(f.autocomplete for f in form.fields)
    words = " ".join((form.name, form.id, form.testid, form.action)).lower()
    passwords = types.count("password")
    others = [t for t in types if t in ("text", "email", "tel")]
    if form.search or "search" in types:
        return "search", "a search form (role=search or a search field)"
    if passwords and ("new-password" in auto or re.search(r"sign.?up|register|create", words) or len(others) >= 2):
        return "signup", (f"a form with a password field and {len(others)} other fields"
                          + (" (autocomplete new-password)" if "new-password" in auto else ""))
    if passwords and len(others) <= 1:
        return "login", "a form with a password field and one user field"
    return "form", f"a form with {len(form.fields)} field{'s' * (len(form.fields) != 1)}"


def classify(pages: Sequence[CrawledPage], dismiss: Sequence[Dismissal]) -> list[Feature]:
    """Every feature of the crawl, in page order, with a stable id (`<page slug>/<kind>[-n]`)."""
    features: list[Feature] = []
    #: a navigation's names and links -> its feature's index (it is listed once, on every page it is on)
    navs_seen: dict[str, int] = {}
    for page in pages:
        survey = page.survey
        used: dict[str, int] = {}

        def add(kind: FeatureKind, name: str, reason: str, page: CrawledPage = page, used: dict[str, int] = used,
                **data: Any) -> int | None:
            used[kind] = used.get(kind, 0) + 1
            if used[kind] > PER_KIND:
                return None
            suffix = "" if used[kind] == 1 else f"-{used[kind]}"
            features.append(Feature(id=f"{page.slug}/{kind}{suffix}", kind=kind, page=page.id, name=name,
                                    reason=reason, pages=(page.id,), **data))
            return len(features) - 1

        h1 = [h for h in survey.headings if h.level == 1 and h.text]
        heading = h1[0].text if h1 else ""
        add("page", f"{page.title or page.path}",
            f"every page: answers at {page.path}" + (f" with the heading '{heading}'" if heading else ""),
            heading=heading)

        # navigation: one feature per distinct nav landmark (same name and links = same nav)
        navs: dict[str, list[Element]] = {}
        for link in survey.links:
            if link.landmark.startswith("navigation"):
                navs.setdefault(link.landmark, []).append(link)
        for landmark, links in navs.items():
            if len(links) < 2 or re.search(r"bread\W?crumb", landmark, re.I):
                continue   # breadcrumbs lead back up to pages the smoke specs visit anyway
            label = landmark.split(":", 1)[1] or "site"
            key = label + "|" + "|".join(sorted(a.name for a in links))
            if key in navs_seen:
                seen = features[navs_seen[key]]
                features[navs_seen[key]] = replace(seen, pages=seen.pages + (page.id,))
                continue
            nav = add("navigation", f"{label} navigation", f"a navigation landmark '{label}' with {len(links)} links",
                      landmark=landmark)
            if nav is not None:
                navs_seen[key] = nav

        for index, form in enumerate(survey.forms):
            kind, reason = form_kind(form)
            if not form.fields:
                continue
            name = form.name or {"login": "log in", "signup": "sign-up", "search": "search"}.get(kind) or \
                (form.fields[0].name if len(form.fields) == 1 else "") or kind
            searches = [s for s in page.searches if s.form == index]
            if kind == "search" or searches:
                reason += f"; typing '{searches[0].term}' filtered the list" if searches else ""
                add("search", f"{name} search", reason, form=index)
                continue
            labels = ", ".join(f.name or f.field_name or f.type for f in form.fields[:6])
            said = any(s.new_text for s in page.submits if s.form == index)
            add(kind, f"{name} form" if not name.lower().endswith("form") else name,
                f"{reason}: {labels}" + ("; submitted empty, it answered with a message" if said else ""), form=index)

        filters: list[ControlRecord] = [c for c in page.controls if c.pressed is not None]
        if filters:
            names = ", ".join(c.name for c in filters)
            add("filter", "filters", f"toggle buttons (aria-pressed) that change the page in place: {names}",
                controls=tuple(c.selector for c in filters))
        for control in (c for c in page.controls if c.pressed is None):
            what = ("a tab" if control.role == "tab" else
                    "a disclosure button (aria-expanded)" if control.expanded is not None else
                    "a button that changes the page in place")
            add("control", control.name or "control", f"{what}: '{control.name}'", control=control.selector)

        for entry in survey.lists:
            # a list with hidden items (a filtered view) is no list to count
            selector = choose_selector(entry)
            if entry.count < 2 or selector is None or entry.total != entry.count:
                continue
            kind_: FeatureKind = "table" if entry.table else "list"
            add(kind_, entry.name or f"{kind_} of {entry.count}",
                f"a {kind_} of {entry.count} {'rows' if kind_ == 'table' else 'items'}"
                + (f" ('{entry.name}')" if entry.name else ""), list=selector, item_tag=entry.item_tag, count=entry.count)

        for dialog in survey.dialogs:
            if dialog.cookie:
                continue
            buttons = [b for b in dialog.buttons if choose_selector(b)]
            dialog_sel = choose_selector(dialog)
            if not buttons or dialog_sel is None:
                continue
            add("dialog", (dialog.name or dialog.text)[:60] or "dialog",
                f"a {dialog.role or 'banner'} showing '{dialog.text[:60]}' with a '{buttons[0].name}' button",
                dialog=dialog_sel)

    for banner in dismiss[:1]:
        features.append(Feature(
            id=f"{pages[0].slug}/cookie_banner" if pages else "cookie_banner", kind="cookie_banner",
            page=pages[0].id if pages else "", name="cookie banner",
            reason=f"a cookie or consent banner ('{banner.text[:60]}'); its '{banner.target}' becomes dismiss_selectors",
            pages=tuple(p.id for p in pages), dismiss=banner.selector, banner=banner.banner))
    return features
