"""The page-reading boundary: every read flowwalk takes of a page, typed, with its errors translated.

`PageReader` wraps a Playwright page or frame. Each method is one read (one round trip unless it
says otherwise) and returns a dataclass; each Playwright error it meets leaves translated once
(`browser.errors.translated`: `PageGone`, `TimedOut`, `PageUnreadable`, `InvalidSelector`). What a read
means for a check, a heal or a resolution is judged by the caller (walk/, heal/, discover/), from
these records alone, so the judges are tested from recorded reads without a browser (the
`Reader` protocol is what they need; tests/unit hand them a fake).

Every script flowwalk injects to read a page starts with one prelude, `PRELUDE`, so there is one
answer to each of these questions (a `fw` object in the script):

- **visible** (`fw.visible(e)`): the element is connected, is rendered (the DOM's checkVisibility: no
  `display: none` on it or an ancestor, no `content-visibility: hidden` ancestor), its computed
  `visibility` is `visible`, and its box is not empty. An element with `display: contents` has
  no box of its own: it is visible when one of its children is. This is Playwright's meaning of
  visible (what `locator.is_visible()` and `visible=true` answer), with `checkVisibility` added,
  and what the stabilized checks have always used. `aria-hidden`, `inert` and the `hidden`
  attribute do not enter into it: `hidden` hides through the user agent's `display: none`
  (which `checkVisibility` sees; a stylesheet that shows a `[hidden]` element shows it), and the
  other two hide from assistive technology and input, not from sight.
- **offered** (`fw.offered(e)`): visible, and not inside `aria-hidden="true"` or `inert`: an
  element a person can see and use. The page survey (discover) lists only these.
- **text** (`fw.norm(s)`: runs of whitespace become one space, trimmed; `fw.textOf(e)`: an
  element's rendered `innerText`, or `textContent` for a non-HTML element, normalised).
- **disabled** (`fw.disabled(e)`: `:disabled`, or inside `aria-disabled="true"`).
- **element ids** (`fw.idOf(e)` / `fw.byId(id)`): a number per element, stable for the page's
  life (a WeakMap: the page keeps no references), so reads that find the same element can be
  merged and a later read can find it again.
- **quiet** (`fw.quiet(level)`): how long the page has been still, as `QUIET_INIT_JS` (an init
  script of every context) records it: milliseconds since the last DOM mutation anywhere in the
  document or its shadow roots, the last `input`/`change` event and the last URL change; with
  `level` 'layout' also whether an animation or transition runs and whether the document, its
  fonts and its images have finished loading. A verify-until-stable check reads it to show that
  what it read held over the interval without waiting for a second read (walk/checks.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence, Union

from flowwalk.browser.errors import translating
from flowwalk.browser.locate import locate

if TYPE_CHECKING:
    # the Playwright types the rest of flowwalk names (walk/ imports no Playwright, not even for types)
    from playwright.sync_api import Frame, Locator
    from playwright.sync_api import Page as Page

    #: what a reader reads: a page, or one of its frames
    Where = Union[Page, Frame]
    #: an element an act works on (a Playwright locator)
    Element = Locator

__all__ = ["CSS_PATH_JS", "CSS_POSITION_JS", "CandidatesRead", "ElementQuery", "ElementRead", "FINGERPRINT_JS", "FrameName",
           "ItemsRead", "Match", "PRELUDE", "PROBE_JS", "PageReader", "QUIET_INIT_JS", "Quiet", "Reader", "Seq", "UrlState",
           "gated", "script"]

# --- the scripts ----------------------------------------------------------------------------------

#: the shared start of every read script (see the module docstring)
PRELUDE = r"""
  const fw = (() => {
    const norm = (s) => String(s || '').replace(/\s+/g, ' ').trim();
    const textOf = (e) => norm(e instanceof HTMLElement ? e.innerText : e.textContent);
    const visible = (e) => {
      if (!e || !e.isConnected) return false;
      const style = getComputedStyle(e);
      if (style.display === 'contents') {
        for (const c of e.children) if (visible(c)) return true;
        return false;
      }
      if (style.visibility !== 'visible') return false;
      if (typeof e.checkVisibility === 'function' && !e.checkVisibility()) return false;
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.height > 0;
    };
    const offered = (e) => visible(e) && !e.closest('[aria-hidden="true"], [inert]');
    const disabled = (e) => {
      try { if (e.matches(':disabled')) return true; } catch (x) { /* not a form element */ }
      return !!e.closest('[aria-disabled="true"]');
    };
    // element ids live on the window under a symbol, made by the first read that numbers one
    const key = Symbol.for('flowwalk.resolve.ids');
    const store = () => window[key] || (window[key] = { map: new WeakMap(), next: 1, refs: new Map() });
    const idOf = (e) => {
      const s = store();
      let id = s.map.get(e);
      if (!id) { id = s.next++; s.map.set(e, id); (s.refs || (s.refs = new Map())).set(id, new WeakRef(e)); }
      return id;
    };
    const byId = (id) => {
      const refs = window[key] && window[key].refs;
      const ref = refs && refs.get(id); const e = ref && ref.deref();
      return e && e.isConnected ? e : null;
    };
    const hasId = (e, id) => !!window[key] && window[key].map.get(e) === id;
    const quiet = (level) => {
      const q = window[Symbol.for('flowwalk.quiet')];
      if (!q) return null;
      q.flush();
      const now = performance.now();
      const out = { ms: now - Math.max(q.dom, q.url), url_ms: now - q.url };
      if (level === 'layout') {
        out.animating = document.getAnimations().some((a) => a.playState === 'running');
        out.settled = document.readyState === 'complete' && document.fonts.status === 'loaded'
          && Array.from(document.images).every((i) => i.complete);
      }
      return out;
    };
    // the record's change count at this read, and the page's clock (`PageReader.changed`)
    const seq = () => {
      const q = window[Symbol.for('flowwalk.quiet')];
      if (!q) return null;
      q.flush();
      return { n: q.n, at: performance.now() };
    };
    return { norm, textOf, visible, offered, disabled, idOf, byId, hasId, quiet, seq };
  })();
