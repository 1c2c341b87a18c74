/* global fw */
/* flowwalk: observe the page's state for discover */
(root, limit) => {
  const squash = (t, n) => String(t || '').replace(/\s+/g, ' ').trim().slice(0, n || 160);
  const quote = (v) => '"' + String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
  const ident = /^[A-Za-z][\w-]*$/;
  const count = (sel, within) => { try { return (within || document).querySelectorAll(sel).length; } catch { return -1; } };
  // listed hidden too (marked so): an element that appears after an action is an effect
  const isVisible = (el) => fw.visible(el);
  // the text it holds, shown or not (fw.heldText), as far as an observation keeps it
  const held = (el) => fw.heldText(el).slice(0, 160);
  const classSel = (el, within) => {
    const classes = Array.from(el.classList || []).filter((c) => ident.test(c) && !/^(ng-|v-|css-|sc-|jsx-)/.test(c)).slice(0, 2);
    if (!classes.length) return '';
    const sel = el.localName + classes.map((c) => '.' + c).join('');
    return count(sel, within) === 1 ? sel : '';
  };
  // a selector a person would write for `el`, unique in `within` (the document, or a row)
  const nameSel = (el, within) => {
    const scope = within || document;
    const tag = el.localName;
    const attr = fw.testIdAttr(el);
    const tries = [];
    if (attr) tries.push('[' + attr + '=' + quote(el.getAttribute(attr)) + ']');
    if (el.id && ident.test(el.id)) tries.push('#' + el.id);
    const aria = el.getAttribute('aria-label');
    if (aria && aria.trim()) tries.push(tag + '[aria-label=' + quote(aria) + ']');
    const title = el.getAttribute('title');
    if (title && title.trim() && /^(a|button)$/.test(tag)) tries.push(tag + '[title=' + quote(title) + ']');
    const name = el.getAttribute('name');
    if (name && /^(input|select|textarea|button)$/.test(tag)) tries.push(tag + '[name=' + quote(name) + ']');
    const href = el.getAttribute('href');
    if (tag === 'a' && href) tries.push('a[href=' + quote(href) + ']');
    const cls = classSel(el, scope);
    if (cls) tries.push(cls);
    if (tag === 'input') tries.push('input[type=' + quote(el.getAttribute('type') || 'text') + ']');
    if (within) tries.push(tag);
    for (const sel of tries) if (count(sel, scope) === 1) return sel;
    return '';
  };
  const namedSel = (el) => {
    const sel = nameSel(el);
    return sel && !/^[a-z0-9]+(\.[\w-]+)*$/.test(sel) ? sel : '';
  };
  const stateOf = (el) => {
    const s = {};
    for (const a of ['aria-pressed', 'aria-expanded', 'aria-selected', 'aria-current', 'aria-checked', 'aria-disabled']) {
      if (el.hasAttribute(a)) s[a] = el.getAttribute(a);
    }
    if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) s.checked = el.checked;
    if (el.disabled !== undefined && /^(input|select|textarea|button)$/.test(el.localName)) s.disabled = !!el.disabled;
    return s;
  };
  const isField = (el) => /^(input|select|textarea)$/.test(el.localName);
  const controlKind = (el) => {
    const tag = el.localName;
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (tag === 'a') return 'link';
    if (tag === 'input' && (type === 'checkbox' || type === 'radio')) return 'checkbox';
    if (tag === 'input' && /^(submit|button|reset|image)$/.test(type)) return 'button';
    if (isField(el)) return 'field';
    return 'button';
  };
  const describeControl = (el, within) => ({
    sel: nameSel(el, within), kind: controlKind(el), tag: el.localName, type: (el.getAttribute('type') || '').toLowerCase(),
    name: fw.nameOf(el).slice(0, 80),
    words: squash([el.id, fw.testIdOf(el), el.className && el.className.baseVal === undefined ? el.className : '',
                   el.getAttribute('name'), el.getAttribute('href'), el.getAttribute('title'), el.getAttribute('aria-label'),
                   el.getAttribute('value'), el.getAttribute('action'), el.innerText].filter(Boolean).join(' '), 300),
    href: el.localName === 'a' ? el.href : '', visible: isVisible(el),
    value: isField(el) && el.type !== 'password' ? squash(el.value, 160) : null, state: stateOf(el),
  });
  const controlSel = 'a[href], button, input, select, textarea, [role=button], [role=checkbox], [role=tab], [role=switch], summary';

  // lists and tables, with their rows
  const lists = [];
  const inList = new Set();
  // a container of sibling `article`s (a single-page app's cards) is a list too
  const cards = Array.from(document.querySelectorAll('article')).map((a) => a.parentElement)
    .filter((p, i, all) => p && all.indexOf(p) === i && p.querySelectorAll(':scope > article').length >= 1);
  for (const el of [...Array.from(document.querySelectorAll('ul, ol, table, [role=list], [role=table], [role=grid]')), ...cards].slice(0, 60)) {
    if (el.closest('nav, [role=navigation]')) continue;
    const sel = nameSel(el);
    if (!sel) continue;
    const table = el.localName === 'table' || /^(table|grid)$/.test(el.getAttribute('role') || '');
    let items, item;
    if (el.localName === 'table') { items = Array.from(el.tBodies.length ? el.tBodies[0].rows : el.rows).filter((r) => !r.querySelector('th') || r.querySelector('td')); item = el.tBodies.length ? 'tbody > tr' : 'tr'; }
    else if (table) { items = Array.from(el.querySelectorAll('[role=row]')).filter((r) => !r.querySelector('[role=columnheader]')); item = '[role=row]'; }
    else if (cards.includes(el)) { items = Array.from(el.children).filter((c) => c.localName === 'article' && fw.visible(c)); item = 'article'; }
    else { items = Array.from(el.children).filter((c) => c.localName === 'li' || c.getAttribute('role') === 'listitem'); item = items.length && items[0].localName !== 'li' ? '[role=listitem]' : 'li'; }
    const rows = items.slice(0, limit).map((row) => {
      const controls = Array.from(row.querySelectorAll(controlSel)).slice(0, 12);
      // a row's controls are the row's; in a short list (filter links, a tab strip) a control
      // that has a name of its own (id, test id, label, href) is an element of the page too
      const short = items.length <= 8;
      controls.forEach((c) => { if (!short || !namedSel(c)) inList.add(c); });
      const label = row.querySelector('label, [class*=title i], [class*=name i]');
      return { text: held(row), classes: Array.from(row.classList || []).slice(0, 8), visible: isVisible(row),
               controls: controls.map((c) => describeControl(c, row)),
               label: label && !label.querySelector('input, button') ? nameSel(label, row) : '' };
    });
    lists.push({ sel, item, table, visible: isVisible(el), count: rows.filter((r) => r.visible).length, total: items.length, rows });
  }

  // elements a person can name: their text, visibility, classes and state
  const elements = [];
  const seen = new Set();
  const named = document.querySelectorAll(['[id]', ...fw.testIdAttributes().map((a) => '[' + CSS.escape(a) + ']'), '[aria-label]', '[role=status]', '[role=alert]', '[aria-live]', 'a[href]', 'button', 'input', 'select', 'textarea', '[role=button]', '[role=tab]'].join(', '));
  for (const el of named) {
    if (elements.length >= limit) break;
    if (inList.has(el) || el.closest('script, style, template, head')) continue;
    if (el.localName === 'a' && el.closest('ul, ol, table') && !el.closest('nav, [role=navigation]') && !el.id && !fw.testIdAttr(el)) {
      // links inside a content list are its items; the list's rows say what changed
      const list = el.closest('ul, ol, table');
      if (!list.closest('#filters, [role=tablist], [role=toolbar]') && list.querySelectorAll('a').length > 8) continue;
    }
    const sel = nameSel(el);
    if (!sel || seen.has(sel)) continue;
    seen.add(sel);
    const big = /^(ul|ol|table|tbody|dl|form|section|main|nav|article)$/.test(el.localName)
      || el.querySelector('ul, ol, table, form, section, article, main, nav') !== null;
    const text = big ? '' : held(el);
    elements.push({ sel, tag: el.localName, text: text.length <= 120 ? text : '', visible: isVisible(el),
                    classes: Array.from(el.classList || []).slice(0, 8), state: stateOf(el),
                    value: isField(el) && el.type !== 'password' ? squash(el.value, 160) : null,
                    control: el.matches(controlSel) ? describeControl(el) : null });
  }
  const storage = (which) => {
    const out = {};
    try {
      const store = window[which];   // reading it throws where storage is denied
      for (let i = 0; i < store.length && i < 50; i++) {
        const k = store.key(i);
        const v = String(store.getItem(k) || '');
        let h = 0;
        for (let j = 0; j < v.length; j++) h = (h * 31 + v.charCodeAt(j)) | 0;
        out[k] = v.length + ':' + (h >>> 0).toString(16);
      }
    } catch { /* storage can be denied */ }
    return out;
  };
  const messages = [];
  for (const el of document.querySelectorAll('[role=alert], [role=status], [aria-live], .messagelist li, .alert, .flash, .notice, .errornote, .errorlist li, .success, .error')) {
    if (!isVisible(el)) continue;
    const t = squash(el.innerText, 200);
    if (t && !messages.includes(t)) messages.push(t);
    if (messages.length >= 10) break;
  }
  const h1 = Array.from(document.querySelectorAll('h1')).find(isVisible);
  return { url: location.href, title: squash(document.title, 200), heading: h1 ? held(h1) : '',
           local: storage('localStorage'), session: storage('sessionStorage'),
           lists, elements, messages };
}
