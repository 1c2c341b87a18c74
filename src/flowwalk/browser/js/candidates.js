/* global fw, fingerprint, cssPath, cssPosition */
/* flowwalk: the healer's read: every actionable element under root, the best by the target's words in full */
(root, arg) => {
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
  const base = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role], [tabindex], [onclick], [contenteditable=""], [contenteditable=true], '
    + fw.testIdAttributes().map((a) => '[' + CSS.escape(a) + ']').join(', ') + ', li, tr, img[alt], [title]';
  let css = base;
  try { if (arg.tag) { root.querySelector(arg.tag); css = base + ', ' + arg.tag; } } catch { /* a tag that is not CSS adds nothing */ }
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
  // what an element shows: its text, or its images' alt text (Django's search label is an <img alt="Search">)
  const shows = (e) => cut(fw.contentOf(e), 80);
  const isField = (e) => ['input', 'select', 'textarea'].includes(tagOf(e));
  const own = (e) => words([e.getAttribute('aria-label'), isField(e) ? cut(fw.labelOf(e), 80) : shows(e), e.getAttribute('placeholder'),
    e.getAttribute('title'), e.getAttribute('alt'), e.id, e.getAttribute('name'), fw.testIdOf(e),
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
  const isHeading = (e) => fw.roleOf(e) === 'heading';
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
    return { text: shows(it), index: like.indexOf(it) + 1, count: like.length };
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
    // an editable element that has no role of its own is a text box to the person who types into it
    const role = fw.roleOf(e) || (e.isContentEditable ? 'textbox' : '');
    const named = fw.accessibleName(e);
    const tag = tagOf(e);
    const type = (e.getAttribute('type') || '').toLowerCase();
    const item = itemOf(e);
    let offsite = false;
    if (tag === 'a' && e.href) { try { const u = new URL(e.href, doc.baseURI); offsite = /^https?:$/.test(u.protocol) && u.host !== page; } catch { /* not a URL: not offsite */ } }
    return {
      key: String(fw.idOf(e)), order, tag, role, name: cut(named.name, 80), name_from: named.from, label: isField(e) ? cut(fw.labelOf(e), 80) : '',
      text: isField(e) ? '' : shows(e), placeholder: cut(e.getAttribute('placeholder'), 80),
      title: cut(e.getAttribute('title'), 80), value: role === 'button' && tag === 'input' ? cut(e.value, 80) : (tag === 'button' ? cut(e.getAttribute('value'), 40) : ''),
      alt: cut(e.getAttribute('alt'), 80),
      testid: cut(fw.testIdOf(e), 80),
      id: cut(e.id, 80), name_attr: cut(e.getAttribute('name'), 80),
      classes: Array.from(e.classList).slice(0, 8).map((c) => cut(c, 60)), href: cut(e.getAttribute('href'), 120), type,
      near: nearOf(e), around: aroundOf(e), item: item ? item.text : '', item_index: item ? item.index : 0,
      item_count: item ? item.count : 0, visible: fw.visible(e), enabled: !fw.disabled(e),
      editable: e.isContentEditable || (['textbox', 'searchbox', 'combobox', 'spinbutton'].includes(role) && isField(e) && !e.readOnly),
      offsite, css: cssPath(e, root), fp: arg.fingerprints ? fingerprint(e) : null,
      css_position: arg.position ? cssPosition(e, arg.position === -1, root) : null,
    };
  }) };
}
