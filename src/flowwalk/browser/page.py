"""The page API: every read flowwalk takes of a page and every action it takes on one, typed.

`Page` wraps one Playwright page or frame of a session (`PageSession.page`; a frame's through
`Page.child_frames`). Each method is one call (one round trip unless it says otherwise), returns a
record of browser/records.py or a plain value, never a Playwright object, and translates the
Playwright errors it meets once (`browser.errors.translating`, with the session's answer to "is
this a crash?"). What a read means is judged by the caller (walk/, heal/, discover/), from these
records alone; the judges read through `records.Reader`, the reads' subset.

By concern: the reads are here; actions on elements are browser/element.py's `Acts`; aria
snapshots, screenshots and axe browser/capture.py's `Captures`; discover's reads browser/survey.py's
`Explores`. A new read or action is one method in its group and, for more than a plain value, one
record in records.py. Navigation, waiting while events arrive, what the page's events recorded and
a failure's evidence are the session's (browser/session.py). The scripts run are browser/js/'s.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from functools import cache
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping, Sequence, Union

from flowwalk.browser.capture import Captures
from flowwalk.browser.element import Acts
from flowwalk.browser.errors import translating
from flowwalk.browser.locate import locate
from flowwalk.browser.records import (ITEM_CLIP, ITEMS_MAX, CandidatesRead, Element, ElementQuery, ElementRead, FrameName,
                                      ItemsRead, Match, Quiet, Reader, Seq, UrlState)
from flowwalk.browser.scripts import compose, script
from flowwalk.browser.survey import Explores

if TYPE_CHECKING:
    from playwright.sync_api import Frame
    from playwright.sync_api import Page as PlaywrightPage

    #: what a `Page` reads and acts on: a Playwright page, or one of its frames
    Where = Union[PlaywrightPage, Frame]

__all__ = ["Page"]

#: the count a match needs and its first element's fingerprint (js/fingerprint.js), in one call
_FINGERPRINT_JS = "(els) => ({ n: els.length, fp: els.length ? (" + script("fingerprint") + ")(els[0]) : null })"


@cache
def _read(name: str, fingerprint: bool) -> str:
    """The read `name` (a function of a selector's matches and an argument); with `fingerprint`, one
    that also gives the first match's fingerprint as `fp`, so that other reads stay their size."""
    if not fingerprint:
        return script(name)
    return (f"(els, a) => {{ const out = ({script(name)})(els, a);"
            f" if (els.length) out.fp = ({script('fingerprint')})(els[0]); return out; }}")
_OWNS_JS = compose("/* global fw */ (el, id) => { return fw.hasId(el, id); }")
_SELECTED_JS = "el => Array.from(el.selectedOptions || []).map(o => [o.value, o.label])"
_BODY_TEXT_JS = "(n) => (document.body ? document.body.innerText : '').slice(0, n)"
_URL_JS = "() => location.href"
_STATUS_JS = ("() => { const n = performance.getEntriesByType('navigation')[0];"
              " return n ? n.responseStatus || null : null; }")
_URL_STATE_JS = compose("/* global fw */ () => { return { url: location.href, quiet: fw.quiet('dom') }; }")


def _gated(ask: str | None) -> str:
    """`ask` (a script over a selector's matches) that also answers `may_show` for the selectors
    given as its argument, in the same call: `{n, gate: [...], ...ask's}`."""
    inner = ask or "(els) => ({ n: els.length })"
    return f"(els, gate) => Object.assign(({inner})(els), {{ gate: ({script('may_show')})(gate) }})"


@cache
def _shown(ask: str | None) -> str:
    """`ask` that also says whether the first match is visible by `fw.visible`, which is Playwright's
    visible made a little stricter (prelude.js): a yes is Playwright's yes, a no may not be."""
    inner = ask or "(els) => ({ n: els.length })"
    return compose(f"/* global fw */ (els, arg) => {{ return Object.assign(({inner})(els, arg),"
                   " { shown: els.length > 0 && fw.visible(els[0]) }); }")


class Page(Acts, Captures, Explores):
    """One page or frame, read and acted on (see the module docstring). Every method raises only
    flowwalk's errors (browser/errors.py)."""

    def __init__(self, where: "Where", crashed: Callable[[BaseException], bool] | None = None):
        self._where = where
        #: the session's answer to "does this Playwright error mean the browser or renderer is gone?"
        self._crashed = crashed

    def _translating(self, selector: str | None = None) -> AbstractContextManager[None]:
        """The one translation of the Playwright errors a call meets (browser/errors.py)."""
        return translating(selector, crashed=self._crashed)

    # --- the document ------------------------------------------------------------------------------

    def url(self) -> str:
        """The document's URL (`location.href`), from the page itself."""
        with self._translating():
            return str(self._where.evaluate(_URL_JS))

    def last_url(self) -> str:
        """The URL of the last navigation Playwright saw commit (no round trip); "" when the page
        cannot say (closed, crashed)."""
        try:
            return str(self._where.url)
        except Exception:  # noqa: BLE001 - a dead page has no URL
            return ""

    def url_state(self) -> UrlState:
        """The URL and how long it has been the URL, in one read."""
        with self._translating():
            raw = self._where.evaluate(_URL_STATE_JS)
        r = raw if isinstance(raw, Mapping) else {}
        return UrlState(str(r.get("url", "")), Quiet.of(r.get("quiet")))

    def changed(self, seq: Seq, *, gap_ms: float, cap_ms: float) -> bool | None:
        """Wait in the page for the first change its record counts after the read at `seq` (a
        mutation, an input, a URL change, a stylesheet, image or font that loaded, an animation
        that started), but not past `gap_ms` after that read if it came sooner: True; False when
        `cap_ms` passed with none; None when the page has no record (then nothing was waited)."""
        arg = {"n": seq.n, "at": seq.at, "gap": max(gap_ms, 0.0), "cap": max(cap_ms, 0.0)}
        with self._translating():
            raw = self._where.evaluate(script("changed"), arg)
        return raw if isinstance(raw, bool) else None

    def body_text(self, limit: int) -> str:
        """The first `limit` characters of the body's rendered text."""
        with self._translating():
            return str(self._where.evaluate(_BODY_TEXT_JS, limit) or "")

    def navigation_status(self) -> int | None:
        """The HTTP status of the document now shown, when the browser reports it."""
        with self._translating():
            status = self._where.evaluate(_STATUS_JS)
        return int(status) if isinstance(status, int) else None

    def wait_for_load(self, state: Literal["load", "networkidle"], timeout_ms: float) -> None:
        """Until the document reached `state` (its load event; no request for 500 ms): `TimedOut`
        when `timeout_ms` passed first."""
        with self._translating():
            self._where.wait_for_load_state(state, timeout=timeout_ms)

    def document_title(self) -> str:
        """The document's title."""
        with self._translating():
            return str(self._where.title())

    # --- frames ------------------------------------------------------------------------------------

    def child_frames(self, limit: int) -> list[Reader]:
        """Up to `limit` of the page's frames other than the main one, in document order; no round
        trip (Playwright keeps the frame tree). Only a page has them: a frame's list is empty."""
        with self._translating():
            frames = [f for f in getattr(self._where, "frames", ()) if f.parent_frame is not None][:limit]
        return [Page(f, self._crashed) for f in frames]

    def detached(self) -> bool:
        """Has this frame left its page? (A page never has.)"""
        is_detached = getattr(self._where, "is_detached", None)
        with self._translating():
            return bool(is_detached()) if is_detached is not None else False

    def frame_name(self) -> FrameName | None:
        """This frame's name and URL; None when it went away."""
        try:
            return FrameName(str(getattr(self._where, "name", "") or ""), str(self._where.url or ""))
        except Exception:  # noqa: BLE001 - a frame that went away has no name
            return None

    # --- a selector's matches -------------------------------------------------------------------

    def match(self, selector: str, scope: str | None = None, *, fingerprint: bool = False,
              gate: Sequence[str] = (), shown: bool = False) -> Match:
        """The first pipe alternative of `selector` (within `scope`) that matches, and its count: one
        call per alternative tried. The same call can also take the first match's `fingerprint`
        (heal/fingerprint.py), answer the interrupts' `gate` (`may_show` of those selectors) and
        say whether the first match is `shown` (`Match.shown`)."""
        ask = _FINGERPRINT_JS if fingerprint else None
        if gate:
            ask = _gated(ask)
        if shown:
            ask = _shown(ask)
        with self._translating(selector):
            found = locate(self._where, selector, scope, ask=ask, ask_arg=list(gate) if gate else None)
        answer = found.answer if isinstance(found.answer, Mapping) else {}
        gated = answer.get("gate") if gate else None
        return Match(found.used, found.count, tuple(found.tried),
                     fingerprint=answer.get("fp") if isinstance(answer.get("fp"), Mapping) else None,
                     gate=tuple(v if isinstance(v, bool) else None for v in gated) if isinstance(gated, list) else None,
                     shown=answer.get("shown") is True)

    def may_show(self, selectors: Sequence[str]) -> list[bool | None]:
        """For each CSS selector, in one read: could a match be visible now (True), is none (False),
        or is it not plain CSS, so only Playwright can tell (None)? A gate in front of the visible
        checks of each match: False is certain, True only a maybe."""
        with self._translating():
            raw = self._where.evaluate(script("may_show"), list(selectors))
        return list(_maybe(raw, len(selectors)))

    def elements(self, selector: str, query: ElementQuery) -> ElementRead:
        """One read of every element `selector` (one alternative, no pipes) matches now."""
        arg = {"k": query.kind, "v": query.value, "a": query.attr, "q": query.quiet, "c": query.match_case,
               "w": query.raw}
        with self._translating(selector):
            raw = self._where.locator(selector).evaluate_all(_read("elements", query.fingerprint), arg)
        return ElementRead.of(raw)

    def items(self, selector: str, *, raw_text: bool = False, quiet: str = "",
              fingerprint: bool = False) -> ItemsRead:
        """One read of every element `selector` (one alternative, no pipes) matches now, item by item:
        each one's text (`raw_text`: its textContent unnormalised) and class attribute. `quiet`:
        also how long the page has been still ('', 'dom' or 'layout', as `ElementQuery.quiet`);
        `fingerprint`: also the first match's."""
        arg = {"raw": raw_text, "q": quiet, "max": ITEMS_MAX, "clip": ITEM_CLIP}
        with self._translating(selector):
            return ItemsRead.of(self._where.locator(selector).evaluate_all(_read("items", fingerprint), arg))

    def candidates(self, words: Sequence[str], *, tag: str = "", fingerprints: bool = False, limit: int = 50,
                   scanned: int = 3000, scope: str | None = None,
                   position: int | None = None) -> CandidatesRead | None:
        """The healer's read (js/candidates.js): of the first `scanned` actionable elements under
        `scope` (the document without one), the best `limit` by how many of `words` (stemmed, see
        heal/meaning.py `cheap_words`) they and their ancestors say, in full. Each record's `key` is
        its element id. With `position` (the target's ordinal: 1, 2 ..., -1 for the last), each
        record also has `css_position`, a positional selector free of the row's data
        (js/css_position.js). None when the scope matches nothing. One round trip, plus the scope's count."""
        arg = {"words": list(words), "tag": tag, "limit": limit, "scanned": scanned, "fingerprints": fingerprints,
               "position": position}
        with self._translating(scope):
            if scope:
                found = locate(self._where, scope)
                if found.count == 0:
                    return None
                raw = found.locator.first.evaluate(script("candidates"), arg)
            else:
                raw = self._where.evaluate(f"(arg) => ({script('candidates')})(document, arg)", arg)
        r = raw if isinstance(raw, Mapping) else {}
        return CandidatesRead(tuple(i for i in r.get("items", ()) or () if isinstance(i, Mapping)),
                              int(r.get("scanned", 0) or 0))

    def owns(self, selector: str, scope: str | None, element_id: int) -> bool:
        """Does `selector` (within `scope`) match exactly one element, the one with this id?"""
        with self._translating(selector):
            found = locate(self._where, selector, scope)
            return found.count == 1 and bool(found.locator.evaluate(_OWNS_JS, element_id))

    def first_text(self, selector: str, scope: str | None, timeout_ms: int) -> str | None:
        """The rendered text (Playwright's `inner_text`, trimmed) of the first element `selector`
        (pipes allowed, within `scope`) matches; None when it matches nothing."""
        with self._translating(selector):
            found = locate(self._where, selector, scope)
            if found.count == 0:
                return None
            return str(found.locator.first.inner_text(timeout=timeout_ms)).strip()

    # --- the element an act worked on (walk/verifiers.py's read_after_write) ----------------------

    def field_value(self, element: Element, timeout_ms: int) -> str:
        """The value of `element` (an input, textarea or select)."""
        with self._translating():
            return str(self._first(element).input_value(timeout=timeout_ms))

    def checked(self, element: Element, timeout_ms: int) -> bool:
        """Whether `element` (a checkbox or radio) is checked."""
        with self._translating():
            return bool(self._first(element).is_checked(timeout=timeout_ms))

    def selected_options(self, element: Element) -> list[tuple[str, str]]:
        """The (value, label) of each option `element` (a select) has selected."""
        with self._translating():
            raw = self._first(element).evaluate(_SELECTED_JS)
        return [(str(pair[0]), str(pair[1])) for pair in raw or ()
                if isinstance(pair, (list, tuple)) and len(pair) == 2]


def _maybe(raw: Any, n: int) -> tuple[bool | None, ...]:
    """`may_show`'s answer for `n` selectors: True, False or None (not plain CSS) each."""
    out = list(raw) if isinstance(raw, list) else []
    return tuple([v if isinstance(v, bool) else None for v in out] + [None] * (n - len(out)))