"""

#: an init script of every context: records when the document last changed, for `fw.quiet` (see the
#: module docstring), and counts every change that could alter a read, for `PageReader.changed`.
#: A MutationObserver on the document and on every open shadow root: those attached by script
#: (`attachShadow` is wrapped at document start, before the page's scripts run) and those the HTML
#: declares (found once the document is parsed, and after `setHTMLUnsafe`), `input` and `change`
#: events (a typed value changes no attribute), the setters and methods a script changes a control's
#: state with (`checked`, `value`, `selectedIndex`, `stepUp`, ...), and the Navigation API's `currententrychange`
#: (pushState, replaceState, hash changes, back and forward). A new document starts at its own start.
QUIET_INIT_JS = r"""
(() => { try {
  const key = Symbol.for('flowwalk.quiet');
  if (window[key]) return;
  const start = performance.now();
  // n counts everything that could change a read (`seen`); waiters are woken by it (`PageReader.changed`)
  const q = { dom: start, url: start, observers: [], n: 0, waiters: [] };
  const seen = () => {
    q.n++;
    if (q.waiters.length) { const woken = q.waiters; q.waiters = []; for (const w of woken) w(); }
  };
  const touch = () => { q.dom = performance.now(); seen(); };
  const roots = new WeakSet();
  // shadow roots the parser attached (`<template shadowrootmode="open">`, and setHTMLUnsafe's or
  // parseHTMLUnsafe's) make no attachShadow call: they are looked for under what was added, while
  // the document is parsed, once it is, and after those calls (closed ones no check can read)
  let foreign = false;
  const declared = (node) => {
    if (node.shadowRoot) observe(node.shadowRoot);
    if (node.querySelectorAll) for (const el of node.querySelectorAll('*')) if (el.shadowRoot) observe(el.shadowRoot);
  };
  const changed = (records) => {
    touch();
    if (!foreign && document.readyState !== 'loading') return;
    for (const r of records) for (const n of r.addedNodes) if (n.nodeType === 1) declared(n);
  };
  const observe = (root) => {
    if (roots.has(root)) return;
    roots.add(root);
    const o = new MutationObserver(changed);
    o.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    q.observers.push(o);
    if (root !== document) declared(root);
  };
  observe(document);
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function attachShadow(init) {
    const root = attach.call(this, init);
    try { observe(root); } catch (e) { /* observing is best effort; the check then reads twice */ }
    return root;
  };
  document.addEventListener('DOMContentLoaded', () => declared(document), true);
  for (const proto of [Element.prototype, typeof ShadowRoot === 'undefined' ? null : ShadowRoot.prototype]) {
    const f = proto && Object.getOwnPropertyDescriptor(proto, 'setHTMLUnsafe');
    if (!f || typeof f.value !== 'function') continue;
    Object.defineProperty(proto, 'setHTMLUnsafe', { ...f, value: function setHTMLUnsafe(...a) {
      const r = f.value.apply(this, a);
      try { declared(this); } catch (e) { /* best effort */ }
      return r;
    } });
  }
  const parse = Object.getOwnPropertyDescriptor(Document, 'parseHTMLUnsafe');
  if (parse && typeof parse.value === 'function') {
    Object.defineProperty(Document, 'parseHTMLUnsafe', { ...parse, value: function parseHTMLUnsafe(...a) {
      foreign = true;   // its shadow roots can be moved into this document later
      return parse.value.apply(this, a);
    } });
  }
  addEventListener('input', touch, true);
  addEventListener('change', touch, true);
  addEventListener('reset', touch, true);
  // a script can set a control's state with no mutation and no event (`box.checked = true`,
  // `field.value = ...`, `stepUp()`): those setters and methods note the change too
  const note = (proto, names) => {
    for (const name of names) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (!d || !d.configurable) continue;
      if (d.set) {
        const set = d.set;
        Object.defineProperty(proto, name, { ...d, set(v) { set.call(this, v); touch(); } });
      } else if (typeof d.value === 'function') {
        const f = d.value;
        Object.defineProperty(proto, name, { ...d, value: function (...a) { const r = f.apply(this, a); touch(); return r; } });
      }
    }
  };
  note(HTMLInputElement.prototype, ['checked', 'indeterminate', 'value', 'valueAsNumber', 'valueAsDate', 'stepUp', 'stepDown', 'setRangeText']);
  note(HTMLTextAreaElement.prototype, ['value', 'setRangeText']);
  note(HTMLSelectElement.prototype, ['value', 'selectedIndex']);
  note(HTMLOptionElement.prototype, ['selected']);
  if (window.navigation) navigation.addEventListener('currententrychange', () => { q.url = performance.now(); seen(); });
  else addEventListener('popstate', () => { q.url = performance.now(); seen(); }, true);
  // what changes rendering without a mutation (a stylesheet, image or font that loaded, an
  // animation or a transition that started) wakes a waiting check too; it is not a DOM change
  for (const type of ['load', 'error', 'animationstart', 'transitionrun']) addEventListener(type, seen, true);
  if (document.fonts) document.fonts.addEventListener('loadingdone', seen);
  // records not yet delivered (mutations of the task that is still running) count as now
  q.flush = () => { for (const o of q.observers) if (o.takeRecords().length) touch(); };
  Object.defineProperty(window, key, { value: q });
} catch (e) { /* never disturb the page: without the record, checks read twice */ } })();
"""


def script(params: str, body: str) -> str:
    """A read script: `(params) => { PRELUDE body }` (body uses `fw` and returns the read)."""
    return f"({params}) => {{{PRELUDE}{body}}}"


# One element -> its fingerprint (heal/fingerprint.py bounds and compares them). Kept cheap:
# textContent (no layout), no computed style.
FINGERPRINT_JS = r"""
(el) => {
  const cut = (s, n) => { s = String(s == null ? '' : s).replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n) : s; };
  const tag = el.tagName.toLowerCase();
  const attr = (n) => el.getAttribute(n);
  const type = (attr('type') || '').toLowerCase();
  let role = (attr('role') || '').trim().split(/\s+/)[0];
  if (!role) {
    if (tag === 'button' || tag === 'summary') role = 'button';
    else if (tag === 'a' && el.hasAttribute('href')) role = 'link';
    else if (/^h[1-6]$/.test(tag)) role = 'heading';
    else if (tag === 'select') role = 'combobox';
    else if (tag === 'textarea') role = 'textbox';
    else if (tag === 'input') {
      if (['button', 'submit', 'reset', 'image'].includes(type)) role = 'button';
      else if (type === 'checkbox' || type === 'radio') role = type;
      else if (type === 'search') role = 'searchbox';
      else if (['', 'text', 'email', 'tel', 'url', 'password'].includes(type)) role = 'textbox';
    }
  }
  let aname = attr('aria-label') || '';
  if (!aname && attr('aria-labelledby')) {
    aname = attr('aria-labelledby').split(/\s+/).map((i) => { const l = document.getElementById(i); return l ? l.textContent : ''; }).join(' ');
  }
  if (!aname && el.labels && el.labels.length) aname = Array.from(el.labels).map((l) => l.textContent).join(' ');
  if (!aname) aname = attr('alt') || attr('title') || attr('placeholder') || '';
  if (!aname && tag === 'input' && ['button', 'submit', 'reset'].includes(type)) aname = el.value || '';
  const text = ['input', 'select', 'textarea'].includes(tag) ? '' : el.textContent;
  if (!aname && ['button', 'link', 'tab', 'menuitem', 'heading', 'checkbox', 'radio'].includes(role)) aname = text;
  const short = (e) => {
    let s = e.tagName.toLowerCase();
    if (e.id) s += '#' + e.id;
    const c = Array.from(e.classList).slice(0, 2);
    if (c.length) s += '.' + c.join('.');
    return cut(s, 60);
  };
  const ancestors = [];
  for (let p = el.parentElement; p && p !== document.body && p !== document.documentElement && ancestors.length < 4; p = p.parentElement) ancestors.push(short(p));
  // the text around an element that has none of its own (a todo's checkbox: its row's text)
  let context = '';
  for (let p = el.parentElement, d = 0; p && d < 3 && p !== document.body; p = p.parentElement, d++) {
    const t = cut(p.textContent, 200);
    if (t && t !== cut(text, 200)) { context = t; break; }
  }
  let nth = 1;
  for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === el.tagName) nth++;
  return {
    tag, id: cut(el.id, 120), name: cut(attr('name'), 120), role, aname: cut(aname, 80),
    testid: cut(attr('data-testid') || attr('data-test-id') || attr('data-test') || attr('data-qa') || attr('data-cy'), 120),
    classes: Array.from(el.classList).slice(0, 8).map((c) => cut(c, 60)), text: cut(text, 80), type,
    href: cut(attr('href'), 120), nth, ancestors, context: cut(context, 80),
  };
}
"""

#: for `locate(..., probe=PROBE_JS)`: the count the walker needs and the first match's fingerprint,
#: in the one round trip the count took on its own
PROBE_JS = "(els) => ({ n: els.length, fp: els.length ? (" + FINGERPRINT_JS + ")(els[0]) : null })"

#: an id or class that looks generated (long digit or hex runs, css-/sc- prefixes): never in a selector
_GENERATED_JS = r"(v) => /\d{4,}|[0-9a-f]{8,}|^(css|sc|jsx|svelte|ng|v)-|__[A-Za-z0-9]{5}/i.test(v)"

# An element -> a CSS selector that matches only it in its document: an id, a test id, a name,
# an aria-label, its classes or its type when one of them is unique; else a short child path
# (`:nth-of-type` where needed) from the nearest ancestor that one of those makes unique. Ids
# and classes that look generated (long digit or hex runs, css-/sc- prefixes) are not used. With
# a `scope` element, the selector is one that Playwright's `scope >> selector` finds only it by:
# every part of it inside the scope (`:scope > ...` when the path reaches the scope).
CSS_PATH_JS = r"""
(el, scope) => {
  const root = el.ownerDocument;
  const within = scope && scope !== root ? scope : null;
  const esc = (v) => CSS.escape(v);
  const str = (v) => JSON.stringify(String(v));
  const generated = %GENERATED%;
  const unique = (sel) => {
    try { return (within ? within.querySelectorAll(sel.startsWith(':scope') ? sel : ':scope ' + sel) : root.querySelectorAll(sel)).length === 1; } catch (x) { return false; }
  };
  const own = (e) => {
    const tag = e.tagName.toLowerCase();
    const out = [];
    if (e.id && !generated(e.id)) out.push('#' + esc(e.id));
    for (const a of ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy']) {
      const v = e.getAttribute(a); if (v) out.push(`[${a}=${str(v)}]`);
    }
    const name = e.getAttribute('name'); if (name) out.push(`${tag}[name=${str(name)}]`);
    const label = e.getAttribute('aria-label'); if (label && label.length <= 60) out.push(`${tag}[aria-label=${str(label)}]`);
    const cls = Array.from(e.classList).filter((c) => !generated(c)).slice(0, 3).map((c) => '.' + esc(c)).join('');
    if (cls) out.push(tag + cls);
    const type = e.getAttribute('type'); if (type && tag === 'input') out.push(`${tag}[type=${str(type)}]`);
    return out;
  };
  for (const s of own(el)) if (unique(s)) return s;
  const step = (e) => {
    const tag = e.tagName.toLowerCase();
    const cls = Array.from(e.classList).filter((c) => !generated(c)).slice(0, 2).map((c) => '.' + esc(c)).join('');
    let base = tag + cls;
    const p = e.parentElement;
    if (p && Array.from(p.children).some((c) => c !== e && c.matches(base))) {
      let n = 1; for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === e.tagName) n++;
      base = tag + cls + `:nth-of-type(${n})`;
    }
    return base;
  };
  let path = step(el);
  for (let p = el.parentElement, d = 0; p && d < 6; p = p.parentElement, d++) {
    if (p === within) { path = ':scope > ' + path; return unique(path) ? path : null; }
    if (p === root.body || p === root.documentElement) { path = 'body > ' + path; return unique(path) ? path : null; }
    for (const s of own(p)) { if (unique(s) && unique(`${s} > ${path}`)) return `${s} > ${path}`; }
    path = step(p) + ' > ' + path;
    if (unique(path)) return path;
  }
  return null;
}
""".replace("%GENERATED%", _GENERATED_JS)

# An element -> a positional CSS selector free of the row's data, for a target that names a
# position ("the first book's checkbox", "last todo row"); `last` counts from the end. The unit
# is the row or list item the element sits in (or is), else the element itself. The selector is
# `<container> > <unit's tag>:first-of-type|:nth-of-type(k)|:last-of-type|:nth-last-of-type(k)
# <path inside the unit>`: the container by a stable id, test id or classes (above the unit),
# the unit by its tag and explicit role only (a row's classes carry state: `selected`,
# `completed`), the path inside by tags, test ids and classes. No value used says what a row
# shows: no aria-label, title, name, value or href, no id inside the unit, nothing with a digit
# inside the unit, no class or id holding a word of the unit's text, no state class. Null when
# no such selector matches only the element. With a `scope` element, as CSS_PATH_JS: inside it.
CSS_POSITION_JS = r"""
(el, last, scope) => {
  const root = el.ownerDocument;
  const within = scope && scope !== root ? scope : null;
  const esc = (v) => CSS.escape(v);
  const str = (v) => JSON.stringify(String(v));
  const generated = %GENERATED%;
  const state = /^(is|has)[-_A-Z]|^(active|selected|checked|completed?|done|disabled|enabled|hidden|shown|open(ed)?|closed|collapsed|expanded|focus(ed)?|hover(ed)?|editing|current|visible|invisible|odd|even|first|last|new|dirty|pristine|valid|invalid|loading|highlighted)$/i;
  const all = (sel) => {
    try { return within ? within.querySelectorAll(sel.startsWith(':scope') ? sel : ':scope ' + sel) : root.querySelectorAll(sel); } catch (x) { return []; }
  };
  const only = (sel, e) => { const m = all(sel); return m.length === 1 && m[0] === e; };
  const words = (s) => String(s || '').replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^0-9a-z\u00c0-\uffff]+/).filter(Boolean);
  const row = el.closest('li, tr, [role=row], [role=listitem], [role=option]');
  const unit = row && !row.closest('thead') && row.parentElement ? row : el;
  if (!unit.parentElement) return null;
  const shown = new Set(unit === el ? [] : words(unit.textContent));   // an element outside rows: its name is no row's data
  // a value that says what the row shows (or, inside it, numbers it) is the row's data
  const clean = (v, inside) => !!v && !generated(v) && !(inside && /\d/.test(v)) && !words(v).some((w) => shown.has(w));
  const classes = (e, inside) => Array.from(e.classList).filter((c) => clean(c, inside) && !state.test(c)).slice(0, 2).map((c) => '.' + esc(c)).join('');
  const role = (e) => { const r = (e.getAttribute('role') || '').trim(); return /^[a-z]+$/.test(r) ? `[role=${r}]` : ''; };
  const testid = (e, inside) => {
    for (const a of ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy']) {
      const v = e.getAttribute(a); if (clean(v, inside)) return `[${a}=${str(v)}]`;
    }
    return '';
  };
  const ofType = (e, base) => {
    const p = e.parentElement;
    if (!p || !Array.from(p.children).some((c) => c !== e && c.matches(base))) return base;
    let n = 1; for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === e.tagName) n++;
    return base + `:nth-of-type(${n})`;
  };
  const tagOf = (e) => e.tagName.toLowerCase();
  // the unit: its position among the siblings of its tag, counted from the end for "last"
  const same = Array.from(unit.parentElement.children).filter((c) => c.tagName === unit.tagName);
  const k = same.indexOf(unit) + 1, j = same.length - k + 1;
  const pos = last ? (j === 1 ? ':last-of-type' : `:nth-last-of-type(${j})`) : (k === 1 ? ':first-of-type' : `:nth-of-type(${k})`);
  const unitStep = tagOf(unit) + role(unit) + (unit === el ? testid(el, true) + classes(el, true) : '') + pos;
  // inside the unit: the element by its own tag, test id and classes when that is unique there, else a child path
  let inner = '';
  if (unit !== el) {
    const own = tagOf(el) + role(el) + testid(el, true) + classes(el, true);
    const there = unit.querySelectorAll(own);
    if (there.length === 1 && there[0] === el) inner = ' ' + own;
    else {
      const steps = [];
      for (let e = el; e && e !== unit; e = e.parentElement) steps.unshift(ofType(e, tagOf(e) + role(e) + testid(e, true) + classes(e, true)));
      inner = ' > ' + steps.join(' > ');
    }
  }
  const tail = ' > ' + unitStep + inner;
  // above the unit: the nearest ancestor a stable id, test id or classes name uniquely
  const parent = unit.parentElement;
  const stepOf = (e) => ofType(e, tagOf(e) + classes(e, false));
  let chain = '';
  for (let a = parent, d = 0; a && d < 8; a = a.parentElement, d++) {
    if (a === within) {
      const sel = ':scope' + (chain ? ' > ' + chain : '') + tail;
      return only(sel, el) ? sel : null;
    }
    if (a === root.body || a === root.documentElement) {
      const sel = 'body' + (chain ? ' > ' + chain : '') + tail;
      return only(sel, el) ? sel : null;
    }
    const names = [];
    if (a.id && clean(a.id, false)) names.push('#' + esc(a.id));
    const t = testid(a, false); if (t) names.push(t);
    const c = classes(a, false); if (c) names.push(tagOf(a) + c);
    for (const s of names) {
      if (all(s).length !== 1) continue;
      for (const sel of [a === parent ? s + tail : `${s} ${stepOf(parent)}${tail}`, s + (chain ? ' > ' + chain : '') + tail]) {
        if (only(sel, el)) return sel;
      }
    }
    chain = stepOf(a) + (chain ? ' > ' + chain : '');
  }
  return null;
}
""".replace("%GENERATED%", _GENERATED_JS)

# One function for every element kind a check reads: it runs over all matches of one selector in
# one round trip and returns only what the kind needs (booleans and short snippets, not whole
# pages of text). Text and visibility kinds look at every match; "the element" kinds at the first.
_ELEMENTS_JS = script("els, a", r"""
  const out = ((els, a) => {
  const clip = (t) => (t.length > 240 ? t.slice(0, 240) : t);
  const around = (t, at, len) => {
    const start = Math.max(0, at - 60);
    return (start > 0 ? '… ' : '') + t.slice(start, Math.min(t.length, at + len + 140));
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
    case 'text': {
      // each element's text is computed once per read: innerText lays the page out
      const needle = a.c ? fw.norm(a.v) : fw.norm(a.v).toLowerCase();
      let firstText = '';
      for (let i = 0; i < n; i++) {
        const t = fw.textOf(els[i]);
        if (i === 0) firstText = t;
        const at = (a.c ? t : t.toLowerCase()).indexOf(needle);
        if (at >= 0) return { n, hit: true, text: around(t, at, needle.length) };
      }
      return { n, hit: false, text: clip(firstText) };
    }
    case 'exact_text': {
      // a.w: the text exactly as the DOM holds it (textContent), whitespace and all
      const want = a.w ? String(a.v) : fw.norm(a.v);
      let firstText = '';
      for (let i = 0; i < n; i++) {
        const t = a.w ? String(els[i].textContent || '') : fw.textOf(els[i]);
        if (i === 0) firstText = t;
        if (t === want) return { n, hit: true, text: clip(t) };
      }
      return { n, hit: false, text: clip(firstText) };
    }
    case 'texts':
      return { n, texts: els.slice(0, 20).map((e) => fw.textOf(e).slice(0, 200000)) };
    case 'visible': {
      let visible = 0;
      for (const e of els) if (fw.visible(e)) visible++;
      return { n, visible };
    }
    case 'disabled':
      return { n, disabled: n ? fw.disabled(first) : null, tag: n ? first.tagName.toLowerCase() : '' };
    case 'checked':
      return { n, checked: n ? checkedOf(first) : null };
    case 'value':
      return { n, value: n && 'value' in first && typeof first.value === 'string' ? first.value : null,
               tag: n ? first.tagName.toLowerCase() : '' };
    case 'attribute':
      return { n, value: n ? first.getAttribute(a.a) : null };
    default:
      return { n };
  }
  })(els, a);
  if (a.q) out.quiet = fw.quiet(a.q);
  out.seq = fw.seq();
  return out;
