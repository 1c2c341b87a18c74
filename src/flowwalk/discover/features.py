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
from typing import Any

from flowwalk.discover.selectors import choose_selector

__all__ = ["classify", "form_kind"]

#: at most this many features of one kind per page (a page of 40 tables gets 3 specs, not 40)
PER_KIND = 3


def form_kind(form: dict[str, Any]) -> tuple[str, str]:
    """(kind, reason) of a surveyed form."""
    fields = form.get("fields") or []
    types = [str(f.get("type") or "") for f in fields]
    auto = " ".join(str(f.get("autocomplete") or "") for f in fields)
    words = " ".join(str(form.get(k) or "") for k in ("name", "id", "testid", "action")).lower()
    passwords = types.count("password")
    others = [t for t in types if t in ("text", "email", "tel")]
    if form.get("search") or "search" in types:
        return "search", "a search form (role=search or a search field)"
    if passwords and ("new-password" in auto or re.search(r"sign.?up|register|create", words) or len(others) >= 2):
        return "signup", (f"a form with a password field and {len(others)} other fields"
                          + (" (autocomplete new-password)" if "new-password" in auto else ""))
    if passwords and len(others) <= 1:
        return "login", "a form with a password field and one user field"
    return "form", f"a form with {len(fields)} field{'s' * (len(fields) != 1)}"


def classify(pages: list[dict[str, Any]], dismiss: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every feature of the crawl, in page order, with a stable id (`<page slug>/<kind>[-n]`)."""
    features: list[dict[str, Any]] = []
    navs_seen: dict[str, dict[str, Any]] = {}
    for page in pages:
        survey = page["survey"]
        used: dict[str, int] = {}

        def add(kind: str, name: str, reason: str, **data: Any) -> dict[str, Any] | None:
            used[kind] = used.get(kind, 0) + 1
            if used[kind] > PER_KIND:
                return None
            suffix = "" if used[kind] == 1 else f"-{used[kind]}"
            feature = {"id": f"{page['slug']}/{kind}{suffix}", "kind": kind, "page": page["id"],
                       "name": name, "reason": reason, "pages": [page["id"]], **data}
            features.append(feature)
            return feature

        h1 = [h for h in survey.get("headings") or () if h.get("level") == 1 and h.get("text")]
        heading = h1[0]["text"] if h1 else ""
        add("page", f"{page['title'] or page['path']}",
            f"every page: answers at {page['path']}" + (f" with the heading '{heading}'" if heading else ""),
            heading=heading)

        # navigation: one feature per distinct nav landmark (same name and links = same nav)
        navs: dict[str, list[dict[str, Any]]] = {}
        for link in survey.get("links") or ():
            landmark = str(link.get("landmark") or "")
            if landmark.startswith("navigation"):
                navs.setdefault(landmark, []).append(link)
        for landmark, links in navs.items():
            if len(links) < 2 or re.search(r"bread\W?crumb", landmark, re.I):
                continue   # breadcrumbs lead back up to pages the smoke specs visit anyway
            label = landmark.split(":", 1)[1] or "site"
            key = label + "|" + "|".join(sorted(str(a.get("name")) for a in links))
            if key in navs_seen:
                navs_seen[key]["pages"].append(page["id"])
                continue
            nav = add("navigation", f"{label} navigation",
                      f"a navigation landmark '{label}' with {len(links)} links", landmark=landmark)
            if nav is not None:
                navs_seen[key] = nav

        for index, form in enumerate(survey.get("forms") or ()):
            kind, reason = form_kind(form)
            fields = form.get("fields") or []
            if not fields:
                continue
            name = form.get("name") or {"login": "log in", "signup": "sign-up", "search": "search"}.get(kind) or \
                (fields[0].get("name") if len(fields) == 1 else "") or kind
            searches = [s for s in page.get("searches") or () if s.get("form") == index]
            submits = [s for s in page.get("submits") or () if s.get("form") == index]
            if kind == "search" or searches:
                reason += f"; typing '{searches[0]['term']}' filtered the list" if searches else ""
                add("search", f"{name} search", reason, form=index)
                continue
            labels = ", ".join(str(f.get("name") or f.get("field_name") or f.get("type")) for f in fields[:6])
            add(kind, f"{name} form" if not str(name).lower().endswith("form") else str(name),
                f"{reason}: {labels}" + ("; submitted empty, it answered with a message" if any(
                    s.get("new_text") for s in submits) else ""), form=index)

        groups: dict[str, list[dict[str, Any]]] = {}
        for control in page.get("controls") or ():
            if control.get("pressed") is not None:
                groups.setdefault("filter", []).append(control)
            else:
                groups.setdefault("control", []).append(control)
        if groups.get("filter"):
            names = ", ".join(str(c.get("name")) for c in groups["filter"])
            add("filter", "filters", f"toggle buttons (aria-pressed) that change the page in place: {names}",
                controls=[c["selector"] for c in groups["filter"]])
        for control in groups.get("control", []):
            what = ("a tab" if control.get("role") == "tab" else
                    "a disclosure button (aria-expanded)" if control.get("expanded") is not None else
                    "a button that changes the page in place")
            add("control", str(control.get("name") or "control"), f"{what}: '{control.get('name')}'",
                control=control["selector"])

        for entry in survey.get("lists") or ():
            # a list with hidden items (a filtered view) is no list to count
            if entry.get("count", 0) < 2 or choose_selector(entry) is None or entry.get("total") != entry.get("count"):
                continue
            kind = "table" if entry.get("table") else "list"
            add(kind, str(entry.get("name") or f"{kind} of {entry.get('count')}"),
                f"a {'table' if kind == 'table' else 'list'} of {entry.get('count')} "
                f"{'rows' if kind == 'table' else 'items'}" + (f" ('{entry.get('name')}')" if entry.get("name") else ""),
                list=choose_selector(entry), item_tag=entry.get("item_tag"), count=entry.get("count"))

        for dialog in survey.get("dialogs") or ():
            if dialog.get("cookie"):
                continue
            buttons = [b for b in dialog.get("buttons") or () if choose_selector(b)]
            if not buttons or choose_selector(dialog) is None:
                continue
            add("dialog", str(dialog.get("name") or dialog.get("text", ""))[:60] or "dialog",
                f"a {dialog.get('role') or 'banner'} showing '{str(dialog.get('text'))[:60]}' with a "
                f"'{buttons[0].get('name')}' button", dialog=choose_selector(dialog))

    for entry in dismiss:
        features.append({"id": f"{pages[0]['slug']}/cookie_banner" if pages else "cookie_banner",
                         "kind": "cookie_banner", "page": pages[0]["id"] if pages else "", "name": "cookie banner",
                         "reason": f"a cookie or consent banner ('{entry.get('text', '')[:60]}'); its "
                                   f"'{entry.get('target')}' becomes dismiss_selectors",
                         "pages": [p["id"] for p in pages], "dismiss": entry["selector"],
                         "banner": entry.get("banner", "")})
        break
    return features
