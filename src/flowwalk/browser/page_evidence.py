"""What a failure report shows about a session's page: screenshots (secrets painted over), the aria
snapshot, the title, where the last click landed, and the records kept from the page's events.

`PageEvidence` is the part of `PageSession` a failure asks. Every method is best effort: it never
raises, and each call to the page has its own bound. Where clicks land: one init script
(`CONTEXT_SCRIPT`) notes, for the last trusted `pointerdown` and `click` of each document, what
the event reached (tag, id, a few classes, data-testid, the start of its text) and when. It only
listens (capture phase on `window`, passive) and never throws; nothing reads it on the passing
path. `last_click()` reads it in one bounded call.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from flowwalk.browser.errors import first_line, is_timeout
from flowwalk.browser.probe import QUIET_INIT_JS

if TYPE_CHECKING:
    from playwright.sync_api import Page

__all__ = ["CONTEXT_SCRIPT", "LAST_CLICK_TIMEOUT_MS", "MARK_SECRETS_JS", "MASK_ATTRIBUTE", "PageEvidence",
           "SNAPSHOT_LIMIT", "UNMARK_SECRETS_JS"]

#: the attribute that marks an element to paint over in a screenshot (browser/capture.py's too)
MASK_ATTRIBUTE = "data-flowwalk-secret"
#: marks the fields whose value, and the elements whose own text, hold a secret (in every open
#: shadow root too); returns how many it marked
MARK_SECRETS_JS = """(secrets) => {
  let marked = 0;
  const holds = (text) => !!text && secrets.some((s) => text.includes(s));
  const mark = (el) => { if (!el.hasAttribute('%s')) { el.setAttribute('%s', ''); marked++; } };
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (('value' in el && typeof el.value === 'string' && holds(el.value))
          || Array.from(el.childNodes).some((n) => n.nodeType === 3 && holds(n.nodeValue))
          || holds(el.getAttribute('title')) || holds(el.getAttribute('placeholder'))) mark(el);
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  visit(document);
  return marked;
}""" % (MASK_ATTRIBUTE, MASK_ATTRIBUTE)
UNMARK_SECRETS_JS = """() => { for (const el of document.querySelectorAll('[%s]')) el.removeAttribute('%s'); }""" % (
    MASK_ATTRIBUTE, MASK_ATTRIBUTE)

#: the window property the click recorder keeps its record in: non-enumerable, read-only, and a
#: name no site uses
_CLICK_RECORD = "__flowwalk_click_record_5c3e81"
#: runs first in every document of the context (add_init_script). For the last trusted pointerdown
#: and click it keeps a short description of the target and Date.now() (the function as it was
#: before any page script could replace it), and a weak reference to the element, so a failure can
#: compare it with the intended one. Listens only: passive, capture phase, never throws.
_RECORD_CLICKS = """(() => {
  try {
    const name = '%s';
    if (Object.prototype.hasOwnProperty.call(window, name)) return;
    const record = Object.create(null);
    record.pointerdown = null;
    record.click = null;
    Object.defineProperty(window, name, { value: record, enumerable: false, configurable: false, writable: false });
    const now = Date.now;
    const Ref = typeof WeakRef === 'function' ? WeakRef : null;
    const clip = (text, n) => (typeof text === 'string' && text.length > n ? text.slice(0, n - 1) + '\\u2026' : text);
    const textOf = (el) => {
      let out = '';
      try {
        const walker = (el.ownerDocument || document).createTreeWalker(el, 4);
        let seen = 0, node;
        while (out.length <= 80 && seen < 200 && (node = walker.nextNode())) {
          seen++;
          const parent = node.parentElement;
          if (parent && (parent.localName === 'script' || parent.localName === 'style')) continue;
          out = (out + ' ' + String(node.nodeValue || '').slice(0, 200)).replace(/\\s+/g, ' ');
        }
      } catch (e) { /* an unusual node: no text */ }
      return clip(out.trim(), 80);
    };
    const note = (type) => (event) => {
      try {
        if (!event.isTrusted) return;
        let el = event.target;
        if (el && el.nodeType !== 1) el = el.parentElement || el;
        const entry = { t: now.call(Date), tag: '', id: '', classes: [], testid: '', text: '', ref: null };
        if (el && el.nodeType === 1) {
          entry.tag = String(el.localName || el.nodeName || '').toLowerCase();
          entry.id = clip(el.id || '', 60);
          entry.classes = Array.prototype.slice.call(el.classList || [], 0, 3).map((c) => clip(c, 40));
          entry.testid = clip(el.getAttribute('data-testid') || '', 60);
          entry.text = textOf(el);
          entry.ref = Ref ? new Ref(el) : null;
        } else {
          entry.tag = el && el.nodeName ? String(el.nodeName).toLowerCase() : 'window';
        }
        record[type] = entry;
      } catch (e) { /* never disturb the page */ }
    };
    window.addEventListener('pointerdown', note('pointerdown'), { capture: true, passive: true });
    window.addEventListener('click', note('click'), { capture: true, passive: true });
  } catch (e) { /* never disturb the page */ }
})();""" % _CLICK_RECORD
#: the init script every scenario context carries; `Browser` adds it to the contexts it opens
#: ahead of their scenario. Every context's init script: the click recorder, and the record of
#: when the page last changed (browser/probe.py QUIET_INIT_JS)
CONTEXT_SCRIPT = _RECORD_CLICKS + "\n" + QUIET_INIT_JS
#: reads the record (one call, failure path only). With a CSS selector it also says whether each
#: target is inside an element the selector matches now (or inside the button or link around it,
#: which is what Playwright's click aims at); `in_pointerdown` says whether the click reached the
#: element that took the mouse-down (or one inside it).
_READ_CLICKS = """/* flowwalk: where the last click landed */ (root, selector) => {
  const record = window['%s'];
  if (!record) return null;
  let zones = null, invalid = false;
  if (selector) {
    try {
      zones = Array.from(document.querySelectorAll(selector))
        .map((m) => m.closest('button, [role=button], a, [role=link]') || m);
    } catch (e) { invalid = true; }
  }
  const element = (entry) => {
    try { return entry && entry.ref ? entry.ref.deref() || null : null; } catch (e) { return null; }
  };
  const show = (entry) => {
    if (!entry) return null;
    const el = element(entry);
    const out = { t: entry.t, tag: entry.tag, id: entry.id, classes: entry.classes.slice(), testid: entry.testid,
                  text: entry.text, connected: !!(el && el.isConnected) };
    if (zones && zones.length && out.connected) out.inside = zones.some((z) => z === el || z.contains(el));
    return out;
  };
  const down = element(record.pointerdown), hit = element(record.click);
  return { click: show(record.click), pointerdown: show(record.pointerdown),
           in_pointerdown: down && hit ? (down === hit || down.contains(hit)) : null,
           matches: zones ? zones.length : null, invalid_selector: invalid };
}""" % _CLICK_RECORD
#: the most a read of the click record may take
LAST_CLICK_TIMEOUT_MS = 1_000

#: aria snapshots go into failure evidence; a whole page's tree can be megabytes
SNAPSHOT_LIMIT = 20_000


class PageEvidence:
    """Failure evidence of one session (see the module docstring)."""

    page: "Page"
    _closed: bool
    console: "deque[str]"
    page_errors: "deque[str]"
    console_error_count: int
    network: "deque[dict[str, Any]]"
    blocked: list[dict[str, Any]]
    dialogs: list[dict[str, Any]]
    popups: list[dict[str, Any]]

    if TYPE_CHECKING:
        @property
        def crashed(self) -> bool: ...

    def screenshot(self, path: Path, full_page: bool = False, hide: Sequence[str] = (),
                   timeout_ms: float = 10_000) -> bool:
        """Save a PNG within `timeout_ms`. Never raises: False when it could not (`save_screenshot`
        says why)."""
        return self.save_screenshot(path, full_page, hide, timeout_ms) is None

    def save_screenshot(self, path: Path, full_page: bool = False, hide: Sequence[str] = (),
                        timeout_ms: float = 10_000) -> str | None:
        """Save a PNG within `timeout_ms`: None when it is saved, else why there is none, as a
        sentence a report can show (closed, crashed, out of time, Playwright's first line). Never raises.

        `hide` lists values (the run's secrets) that must not be in the picture: every field
        whose value holds one and every element whose own text holds one is painted over.
        """
        if self._closed:
            return "the page was closed"
        if self.crashed:
            return "the page crashed"
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            masked = self.page.evaluate(MARK_SECRETS_JS, [v for v in hide if v]) if hide else 0
            mask = [self.page.locator(f"[{MASK_ATTRIBUTE}]")] if masked else []
            self.page.screenshot(path=str(path), full_page=full_page, timeout=timeout_ms, mask=mask,
                                 mask_color="#444444")
        except Exception as exc:  # noqa: BLE001 - evidence is best effort
            if is_timeout(exc):
                return (f"the {'full-page ' if full_page else ''}screenshot did not finish within its "
                        f"{timeout_ms / 1000:.1f} s: the page was still drawing (a web font or an image "
                        f"that has not arrived, or a busy main thread)")
            return f"the screenshot failed: {first_line(exc)}"
        finally:
            if hide and not self._closed and not self.crashed:
                try:
                    self.page.evaluate(UNMARK_SECRETS_JS)
                except Exception:  # noqa: BLE001
                    pass
        return None

    def a11y_snapshot(self, selector: str | None = None, limit: int = SNAPSHOT_LIMIT, timeout_ms: float = 5_000) -> str:
        """The aria snapshot of the page (or of a selector's first match), at most `limit` characters,
        taken within `timeout_ms`. '' if none."""
        if self._closed or self.crashed:
            return ""
        from flowwalk.browser.locate import locate

        try:
            if selector:
                found = locate(self.page, selector)
                if found.count == 0:
                    return ""   # evidence never waits for an element that is not there
                locator = found.locator.first
            else:
                locator = self.page.locator("body")
            text = locator.aria_snapshot(timeout=timeout_ms)
        except Exception:  # noqa: BLE001 - evidence is best effort
            return ""
        if len(text) <= limit:
            return text
        cut = text.rfind("\n", 0, limit)
        cut = cut if cut > 0 else limit
        return text[:cut] + f"\n# … truncated ({len(text) - cut} more characters)"

    def title(self, timeout_ms: float = 2_000) -> str:
        """The document's title, '' when the page cannot say within `timeout_ms` (a main thread
        that never yields would hold `page.title()` for as long as it spins)."""
        if self._closed or self.crashed:
            return ""
        try:
            return str(self.page.locator(":root").evaluate("() => document.title", timeout=timeout_ms))
        except Exception:  # noqa: BLE001
            return ""

    def last_click(self, selector: str | None = None,
                   timeout_ms: float = LAST_CLICK_TIMEOUT_MS) -> dict[str, Any] | None:
        """What the last trusted `click` and `pointerdown` of the current document reached, read in
        one call of at most `timeout_ms`. Never raises: None when there is nothing to read (no record
        in this document, a page that does not answer, closed or crashed).

        Each of `click` and `pointerdown` is None or a dict: `t` (the page's Date.now() at the event),
        `tag`, `id`, `classes`, `testid`, `text` (at most 80 characters), `connected` (the element is
        still in the document) and, when `selector` is given and is CSS the page can parse, `inside`
        (the element is inside a current match of `selector`, or inside the button or link around
        one). Also `in_pointerdown` (the click reached the element that took the mouse-down, or one
        inside it; None unless both are known), `matches` (how many elements `selector` matches now,
        None without one) and `invalid_selector` (the page could not parse `selector` as CSS).
        """
        if self._closed or self.crashed:
            return None
        try:
            raw = self.page.locator(":root").evaluate(_READ_CLICKS, selector or None, timeout=timeout_ms)
        except Exception:  # noqa: BLE001 - evidence is best effort
            return None
        return raw if isinstance(raw, dict) else None

    def evidence(self, timeout_ms: float | None = 2_000) -> dict[str, Any]:
        """What a failure report shows about the page: never raises, and asks the page (its title)
        for at most `timeout_ms`, not at all when None; everything else was recorded from events."""
        try:
            url = self.page.url
        except Exception:  # noqa: BLE001
            url = ""
        return {
            "url": url,
            "title": self.title(timeout_ms) if timeout_ms is not None else "",
            "console": list(self.console),
            "page_errors": list(self.page_errors),
            "console_error_count": self.console_error_count,
            "network": [dict(entry) for entry in self.network],
            "blocked": list(self.blocked),
            "dialogs": list(self.dialogs),
            "popups": list(self.popups),
            "crashed": self.crashed,
        }