""")

# Every match of one selector, item by item, in document order (the first ITEMS_MAX): its text
# (rendered and normalised by `fw.textOf`, or with `a.raw` its textContent exactly as the DOM holds
# it, whitespace and all) and its class attribute ('' when it has none), each clipped.
_ITEMS_JS = script("els, a", r"""
  const clip = (t) => (t.length > a.clip ? t.slice(0, a.clip) : t);
  const items = els.slice(0, a.max);
  const out = { n: els.length,
                texts: items.map((e) => clip(a.raw ? String(e.textContent || '') : fw.textOf(e))),
                classes: items.map((e) => clip(e.getAttribute('class') || '')) };
  if (a.q) out.quiet = fw.quiet(a.q);
  out.seq = fw.seq();
  return out;
""")

# An element's role: its explicit `role`, else the implicit one of its tag (and input type).
_ROLE_OF_JS = r"""
(e) => {
  const explicit = (e.getAttribute('role') || '').trim().split(/\s+/)[0];
  if (explicit) return explicit;
  const tag = e.tagName.toLowerCase();
  if (tag === 'button' || tag === 'summary') return 'button';
  if (tag === 'a' && e.hasAttribute('href')) return 'link';
  if (/^h[1-6]$/.test(tag)) return 'heading';
  if (tag === 'select') return e.multiple || e.size > 1 ? 'listbox' : 'combobox';
  if (tag === 'textarea') return 'textbox';
  if (tag === 'input') {
    const t = (e.getAttribute('type') || 'text').toLowerCase();
    if (['button', 'submit', 'reset', 'image'].includes(t)) return 'button';
    if (t === 'checkbox' || t === 'radio') return t;
    if (t === 'search') return 'searchbox';
    if (t === 'number') return 'spinbutton';
    if (['text', 'email', 'tel', 'url', 'password', ''].includes(t)) return e.hasAttribute('list') ? 'combobox' : 'textbox';
  }
  return '';
}
"""

# The healer's page read: every actionable element under `root` (links, buttons, fields, roles,
# tab stops, click handlers, test ids, contenteditable, list items and table rows, images with an
# alt text, elements with a title, and any element whose own text says one of `arg.words` that
# none of those holds; at most `arg.scanned`), ranked by a cheap count of `arg.words` in its own
# and its ancestors' words; the best `arg.limit` get a full record (names, context, row, state, a
# unique CSS path, and the fingerprint when `arg.fingerprints`). heal/meaning.py's
# `PageElement.from_record` reads them.
_CANDIDATES_JS = script("root, arg", r"""
  const fingerprint = (arg.fingerprints ? %FINGERPRINT% : () => null);
  const cssPath = %CSS_PATH%;
  const cssPosition = %CSS_POSITION%;
  const doc = root.ownerDocument || root;
  const cut = (s, n) => { s = String(s == null ? '' : s).replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n) : s; };
  const stem = (w) => {
    if (w.length > 4 && w.endsWith('ies')) return w.slice(0, -3) + 'y';
    if (w.length > 4 && /(xes|ches|shes|sses)$/.test(w)) return w.slice(0, -2);
    if (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) return w.slice(0, -1);
    return w;
  };
  const words = (s) => String(s || '').replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^0-9a-z\u00c0-\uffff]+/).filter(Boolean).map(stem);
  const wanted = new Set(arg.words || []);
  const base = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role], [tabindex], [onclick], [contenteditable=""], [contenteditable=true], [data-testid], [data-test-id], [data-test], [data-qa], [data-cy], li, tr, img[alt], [title]';
  let css = base;
  try { if (arg.tag) { root.querySelector(arg.tag); css = base + ', ' + arg.tag; } } catch (x) {}
  const all = Array.from(root.querySelectorAll(css)).slice(0, arg.scanned);
  const tagOf = (e) => e.tagName.toLowerCase();
  // an element whose own text says a wanted word and that no candidate above holds (a <p>, a <span>
  // a framework listens on without a role): a person names it by what it shows
  if (wanted.size) {
    const known = new Set(all);
    const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let added = 0;
    for (let n = walker.nextNode(), k = 0; n && k < 2 * arg.scanned && all.length < arg.scanned; n = walker.nextNode(), k++) {
      const e = n.parentElement;
      if (!e || known.has(e) || !words(n.nodeValue).some((w) => wanted.has(w))) continue;
      known.add(e);
      if (/^(html|body|script|style|noscript|template|option|select|textarea|title)$/.test(tagOf(e)) || e.closest(css) || (tagOf(e) === 'label' && e.control)) continue;
      all.push(e); added++;
    }
    if (added) all.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  }
  const implicitRole = %ROLE_OF%;
  // rows and list items are candidates too ("the first todo row"), and so is an editable element
  const roleOf = (e) => implicitRole(e) || ({ li: 'listitem', tr: 'row' })[tagOf(e)] || (e.isContentEditable ? 'textbox' : '');
  // text with images' alt words (a label that is an icon: Django's search label is an <img alt="Search">)
  const textOf = (e, n) => {
    let s = e.textContent || '';
    if (s.trim().length < 3) for (const img of e.querySelectorAll('img[alt], svg[aria-label]')) s += ' ' + (img.getAttribute('alt') || img.getAttribute('aria-label') || '');
    return cut(s, n);
  };
  const isField = (e) => ['input', 'select', 'textarea'].includes(tagOf(e));
  // a label's own words: a <label>Action: <select>...</select></label> is "Action:", not its options
  const labelText = (l) => { const c = l.cloneNode(true); for (const x of c.querySelectorAll('input, select, textarea, button')) x.remove(); return textOf(c, 80); };
  const labelOf = (e) => (e.labels && e.labels.length) ? cut(Array.from(e.labels).map(labelText).join(' '), 80) : '';
  const nameOf = (e, role) => {
    const by = e.getAttribute('aria-labelledby');
    if (by) { const t = by.split(/\s+/).map((i) => { const l = doc.getElementById(i); return l ? l.textContent : ''; }).join(' '); if (t.trim()) return cut(t, 80); }
    const aria = e.getAttribute('aria-label'); if (aria && aria.trim()) return cut(aria, 80);
    const label = labelOf(e); if (label) return label;
    if (tagOf(e) === 'input' && ['button', 'submit', 'reset'].includes((e.getAttribute('type') || '').toLowerCase())) return cut(e.value, 80);
    if (tagOf(e) === 'img' || (tagOf(e) === 'input' && e.type === 'image')) return cut(e.getAttribute('alt'), 80);
    if (['button', 'link', 'tab', 'menuitem', 'option', 'checkbox', 'radio', 'switch', 'heading', 'treeitem'].includes(role)) return textOf(e, 80);
    return '';
  };
  const own = (e) => words([e.getAttribute('aria-label'), isField(e) ? labelOf(e) : textOf(e, 80), e.getAttribute('placeholder'),
    e.getAttribute('title'), e.getAttribute('alt'), e.id, e.getAttribute('name'), e.getAttribute('data-testid'),
    e.getAttribute('href'), typeof e.className === 'string' ? e.className : '',
    tagOf(e) === 'input' && ['button', 'submit', 'reset'].includes(e.type) ? e.value : ''].join(' '));
  const nearOf = (e) => {
    const out = [];
    for (let p = e.parentElement, d = 0; p && d < 6 && p !== doc.body; p = p.parentElement, d++) {
      const s = [p.id, typeof p.className === 'string' ? p.className : ''].join(' ').trim();
      if (s) out.push(cut(s, 60));
    }
    return out;
  };
  const isHeading = (e) => /^h[1-6]$/.test(tagOf(e)) || e.getAttribute('role') === 'heading';
  const lastHeadingIn = (e) => {
    if (isHeading(e)) return e;
    const hs = e.querySelectorAll('h1, h2, h3, h4, h5, h6, [role=heading]');
    return hs.length ? hs[hs.length - 1] : null;
  };
  const aroundOf = (e) => {
    const out = [];
    const add = (s) => { s = cut(s, 60); if (s && !out.includes(s)) out.push(s); };
    // the nearest heading before it, in its own section or an enclosing one
    let found = null;
    for (let n = e, d = 0; n && n !== doc.body && d < 8 && !found; n = n.parentElement, d++) {
      let steps = 0;
      for (let s = n.previousElementSibling; s && steps < 12 && !found; s = s.previousElementSibling, steps++) found = lastHeadingIn(s);
    }
    if (found) add(found.textContent);
    for (let p = e.parentElement, d = 0; p && p !== doc.body && d < 10; p = p.parentElement, d++) {
      const tag = tagOf(p);
      if (tag === 'table' && p.caption) add(p.caption.textContent);
      if (tag === 'fieldset') { const lg = p.querySelector(':scope > legend'); if (lg) add(lg.textContent); }
      const role = p.getAttribute('role');
      if (['nav', 'main', 'aside', 'header', 'footer', 'form', 'section'].includes(tag) || ['navigation', 'search', 'region', 'group', 'toolbar', 'tablist', 'menu', 'dialog', 'complementary'].includes(role)) {
        add(p.getAttribute('aria-label') || '');
        const by = p.getAttribute('aria-labelledby'); if (by) { const l = doc.getElementById(by.split(/\s+/)[0]); if (l) add(l.textContent); }
        if (role) add(role);
      }
      const h = p.querySelector(':scope > h1, :scope > h2, :scope > h3, :scope > h4, :scope > header h1, :scope > header h2, :scope > caption');
      if (h) add(h.textContent);
      if (out.length >= 5) break;
    }
    return out.slice(0, 5);
  };
  const itemOf = (e) => {
    const it = e.closest('li, tr, [role=row], [role=listitem], [role=option]');
    if (!it || !root.contains(it) && root !== doc) return null;
    if (it.closest('thead') || (tagOf(it) === 'tr' && !it.querySelector('td'))) return null;   // a header row is no item
    const p = it.parentElement;
    const like = p ? Array.from(p.children).filter((c) => c.tagName === it.tagName && (!c.hasAttribute('role') || c.getAttribute('role') === it.getAttribute('role'))) : [it];
    return { text: textOf(it, 80), index: like.indexOf(it) + 1, count: like.length };
  };
  const page = doc.location ? doc.location.host : '';
  const scored = all.map((e, order) => {
    let s = 0;
    if (wanted.size) { for (const w of own(e)) if (wanted.has(w)) s += 2; for (const w of words(nearOf(e).join(' '))) if (wanted.has(w)) s += 1; }
    if (arg.tag && tagOf(e) === arg.tag) s += 1;
    return { e, s, order };
  });
  scored.sort((a, b) => b.s - a.s || a.order - b.order);
  return { scanned: all.length, items: scored.slice(0, arg.limit).map(({ e, order }) => {
    const role = roleOf(e);
    const tag = tagOf(e);
    const type = (e.getAttribute('type') || '').toLowerCase();
    const item = itemOf(e);
    let offsite = false;
    if (tag === 'a' && e.href) { try { const u = new URL(e.href, doc.baseURI); offsite = /^https?:$/.test(u.protocol) && u.host !== page; } catch (x) {} }
    return {
      key: String(fw.idOf(e)), order, tag, role, name: nameOf(e, role), label: isField(e) ? labelOf(e) : '',
      text: isField(e) ? '' : textOf(e, 80), placeholder: cut(e.getAttribute('placeholder'), 80),
      title: cut(e.getAttribute('title'), 80), value: role === 'button' && tag === 'input' ? cut(e.value, 80) : (tag === 'button' ? cut(e.getAttribute('value'), 40) : ''),
      alt: cut(e.getAttribute('alt'), 80),
      testid: cut(e.getAttribute('data-testid') || e.getAttribute('data-test-id') || e.getAttribute('data-test') || e.getAttribute('data-qa') || e.getAttribute('data-cy'), 80),
      id: cut(e.id, 80), name_attr: cut(e.getAttribute('name'), 80),
      classes: Array.from(e.classList).slice(0, 8).map((c) => cut(c, 60)), href: cut(e.getAttribute('href'), 120), type,
      near: nearOf(e), around: aroundOf(e), item: item ? item.text : '', item_index: item ? item.index : 0,
      item_count: item ? item.count : 0, visible: fw.visible(e), enabled: !fw.disabled(e),
      editable: e.isContentEditable || (['textbox', 'searchbox', 'combobox', 'spinbutton'].includes(role) && isField(e) && !e.readOnly),
      offsite, css: cssPath(e, root), fp: arg.fingerprints ? fingerprint(e) : null,
      css_position: arg.position ? cssPosition(e, arg.position === -1, root) : null,
    };
  }) };
