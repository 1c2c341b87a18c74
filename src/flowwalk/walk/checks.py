"""Stabilized checks: every expect kind, evaluated verify-until-stable (RFC 010).

`run_check` answers one expect against the live page. A check passes after `stable_reads`
consecutive matching fresh reads; a mismatch never fails it early (it resets the streak and the
check reads again after `interval_ms`). The budget:

* **wait** — reads every `interval_ms` until the streak is long enough or `timeout_ms` has passed
  (the walker passes the rule timeout for observations, 30 s by default, and the guard timeout for
  guards, 200 ms). The first read is immediate; the last read of the wait is taken at the
  deadline, so a failure always rests on a fresh read taken at the end, and a check with a 5 s
  timeout fails after 5 s, not after 5 s plus whatever the reads' timers overran: the wait before
  that read is cut short to land on the deadline. Reads that could confirm each other (the read
  after a match, when `stable_reads` is 2 or more) stay a whole interval apart. A check never
  fails before it has taken `stable_reads` reads (RFC 010 §8.1: the stable count must have been
  attempted), even with a timeout shorter than that many intervals.
* **recheck** (RFC 010 §6.1 step 5) — when the deadline passes while the evidence is not
  conclusive (a matching streak still too short, a stale read, a read taken mid-navigation), up to
  `max_rechecks` more reads, one interval apart, within `window_ms` after the deadline.
* **staleness** — a read that took longer than `stale_ms` (a busy page) neither confirms nor
  refutes: it is not used as evidence.

A check that passes at once costs one read, one interval and one read (`stable_reads` = 2).
Consecutive checks share that interval (`read_ahead`, `early` and `while_waiting` of `run_check`):
the first reads of the checks that follow are taken during the first check's interval, so three
expects in a row cost one interval, not three.

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

Reading and judging are apart: every read goes through the page-reading boundary
(`session.reader`, browser/probe.py, which also says what "visible" means), and `KINDS` has one
row per expect kind: its words, what it reads, and its pure judge of one read. A new kind is one
row. Each read is one round trip: the URL, one read over a selector's matches for element kinds
(one more per pipe alternative that matches nothing), none for beacons beyond delivering pending
events. Element reads that look at "the element" (enabled, checked, input value, attribute) use
the first match in document order; text and visibility kinds pass when any match does.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, fields, replace
from typing import Callable

from flowwalk.browser.capture import AriaRead
from flowwalk.browser.errors import InvalidSelector, PageError, translating
from flowwalk.browser.locate import scoped, split_pipe
from flowwalk.browser.network import Beacon, matching_beacons, normalize_vendor
from flowwalk.browser.probe import ElementQuery, ElementRead, ItemsRead, Quiet, Reader, Seq
from flowwalk.browser.session import PageSession
from flowwalk.events import Violation
from flowwalk.model import EXPECT_KINDS, Expect, Stabilize
from flowwalk.snapshots.images import ImageComparison
from flowwalk.spec.source import escape
from flowwalk.walk.boundary import crash_of
from flowwalk.walk.items import class_names, items_match, list_diff, normalized, shown_list

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


@dataclass(frozen=True)
class _Read:
    """One observation. `ok` None: inconclusive (no usable snapshot); `fatal`: retrying cannot help."""

    ok: bool | None
    observed: str
    found: bool = True
    fatal: bool = False
    selector: str | None = None
    #: how long (ms) what this read judged had provably not changed before it (its kind's `settles`
    #: evidence, see `Kind`); None when the read cannot show it
    quiet_ms: float | None = None
    #: "recorded": what the read judged only grows (`Kind.settles` "log"), so a match is final
    stability: str | None = None
    #: where the read stood in the page's record of changes (`PageReader.changed`); None without one
    seq: Seq | None = None
    #: a list read that did not match: the expected items against the observed ones
    diff: str = ""


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


def _read_failure(session: PageSession, exc: PageError | InvalidSelector, selector: str | None) -> _Read:
    """A read the page could not answer: BrowserCrashed when the browser is gone, else no evidence
    (or, for a selector that does not parse, a fatal read: retrying cannot help)."""
    crash = crash_of(exc, session)
    if crash is not None:
        raise crash from exc
    if isinstance(exc, InvalidSelector):
        return _Read(None, f"invalid selector '{selector}': {exc.detail}", found=False, fatal=True,
                     selector=selector)
    why = "the page was navigating" if exc.navigating else exc.detail
    return _Read(None, f"no fresh read: {why}", selector=selector)


def _expect_url(p: "_Probe") -> str:
    v = p.expect.value or ""
    if p.kind == "url_contains":
        return f"URL containing {_q(v)}"
    if p.kind == "url_not_contains":
        return f"URL not containing {_q(v)}"
    return f"URL matching /{p.pattern.pattern if p.pattern else v}/"


def _judge_url(p: "_Probe", url: str) -> _Read:
    v = p.expect.value or ""
    if p.kind == "url_contains":
        ok = v in url
    elif p.kind == "url_not_contains":
        ok = v not in url
    else:
        assert p.pattern is not None
        ok = p.pattern.search(url) is not None
    return _Read(ok, f"URL: {_q(_clip(url, 300))}")


def _expect_beacon(p: "_Probe") -> str:
    e = p.expect
    vendor = normalize_vendor(e.vendor or "") or (e.vendor or "")
    return f"a {vendor} beacon" + (f" with event {_q(e.event)}" if e.event else "")


def _judge_beacons(p: "_Probe", beacons: list[Beacon]) -> _Read:
    vendor, event = p.expect.vendor or "", p.expect.event
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


def _where(p: "_Probe") -> str:
    return "" if p.label == "body" else f" in {p.label}"


def _missing(p: "_Probe", used: str) -> _Read:
    tried = f" (tried {', '.join(repr(a) for a in p.alternatives)})" if len(p.alternatives) > 1 else ""
    return _Read(False, f"no element matches {p.label}{tried}", found=False, selector=used)


def _shown_label(p: "_Probe", used: str) -> str:
    return p.label if len(p.alternatives) < 2 else f"'{used}'"


def _judge_count(p: "_Probe", r: ElementRead, used: str) -> _Read:
    compare = _OPS.get(p.expect.op, _OPS["eq"])[1]
    return _Read(compare(r.n, int(p.expect.count or 0)), f"{r.n} element(s) match {_shown_label(p, used)}",
                 found=r.n > 0, selector=used)


def _judge_exists(p: "_Probe", r: ElementRead, used: str) -> _Read:
    observed = f"{r.n} element(s) match {_shown_label(p, used)}" if r.n else f"no element matches {p.label}"
    if p.kind == "selector_exists":
        return _Read(r.n > 0, observed, found=r.n > 0, selector=used)
    return _Read(r.n == 0, observed, selector=used)


def _judge_hidden(p: "_Probe", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _Read(True, f"no element matches {p.label}", selector=used)
    return _Read(r.visible == 0, f"{r.visible} of {r.n} match(es) of {_shown_label(p, used)} visible", selector=used)


def _judge_text_absent(p: "_Probe", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _Read(True, f"no element matches {p.label}", selector=used)
    return _Read(not r.hit, f"{_shown_label(p, used)} text: {_q(_clip(r.text))}", selector=used)


def _judge_text(p: "_Probe", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _missing(p, used)
    many = f" (first of {r.n})" if r.n > 1 and not r.hit else ""
    # a text compared whitespace and all is shown so: its spaces and line breaks are the point
    shown = _q(escape(r.text[:OBSERVED_LIMIT])) if p.expect.keep_whitespace else _q(_clip(r.text))
    return _Read(r.hit, f"{_shown_label(p, used)} text{many}: {shown}", selector=used)


def _judge_text_matches(p: "_Probe", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _missing(p, used)
    label = _shown_label(p, used)
    assert p.pattern is not None
    for t in r.texts:
        m = p.pattern.search(t)
        if m:
            start = max(0, m.start() - 60)
            return _Read(True, f"{label} text: {_q(_clip(t[start:start + 200]))}", selector=used)
    return _Read(False, f"{label} text: {_q(_clip(r.texts[0] if r.texts else ''))}", selector=used)


def _judge_visible(p: "_Probe", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _missing(p, used)
    state = f"{r.visible} of {r.n} match(es) visible" if r.n > 1 else ("visible" if r.visible else "hidden")
    return _Read(r.visible > 0, f"{_shown_label(p, used)} {state}", selector=used)


def _judge_enabled(p: "_Probe", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _missing(p, used)
    disabled = bool(r.disabled)
    return _Read(disabled == (p.kind == "disabled"),
                 f"{_shown_label(p, used)} {'disabled' if disabled else 'enabled'}", selector=used)


def _judge_checked(p: "_Probe", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _missing(p, used)
    return _Read(r.checked == p.kind, f"{_shown_label(p, used)} {r.checked}", selector=used)


def _judge_input_value(p: "_Probe", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _missing(p, used)
    label = _shown_label(p, used)
    if r.value is None:
        return _Read(False, f"{label} is a <{r.tag}>, which has no input value", selector=used)
    return _Read(r.value == (p.expect.value or ""), f"{label} value: {_q(_clip(r.value))}", selector=used)


def _judge_attribute(p: "_Probe", r: ElementRead, used: str) -> _Read:
    if r.n == 0:
        return _missing(p, used)
    e, label = p.expect, _shown_label(p, used)
    if r.value is None:
        return _Read(False, f"{label} has no attribute {e.attr}", selector=used)
    if e.value is None:
        ok = True
    elif e.match == "contains":
        ok = e.value in r.value
    else:
        ok = r.value == e.value
    return _Read(ok, f"{label} {e.attr}={_q(_clip(r.value))}", selector=used)


def _expect_attribute(p: "_Probe") -> str:
    e, v = p.expect, p.expect.value or ""
    if e.value is None:
        return f"{p.label} with attribute {e.attr}"
    if e.match == "contains":
        return f"{p.label} attribute {e.attr} containing {_q(v)}"
    return f"{p.label} attribute {e.attr}={_q(v)}"


# --- lists, item by item, and one element's classes (walk/items.py compares them) -------------------


def _wanted(p: "_Probe") -> list[str]:
    e = p.expect
    if e.kind == "texts" and not e.keep_whitespace:
        return [normalized(i) for i in e.items or ()]
    return list(e.items or ())


def _expect_items(p: "_Probe") -> str:
    e = p.expect
    how = "exactly" if e.match == "equals" else "including, in order,"
    kept = " (whitespace kept)" if e.keep_whitespace else ""
    return f"{e.kind} of {p.label} {how} {shown_list(_wanted(p))}{kept}"


def _judge_items(p: "_Probe", r: ItemsRead, used: str) -> _Read:
    found = list(r.texts if p.kind == "texts" else r.classes)
    wanted = _wanted(p)
    cut = f" (the first {len(found)} read)" if r.n > len(found) else ""
    observed = f"{r.n} item(s) match {_shown_label(p, used)}{cut}: {shown_list(found)}"
    ok = r.n == len(found) and items_match(p.kind, p.expect.match, found, wanted)
    return _Read(ok, observed, found=r.n > 0, selector=used,
                 diff="" if ok else list_diff(p.kind, p.expect.match, found, wanted))


def _judge_class(p: "_Probe", r: ItemsRead, used: str) -> _Read:
    if r.n == 0 or not r.classes:
        return _missing(p, used)
    names, wanted = class_names(r.classes[0]), class_names(p.expect.value or "")
    ok = all(n in names for n in wanted) if p.kind == "has_class" else not any(n in names for n in wanted)
    shown = f"class {_q(' '.join(names))}" if names else "no class"
    many = f" (first of {r.n})" if r.n > 1 else ""
    return _Read(ok, f"{_shown_label(p, used)}{many} has {shown}", selector=used)


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


def _judge_aria(p: "_Probe", read: AriaRead) -> _Read:
    if read.template_error:
        return _Read(None, f"the baseline does not parse: {read.template_error}", fatal=True)
    return _Read(read.matches, f"aria snapshot of {p.page_label} " + ("matches" if read.matches else "differs from")
                 + " its baseline")


def _judge_screenshot(p: "_Probe", comparison: ImageComparison) -> _Read:
    return _Read(comparison.passed, f"screenshot of {p.page_label}: {comparison.describe()}")


def _judge_violations(p: "_Probe", found: tuple[Violation, ...]) -> _Read:
    return _Read(not found, describe_violations(found) if found else f"no violations in {p.page_label}")


def _expect_accessible(p: "_Probe") -> str:
    impact = p.expect.axe.impact if p.expect.axe else "minor"
    floor = "" if impact == "minor" else f" of impact {impact} or above"
    return f"no axe-core violations{floor} in {p.page_label}"


@dataclass(frozen=True)
class Kind:
    """One expect kind: what the spec asks in words, what it reads, and how one read is judged.

    `reads` is "url" (the document's URL), "beacons" (the analytics beacons captured so far),
    "elements" (one read of the selector's matches, asking `query`: see `browser.probe.ElementQuery`),
    "items" (one read of every match's text and class, item by item: `PageReader.items`) or "page" (aria_snapshot, screenshot, accessible: walk/snapshots.py reads and waits, and judges
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

    expected: Callable[["_Probe"], str]
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
    "text_contains": Kind(lambda p: f"text containing {_q(p.expect.value)}{_where(p)}", _judge_text,
                          query="text", needs_element=True, settles="render"),
    "text_not_contains": Kind(lambda p: f"text not containing {_q(p.expect.value)}{_where(p)}", _judge_text_absent,
                              query="text", settles="render"),
    "has_text": Kind(lambda p: f"text exactly {_q(escape(p.expect.value or ''))}{_where(p)} (whitespace kept)"
                     if p.expect.keep_whitespace else
                     f"text exactly {_q(' '.join((p.expect.value or '').split()))}{_where(p)}",
                     _judge_text, query="exact_text", needs_element=True, settles="render"),
    "text_matches": Kind(lambda p: f"text matching /{p.pattern.pattern if p.pattern else p.expect.value or ''}/"
                                   f"{_where(p)}", _judge_text_matches, query="texts", needs_element=True,
                         settles="render"),
    "count": Kind(lambda p: f"{_OPS.get(p.expect.op, _OPS['eq'])[0]} {p.expect.count} element(s) matching {p.label}",
                  _judge_count, settles="dom"),
    "selector_exists": Kind(lambda p: f"an element matching {p.label}", _judge_exists, settles="dom"),
    "selector_absent": Kind(lambda p: f"no element matching {p.label}", _judge_exists, settles="dom"),
    "visible": Kind(lambda p: f"{p.label} visible", _judge_visible, query="visible", needs_element=True,
                    settles="layout"),
    "hidden": Kind(lambda p: f"{p.label} hidden or absent", _judge_hidden, query="visible", settles="layout"),
    "enabled": Kind(lambda p: f"{p.label} enabled", _judge_enabled, query="disabled", needs_element=True,
                    settles="dom"),
    "disabled": Kind(lambda p: f"{p.label} disabled", _judge_enabled, query="disabled", needs_element=True,
                     settles="dom"),
    "checked": Kind(lambda p: f"{p.label} checked", _judge_checked, query="checked", needs_element=True, settles="dom"),
    "unchecked": Kind(lambda p: f"{p.label} unchecked", _judge_checked, query="checked", needs_element=True, settles="dom"),
    "attribute": Kind(_expect_attribute, _judge_attribute, query="attribute", needs_element=True, settles="dom"),
    "input_value": Kind(lambda p: f"{p.label} value {_q(p.expect.value)}", _judge_input_value, query="value",
                        needs_element=True, settles="dom"),
    "texts": Kind(_expect_items, _judge_items, reads="items", settles="render"),
    "classes": Kind(_expect_items, _judge_items, reads="items", settles="dom"),
    "has_class": Kind(lambda p: f"{p.label} with class {_q(normalized(p.expect.value or ''))}", _judge_class,
                      reads="items", needs_element=True, settles="dom"),
    "lacks_class": Kind(lambda p: f"{p.label} without class {_q(normalized(p.expect.value or ''))}", _judge_class,
                        reads="items", needs_element=True, settles="dom"),
    "aria_snapshot": Kind(lambda p: f"aria snapshot of {p.page_label} matching {p.expect.snapshot.baseline}"
                          if p.expect.snapshot else "aria snapshot matching its baseline", _judge_aria, reads="page"),
    "screenshot": Kind(lambda p: f"screenshot of {p.page_label} like {p.expect.snapshot.baseline}"
                       if p.expect.snapshot else "screenshot like its baseline", _judge_screenshot, reads="page"),
    "accessible": Kind(_expect_accessible, _judge_violations, reads="page"),
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


class _Probe:
    """What one expect reads and how it judges a read (its row of KINDS); built once per check."""

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

    def __init__(self, expect: Expect, scope: str | None, *, quiet: bool = False):
        self.expect = expect
        #: ask each read how long the page had been still (only a check that wants 2+ reads uses it)
        self.quiet = quiet
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
                    return self.judge_url(session.reader.url())
                state = session.reader.url_state()
            except PageError as exc:
                return _read_failure(session, exc, None)
            return replace(self.judge_url(state.url), quiet_ms=quiet_ms_of(self.row.settles, state.quiet))
        if self.row.reads == "beacons":
            try:
                with translating():
                    session.pump()   # deliver request events already on the wire before reading the list
            except PageError as exc:
                _read_failure(session, exc, None)   # raises BrowserCrashed when the browser is gone
            obs = self.judge_beacons(list(session.beacons))
            return replace(obs, stability="recorded") if self.quiet and self.row.settles == "log" else obs
        return self.read_elements(session, session.reader)

    def read_elements(self, session: PageSession, reader: Reader) -> _Read:
        """One read of the main frame's `reader` (or of a child frame's: see `_look_in_frames`)."""
        level = ("dom" if self.row.settles == "dom" else "layout") if self.quiet and self.row.settles else ""
        e = self.expect
        query = ElementQuery(self.row.query, e.value or "", e.attr or "", level, match_case=e.match_case,
                             raw=e.keep_whitespace)
        used = self.alternatives[0] if self.alternatives else ""
        result: ElementRead | ItemsRead = ElementRead(0)
        for alt in self.alternatives:
            used = alt
            try:
                result = (reader.items(alt, raw_text=e.keep_whitespace, quiet=level) if self.row.reads == "items"
                          else reader.elements(alt, query))
            except (PageError, InvalidSelector) as exc:
                return _read_failure(session, exc, alt)
            if result.n > 0:
                break
        obs = replace(self.judge_elements(result, used), seq=result.seq)
        return replace(obs, quiet_ms=quiet_ms_of(self.row.settles, result.quiet)) if result.quiet else obs

    # --- judging a read (pure) --------------------------------------------------------------------

    def judge_url(self, url: str) -> _Read:
        return self.row.judge(self, url)

    def judge_beacons(self, beacons: list[Beacon]) -> _Read:
        return self.row.judge(self, beacons)

    def judge_elements(self, read: ElementRead | ItemsRead, used: str) -> _Read:
        return self.row.judge(self, read, used)

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
    probe = _Probe(expect, scope)
    if probe.row.reads != "page":
        raise ValueError(f"expect {expect.kind} is not a page kind")
    verdict = probe.row.judge(probe, read)
    return verdict.ok, probe.expected, verdict.observed


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
               clock: Callable[[], float] = time.monotonic) -> EarlyRead:
    """Take the first read of a later check now (batched stabilization, see `run_check`; `stabilize`:
    that check's, so that the read carries what its stability needs).

    Raises BrowserCrashed like a read would.
    """
    probe = _Probe(expect, scope, quiet=stabilize is not None and bounded(stabilize).stable_reads > 1)
    started = clock()
    obs = probe.read(session)
    return EarlyRead(expect, scope, obs, started, clock())


def run_check(session: PageSession, expect: Expect, *, scope: str | None, timeout_ms: int,
              stabilize: Stabilize, clock: Callable[[], float] = time.monotonic,
              early: EarlyRead | None = None, while_waiting: Callable[[], None] | None = None,
              quiet: bool = True, mend: Callable[[], str | None] | None = None) -> CheckResult:
    """Evaluate `expect` (its {{vars}} already substituted) verify-until-stable; see the module doc.

    Batched stabilization: consecutive checks share one interval instead of paying one each.
    `while_waiting` runs once, during this check's first interval, and is where the caller takes
    the first reads of the checks that follow (`read_ahead`); such a check gets its `EarlyRead` as
    `early`, counts it as its first fresh read (it was taken after the previous step finished and
    at most `window_ms` ago, or it is dropped), and takes its next read no sooner than
    `interval_ms` after it. Every check still rests on `stable_reads` fresh reads at least one
    interval apart.

    Stability without the wait: with `stable_reads` 2 or more, each read also asks how long the
    page had been still (browser/probe.py `fw.quiet`). A matching read of a page that had not
    changed, in the way its kind depends on (`Kind.settles`), for the intervals the missing reads
    would span passes at once: the state it read held over those intervals, which is what the
    consecutive reads show. A matching read of a page that changed more recently is followed by
    one read as soon as the record could show the intervals if the page stays still (the interval
    less how long it had been still), which passes when it does; that early read never counts as
    one of the consecutive reads, and a mismatch in it starts them again. A beacon check passes on
    its first matching read: the captured beacons only grow, so a second read could only agree.
    `CheckResult.stability` says which way a pass was shown. `quiet=False` always takes the reads
    (the differential tests compare the two).

    `mend` (walk/healing.py `Mender`): asked after each fresh read that found no element, until it
    gives a mended selector; the check then goes on with that selector at once (its reads start
    again), without waiting for the next interval.

    Raises BrowserCrashed when the browser or the page's renderer died during the check.
    """
    st = bounded(stabilize)
    probe = _Probe(expect, scope, quiet=quiet and st.stable_reads > 1)
    started = clock()
    deadline = started + max(int(timeout_ms), 0) / 1000
    window_end: float | None = None
    interval_s = st.interval_ms / 1000
    reads = streak = rechecks = 0
    #: when the last read that counted towards the streak started: the next one comes one interval
    #: after it (RFC 010: consecutive reads at least one interval apart)
    counted_at = 0.0
    #: this read came early, when the page's record could show the interval(s): it counts only
    #: by that record, never towards the streak
    read_early = False
    #: an early read was already asked for since the last counted read (one per interval)
    early_asked = False
    pending: EarlyRead | None = None
    if (early is not None and early.expect == expect and early.scope == scope
            and started - early.ended <= st.window_ms / 1000):
        pending = early
        started = early.started
    hook = while_waiting
    while True:
        if pending is not None:
            read_started, obs, now, pending = pending.started, pending.obs, pending.ended, None
        else:
            read_started = clock()
            obs = probe.read(session)
            now = clock()
        reads += 1
        # a matching read's record of stillness: how much longer (s) the page must stay still for
        # the record alone to show the interval(s) (None: the record cannot show it)
        still_left_s: float | None = None
        stale = (now - read_started) * 1000 > st.stale_ms
        if obs.fatal:
            break
        if obs.ok is True and not stale:
            if obs.stability == "recorded":
                # what it read only grows (captured beacons): a matching read stays matching
                return CheckResult(True, reads, probe.expected, obs.observed, None, (clock() - started) * 1000,
                                   obs.selector, stability="recorded")
            if streak == 0 or not read_early:
                streak += 1
                counted_at = read_started
                early_asked = False
            if streak >= st.stable_reads:
                return CheckResult(True, reads, probe.expected, obs.observed, None, (clock() - started) * 1000,
                                   obs.selector)
            # the reads still missing would only show what the page's own record shows already:
            # nothing that this check reads changed over the intervals before this read
            needed_ms = (st.stable_reads - streak) * st.interval_ms
            if obs.quiet_ms is not None and obs.quiet_ms >= needed_ms:
                return CheckResult(True, reads, probe.expected, obs.observed, None, (clock() - started) * 1000,
                                   obs.selector, stability="quiet", quiet_ms=round(obs.quiet_ms, 1))
            if obs.quiet_ms is not None and not early_asked:
                # the record was taken within this read: if the page stays still, a read this much
                # later shows the whole interval(s), sooner than the next counted read would (one
                # such read per interval: a page that changed again is read on the cadence)
                still_left_s = (needed_ms - obs.quiet_ms + 1) / 1000
                early_asked = True
        elif obs.ok is False and not stale:
            streak = 0
            early_asked = False
            if mend is not None and not obs.found and not obs.fatal:
                mended = mend()
                if mended is not None:
                    expect, mend = replace(expect, selector=mended), None
                    probe = _Probe(expect, scope, quiet=probe.quiet)
                    continue
        # an inconclusive or stale read neither confirms nor refutes: the streak stays as it was
        if now >= deadline and reads >= st.stable_reads:
            if window_end is None:
                window_end = deadline + st.window_ms / 1000
            conclusive = obs.ok is False and not stale
            if conclusive or rechecks >= st.max_rechecks or now + interval_s > window_end:
                break
            rechecks += 1
        if hook is not None:
            run_hook: Callable[[], None] = hook
            hook = None
            run_hook()
        # reads keep a cadence of one interval, start to start: a check that passes at once costs
        # a single read plus one interval (issue #3), and reads that could confirm each other never
        # come closer than the interval; with the page's record, the read that the record makes
        # enough comes as soon as the record can make it so
        left_ms = ((counted_at if streak else read_started) + interval_s - clock()) * 1000
        early_ms = None if still_left_s is None else (now + still_left_s - clock()) * 1000
        read_early = early_ms is not None and early_ms < left_ms
        if early_ms is not None and read_early:
            left_ms = early_ms
        if now < deadline and (st.stable_reads == 1 or streak + 1 < st.stable_reads):
            # the read at the deadline: each wait overruns its timer a little, and over 50 reads
            # that added up to 0.1 s past the timeout the user set
            left_ms = min(left_ms, (deadline - clock()) * 1000)
        # (a wait for a change keeps the interval itself, from the read's own time in the page: it
        # is asked even when this read took longer than the interval, or a slow read would be
        # followed by another at once, the cadence it replaces)
        if not _until_changed(session, probe, obs, stale, deadline, clock, st) and left_ms > 0:
            session.wait(left_ms)
    observed, code, frame = _final_observed(obs, stale, streak, st), _code(probe, obs, stale), None
    question = None if stale else probe.frame_question(obs)
    if question is not None:
        frame = _look_in_frames(session, probe, question, clock)
        if frame is not None:
            # the page has it, only where the spec cannot reach: not the site's fault
            code = "ELEMENT_NOT_FOUND"
            observed = _clip(f"{observed}; only inside the frame {frame}", 300)
    return CheckResult(False, reads, probe.expected, observed, code, (clock() - started) * 1000, obs.selector,
                       frame, diff=obs.diff if obs.ok is False and not stale else "", found=obs.found)


def _until_changed(session: PageSession, probe: _Probe, obs: _Read, stale: bool, deadline: float,
                   clock: Callable[[], float], st: Stabilize) -> bool:
    """After a read of a single-read check (`stable_reads` 1: flows) that did not match, wait for
    the page to change instead of for the clock. What an element read looks at (`Kind.settles`
    "dom" or "render") cannot change unless the page's record counts a change (browser/probe.py
    `PageReader.changed`: a mutation, an input, a stylesheet, image or font that loaded, an animation that
    started), so a read before one only repeats the answer. The next read comes at the first
    change but never sooner than one interval after this read (a page that keeps changing is read
    on the usual cadence, never more often), and at the latest at the deadline or after
    CHANGE_WAIT_MAX_MS. Checks of RFC 010 (two reads or more) keep its cadence exactly.

    False when it did not wait: another kind or setting, a read that matched, no time left before
    the deadline, or a page without the record."""
    if (st.stable_reads != 1 or obs.ok is not False or stale or obs.seq is None
            or probe.row.settles not in ("dom", "render")):
        return False
    cap_ms = min(CHANGE_WAIT_MAX_MS, (deadline - clock()) * 1000)
    if cap_ms <= 0:
        return False
    try:
        return session.reader.changed(obs.seq, gap_ms=st.interval_ms, cap_ms=cap_ms) is not None
    except PageError as exc:
        _read_failure(session, exc, None)   # BrowserCrashed when the browser is gone
        return True   # the page navigated or its document went: that is a change, read again


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
        frames = session.reader.child_frames(FRAME_LOOK_MAX)
    except PageError:
        return None
    for frame in frames:
        if clock() >= end:
            break
        try:
            if frame.detached() or not has(frame):
                continue
        except PageError as exc:
            crash = crash_of(exc, session)
            if crash is not None:
                raise crash from exc
            continue
        return _frame_label(frame)
    return None


def _look_in_frames(session: PageSession, probe: _Probe, question: str,
                    clock: Callable[[], float]) -> str | None:
    """The frame where the failed check's text is shown ('text': the check would pass there) or its
    selector matches ('element'); see `look_in_frames`."""

    def has(frame: Reader) -> bool:
        obs = probe.read_elements(session, frame)
        if obs.fatal or obs.ok is None:
            return False
        return bool(obs.ok) if question == "text" else obs.found

    return look_in_frames(session, has, clock=clock)


def _final_observed(obs: _Read, stale: bool, streak: int, st: Stabilize) -> str:
    if obs.ok is True and not stale:
        return _clip(f"{obs.observed} (not stable: matched {streak} of {st.stable_reads} consecutive reads)", 300)
    if stale and obs.ok is not None:
        return _clip(f"{obs.observed} (stale: the read took longer than {st.stale_ms} ms)", 300)
    return obs.observed


def _code(probe: _Probe, obs: _Read, stale: bool) -> str:
    if obs.fatal:
        # a selector that does not parse; a regex that does not compile (the loaders refuse those)
        return "ELEMENT_NOT_FOUND" if obs.selector is not None else "UNKNOWN"
    if obs.ok is None or stale or obs.ok is True:
        return "TIMEOUT"
    if not obs.found and probe.kind in NEEDS_ELEMENT:
        return "ELEMENT_NOT_FOUND"
    return "EXPECT_STATE_MISMATCH"
