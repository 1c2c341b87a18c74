/* global fw, generated */
/* flowwalk: an element -> a positional CSS selector free of its row's data; with a `scope` element,
   as css_path.js: inside it */
(el, last, scope) => {
  const root = el.ownerDocument;
  const within = scope && scope !== root ? scope : null;
  const esc = (v) => CSS.escape(v);
  const str = (v) => JSON.stringify(String(v));
  const state = /^(is|has)[-_A-Z]|^(active|selected|checked|completed?|done|disabled|enabled|hidden|shown|open(ed)?|closed|collapsed|expanded|focus(ed)?|hover(ed)?|editing|current|visible|invisible|odd|even|first|last|new|dirty|pristine|valid|invalid|loading|highlighted)$/i;
  const all = (sel) => {
    try { return within ? within.querySelectorAll(sel.startsWith(':scope') ? sel : ':scope ' + sel) : root.querySelectorAll(sel); } catch { return []; }
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
    for (const a of fw.testIdAttributes()) {
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
