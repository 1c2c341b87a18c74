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

Each read is one round trip: `page.evaluate` for the URL, one `evaluate_all` over a selector's
matches for element kinds (one more per pipe alternative that matches nothing), none for beacons
beyond delivering pending events. Element reads that look at "the element" (enabled, checked,
input value, attribute) use the first match in document order; text and visibility kinds pass
when any match does.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, fields, replace
from typing import Any, Callable

from flowwalk.browser.errors import PlaywrightError, first_line, is_invalid_selector
from flowwalk.browser.locate import scoped, split_pipe
from flowwalk.browser.network import matching_beacons, normalize_vendor
from flowwalk.browser.session import PageSession
from flowwalk.model import EXPECT_KINDS, Expect, Stabilize
from flowwalk.walk.boundary import crash_of

__all__ = ["CheckResult", "EarlyRead", "run_check", "read_ahead", "bounded", "look_in_frames"]

OBSERVED_LIMIT = 200
#: a failed check looks in at most this many child frames, for at most this long (on failure only)
FRAME_LOOK_MAX = 4
FRAME_LOOK_MS = 1000
#: kinds that read a state from an element: nothing matching the selector is ELEMENT_NOT_FOUND
NEEDS_ELEMENT = ("text_contains", "has_text", "text_matches", "visible", "enabled", "disabled", "checked",
                 "unchecked", "attribute", "input_value")
_URL_KINDS = ("url_contains", "url_not_contains", "url_matches")
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


@dataclass(frozen=True)
class _Read:
    """One observation. `ok` None: inconclusive (no usable snapshot); `fatal`: retrying cannot help."""

    ok: bool | None
    observed: str
    found: bool = True
    fatal: bool = False
    selector: str | None = None


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


# --- reading the page ---------------------------------------------------------------------------

# One function for every element kind: it runs over all matches of one selector in one round trip
# and returns only what the kind needs (booleans and short snippets, not whole pages of text).
_ELEMENT_JS = r"""
(els, a) => {
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const textOf = (e) => norm(e instanceof HTMLElement ? e.innerText : e.textContent);
  const clip = (t) => (t.length > 240 ? t.slice(0, 240) : t);
  const around = (t, at, len) => {
    const start = Math.max(0, at - 60);
    return (start > 0 ? '… ' : '') + t.slice(start, Math.min(t.length, at + len + 140));
  };
  const isVisible = (e) => {
    if (!e.isConnected) return false;
    const style = getComputedStyle(e);
    if (style.display === 'contents') {
      for (const c of e.children) if (isVisible(c)) return true;
      return false;
    }
    if (style.visibility !== 'visible') return false;
    if (typeof e.checkVisibility === 'function' && !e.checkVisibility()) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const isDisabled = (e) => {
    try { if (e.matches(':disabled')) return true; } catch (x) { /* not a form element */ }
    return !!e.closest('[aria-disabled="true"]');
  };
  const checkedOf = (e) => {
    if (e instanceof HTMLInputElement && (e.type === 'checkbox' || e.type === 'radio')) return e.checked ? 'checked' : 'unchecked';
    const aria = e.getAttribute('aria-checked');
    if (aria === 'true') return 'checked';
    if (aria === 'false') return 'unchecked';
    if (aria === 'mixed') return 'mixed';
    return 'not checkable';
  };
  const n = els.length;
  const first = els[0];
  switch (a.k) {
    case 'text_contains':
    case 'text_not_contains': {
      // each element's text is computed once per read: innerText lays the page out
      const needle = norm(a.v).toLowerCase();
      let firstText = '';
      for (let i = 0; i < n; i++) {
        const t = textOf(els[i]);
        if (i === 0) firstText = t;
        const at = t.toLowerCase().indexOf(needle);
        if (at >= 0) return { n, hit: true, text: around(t, at, needle.length) };
      }
      return { n, hit: false, text: clip(firstText) };
    }
    case 'has_text': {
      const want = norm(a.v);
      let firstText = '';
      for (let i = 0; i < n; i++) {
        const t = textOf(els[i]);
        if (i === 0) firstText = t;
        if (t === want) return { n, hit: true, text: clip(t) };
      }
      return { n, hit: false, text: clip(firstText) };
    }
    case 'text_matches':
      return { n, texts: els.slice(0, 20).map((e) => textOf(e).slice(0, 200000)) };
    case 'visible':
    case 'hidden': {
      let visible = 0;
      for (const e of els) if (isVisible(e)) visible++;
      return { n, visible };
    }
    case 'enabled':
    case 'disabled':
      return { n, disabled: n ? isDisabled(first) : null, tag: n ? first.tagName.toLowerCase() : '' };
    case 'checked':
    case 'unchecked':
      return { n, checked: n ? checkedOf(first) : null };
    case 'input_value':
      return { n, value: n && 'value' in first && typeof first.value === 'string' ? first.value : null,
               tag: n ? first.tagName.toLowerCase() : '' };
    case 'attribute':
      return { n, value: n ? first.getAttribute(a.a) : null };
    default:
      return { n };
  }
}
"""

