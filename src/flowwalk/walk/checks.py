"""Stabilized checks: every expect kind, evaluated verify-until-stable (RFC 010).

`run_check` answers one expect against the live page: it reads, hands the judged read to the
stabilizer (walk/stabilizer.py: when a check passes, fails or reads again is decided there, as a
pure state machine), and waits as it says. The walker gives it the rule timeout for observations
(30 s by default) or the guard timeout for guards (200 ms).

A check that passes at once costs one read, one interval and one read (`stable_reads` = 2).
Consecutive checks share that interval (`read_ahead`, `early` and `while_waiting` of `run_check`):
the first reads of the checks that follow are taken during the first check's interval, once a read
of it matched (never of a state before the first check held), so three expects in a row cost one
interval, not three.

The failing runtime code is chosen from the final read alone, deterministically:
`ELEMENT_NOT_FOUND` when the check reads an element and nothing matches its selector (or the
selector does not parse); `TIMEOUT` when the final read still matched but never long enough in a
row (the state did not settle) or no fresh read could be taken; `EXPECT_STATE_MISMATCH` otherwise.

Frames: every read looks at the main frame only (selectors and page text do not cross into
iframes). A check that fails because what it looks for is not in the main frame (a page-text
check finds no such text, a selector matches nothing) then looks once in the page's child
frames (`look_in_frames`: at most `FRAME_LOOK_MAX` frames within `FRAME_LOOK_MS`). When one of
them has it, the site did not misbehave: the spec cannot reach what it means, so the check fails
`ELEMENT_NOT_FOUND` and `CheckResult.frame` names that frame. A passing check never pays for this.
The walker asks `look_in_frames` the same way for an act whose target the main frame lacks.

Reading and judging are apart: every read goes through the page API (`session.page`,
browser/page.py; js/prelude.js says what "visible" means), and `KINDS` has one row per expect
kind: its words, what it reads, and its pure judge of one read. A new kind is one row. Each read
is one round trip: the URL, one read over a selector's matches for element kinds (one more per
pipe alternative that matches nothing), none for beacons beyond delivering pending events.
Element reads that look at "the element" (enabled, checked, input value, attribute) use the first
match in document order; text and visibility kinds pass when any match does.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, fields, replace
from typing import Any, Callable, Mapping

from flowwalk.browser.errors import InvalidSelector, PageError
from flowwalk.browser.locate import scoped, split_pipe
from flowwalk.browser.network import Beacon, matching_beacons, normalize_vendor
from flowwalk.browser.records import AriaRead, ElementQuery, ElementRead, ItemsRead, Quiet, Reader, Seq
from flowwalk.browser.session import PageSession
from flowwalk.events import Violation
from flowwalk.model import EXPECT_KINDS, Expect, Stabilize
from flowwalk.snapshots.images import ImageComparison
from flowwalk.spec.source import escape
from flowwalk.walk.items import class_names, items_match, list_diff, normalized, shown_list
from flowwalk.walk import state_checks
from flowwalk.walk.stabilizer import Fail, Pass, Read, ReadAt, Stabilizer, step

__all__ = ["CheckResult", "EarlyRead", "KINDS", "Kind", "run_check", "read_ahead", "bounded", "look_in_frames"]

OBSERVED_LIMIT = 200
#: a failed check looks in at most this many child frames, for at most this long (on failure only)
FRAME_LOOK_MAX = 4
FRAME_LOOK_MS = 1000
#: the longest one wait for the page to change lasts before the check reads again anyway: a change
#: the page's record cannot see (a media query, a closed shadow root the HTML declares) is still read
#: within this, and a failing check on a still page reads twice a second instead of ten times
CHANGE_WAIT_MAX_MS = 500
_OPS: dict[str, tuple[str, Callable[[int, int], bool]]] = {
    "eq": ("exactly", lambda n, c: n == c),
    "gte": ("at least", lambda n, c: n >= c),
    "lte": ("at most", lambda n, c: n <= c),
}


@dataclass(frozen=True)
class CheckResult:
    passed: bool
    reads: int
    expected: str
    observed: str
    #: None when passed; EXPECT_STATE_MISMATCH, ELEMENT_NOT_FOUND or TIMEOUT otherwise
    runtime_code: str | None
    duration_ms: float
    #: the pipe alternative the last read used (element kinds), for evidence
    selector: str | None = None
    #: set when the check failed on the main frame but a child frame has what it looks for: the
    #: frame's name and URL, for the message (see the module doc on frames)
    frame: str | None = None
    #: how a pass was shown stable: "reads" (`stable_reads` matching reads one interval apart),
    #: "quiet" (a matching read of a page that had not changed for the interval(s) before it) or
    #: "recorded" (a match in a record that only grows: the captured beacons)
    stability: str = "reads"
    #: "quiet": how long, in ms, the page had been still at the deciding read
    quiet_ms: float | None = None
    #: a list check that failed: the expected items against the observed ones (walk/items.py)
    diff: str = ""
    #: the last read found the check's element (a check that failed without it judged nothing of it)
    found: bool = True
    #: asked for (`run_check`'s `fingerprint`): the first element the passing read matched, fingerprinted
    fingerprint: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class _Read:
    """One observation, judged. `ok` None: inconclusive (no usable snapshot); `fatal`: retrying cannot help."""

    ok: bool | None
    observed: str
    found: bool = True
    fatal: bool = False
    selector: str | None = None
    #: how long (ms) what this read judged had provably not changed before it (its kind's `settles`
    #: evidence, see `Kind`); None when the read cannot show it
    quiet_ms: float | None = None
    #: what the read judged only grows (`Kind.settles` "log"), so a match is final
    final: bool = False
    #: where the read stood in the page's record of changes (`Page.changed`), for a kind whose state
    #: changes only with what the record counts; None otherwise or without a record
    change: Seq | None = None
    #: a list read that did not match: the expected items against the observed ones
    diff: str = ""
    #: asked for: the first match's fingerprint
    fingerprint: Mapping[str, Any] | None = None

    def at(self, started: float) -> Read:
        """This read as the stabilizer steps on it (walk/stabilizer.py), started at `started`."""
        return Read(self.ok, started, fatal=self.fatal, final=self.final, quiet_ms=self.quiet_ms, change=self.change)


def bounded(stabilize: Stabilize) -> Stabilize:
    """The settings clamped to RFC 010's bounds (loaders refuse values outside them already)."""
    changes: dict[str, int] = {}
    for f in fields(Stabilize):
        lo_hi = Stabilize.BOUNDS.get(f.name)
        if lo_hi is None:
            continue
        value = getattr(stabilize, f.name)
        clamped = min(max(int(value), lo_hi[0]), lo_hi[1])
        if clamped != value:
            changes[f.name] = clamped
    return replace(stabilize, **changes) if changes else stabilize


