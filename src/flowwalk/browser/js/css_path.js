/* global generated, selectorsOf */
/* flowwalk: an element -> a CSS selector that matches only it in its document; with a `scope` element,
   one that Playwright's `scope >> selector` finds only it by (every part inside the scope, `:scope > ...`
   when the path reaches it) */
(el, scope) => {
  const root = el.ownerDocument;
  const within = scope && scope !== root ? scope : null;
  const esc = (v) => CSS.escape(v);
  const str = (v) => JSON.stringify(String(v));
  const unique = (sel) => {
    try { return (within ? within.querySelectorAll(sel.startsWith(':scope') ? sel : ':scope ' + sel) : root.querySelectorAll(sel)).length === 1; } catch { return false; }
  };
  const own = (e) => {
    const tag = e.tagName.toLowerCase();
    // the selector writer's answers first (selector.js): a test id, a stable id, each matching it alone
    const out = selectorsOf(e, scope).map((s) => s.selector);
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