_TRANSIENT = re.compile(r"Execution context was destroyed|navigat|Cannot find context|frame was detached|"
                        r"Frame has been detached|context .*destroyed", re.IGNORECASE)


def _playwright_failure(session: PageSession, exc: PlaywrightError, selector: str | None) -> _Read:
    crash = crash_of(exc, session)
    if crash is not None:
        raise crash from exc
    if selector is not None and is_invalid_selector(exc):
        return _Read(None, f"invalid selector '{selector}': {first_line(exc)}", found=False, fatal=True,
                     selector=selector)
    why = "the page was navigating" if _TRANSIENT.search(str(exc)) else first_line(exc)
    return _Read(None, f"no fresh read: {why}", selector=selector)


class _Probe:
    """What one expect reads and how it judges a read; built once per check."""

    def __init__(self, expect: Expect, scope: str | None):
        self.expect = expect
        self.kind = expect.kind
        if self.kind not in EXPECT_KINDS:
            raise ValueError(f"unknown expect kind '{self.kind}'")
        self.scope = scope
        written = expect.selector
        if written is None and self.kind in ("text_contains", "text_not_contains", "text_matches"):
            # the default element is the page body, or the scope element itself inside a child scope
            self.target = scope if scope else "body"
            self.label = f"'{scope}'" if scope else "body"
        else:
            self.target = scoped(written or "", scope) if written else ""
            self.label = _q(written) + (f" within '{scope}'" if scope and written else "")
        self.alternatives = split_pipe(self.target) or ([self.target] if self.target else [])
        self.pattern = expect.pattern
        self.regex_error: str | None = None
        if self.kind in ("url_matches", "text_matches") and self.pattern is None:
            try:
                self.pattern = re.compile(expect.value or "")
            except re.error as exc:
                self.regex_error = f"invalid regular expression {_q(expect.value)}: {exc}"
        self.expected = self._expected()

    # expected strings are for people: what the spec asked, in words
    def _expected(self) -> str:
        e, k, v = self.expect, self.kind, self.expect.value or ""
        where = "" if self.label == "body" else f" in {self.label}"
        if k == "url_contains":
            return f"URL containing {_q(v)}"
        if k == "url_not_contains":
            return f"URL not containing {_q(v)}"
        if k == "url_matches":
            return f"URL matching /{self.pattern.pattern if self.pattern else v}/"
        if k == "beacon":
            vendor = normalize_vendor(e.vendor or "") or (e.vendor or "")
            return f"a {vendor} beacon" + (f" with event {_q(e.event)}" if e.event else "")
        if k == "text_contains":
            return f"text containing {_q(v)}{where}"
        if k == "text_not_contains":
            return f"text not containing {_q(v)}{where}"
        if k == "has_text":
            return f"text exactly {_q(' '.join(v.split()))}{where}"
        if k == "text_matches":
            return f"text matching /{self.pattern.pattern if self.pattern else v}/{where}"
        if k == "count":
            words = _OPS.get(e.op, _OPS["eq"])[0]
            return f"{words} {e.count} element(s) matching {self.label}"
        if k == "selector_exists":
            return f"an element matching {self.label}"
        if k == "selector_absent":
            return f"no element matching {self.label}"
        if k == "hidden":
            return f"{self.label} hidden or absent"
        if k in ("visible", "enabled", "disabled", "checked", "unchecked"):
            return f"{self.label} {k}"
        if k == "attribute":
            if e.value is None:
                return f"{self.label} with attribute {e.attr}"
            if e.match == "contains":
                return f"{self.label} attribute {e.attr} containing {_q(v)}"
            return f"{self.label} attribute {e.attr}={_q(v)}"
        if k == "input_value":
            return f"{self.label} value {_q(v)}"
        return k  # pragma: no cover - every kind is listed above

    # --- reads ----------------------------------------------------------------------------------

    def read(self, session: PageSession) -> _Read:
        if self.regex_error:
            return _Read(None, self.regex_error, fatal=True)
        if self.kind in _URL_KINDS:
            return self._read_url(session)
        if self.kind == "beacon":
            return self._read_beacons(session)
        return self._read_elements(session)

    def _read_url(self, session: PageSession) -> _Read:
        try:
            url = str(session.page.evaluate("() => location.href"))
        except PlaywrightError as exc:
            return _playwright_failure(session, exc, None)
        v = self.expect.value or ""
        if self.kind == "url_contains":
            ok = v in url
        elif self.kind == "url_not_contains":
            ok = v not in url
        else:
            assert self.pattern is not None
            ok = self.pattern.search(url) is not None
        return _Read(ok, f"URL: {_q(_clip(url, 300))}")

    def _read_beacons(self, session: PageSession) -> _Read:
        try:
            session.pump()   # deliver request events already on the wire before reading the list
        except PlaywrightError as exc:
            failure = _playwright_failure(session, exc, None)
            if failure.fatal:
                return failure
        beacons = list(session.beacons)
        vendor, event = self.expect.vendor or "", self.expect.event
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

    def _read_elements(self, session: PageSession, frame: Any = None) -> _Read:
        """One read of the main frame (or of `frame`, a child frame: see `_look_in_frames`)."""
        arg = {"k": self.kind, "v": self.expect.value or "", "a": self.expect.attr or ""}
        used = self.alternatives[0] if self.alternatives else ""
        result: dict[str, Any] = {"n": 0}
        where = session.page if frame is None else frame
        for alt in self.alternatives:
            used = alt
            try:
                result = where.locator(alt).evaluate_all(_ELEMENT_JS, arg)
            except PlaywrightError as exc:
                return _playwright_failure(session, exc, alt)
            if result.get("n", 0) > 0:
                break
        return self._judge(result, used)

    def read_frame(self, session: PageSession, frame: Any) -> _Read:
        """One read of a child frame, judged like a read of the main frame."""
        return self._read_elements(session, frame)

    def frame_question(self, obs: _Read) -> str | None:
        """What a failed final read could have found in a child frame: 'text' (a page-text check
        that found no such text), 'element' (the selector matched nothing), or None (the main
        frame answered the question, or the kind does not read the page's elements)."""
        if obs.ok is not False or obs.fatal or self.kind in _URL_KINDS or self.kind == "beacon":
            return None
        if self.expect.selector is None and self.scope is None and self.kind in ("text_contains", "text_matches"):
            return "text"
        if not obs.found and self.target:
            return "element"
        return None

    def _judge(self, r: dict[str, Any], used: str) -> _Read:
        k, e = self.kind, self.expect
        n = int(r.get("n", 0))
        label = self.label if len(self.alternatives) < 2 else f"'{used}'"

        def missing() -> _Read:
            tried = f" (tried {', '.join(repr(a) for a in self.alternatives)})" if len(self.alternatives) > 1 else ""
            return _Read(False, f"no element matches {self.label}{tried}", found=False, selector=used)

        if k == "count":
            compare = _OPS.get(e.op, _OPS["eq"])[1]
            return _Read(compare(n, int(e.count or 0)), f"{n} element(s) match {label}", found=n > 0,
                         selector=used)
        if k == "selector_exists":
            return _Read(n > 0, f"{n} element(s) match {label}" if n else f"no element matches {self.label}",
                         found=n > 0, selector=used)
        if k == "selector_absent":
            return _Read(n == 0, f"{n} element(s) match {label}" if n else f"no element matches {self.label}",
                         selector=used)
        if k == "hidden":
            visible = int(r.get("visible", 0))
            if n == 0:
                return _Read(True, f"no element matches {self.label}", selector=used)
            return _Read(visible == 0, f"{visible} of {n} match(es) of {label} visible", selector=used)
        if k == "text_not_contains":
            if n == 0:
                return _Read(True, f"no element matches {self.label}", selector=used)
            text = str(r.get("text", ""))
            return _Read(not r.get("hit"), f"{label} text: {_q(_clip(text))}", selector=used)
        if n == 0:
            return missing()
        if k in ("text_contains", "has_text"):
            text = str(r.get("text", ""))
            many = f" (first of {n})" if n > 1 and not r.get("hit") else ""
            return _Read(bool(r.get("hit")), f"{label} text{many}: {_q(_clip(text))}", selector=used)
        if k == "text_matches":
            texts = [str(t) for t in r.get("texts", [])]
            assert self.pattern is not None
            for t in texts:
                m = self.pattern.search(t)
                if m:
                    start = max(0, m.start() - 60)
                    return _Read(True, f"{label} text: {_q(_clip(t[start:start + 200]))}", selector=used)
            return _Read(False, f"{label} text: {_q(_clip(texts[0] if texts else ''))}", selector=used)
        if k == "visible":
            visible = int(r.get("visible", 0))
            state = f"{visible} of {n} match(es) visible" if n > 1 else ("visible" if visible else "hidden")
            return _Read(visible > 0, f"{label} {state}", selector=used)
        if k in ("enabled", "disabled"):
            disabled = bool(r.get("disabled"))
            return _Read(disabled == (k == "disabled"), f"{label} {'disabled' if disabled else 'enabled'}",
                         selector=used)
        if k in ("checked", "unchecked"):
            state = str(r.get("checked"))
            return _Read(state == k, f"{label} {state}", selector=used)
        if k == "input_value":
            value = r.get("value")
            if value is None:
                return _Read(False, f"{label} is a <{r.get('tag')}>, which has no input value", selector=used)
            return _Read(value == (e.value or ""), f"{label} value: {_q(_clip(str(value)))}", selector=used)
        if k == "attribute":
            value = r.get("value")
            if value is None:
                return _Read(False, f"{label} has no attribute {e.attr}", selector=used)
            if e.value is None:
                ok = True
            elif e.match == "contains":
                ok = e.value in value
            else:
                ok = value == e.value
            return _Read(ok, f"{label} {e.attr}={_q(_clip(str(value)))}", selector=used)
        raise ValueError(f"unhandled expect kind '{k}'")  # pragma: no cover