def _clip(text: str, limit: int = OBSERVED_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + " …"


def _q(text: str | None) -> str:
    return f"'{text or ''}'"


# --- reading the page, and judging a read --------------------------------------------------------

_TEXT_PAGE_KINDS = ("text_contains", "text_not_contains", "text_matches")


def _read_failure(exc: PageError | InvalidSelector, selector: str | None) -> _Read:
    """A read the page could not answer: no evidence (or, for a selector that does not parse, a
    fatal read: retrying cannot help). A gone browser raised `BrowserCrashed` instead."""
    if isinstance(exc, InvalidSelector):
        return _Read(None, f"invalid selector '{selector}': {exc.detail}", found=False, fatal=True,
                     selector=selector)
    why = "the page was navigating" if exc.navigating else exc.detail
    return _Read(None, f"no fresh read: {why}", selector=selector)


def _expect_url(c: "_Check") -> str:
    v = c.expect.value or ""
    if c.kind == "url_contains":
        return f"URL containing {_q(v)}"
    if c.kind == "url_not_contains":
        return f"URL not containing {_q(v)}"
    return f"URL matching /{c.pattern.pattern if c.pattern else v}/"


def _judge_url(c: "_Check", url: str) -> _Read:
    v = c.expect.value or ""
    if c.kind == "url_contains":
        ok = v in url
    elif c.kind == "url_not_contains":
        ok = v not in url
    else:
        assert c.pattern is not None
        ok = c.pattern.search(url) is not None
    return _Read(ok, f"URL: {_q(_clip(url, 300))}")


def _expect_beacon(c: "_Check") -> str:
    e = c.expect
    vendor = normalize_vendor(e.vendor or "") or (e.vendor or "")
    return f"a {vendor} beacon" + (f" with event {_q(e.event)}" if e.event else "")


def _judge_beacons(c: "_Check", beacons: list[Beacon]) -> _Read:
    vendor, event = c.expect.vendor or "", c.expect.event
    if matching_beacons(beacons, vendor, event):
        hit = matching_beacons(beacons, vendor, event)[-1]
        return _Read(True, f"captured {hit.vendor} beacon {_q(hit.event)} at {hit.t:.1f}s")
    if not beacons:
        return _Read(False, "no analytics beacons captured")
    seen: list[str] = []
    for b in beacons:
        item = f"{b.vendor} {_q(b.event)}" if b.event else f"{b.vendor} (no event)"
        if item not in seen:
            seen.append(item)
    shown = ", ".join(seen[-10:])
    return _Read(False, _clip(f"captured only: {shown}", 300))


def _where(c: "_Check") -> str:
    return "" if c.label == "body" else f" in {c.label}"


def _missing(c: "_Check", used: str) -> _Read:
    tried = f" (tried {', '.join(repr(a) for a in c.alternatives)})" if len(c.alternatives) > 1 else ""
    return _Read(False, f"no element matches {c.label}{tried}", found=False, selector=used)


def _shown_label(c: "_Check", used: str) -> str:
    return c.label if len(c.alternatives) < 2 else f"'{used}'"


def _judge_count(c: "_Check", r: ElementRead, used: str) -> _Read:
    compare = _OPS.get(c.expect.op, _OPS["eq"])[1]
    return _Read(compare(r.n, int(c.expect.count or 0)), f"{r.n} element(s) match {_shown_label(c, used)}",
                 found=r.n > 0, selector=used)


def _judge_exists(c: "_Check", r: ElementRead, used: str) -> _Read:
    observed = f"{r.n} element(s) match {_shown_label(c, used)}" if r.n else f"no element matches {c.label}"
    if c.kind == "selector_exists":
        return _Read(r.n > 0, observed, found=r.n > 0, selector=used)
    return _Read(r.n == 0, observed, selector=used)


def _judge_hidden(c: "_Check", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _Read(True, f"no element matches {c.label}", selector=used)
    return _Read(r.visible == 0, f"{r.visible} of {r.n} match(es) of {_shown_label(c, used)} visible", selector=used)


def _judge_text_absent(c: "_Check", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _Read(True, f"no element matches {c.label}", selector=used)
    return _Read(not r.hit, f"{_shown_label(c, used)} text: {_q(_clip(r.text))}", selector=used)


def _judge_text(c: "_Check", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _missing(c, used)
    many = f" (first of {r.n})" if r.n > 1 and not r.hit else ""
    # a text compared whitespace and all is shown so: its spaces and line breaks are the point
    shown = _q(escape(r.text[:OBSERVED_LIMIT])) if c.expect.keep_whitespace else _q(_clip(r.text))
    return _Read(r.hit, f"{_shown_label(c, used)} text{many}: {shown}", selector=used)


def _judge_text_matches(c: "_Check", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _missing(c, used)
    label = _shown_label(c, used)
    assert c.pattern is not None
    for t in r.texts:
        m = c.pattern.search(t)
        if m:
            start = max(0, m.start() - 60)
            return _Read(True, f"{label} text: {_q(_clip(t[start:start + 200]))}", selector=used)
    return _Read(False, f"{label} text: {_q(_clip(r.texts[0] if r.texts else ''))}", selector=used)


def _judge_visible(c: "_Check", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _missing(c, used)
    state = f"{r.visible} of {r.n} match(es) visible" if r.n > 1 else ("visible" if r.visible else "hidden")
    return _Read(r.visible > 0, f"{_shown_label(c, used)} {state}", selector=used)


def _judge_enabled(c: "_Check", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _missing(c, used)
    disabled = bool(r.disabled)
    return _Read(disabled == (c.kind == "disabled"),
                 f"{_shown_label(c, used)} {'disabled' if disabled else 'enabled'}", selector=used)


def _judge_checked(c: "_Check", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _missing(c, used)
    return _Read(r.checked == c.kind, f"{_shown_label(c, used)} {r.checked}", selector=used)


def _judge_input_value(c: "_Check", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _missing(c, used)
    label = _shown_label(c, used)
    if r.value is None:
        return _Read(False, f"{label} is a <{r.tag}>, which has no input value", selector=used)
    return _Read(r.value == (c.expect.value or ""), f"{label} value: {_q(_clip(r.value))}", selector=used)


def _judge_attribute(c: "_Check", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _missing(c, used)
    e, label = c.expect, _shown_label(c, used)
    if r.value is None:
        return _Read(False, f"{label} has no attribute {e.attr}", selector=used)
    if e.value is None:
        ok = True
    elif e.match == "contains":
        ok = e.value in r.value
    else:
        ok = r.value == e.value
    return _Read(ok, f"{label} {e.attr}={_q(_clip(r.value))}", selector=used)


def _expect_attribute(c: "_Check") -> str:
    e, v = c.expect, c.expect.value or ""
    if e.value is None:
        return f"{c.label} with attribute {e.attr}"
    if e.match == "contains":
        return f"{c.label} attribute {e.attr} containing {_q(v)}"
    return f"{c.label} attribute {e.attr}={_q(v)}"


# --- lists, item by item, and one element's classes (walk/items.py compares them) -------------------


def _wanted(c: "_Check") -> list[str]:
    e = c.expect
    if e.kind == "texts" and not e.keep_whitespace:
        return [normalized(i) for i in e.items or ()]
    return list(e.items or ())


def _expect_items(c: "_Check") -> str:
    e = c.expect
    how = "exactly" if e.match == "equals" else "including, in order,"
    kept = " (whitespace kept)" if e.keep_whitespace else ""
    return f"{e.kind} of {c.label} {how} {shown_list(_wanted(c))}{kept}"


def _judge_items(c: "_Check", r: ItemsRead, used: str) -> _Read:
    found = list(r.texts if c.kind == "texts" else r.classes)
    wanted = _wanted(c)
    cut = f" (the first {len(found)} read)" if r.n > len(found) else ""
    observed = f"{r.n} item(s) match {_shown_label(c, used)}{cut}: {shown_list(found)}"
    ok = r.n == len(found) and items_match(c.kind, c.expect.match, found, wanted)
    return _Read(ok, observed, found=r.n > 0, selector=used,
                 diff="" if ok else list_diff(c.kind, c.expect.match, found, wanted))


def _judge_class(c: "_Check", r: ItemsRead, used: str) -> _Read:
    if r.n == 0 or not r.classes:
        return _missing(c, used)
    names, wanted = class_names(r.classes[0]), class_names(c.expect.value or "")
    ok = all(n in names for n in wanted) if c.kind == "has_class" else not any(n in names for n in wanted)
    shown = f"class {_q(' '.join(names))}" if names else "no class"
    many = f" (first of {r.n})" if r.n > 1 else ""
    return _Read(ok, f"{_shown_label(c, used)}{many} has {shown}", selector=used)


# --- the page kinds: baselines and axe-core ---------------------------------------------------------
# They read the whole page (or an element's subtree) and wait as Playwright Test waits for the same
# assertion, in walk/snapshots.py, which asks these judges for the verdict of each read.

#: violations listed in a message (every one is in the record)
VIOLATIONS_LISTED = 5


def describe_violations(found: tuple[Violation, ...] | list[Violation]) -> str:
    """`2 accessibility violation(s): image-alt (critical, 2 elements: img.hero, img.logo); ...`"""
    parts = []
    for v in found[:VIOLATIONS_LISTED]:
        shown = ", ".join(v.targets[:3]) + (", …" if v.count > 3 else "")
        parts.append(f"{v.rule} ({v.impact}, {v.count} element{'s' * (v.count != 1)}: {shown})")
    more = f"; and {len(found) - VIOLATIONS_LISTED} more" if len(found) > VIOLATIONS_LISTED else ""
    return f"{len(found)} accessibility violation(s): " + "; ".join(parts) + more


def _judge_aria(c: "_Check", read: AriaRead) -> _Read:
    if read.template_error:
        return _Read(None, f"the baseline does not parse: {read.template_error}", fatal=True)
    return _Read(read.matches, f"aria snapshot of {c.page_label} " + ("matches" if read.matches else "differs from")
                 + " its baseline")


def _judge_screenshot(c: "_Check", comparison: ImageComparison) -> _Read:
    return _Read(comparison.passed, f"screenshot of {c.page_label}: {comparison.describe()}")


def _judge_violations(c: "_Check", found: tuple[Violation, ...]) -> _Read:
    return _Read(not found, describe_violations(found) if found else f"no violations in {c.page_label}")


def _expect_accessible(c: "_Check") -> str:
    impact = c.expect.axe.impact if c.expect.axe else "minor"
    floor = "" if impact == "minor" else f" of impact {impact} or above"
    return f"no axe-core violations{floor} in {c.page_label}"


# --- state beyond the DOM: storage, cookies, a JS value, requests (walk/state_checks.py) ------------


def _judge_state(c: "_Check", got: object) -> _Read:
    ok, observed = state_checks.judge(c.expect, got, time.time())
    return _Read(ok, observed)


@dataclass(frozen=True)
class Kind:
    """One expect kind: what the spec asks in words, what it reads, and how one read is judged.

    `reads` is "url" (the document's URL), "beacons" (the analytics beacons captured so far),
    "elements" (one read of the selector's matches, asking `query`: see `browser.records.ElementQuery`),
    "items" (one read of every match's text and class, item by item: `Page.items`), "state" (storage,
    cookies, a JS value, the requests sent: `PageSession.state`, walk/state_checks.py) or "page"
    (aria_snapshot, screenshot, accessible: walk/snapshots.py reads and waits, and judges
    each read with this row through `judge_page`; `run_check` does not take them).
    `judge` is pure: (the check, what was read[, the pipe alternative used]) -> a verdict, so it is
    tested from recorded reads. `needs_element`: a final read that matched nothing fails
    ELEMENT_NOT_FOUND rather than EXPECT_STATE_MISMATCH.

    `settles`: what shows that a matching read's state held over the interval before it, in place
    of RFC 010's second read (see `quiet_ms_of` and docs/rules.md):
    - "dom": no DOM mutation, `input`, `change` or `reset` event, control state set by a script
      (`checked`, `value`, ...) or URL change for that long (what the kind reads is in the DOM:
      elements, their attributes, the controls' state);
    - "render": the same, and no animation or transition running (text as rendered: `innerText`
      follows CSS);
    - "layout": the same, and the document, its fonts and its images loaded (visibility follows
      layout, which a late image or font moves with no mutation);
    - "url": no URL change for that long;
    - "log": what it reads is a record that only grows (the captured beacons): a matching read
      stays matching, so it is final;
    - "": nothing does, the check reads again (the page kinds, which `run_check` does not take).
    """

    expected: Callable[["_Check"], str]
    judge: Callable[..., _Read]
    reads: str = "elements"
    query: str = "count"
    needs_element: bool = False
    settles: str = ""


#: every expect kind: a new kind is one row here (the loaders' vocabulary is model.EXPECT_KINDS)
KINDS: dict[str, Kind] = {
    "url_contains": Kind(_expect_url, _judge_url, reads="url", settles="url"),
    "url_not_contains": Kind(_expect_url, _judge_url, reads="url", settles="url"),
    "url_matches": Kind(_expect_url, _judge_url, reads="url", settles="url"),
    "beacon": Kind(_expect_beacon, _judge_beacons, reads="beacons", settles="log"),
    "text_contains": Kind(lambda c: f"text containing {_q(c.expect.value)}{_where(c)}", _judge_text,
                          query="text", needs_element=True, settles="render"),
    "text_not_contains": Kind(lambda c: f"text not containing {_q(c.expect.value)}{_where(c)}", _judge_text_absent,
                              query="text", settles="render"),
    "has_text": Kind(lambda c: f"text exactly {_q(escape(c.expect.value or ''))}{_where(c)} (whitespace kept)"
                     if c.expect.keep_whitespace else
                     f"text exactly {_q(' '.join((c.expect.value or '').split()))}{_where(c)}",
                     _judge_text, query="exact_text", needs_element=True, settles="render"),
    "text_matches": Kind(lambda c: f"text matching /{c.pattern.pattern if c.pattern else c.expect.value or ''}/"
                                   f"{_where(c)}", _judge_text_matches, query="texts", needs_element=True,
                         settles="render"),
    "count": Kind(lambda c: f"{_OPS.get(c.expect.op, _OPS['eq'])[0]} {c.expect.count} element(s) matching {c.label}",
                  _judge_count, settles="dom"),
    "selector_exists": Kind(lambda c: f"an element matching {c.label}", _judge_exists, settles="dom"),
    "selector_absent": Kind(lambda c: f"no element matching {c.label}", _judge_exists, settles="dom"),
    "visible": Kind(lambda c: f"{c.label} visible", _judge_visible, query="visible", needs_element=True,
                    settles="layout"),
    "hidden": Kind(lambda c: f"{c.label} hidden or absent", _judge_hidden, query="visible", settles="layout"),
    "enabled": Kind(lambda c: f"{c.label} enabled", _judge_enabled, query="disabled", needs_element=True,
                    settles="dom"),
    "disabled": Kind(lambda c: f"{c.label} disabled", _judge_enabled, query="disabled", needs_element=True,
                     settles="dom"),
    "checked": Kind(lambda c: f"{c.label} checked", _judge_checked, query="checked", needs_element=True, settles="dom"),
    "unchecked": Kind(lambda c: f"{c.label} unchecked", _judge_checked, query="checked", needs_element=True, settles="dom"),
    "attribute": Kind(_expect_attribute, _judge_attribute, query="attribute", needs_element=True, settles="dom"),
    "input_value": Kind(lambda c: f"{c.label} value {_q(c.expect.value)}", _judge_input_value, query="value",
                        needs_element=True, settles="dom"),
    "texts": Kind(_expect_items, _judge_items, reads="items", settles="render"),
    "classes": Kind(_expect_items, _judge_items, reads="items", settles="dom"),
    "has_class": Kind(lambda c: f"{c.label} with class {_q(normalized(c.expect.value or ''))}", _judge_class,
                      reads="items", needs_element=True, settles="dom"),
    "lacks_class": Kind(lambda c: f"{c.label} without class {_q(normalized(c.expect.value or ''))}", _judge_class,
                        reads="items", needs_element=True, settles="dom"),
    "aria_snapshot": Kind(lambda c: f"aria snapshot of {c.page_label} matching {c.expect.snapshot.baseline}"
                          if c.expect.snapshot else "aria snapshot matching its baseline", _judge_aria, reads="page"),
    "screenshot": Kind(lambda c: f"screenshot of {c.page_label} like {c.expect.snapshot.baseline}"
                       if c.expect.snapshot else "screenshot like its baseline", _judge_screenshot, reads="page"),
    "accessible": Kind(_expect_accessible, _judge_violations, reads="page"),
    # state beyond the DOM: read by browser/state.py, judged by walk/state_checks.py; never "settled"
    # by the page's record of DOM changes (storage, cookies and requests change without one)
    **{kind: Kind(lambda c: state_checks.expected(c.expect), _judge_state, reads="state")
       for kind in ("storage", "storage_count", "cookie", "js")},
    # the requests sent only grow: one matching read is final (a request check, not "absent")
    "request": Kind(lambda c: state_checks.expected(c.expect), _judge_state, reads="state", settles="log"),
}
#: kinds that read a state from an element: nothing matching the selector is ELEMENT_NOT_FOUND
NEEDS_ELEMENT = tuple(k for k, kind in KINDS.items() if kind.needs_element)


def quiet_ms_of(settles: str, quiet: Quiet | None) -> float | None:
    """How long a read's state provably held before the read, by its kind's `settles` (see `Kind`);
    None when the read cannot show it (no record, an animation running, resources still loading)."""
    if quiet is None or settles in ("", "log"):
        return None
    if settles == "url":
        return quiet.url_ms
    if settles in ("render", "layout") and quiet.animating:
        return None
    if settles == "layout" and not quiet.settled:
        return None
    return quiet.ms


class _Check:
    """One expect as a check: what it reads, its words, and how it judges a read (its row of KINDS);
    built once per check."""

    expect: Expect
    kind: str
    row: Kind
    scope: str | None
    target: str
    label: str
    page_label: str
    alternatives: list[str]
    pattern: "re.Pattern[str] | None"
    regex_error: str | None
    expected: str

    def __init__(self, expect: Expect, scope: str | None, *, quiet: bool = False, fingerprint: bool = False):
        self.expect = expect
        #: ask each read how long the page had been still (only a check that wants 2+ reads uses it)
        self.quiet = quiet
        #: ask each element read for its first match's fingerprint (a passing check's, for healing)
        self.fingerprint = fingerprint
        self.kind = expect.kind
        if self.kind not in EXPECT_KINDS or self.kind not in KINDS:
            raise ValueError(f"unknown expect kind '{self.kind}'")
        self.row = KINDS[self.kind]
        self.scope = scope
        written = expect.selector
        if written is None and self.kind in _TEXT_PAGE_KINDS:
            # the default element is the page body, or the scope element itself inside a child scope
            self.target = scope if scope else "body"
            self.label = f"'{scope}'" if scope else "body"
        else:
            self.target = scoped(written or "", scope) if written else ""
            self.label = _q(written) + (f" within '{scope}'" if scope and written else "")
        self.alternatives = split_pipe(self.target) or ([self.target] if self.target else [])
        #: the page kinds' words for what they look at
        self.page_label = self.label if written else (f"'{scope}'" if scope else "the page")
        self.pattern = expect.pattern
        self.regex_error = None
        if self.kind in ("url_matches", "text_matches") and self.pattern is None:
            try:
                self.pattern = re.compile(expect.value or "")
            except re.error as exc:
                self.regex_error = f"invalid regular expression {_q(expect.value)}: {exc}"
        # expected strings are for people: what the spec asked, in words
        self.expected = self.row.expected(self)

    # --- reads ----------------------------------------------------------------------------------

    def read(self, session: PageSession) -> _Read:
        if self.regex_error:
            return _Read(None, self.regex_error, fatal=True)
        if self.row.reads == "page":
            raise ValueError(f"expect {self.kind} is walked by walk/snapshots.py, not run_check")
        if self.row.reads == "url":
            try:
                if not self.quiet:
                    return self.row.judge(self, session.page.url())
                state = session.page.url_state()
            except PageError as exc:
                return _read_failure(exc, None)
            return replace(self.row.judge(self, state.url), quiet_ms=quiet_ms_of(self.row.settles, state.quiet))
        if self.row.reads == "state":
            try:
                if self.kind == "request":
                    session.pump()   # deliver request events already on the wire
                obs = self.row.judge(self, state_checks.read(session.state, self.expect))
            except PageError as exc:
                return _read_failure(exc, None)
            final = self.quiet and self.row.settles == "log" and obs.ok and not (self.expect.state and
                                                                                 self.expect.state.absent)
            return replace(obs, final=True) if final else obs
        if self.row.reads == "beacons":
            try:
                session.pump()   # deliver request events already on the wire before reading the list
            except PageError:
                pass   # what was delivered is read; a gone browser raised BrowserCrashed
            obs = self.row.judge(self, list(session.beacons))
            return replace(obs, final=True) if self.quiet and self.row.settles == "log" else obs
        return self.read_elements(session.page)

    def read_elements(self, reader: Reader) -> _Read:
        """One read of the main frame's `reader` (or of a child frame's: see `_look_in_frames`)."""
        level = ("dom" if self.row.settles == "dom" else "layout") if self.quiet and self.row.settles else ""
        e = self.expect
        query = ElementQuery(self.row.query, e.value or "", e.attr or "", level, match_case=e.match_case,
                             raw=e.keep_whitespace, fingerprint=self.fingerprint)
        used = self.alternatives[0] if self.alternatives else ""
        result: ElementRead | ItemsRead = ElementRead(0)
        for alt in self.alternatives:
            used = alt
            try:
                result = (reader.items(alt, raw_text=e.keep_whitespace, quiet=level, fingerprint=self.fingerprint)
                          if self.row.reads == "items" else reader.elements(alt, query))
            except (PageError, InvalidSelector) as exc:
                return _read_failure(exc, alt)
            if result.n > 0:
                break
        obs = replace(self.row.judge(self, result, used), fingerprint=result.fingerprint,
                      change=result.seq if self.row.settles in ("dom", "render") else None)
        return replace(obs, quiet_ms=quiet_ms_of(self.row.settles, result.quiet)) if result.quiet else obs

    # --- judging a read (pure) --------------------------------------------------------------------

    def frame_question(self, obs: _Read) -> str | None:
        """What a failed final read could have found in a child frame: 'text' (a page-text check
        that found no such text), 'element' (the selector matched nothing), or None (the main
        frame answered the question, or the kind does not read the page's elements)."""
        if obs.ok is not False or obs.fatal or self.row.reads not in ("elements", "items"):
            return None
        if self.expect.selector is None and self.scope is None and self.kind in ("text_contains", "text_matches"):
            return "text"
        if not obs.found and self.target:
            return "element"
        return None


def judge_page(expect: Expect, scope: str | None, read: object) -> tuple[bool | None, str, str]:
    """(verdict, expected, observed) of one read of a page kind, by its row of KINDS: an AriaRead
    for aria_snapshot, an ImageComparison for screenshot, the counted violations for accessible.
    The verdict is None when the read cannot be judged (a baseline that does not parse)."""
    check = _Check(expect, scope)
    if check.row.reads != "page":
        raise ValueError(f"expect {expect.kind} is not a page kind")
    verdict = check.row.judge(check, read)
    return verdict.ok, check.expected, verdict.observed


# --- the stabilization loop ---------------------------------------------------------------------


@dataclass(frozen=True)
class EarlyRead:
    """A check's first read, taken ahead of its step (see `read_ahead`): when it was taken and what it saw."""

    expect: Expect
    scope: str | None
    obs: _Read
    started: float
    ended: float


def read_ahead(session: PageSession, expect: Expect, *, scope: str | None, stabilize: Stabilize | None = None,
               clock: Callable[[], float] = time.monotonic, fingerprint: bool = False) -> EarlyRead:
    """Take the first read of a later check now (batched stabilization, see `run_check`; `stabilize`
    and `fingerprint`: that check's, so that the read carries what its stability and healing need).

    Raises BrowserCrashed like a read would.
    """
    check = _Check(expect, scope, quiet=stabilize is not None and bounded(stabilize).stable_reads > 1,
                   fingerprint=fingerprint)
    started = clock()
    obs = check.read(session)
    return EarlyRead(expect, scope, obs, started, clock())


def run_check(session: PageSession, expect: Expect, *, scope: str | None, timeout_ms: int,
              stabilize: Stabilize, clock: Callable[[], float] = time.monotonic,
              early: EarlyRead | None = None, while_waiting: Callable[[], None] | None = None,
              quiet: bool = True, mend: Callable[[], str | None] | None = None,
              fingerprint: bool = False) -> CheckResult:
    """Evaluate `expect` (its {{vars}} already substituted) verify-until-stable: read, let the
    stabilizer decide (walk/stabilizer.py: pass, fail, or read again at a time), wait, repeat.

    `while_waiting` runs once, during the first wait after a read that matched, and is where the
    caller takes the first reads of the checks that follow (`read_ahead`); such a check gets its
    `EarlyRead` as `early` and counts it as its first read when it was taken at most `window_ms`
    ago. With `stable_reads` 2 or more, each read also asks how long the page had been still
    (js/prelude.js `fw.quiet`) unless `quiet` is False (the differential tests compare the two).
    `mend` (walk/healing.py `Mender`): asked after each fresh read that found no element, until it
    gives a mended selector; the check then goes on with that selector at once, its reads counted
    afresh, within the same deadline.
    `fingerprint`: each element read also takes its first match's fingerprint, and a pass returns
    the passing read's (the healing record of a check, at no extra round trip). Raises
    BrowserCrashed when the browser or the page's renderer died during the check.
    """
    st = bounded(stabilize)
    check = _Check(expect, scope, quiet=quiet and st.stable_reads > 1, fingerprint=fingerprint)
    started = clock()
    state = Stabilizer(st, deadline=started + max(int(timeout_ms), 0) / 1000)
    pending: EarlyRead | None = None
    if (early is not None and early.expect == expect and early.scope == scope
            and started - early.ended <= st.window_ms / 1000):
        pending, started = early, early.started
    hook = while_waiting
    while True:
        if pending is not None:
            read_started, obs, now, pending = pending.started, pending.obs, pending.ended, None
        else:
            read_started = clock()
            obs = check.read(session)
            now = clock()
        state, decision = step(state, obs.at(read_started), now)
        if isinstance(decision, Pass):
            return CheckResult(True, state.reads, check.expected, obs.observed, None, (clock() - started) * 1000,
                               obs.selector, stability=decision.how, quiet_ms=decision.quiet_ms,
                               fingerprint=obs.fingerprint)
        if mend is not None and obs.ok is False and not obs.found and not obs.fatal:
            mended = mend()
            if mended is not None:
                expect, mend = replace(expect, selector=mended), None
                check = _Check(expect, scope, quiet=check.quiet, fingerprint=check.fingerprint)
                state = Stabilizer(st, deadline=state.deadline)
                continue
        if isinstance(decision, Fail):
            break
        if hook is not None and obs.ok:
            # reads taken ahead are of a state in which this check holds: a later check must not
            # pass on a read taken before this one did (a list not yet shown has no row to miss)
            run_hook, hook = hook, None
            run_hook()
        _wait(session, decision, clock)
    return _failed(session, check, obs, state, started, clock)


def _wait(session: PageSession, decision: ReadAt, clock: Callable[[], float]) -> None:
    """Until the stabilizer's next read: the page's first change when it asked for one (and the page
    keeps a record of them; at most CHANGE_WAIT_MAX_MS), else `decision.at`."""
    if decision.change is not None:
        cap_ms = min(CHANGE_WAIT_MAX_MS, (decision.until - clock()) * 1000)
        if cap_ms > 0:
            try:
                if session.page.changed(decision.change, gap_ms=decision.gap_ms, cap_ms=cap_ms) is not None:
                    return
            except PageError:
                return   # the page navigated or its document went: that is a change, read again
    left_ms = (decision.at - clock()) * 1000
    if left_ms > 0:
        session.wait(left_ms)


def _failed(session: PageSession, check: _Check, obs: _Read, state: Stabilizer, started: float,
            clock: Callable[[], float]) -> CheckResult:
    """The failed check's result, from its last read; a frame that has what it looked for is named."""
    observed, code, frame = _final_observed(obs, state), _code(check, obs, state.stale), None
    asked = None if state.stale else check.frame_question(obs)
    if asked is not None:
        frame = _look_in_frames(session, check, asked, clock)
        if frame is not None:
            # the page has it, only where the spec cannot reach: not the site's fault
            code = "ELEMENT_NOT_FOUND"
            observed = _clip(f"{observed}; only inside the frame {frame}", 300)
    return CheckResult(False, state.reads, check.expected, observed, code, (clock() - started) * 1000,
                       obs.selector, frame, diff=obs.diff if obs.ok is False and not state.stale else "",
                       found=obs.found)


def _frame_label(frame: Reader) -> str:
    named = frame.frame_name()
    if named is None:
        return "(detached)"
    shown = _clip(named.url, 160) or "about:blank"
    return f"'{_clip(named.name, 60)}' ({shown})" if named.name else f"at {shown}"


def look_in_frames(session: PageSession, has: Callable[[Reader], bool], *, budget_ms: float = FRAME_LOOK_MS,
                   clock: Callable[[], float] = time.monotonic) -> str | None:
    """The label (name and URL) of the first child frame, in document order, for which `has(frame)`
    is true; None when none is. At most FRAME_LOOK_MAX frames are asked, and no new one once
    `budget_ms` (at most FRAME_LOOK_MS) has passed. For failure paths only: checks here, and the
    walker's acts whose target the main frame does not have.

    `has` asks one frame's reader and may raise a PageError (that frame is skipped). Never raises a
    page error; a crashed browser or renderer still raises BrowserCrashed.
    """
    end = clock() + max(min(budget_ms, FRAME_LOOK_MS), 0) / 1000
    try:
        frames = session.page.child_frames(FRAME_LOOK_MAX)
    except PageError:
        return None
    for frame in frames:
        if clock() >= end:
            break
        try:
            if frame.detached() or not has(frame):
                continue
        except PageError:
            continue
        return _frame_label(frame)
    return None


def _look_in_frames(session: PageSession, check: _Check, question: str,
                    clock: Callable[[], float]) -> str | None:
    """The frame where the failed check's text is shown ('text': the check would pass there) or its
    selector matches ('element'); see `look_in_frames`."""

    def has(frame: Reader) -> bool:
        obs = check.read_elements(frame)
        if obs.fatal or obs.ok is None:
            return False
        return bool(obs.ok) if question == "text" else obs.found

    return look_in_frames(session, has, clock=clock)


def _final_observed(obs: _Read, state: Stabilizer) -> str:
    st = state.settings
    if obs.ok is True and not state.stale:
        return _clip(f"{obs.observed} (not stable: matched {state.streak} of {st.stable_reads} consecutive reads)", 300)
    if state.stale and obs.ok is not None:
        return _clip(f"{obs.observed} (stale: the read took longer than {st.stale_ms} ms)", 300)
    return obs.observed


def _code(check: _Check, obs: _Read, stale: bool) -> str:
    if obs.fatal:
        # a selector that does not parse; a regex that does not compile (the loaders refuse those)
        return "ELEMENT_NOT_FOUND" if obs.selector is not None else "UNKNOWN"
    if obs.ok is None or stale or obs.ok is True:
        return "TIMEOUT"
    if not obs.found and check.kind in NEEDS_ELEMENT:
        return "ELEMENT_NOT_FOUND"
    return "EXPECT_STATE_MISMATCH"
