"""What the crawl does on a page in place (discover/crawl.py's `Crawler` asks it for each new page):
accept its cookie banner, click its in-page controls (tabs, disclosures, toggles, filters) one at a
time from a fresh load, type into its search fields, and, with `--submit-forms`, submit its forms
empty. Each records what changed in the page's entry of the crawl state; none clicks a
destructive control.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from flowwalk.browser import InvalidSelector, NavigationBlocked, PageError
from flowwalk.browser.errors import translating
from flowwalk.discover.safety import destructive_word, is_hash_route
from flowwalk.discover.selectors import choose_selector, target_of
from flowwalk.discover.signature import dom_signature

if TYPE_CHECKING:
    from flowwalk.discover.crawl import Crawler

__all__ = ["CONTROLS_PER_PAGE", "InPage"]

#: in-page controls clicked per page, search fields tried per page
CONTROLS_PER_PAGE = 8
#: words of a button that accepts or dismisses a cookie banner
_ACCEPT = re.compile(r"\b(accept|agree|allow|ok|okay|got it|i understand|continue|dismiss|close)\b", re.I)


class InPage:
    """The in-place actions of one crawl (see the module docstring); `crawl` owns the session and
    the state they write to."""

    def __init__(self, crawl: "Crawler"):
        self.crawl = crawl

    def dismiss_banner(self, survey: dict[str, Any] | None) -> dict[str, Any]:
        """Accept a cookie banner the first time one shows: it covers the page, and every generated
        spec will start by accepting it too (it is the crawl's `dismiss_selectors`)."""
        if survey is None:
            survey = self.crawl.session.page.survey()
        for dialog in survey.get("dialogs") or ():
            if not dialog.get("cookie"):
                continue
            for button in dialog.get("buttons") or ():
                name = str(button.get("name") or "")
                if not _ACCEPT.search(name) or destructive_word(button, self.crawl.words):
                    continue
                self.crawl.resolve_element(button)
                selector = choose_selector(button)
                if selector is None:
                    continue
                banner_selector = choose_selector(dialog) or ""
                if not self.crawl.click(selector):
                    continue
                entry = {"selector": selector, "target": target_of(button), "banner": banner_selector,
                         "text": str(dialog.get("text") or "")[:200]}
                if not any(d["selector"] == selector for d in self.crawl.state.dismiss):
                    self.crawl.state.dismiss.append(entry)
                    self.crawl.progress(f"  dismissed the cookie banner with {selector}")
                self.crawl.settle()
                return self.crawl.session.page.survey()
        return survey

    def controls(self, page: dict[str, Any]) -> list[dict[str, Any]]:
        """The buttons of a page that change it in place: tabs, disclosures, toggles, filters."""
        out = []
        for button in page["survey"].get("buttons") or ():
            if button.get("disabled") or (button.get("in_form") and button.get("type") in ("submit", "reset")):
                continue
            # every destructive button is listed as not clicked, whether or not it looked in-place
            word = destructive_word(button, self.crawl.words)
            if word:
                self.crawl.skip({"from": page["id"]}, f"button {button.get('name')!r}", f"destructive ('{word}')")
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

    def explore_controls(self, page: dict[str, Any]) -> None:
        for button in self.controls(page):
            selector = choose_selector(button)
            assert selector is not None
            action = f"click {selector}"
            transition = f"{page['signature']}|{action}"
            if transition in self.crawl.state.transitions:
                self.crawl.state.loops.append({"page": page["id"], "action": action,
                                         "signature": self.crawl.state.transitions[transition]})
                continue
            if not self.crawl.take_action():
                return
            if not self.crawl.reload(page):
                return
            before_text = self.crawl.session.page.text()
            before_url = self.crawl.session.page.last_url()
            try:
                clicked = self.crawl.click(selector)
            except NavigationBlocked as blocked:
                self.crawl.skip({"from": page["id"]}, action, f"left the allowed hosts ({blocked})")
                continue
            if not clicked:
                continue
            self.crawl.session.wait(300)
            after_url = self.crawl.session.page.last_url()
            after = self.crawl.session.page.survey()
            after_sig = dom_signature(after)
            self.crawl.state.transitions[transition] = after_sig
            if after_sig != page["signature"] and self.crawl.state.signature_visits.get(after_sig, 0) >= 1 \
                    and after_url == before_url:
                self.crawl.state.loops.append({"page": page["id"], "action": action, "signature": after_sig})
            record = {"selector": selector, "target": target_of(button), "name": button.get("name", ""),
                      "role": button.get("role", ""), "controls": button.get("controls", ""),
                      "pressed": button.get("pressed"), "expanded": button.get("expanded"),
                      "url_before": before_url, "url_after": after_url, "signature_after": after_sig,
                      "new_text": _new_lines(before_text, self.crawl.session.page.text()),
                      "lists": _list_counts(after), "attrs_after": _state_of(after, button)}
            if after_url != before_url:
                if urlsplit(after_url)._replace(fragment="") != urlsplit(before_url)._replace(fragment="") \
                        or is_hash_route(urlsplit(after_url).fragment):
                    record["route"] = after_url
                    self.crawl.enqueue({"url": after_url, "depth": page["depth"] + 1,
                                        "via": {"kind": "route", "from": page["id"], "from_url": page["url"],
                                                "selector": selector, "name": button.get("name", "")}})
            page["controls"].append(record)
            self.crawl.progress(f"  clicked {target_of(button)} ({selector}) on {page['path']}")

    def try_searches(self, page: dict[str, Any]) -> None:
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
            if selector is None or not term or not self.crawl.take_action() or not self.crawl.reload(page):
                continue
            try:
                with translating():
                    from flowwalk.browser.locate import locate

                    with self.crawl.session.translating():
                        locate(self.crawl.session.playwright_page, selector).locator.first.fill(term, timeout=self.crawl.action_timeout_ms)
                    self.crawl.session.wait(500)
                    after = self.crawl.session.page.survey()
            except (PageError, InvalidSelector):
                continue
            if self.crawl.session.page.last_url() != page["url"]:
                continue   # typing navigated: not a filter to keep
            page["searches"].append({"form": index, "selector": selector, "target": target_of(field_),
                                     "term": term, "lists": _list_counts(after)})
            self.crawl.progress(f"  typed {term!r} into {target_of(field_)} on {page['path']}")

    def submit_forms(self, page: dict[str, Any]) -> bool:
        """With --submit-forms: submit each (non-destructive) form empty and note its validation
        message; a single-field form without a button gets a sample value and Enter. True when
        the page was left as the last submit made it."""
        submitted = False
        for index, form in enumerate(page["survey"].get("forms") or ()):
            word = destructive_word(form, self.crawl.words) or (destructive_word(form["submit"], self.crawl.words)
                                                          if form.get("submit") else None)
            if word:
                self.crawl.skip({"from": page["id"]}, f"form {form.get('name') or index}", f"destructive ('{word}')")
                continue
            submit = form.get("submit")
            # the same form on another page (a site-wide search, TodoMVC's input on every route)
            # is submitted once: each submit changes what the next pages show
            once = f"submit|{choose_selector(submit) if submit else ''}|" + "|".join(
                str(choose_selector(f) or "") for f in form.get("fields") or ())
            if once in self.crawl.state.transitions:
                continue
            self.crawl.state.transitions[once] = page["signature"]
            text_fields = [f for f in form.get("fields") or () if f.get("type") in ("text", "email", "search", "textarea")]
            if submit and not submit.get("disabled") and choose_selector(submit):
                if not self.crawl.take_action() or not self.crawl.reload(page):
                    return False
                before = self.crawl.session.page.text()
                before_messages = self.crawl.session.page.messages()
                selector = choose_selector(submit)
                assert selector is not None
                try:
                    clicked = self.crawl.click(selector)
                except NavigationBlocked:
                    continue
                if not clicked:
                    continue
                self.crawl.session.wait(400)
                # a validation message is what a form's alert or live region says now; failing
                # that, a line of text with a word the page did not show before
                said = [m for m in self.crawl.session.page.messages() if m not in before_messages]
                page["submits"].append({"form": index, "kind": "empty", "selector": selector,
                                        "target": target_of(submit), "url_after": self.crawl.session.page.last_url(),
                                        "new_text": said or _new_lines(before, self.crawl.session.page.text()),
                                        "lists": _list_counts(self.crawl.session.page.survey())})
                submitted = True
                self.crawl.progress(f"  submitted {form.get('name') or 'a form'} empty on {page['path']}")
            elif form.get("implicit") and len(text_fields) == 1 and not form.get("search"):
                selector = choose_selector(text_fields[0])
                if selector is None or not self.crawl.take_action() or not self.crawl.reload(page):
                    continue
                value = "Written by flowwalk discover"
                try:
                    with translating():
                        from flowwalk.browser.locate import locate

                        with self.crawl.session.translating():
                            field_loc = locate(self.crawl.session.playwright_page, selector).locator.first
                            field_loc.fill(value, timeout=self.crawl.action_timeout_ms)
                            field_loc.press("Enter", timeout=self.crawl.action_timeout_ms)
                        self.crawl.session.wait(400)
                        self.crawl.session.check_navigation()
                except (PageError, InvalidSelector, NavigationBlocked):
                    continue
                page["submits"].append({"form": index, "kind": "enter", "selector": selector,
                                        "target": target_of(text_fields[0]), "value": value,
                                        "url_after": self.crawl.session.page.last_url(),
                                        "lists": _list_counts(self.crawl.session.page.survey())})
                submitted = True
                self.crawl.progress(f"  entered a sample value into {target_of(text_fields[0])} on {page['path']}")
        return submitted


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