# --- the stabilization loop ---------------------------------------------------------------------


@dataclass(frozen=True)
class EarlyRead:
    """A check's first read, taken ahead of its step (see `read_ahead`): when it was taken and what it saw."""

    expect: Expect
    scope: str | None
    obs: _Read
    started: float
    ended: float


def read_ahead(session: PageSession, expect: Expect, *, scope: str | None,
               clock: Callable[[], float] = time.monotonic) -> EarlyRead:
    """Take the first read of a later check now (batched stabilization, see `run_check`).

    Raises BrowserCrashed like a read would.
    """
    probe = _Probe(expect, scope)
    started = clock()
    obs = probe.read(session)
    return EarlyRead(expect, scope, obs, started, clock())


def run_check(session: PageSession, expect: Expect, *, scope: str | None, timeout_ms: int,
              stabilize: Stabilize, clock: Callable[[], float] = time.monotonic,
              early: EarlyRead | None = None, while_waiting: Callable[[], None] | None = None) -> CheckResult:
    """Evaluate `expect` (its {{vars}} already substituted) verify-until-stable; see the module doc.

    Batched stabilization: consecutive checks share one interval instead of paying one each.
    `while_waiting` runs once, during this check's first interval, and is where the caller takes
    the first reads of the checks that follow (`read_ahead`); such a check gets its `EarlyRead` as
    `early`, counts it as its first fresh read (it was taken after the previous step finished and
    at most `window_ms` ago, or it is dropped), and takes its next read no sooner than
    `interval_ms` after it. Every check still rests on `stable_reads` fresh reads at least one
    interval apart.

    Raises BrowserCrashed when the browser or the page's renderer died during the check.
    """
    st = bounded(stabilize)
    probe = _Probe(expect, scope)
    started = clock()
    deadline = started + max(int(timeout_ms), 0) / 1000
    window_end: float | None = None
    interval_s = st.interval_ms / 1000
    reads = streak = rechecks = 0
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
        stale = (now - read_started) * 1000 > st.stale_ms
        if obs.fatal:
            break
        if obs.ok is True and not stale:
            streak += 1
            if streak >= st.stable_reads:
                return CheckResult(True, reads, probe.expected, obs.observed, None, (clock() - started) * 1000,
                                   obs.selector)
        elif obs.ok is False and not stale:
            streak = 0
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
        # come closer than the interval
        left_ms = (read_started + interval_s - clock()) * 1000
        if now < deadline and (st.stable_reads == 1 or streak + 1 < st.stable_reads):
            # the read at the deadline: each wait overruns its timer a little, and over 50 reads
            # that added up to 0.1 s past the timeout the user set
            left_ms = min(left_ms, (deadline - clock()) * 1000)
        if left_ms > 0:
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
                       frame)