""".replace("%FINGERPRINT%", FINGERPRINT_JS.strip()).replace("%CSS_PATH%", CSS_PATH_JS.strip())
   .replace("%CSS_POSITION%", CSS_POSITION_JS.strip()).replace("%ROLE_OF%", _ROLE_OF_JS.strip()))

_OWNS_JS = script("el, id", "return fw.hasId(el, id);")
_SELECTED_JS = "el => Array.from(el.selectedOptions || []).map(o => [o.value, o.label])"
_BODY_TEXT_JS = "(n) => (document.body ? document.body.innerText : '').slice(0, n)"
_URL_JS = "() => location.href"
# Which of these CSS selectors could have a visible match: for each, true when some match (in the
# document or an open shadow root, as Playwright's CSS engine pierces them) has a box, or is
# `display: contents`; false when no match has one; null when the selector is not plain CSS
# (Playwright's own syntax: the caller asks Playwright). Playwright's "visible" needs a non-empty
# box, so false here means no match is visible to Playwright either.
_MAY_SHOW_JS = r"""(selectors) => {
  const roots = [document];
  for (let i = 0; i < roots.length; i++) {
    for (const el of roots[i].querySelectorAll('*')) if (el.shadowRoot) roots.push(el.shadowRoot);
    if (roots.length > 200) break;
  }
  return selectors.map((sel) => {
    try {
      for (const root of roots) {
        for (const el of root.querySelectorAll(sel)) {
          const r = el.getBoundingClientRect();
          if ((r.width > 0 && r.height > 0) || getComputedStyle(el).display === 'contents') return true;
        }
      }
      return false;
    } catch (e) { return null; }
  });
}"""
_URL_STATE_JS = script("", "return { url: location.href, quiet: fw.quiet('dom') };")
# Resolves true at the first change the record counts after a read (`seq`), but not before `gap`
# ms of the page's clock after that read; false after `cap` ms with none; null without a record.
_CHANGED_JS = r"""(a) => {
  const q = window[Symbol.for('flowwalk.quiet')];
  if (!q) return null;
  q.flush();
  return new Promise((resolve) => {
    let timer = null;
    const end = (changed) => { clearTimeout(timer); resolve(changed); };
    const woken = () => {
      const early = a.at + a.gap - performance.now();
      if (early > 0) { clearTimeout(timer); timer = setTimeout(() => resolve(true), early); } else end(true);
    };
    if (q.n !== a.n) { woken(); return; }
    timer = setTimeout(() => end(false), a.cap);
    q.waiters.push(woken);
  });
}"""


def gated(probe: str | None) -> str:
    """A `locate` probe that also asks `PageReader.may_show` of the CSS selectors given as its
    argument, in the same round trip: `{n, gate: [True|False|None per selector], ...probe's}`.
    An act's count and its interrupts' gate are then one read instead of two."""
    inner = probe or "(els) => ({ n: els.length })"
    return f"(els, gate) => Object.assign(({inner})(els), {{ gate: ({_MAY_SHOW_JS})(gate) }})"


# --- the records ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ElementQuery:
    """What one read of a selector's matches asks (`PageReader.elements`).

    `kind`: `count` (only how many), `text` (the first match whose text contains `value`,
    case-insensitive unless `match_case`), `exact_text` (whose text is exactly `value`, both
    normalised; with `raw` the textContent as the DOM holds it, whitespace kept, equals `value`
    as written), `texts` (the first 20 matches' texts), `visible` (how many are visible),
    `disabled`, `checked`, `value` (the first match's input value) or `attribute` (the first
    match's attribute `attr`). `quiet`: also how long the page has been still (`Quiet`): ''
    (not asked), 'dom' or 'layout'.
    """

    kind: str
    value: str = ""
    attr: str = ""
    quiet: str = ""
    match_case: bool = False
    raw: bool = False


@dataclass(frozen=True)
class Seq:
    """Where a read stood in the page's record of changes: its count, and the page's clock (ms)."""

    n: int
    at: float

    @classmethod
    def of(cls, raw: Any) -> "Seq | None":
        if not isinstance(raw, Mapping) or not isinstance(raw.get("n"), (int, float)):
            return None
        return cls(n=int(raw["n"]), at=float(raw.get("at") or 0.0))


@dataclass(frozen=True)
class Quiet:
    """How long the page had been still when it was read (`fw.quiet`, see the module docstring)."""

    #: ms since the last DOM mutation, input or change event, or URL change
    ms: float
    #: ms since the last URL change
    url_ms: float
    #: 'layout' reads only: an animation or a transition was running
    animating: bool = False
    #: 'layout' reads only: the document, its fonts and its images had finished loading
    settled: bool = True

    @classmethod
    def of(cls, raw: Any) -> "Quiet | None":
        """None when the page has no record (a document the init script did not reach)."""
        if not isinstance(raw, Mapping) or raw.get("ms") is None:
            return None
        return cls(ms=float(raw["ms"]), url_ms=float(raw.get("url_ms", raw["ms"])),
                   animating=bool(raw.get("animating", False)), settled=bool(raw.get("settled", True)))


@dataclass(frozen=True)
class UrlState:
    """The document's URL and how long it has been that URL (`PageReader.url_state`)."""

    url: str
    quiet: Quiet | None


@dataclass(frozen=True)
class ElementRead:
    """One read of a selector's matches: how many, and what the query asked about them."""

    #: how many elements match
    n: int
    #: text / exact_text: a match has the text; `text` is the snippet around it, or the first
    #: match's text (clipped) when none has it
    hit: bool = False
    text: str = ""
    #: texts: the first 20 matches' texts
    texts: tuple[str, ...] = ()
    #: visible: how many matches are visible
    visible: int = 0
    #: disabled: the first match is disabled (None without a match)
    disabled: bool | None = None
    #: disabled, value: the first match's tag
    tag: str = ""
    #: checked: 'checked', 'unchecked', 'mixed' or 'not checkable' (None without a match)
    checked: str | None = None
    #: value: the first match's input value (None when it has none); attribute: its value (None
    #: when the attribute is absent)
    value: str | None = None
    #: when the query asked (`ElementQuery.quiet`): how long the page had been still
    quiet: Quiet | None = None
    #: the page's change count at this read (`PageReader.changed`); None without a record
    seq: Seq | None = None

    @classmethod
    def of(cls, raw: Any) -> "ElementRead":
        """The record of what `_ELEMENTS_JS` returned."""
        r = raw if isinstance(raw, Mapping) else {}
        value = r.get("value")
        disabled = r.get("disabled")
        checked = r.get("checked")
        return cls(n=int(r.get("n", 0) or 0), hit=bool(r.get("hit")), text=str(r.get("text", "")),
                   texts=tuple(str(t) for t in r.get("texts", ()) or ()), visible=int(r.get("visible", 0) or 0),
                   disabled=None if disabled is None else bool(disabled), tag=str(r.get("tag") or ""),
                   checked=None if checked is None else str(checked),
                   value=None if value is None else str(value), quiet=Quiet.of(r.get("quiet")),
                   seq=Seq.of(r.get("seq")))


#: an items read returns at most this many matches, each text or class clipped to ITEM_CLIP characters
ITEMS_MAX = 1000
ITEM_CLIP = 10_000


@dataclass(frozen=True)
class ItemsRead:
    """One read of every element a selector matches, item by item (`PageReader.items`)."""

    #: how many elements match
    n: int
    #: the first ITEMS_MAX matches' texts, in document order: rendered and normalised (`fw.textOf`),
    #: or the textContent as the DOM holds it when the read asked for raw text
    texts: tuple[str, ...] = ()
    #: their class attributes, as written ('' for an element without one)
    classes: tuple[str, ...] = ()
    #: when the read asked (`quiet`): how long the page had been still
    quiet: Quiet | None = None
    #: the page's change count at this read (`PageReader.changed`); None without a record
    seq: Seq | None = None

    @classmethod
    def of(cls, raw: Any) -> "ItemsRead":
        """The record of what `_ITEMS_JS` returned."""
        r = raw if isinstance(raw, Mapping) else {}
        return cls(n=int(r.get("n", 0) or 0), texts=tuple(str(t) for t in r.get("texts", ()) or ()),
                   classes=tuple(str(c) for c in r.get("classes", ()) or ()), quiet=Quiet.of(r.get("quiet")),
                   seq=Seq.of(r.get("seq")))


@dataclass(frozen=True)
class CandidatesRead:
    """The healer's read of one page or frame: the best elements as plain records (heal/meaning.py
    `PageElement.from_record` reads and checks them) and how many elements were looked at."""

    items: tuple[Mapping[str, Any], ...]
    scanned: int


@dataclass(frozen=True)
class Match:
    """A (pipe, scoped) selector's outcome: the alternative used, how many it matches, what was tried."""

    used: str
    count: int
    tried: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class FrameName:
    """A frame's name and URL, for a message that names it."""

    name: str
    url: str


class Reader(Protocol):
    """What the judges read a page through: `PageReader`, or a test's recorded reads."""

    def url(self) -> str: ...

    def url_state(self) -> UrlState: ...

    def elements(self, selector: str, query: ElementQuery) -> ElementRead: ...

    def items(self, selector: str, *, raw_text: bool = False, quiet: str = "") -> ItemsRead: ...

    def child_frames(self, limit: int) -> list["Reader"]: ...

    def detached(self) -> bool: ...

    def frame_name(self) -> FrameName | None: ...

    def match(self, selector: str, scope: str | None = None) -> Match: ...

    def fingerprint(self, selector: str, scope: str | None = None) -> Any: ...

    def candidates(self, words: Sequence[str], *, tag: str = "", fingerprints: bool = False, limit: int = 50,
                   scanned: int = 3000, scope: str | None = None,
                   position: int | None = None) -> CandidatesRead | None: ...

    def owns(self, selector: str, scope: str | None, element_id: int) -> bool: ...

    def body_text(self, limit: int) -> str: ...


# --- the reader -----------------------------------------------------------------------------------


class PageReader:
    """Reads of one page or frame (see the module docstring). Every method raises only flowwalk's
    errors: `PageGone`, `TimedOut`, `PageUnreadable` (all `PageError`) and `InvalidSelector`."""

    def __init__(self, where: "Where"):
        self.where = where

    def url(self) -> str:
        """The document's URL (`location.href`), from the page itself."""
        with translating():
            return str(self.where.evaluate(_URL_JS))

    def url_state(self) -> UrlState:
        """The URL and how long it has been the URL, in one read."""
        with translating():
            raw = self.where.evaluate(_URL_STATE_JS)
        r = raw if isinstance(raw, Mapping) else {}
        return UrlState(str(r.get("url", "")), Quiet.of(r.get("quiet")))

    def changed(self, seq: Seq, *, gap_ms: float, cap_ms: float) -> bool | None:
        """Wait in the page for the first change its record counts after the read at `seq` (a
        mutation, an input, a URL change, a stylesheet, image or font that loaded, an animation
        that started), but not past `gap_ms` after that read if it came sooner: True; False when
        `cap_ms` passed with none; None when the page has no record (then nothing was waited)."""
        arg = {"n": seq.n, "at": seq.at, "gap": max(gap_ms, 0.0), "cap": max(cap_ms, 0.0)}
        with translating():
            raw = self.where.evaluate(_CHANGED_JS, arg)
        return raw if isinstance(raw, bool) else None

    def elements(self, selector: str, query: ElementQuery) -> ElementRead:
        """One read of every element `selector` (one alternative, no pipes) matches now."""
        arg = {"k": query.kind, "v": query.value, "a": query.attr, "q": query.quiet, "c": query.match_case,
               "w": query.raw}
        with translating(selector):
            return ElementRead.of(self.where.locator(selector).evaluate_all(_ELEMENTS_JS, arg))

    def items(self, selector: str, *, raw_text: bool = False, quiet: str = "") -> ItemsRead:
        """One read of every element `selector` (one alternative, no pipes) matches now, item by item:
        each one's text (`raw_text`: its textContent unnormalised) and class attribute. `quiet`:
        also how long the page has been still ('', 'dom' or 'layout', as `ElementQuery.quiet`)."""
        arg = {"raw": raw_text, "q": quiet, "max": ITEMS_MAX, "clip": ITEM_CLIP}
        with translating(selector):
            return ItemsRead.of(self.where.locator(selector).evaluate_all(_ITEMS_JS, arg))

    def may_show(self, selectors: Sequence[str]) -> list[bool | None]:
        """For each CSS selector, in one read: could a match be visible now (True), is none (False),
        or is it not plain CSS, so only Playwright can tell (None)? A gate in front of the visible
        checks of each match: False is certain, True only a maybe."""
        with translating():
            raw = self.where.evaluate(_MAY_SHOW_JS, list(selectors))
        out = list(raw) if isinstance(raw, list) else []
        return [v if isinstance(v, bool) else None for v in out] + [None] * (len(selectors) - len(out))

    def child_frames(self, limit: int) -> list[Reader]:
        """Up to `limit` of the page's frames other than the main one, in document order; no round
        trip (Playwright keeps the frame tree). Only a page has them: a frame's list is empty."""
        with translating():
            frames = [f for f in getattr(self.where, "frames", ()) if f.parent_frame is not None][:limit]
        return [PageReader(f) for f in frames]

    def detached(self) -> bool:
        """Has this frame left its page? (A page never has.)"""
        is_detached = getattr(self.where, "is_detached", None)
        with translating():
            return bool(is_detached()) if is_detached is not None else False

    def frame_name(self) -> FrameName | None:
        """This frame's name and URL; None when it went away."""
        try:
            return FrameName(str(getattr(self.where, "name", "") or ""), str(self.where.url or ""))
        except Exception:  # noqa: BLE001 - a frame that went away has no name
            return None


    def match(self, selector: str, scope: str | None = None) -> Match:
        """The first pipe alternative of `selector` (within `scope`) that matches, and its count:
        one count per alternative tried."""
        with translating(selector):
            found = locate(self.where, selector, scope)
        return Match(found.used, found.count, tuple(found.tried))

    def fingerprint(self, selector: str, scope: str | None = None) -> Any:
        """The first match's fingerprint, as `PROBE_JS` reads it (None: nothing matches): one read."""
        with translating(selector):
            found = locate(self.where, selector, scope, probe=PROBE_JS)
        return found.probe if found.count else None

    def candidates(self, words: Sequence[str], *, tag: str = "", fingerprints: bool = False, limit: int = 50,
                   scanned: int = 3000, scope: str | None = None,
                   position: int | None = None) -> CandidatesRead | None:
        """The healer's read (`_CANDIDATES_JS`): of the first `scanned` actionable elements under
        `scope` (the document without one), the best `limit` by how many of `words` (stemmed, see
        heal/meaning.py `cheap_words`) they and their ancestors say, in full. Each record's `key` is
        its element id. With `position` (the target's ordinal: 1, 2 ..., -1 for the last), each
        record also has `css_position`, a positional selector free of the row's data
        (`CSS_POSITION_JS`). None when the scope matches nothing. One round trip, plus the scope's count."""
        arg = {"words": list(words), "tag": tag, "limit": limit, "scanned": scanned, "fingerprints": fingerprints,
               "position": position}
        with translating(scope):
            if scope:
                found = locate(self.where, scope)
                if found.count == 0:
                    return None
                raw = found.locator.first.evaluate(_CANDIDATES_JS, arg)
            else:
                raw = self.where.evaluate(f"(arg) => ({_CANDIDATES_JS})(document, arg)", arg)
        r = raw if isinstance(raw, Mapping) else {}
        return CandidatesRead(tuple(i for i in r.get("items", ()) or () if isinstance(i, Mapping)),
                              int(r.get("scanned", 0) or 0))

    def owns(self, selector: str, scope: str | None, element_id: int) -> bool:
        """Does `selector` (within `scope`) match exactly one element, the one with this id?"""
        with translating(selector):
            found = locate(self.where, selector, scope)
            return found.count == 1 and bool(found.locator.evaluate(_OWNS_JS, element_id))

    def body_text(self, limit: int) -> str:
        """The first `limit` characters of the body's rendered text."""
        with translating():
            return str(self.where.evaluate(_BODY_TEXT_JS, limit) or "")

    def document_title(self) -> str:
        """The document's title."""
        with translating():
            return str(self.where.title())

    def first_text(self, selector: str, scope: str | None, timeout_ms: int) -> str | None:
        """The rendered text (Playwright's `inner_text`, trimmed) of the first element `selector`
        (pipes allowed, within `scope`) matches; None when it matches nothing."""
        with translating(selector):
            found = locate(self.where, selector, scope)
            if found.count == 0:
                return None
            return str(found.locator.first.inner_text(timeout=timeout_ms)).strip()

    # --- reads of the element an act worked on (walk/verifiers.py's read_after_write) -------------

    def field_value(self, element: "Element", timeout_ms: int) -> str:
        """The value of `element` (an input, textarea or select)."""
        with translating():
            return str(element.input_value(timeout=timeout_ms))

    def checked(self, element: "Element", timeout_ms: int) -> bool:
        """Whether `element` (a checkbox or radio) is checked."""
        with translating():
            return bool(element.is_checked(timeout=timeout_ms))

    def selected_options(self, element: "Element") -> list[tuple[str, str]]:
        """The (value, label) of each option `element` (a select) has selected."""
        with translating():
            raw = element.evaluate(_SELECTED_JS)
        return [(str(pair[0]), str(pair[1])) for pair in raw or ()
                if isinstance(pair, (list, tuple)) and len(pair) == 2]

