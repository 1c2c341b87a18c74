/* flowwalk: the prelude of every read script (browser/scripts.py defines it as `fw`), so there is one
 * answer to each of these questions:
 *
 * - **visible** (`fw.visible(e)`): the element is connected, is rendered (the DOM's checkVisibility: no
 *   `display: none` on it or an ancestor, no `content-visibility: hidden` ancestor), its computed
 *   `visibility` is `visible`, and its box is not empty. An element with `display: contents` has
 *   no box of its own: it is visible when one of its children is. This is Playwright's meaning of
 *   visible (what `locator.is_visible()` and `visible=true` answer), with `checkVisibility` added,
 *   and what the stabilized checks have always used. `aria-hidden`, `inert` and the `hidden`
 *   attribute do not enter into it: `hidden` hides through the user agent's `display: none`
 *   (which `checkVisibility` sees; a stylesheet that shows a `[hidden]` element shows it), and the
 *   other two hide from assistive technology and input, not from sight.
 * - **offered** (`fw.offered(e)`): visible, and not inside `aria-hidden="true"` or `inert`: an
 *   element a person can see and use. The page survey (discover) lists only these.
 * - **text** (`fw.norm(s)`: runs of whitespace become one space, trimmed; `fw.textOf(e)`: an
 *   element's rendered `innerText`, or `textContent` for a non-HTML element, normalised).
 * - **disabled** (`fw.disabled(e)`: `:disabled`, or inside `aria-disabled="true"`).
 * - **element ids** (`fw.idOf(e)` / `fw.byId(id)`): a number per element, stable for the page's
 *   life (a WeakMap: the page keeps no references), so reads that find the same element can be
 *   merged and a later read can find it again.
 * - **quiet** (`fw.quiet(level)`): how long the page has been still, as `js/quiet.js` (an init
 *   script of every context) records it: milliseconds since the last DOM mutation anywhere in the
 *   document or its shadow roots, the last `input`/`change` event and the last URL change; with
 *   `level` 'layout' also whether an animation or transition runs and whether the document, its
 *   fonts and its images have finished loading. A verify-until-stable check reads it to show that
 *   what it read held over the interval without waiting for a second read (walk/checks.py).
 */
(() => {
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
    try { if (e.matches(':disabled')) return true; } catch { /* not a form element */ }
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
  // the record's change count at this read, and the page's clock (`Page.changed`)
  const seq = () => {
    const q = window[Symbol.for('flowwalk.quiet')];
    if (!q) return null;
    q.flush();
    return { n: q.n, at: performance.now() };
  };
  return { norm, textOf, visible, offered, disabled, idOf, byId, hasId, quiet, seq };
})()