def _frame_label(frame: Any) -> str:
    try:
        name, url = str(frame.name or ""), str(frame.url or "")
    except Exception:  # noqa: BLE001 - a frame that went away has no name
        return "(detached)"
    shown = _clip(url, 160) or "about:blank"
    return f"'{_clip(name, 60)}' ({shown})" if name else f"at {shown}"


def look_in_frames(session: PageSession, has: Callable[[Any], bool], *, budget_ms: float = FRAME_LOOK_MS,
                   clock: Callable[[], float] = time.monotonic) -> str | None:
    """The label (name and URL) of the first child frame, in document order, for which `has(frame)`
    is true; None when none is. At most FRAME_LOOK_MAX frames are asked, and no new one once
    `budget_ms` (at most FRAME_LOOK_MS) has passed. For failure paths only: checks here, and the
    walker's acts whose target the main frame does not have.

    `has` asks one frame and may raise a PlaywrightError (that frame is skipped). Never raises a
    page error; a crashed browser or renderer still raises BrowserCrashed.
    """
    end = clock() + max(min(budget_ms, FRAME_LOOK_MS), 0) / 1000
    try:
        frames = [f for f in session.page.frames if f.parent_frame is not None][:FRAME_LOOK_MAX]
    except PlaywrightError:
        return None
    for frame in frames:
        if clock() >= end:
            break
        try:
            if frame.is_detached() or not has(frame):
                continue
        except PlaywrightError as exc:
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

    def has(frame: Any) -> bool:
        obs = probe.read_frame(session, frame)
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
