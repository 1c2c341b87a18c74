/* global fw, generated, selectorsOf */
/* flowwalk: survey the page for discover */
(root, limit) => {
  // only what a person can see and use is listed: fw.offered (js/prelude.js)
  const squash = (text, n) => fw.norm(text).slice(0, n || 120);
  const quote = (v) => '"' + String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
  const count = (sel) => { try { return document.querySelectorAll(sel).length; } catch { return -1; } };
  const cssIdent = (v) => (window.CSS && CSS.escape ? CSS.escape(v) : v);
  // an element's text (fw.textOf) and accessible name (fw.nameOf), cut to what the survey keeps
  const textCut = (el) => fw.textOf(el).slice(0, 120);
  const named = (el) => fw.nameOf(el).slice(0, 120);
  const quoteTestId = (el) => { const a = fw.testIdAttr(el); return a ? '[' + a + '=' + quote(el.getAttribute(a)) + ']' : ''; };
  const stableId = (el) => !!el.id && !generated(el.id);
  // a positional chain, the last resort: tag:nth-of-type steps up to an element with a stable id or a test id
  const chain = (el) => {
    const steps = [];
    let node = el;
    while (node && node.nodeType === 1 && node.localName !== 'html') {
      if (node !== el && fw.testIdAttr(node)) { steps.unshift(quoteTestId(node)); break; }
      if (node !== el && stableId(node) && count('#' + cssIdent(node.id)) === 1) { steps.unshift('#' + cssIdent(node.id)); break; }
      let step = node.localName;
      const parent = node.parentElement;
      if (parent) {
        const same = Array.from(parent.children).filter((c) => c.localName === node.localName);
        if (same.length > 1) step += ':nth-of-type(' + (same.indexOf(node) + 1) + ')';
      }
      steps.unshift(step);
      node = parent;
    }
    return steps.join(' > ');
  };
  const candidates = (el, kind) => {
    const out = [];
    const add = (sel, how, n) => { if (sel && !out.some((c) => c.selector === sel)) out.push({ selector: sel, how, count: n === undefined ? count(sel) : n }); };
    const tag = el.localName;
    // the selector writer's answers first (selector.js): a test id, a stable id, each matching it alone
    for (const s of selectorsOf(el)) add(s.selector, s.how, 1);
    const aria = el.getAttribute('aria-label');
    if (aria && aria.trim()) add(tag + '[aria-label=' + quote(aria) + ']', 'label');
    if (kind === 'field') {
      const name = el.getAttribute('name');
      if (name) add(tag + '[name=' + quote(name) + ']', 'label');
      const ph = el.getAttribute('placeholder');
      if (ph) add(tag + '[placeholder=' + quote(ph) + ']', 'label');
    }
    const role = el.getAttribute('role');
    if (role && el.getAttribute('aria-controls')) add('[role=' + quote(role) + '][aria-controls=' + quote(el.getAttribute('aria-controls')) + ']', 'role');
    if (kind === 'link') {
      const href = el.getAttribute('href');
      if (href) add('a[href=' + quote(href) + ']', 'role');
    }
    // within the nearest named ancestor (a labelled nav or section, an id, a test id): readable and stable
    // (an ancestor named only by a generated id names nothing: the next one up)
    const naming = [...fw.testIdAttributes().map((a) => '[' + CSS.escape(a) + ']'), '[id]', '[aria-label]', '[aria-labelledby]'].join(', ');
    let anchor = el.parentElement && el.parentElement.closest(naming);
    while (anchor && !fw.testIdAttr(anchor) && !stableId(anchor) && !anchor.getAttribute('aria-label') && !anchor.getAttribute('aria-labelledby')) {
      anchor = anchor.parentElement && anchor.parentElement.closest(naming);
    }
    if (anchor && anchor !== document.body) {
      let scope;
      if (fw.testIdAttr(anchor)) scope = quoteTestId(anchor);
      else if (stableId(anchor) && /^[A-Za-z][\w-]*$/.test(anchor.id)) scope = '#' + anchor.id;
      else if (anchor.getAttribute('aria-label')) scope = anchor.localName + '[aria-label=' + quote(anchor.getAttribute('aria-label')) + ']';
      else scope = anchor.localName + '[aria-labelledby=' + quote(anchor.getAttribute('aria-labelledby')) + ']';
      let self = tag;
      if (kind === 'link' && el.getAttribute('href')) self += '[href=' + quote(el.getAttribute('href')) + ']';
      else if (kind === 'field' && el.getAttribute('name')) self += '[name=' + quote(el.getAttribute('name')) + ']';
      add(scope + ' ' + self, 'role');
    }
    if (kind === 'button' || kind === 'link') {
      const text = textCut(el);
      if (text && text.length <= 60 && !/["\n]/.test(text)) add('text=' + quote(text), 'text', -1);
    }
    add(chain(el), 'position');
    return out;
  };
  const describe = (el, kind) => ({
    tag: el.localName, kind, role: fw.roleOf(el), id: el.id || '', testid: fw.testIdOf(el),
    name: named(el), text: textCut(el).slice(0, 80),
    classes: Array.from(el.classList || []).slice(0, 6),
    attrs: Object.fromEntries(Array.from(el.attributes).filter((a) => /^(href|type|name|title|aria-|data-|value|rel|download|target|action|method|autocomplete|placeholder|onclick)/.test(a.name))
      .slice(0, 24).map((a) => [a.name, String(a.value).slice(0, 200)])),
    candidates: candidates(el, kind),
  });
  const offeredAll = (sel) => Array.from(document.querySelectorAll(sel)).filter(fw.offered);
  const landmarkOf = (el) => {
    const nav = el.closest('nav, [role=navigation]');
    if (nav) return 'navigation:' + named(nav);
    if (el.closest('header, [role=banner]')) return 'banner';
    if (el.closest('footer, [role=contentinfo]')) return 'contentinfo';
    if (el.closest('aside, [role=complementary]')) return 'complementary';
    return el.closest('main, [role=main]') ? 'main' : '';
  };

  const landmarks = offeredAll('header, nav, main, aside, footer, [role=banner], [role=navigation], [role=main], [role=search], [role=complementary], [role=contentinfo], [role=region], section[aria-label], section[aria-labelledby]')
    .slice(0, limit).map((el) => ({ role: fw.roleOf(el) || el.localName,
                                    name: named(el) }));
  const headings = offeredAll('h1, h2, h3, h4, h5, h6, [role=heading]').slice(0, limit)
    .map((el) => ({ level: Number(el.getAttribute('aria-level') || el.localName.slice(1)) || 2, text: textCut(el), selector: describe(el, 'heading').candidates }));
  const links = offeredAll('a[href], [role=link][href]').slice(0, limit).map((el) => Object.assign(describe(el, 'link'), {
    href: el.href, raw_href: el.getAttribute('href') || '', landmark: landmarkOf(el),
  }));
  const buttons = offeredAll('button, [role=button], input[type=submit], input[type=button], input[type=reset], summary, [role=tab], [role=switch]').slice(0, limit)
    .map((el) => Object.assign(describe(el, 'button'), {
      type: el.localName === 'button' || el.localName === 'input' ? (el.getAttribute('type') || 'submit') : '',
      in_form: !!el.closest('form') || !!el.getAttribute('form'), disabled: !!el.disabled || el.getAttribute('aria-disabled') === 'true',
      expanded: el.getAttribute('aria-expanded'), pressed: el.getAttribute('aria-pressed'), selected: el.getAttribute('aria-selected'),
      controls: el.getAttribute('aria-controls') || '', group: (() => { const g = el.closest('[role=group], [role=tablist], [role=toolbar], [role=radiogroup]'); return g ? named(g) || g.getAttribute('role') : ''; })(),
      landmark: landmarkOf(el),
    }));
  const fieldOf = (el) => Object.assign(describe(el, 'field'), {
    type: el.localName === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : el.localName,
    required: !!el.required || el.getAttribute('aria-required') === 'true', field_name: el.getAttribute('name') || '',
    autocomplete: el.getAttribute('autocomplete') || '', value: el.type === 'password' ? '' : squash(el.value, 80),
    checked: !!el.checked, disabled: !!el.disabled,
    options: el.localName === 'select' ? Array.from(el.options).slice(0, 20).map((o) => ({ value: o.value, text: squash(o.text, 60) })) : [],
  });
  const fieldSel = 'input:not([type=hidden]):not([type=submit]):not([type=button]):not([type=reset]):not([type=image]), select, textarea';
  const forms = [];
  for (const form of offeredAll('form').slice(0, 30)) {
    const fields = Array.from(form.querySelectorAll(fieldSel)).filter(fw.offered).slice(0, 40).map(fieldOf);
    const submitEl = Array.from(form.querySelectorAll('button:not([type]), button[type=submit], input[type=submit]')).find(fw.offered);
    forms.push(Object.assign(describe(form, 'form'), {
      name: named(form) || (form.querySelector('legend, h2, h3') ? textCut(form.querySelector('legend, h2, h3')) : ''),
      action: form.getAttribute('action') || '', method: (form.getAttribute('method') || 'get').toLowerCase(),
      search: form.getAttribute('role') === 'search' || !!form.closest('[role=search]'),
      fields, submit: submitEl ? Object.assign(describe(submitEl, 'button'), { disabled: !!submitEl.disabled }) : null,
      implicit: false,
    }));
  }
  // fields outside any form (search boxes, TodoMVC's new-todo input): one implicit form per landmark
  const loose = offeredAll(fieldSel).filter((el) => !el.closest('form') && !el.form);
  const byPlace = new Map();
  for (const el of loose.slice(0, 40)) {
    const key = landmarkOf(el) || 'page';
    if (!byPlace.has(key)) byPlace.set(key, []);
    byPlace.get(key).push(el);
  }
  for (const [place, els] of byPlace) {
    const search = els.some((el) => (el.getAttribute('type') || '') === 'search' || !!el.closest('[role=search]'));
    forms.push({ tag: '', kind: 'form', role: '', id: '', testid: '', name: '', text: '', classes: [], attrs: {}, candidates: [],
                 action: '', method: '', search, fields: els.map(fieldOf), submit: null, implicit: true, place });
  }
  const lists = [];
  for (const el of offeredAll('ul, ol, table, [role=list], [role=table], [role=grid]').slice(0, 60)) {
    if (el.closest('nav, [role=navigation]')) continue;
    const table = el.localName === 'table' || el.getAttribute('role') === 'table' || el.getAttribute('role') === 'grid';
    let items;
    if (el.localName === 'table') items = Array.from(el.tBodies.length ? el.tBodies[0].rows : el.rows).filter((r) => !r.querySelector('th') || r.querySelector('td'));
    else if (table) items = Array.from(el.querySelectorAll('[role=row]')).filter((r) => !r.querySelector('[role=columnheader]'));
    else items = Array.from(el.children).filter((c) => c.localName === 'li' || c.getAttribute('role') === 'listitem');
    const shown = items.filter(fw.offered);
    const d = describe(el, 'list');
    const itemTag = el.localName === 'table' ? (el.tBodies.length ? 'tbody > tr' : 'tr') : (table ? '[role=row]' : (items.length && items[0].localName === 'li' ? 'li' : '[role=listitem]'));
    lists.push(Object.assign(d, { table, count: shown.length, total: items.length, item_tag: itemTag,
                                  first_item: shown.length ? textCut(shown[0]).slice(0, 80) : '',
                                  items: shown.slice(0, 5).map((i) => textCut(i).slice(0, 80)),
                                  name: named(el) || (el.previousElementSibling && /^h[1-6]$/.test(el.previousElementSibling.localName) ? textCut(el.previousElementSibling) : ''),
                                  landmark: landmarkOf(el) }));
  }
  const dialogs = [];
  const seen = new Set();
  const overlays = offeredAll('[role=dialog], [role=alertdialog], dialog[open], [aria-modal=true], [role=status], [role=alert], [id*=cookie i], [class*=cookie i], [data-testid*=cookie i], [id*=consent i], [class*=consent i], [data-testid*=consent i], [class*=banner i], [class*=toast i]');
  for (const el of overlays) {
    if (Array.from(seen).some((s) => s.contains(el) || el.contains(s))) continue;
    if (el.localName === 'body' || el.localName === 'main' || el.localName === 'html') continue;
    const text = squash(el.innerText || '', 300);
    if (!text) continue;
    seen.add(el);
    const d = describe(el, 'dialog');
    const btns = Array.from(el.querySelectorAll('button, [role=button], a[href]')).filter(fw.offered).slice(0, 8).map((b) => describe(b, 'button'));
    dialogs.push(Object.assign(d, { text, buttons: btns, modal: el.getAttribute('aria-modal') === 'true' || el.localName === 'dialog' || el.getAttribute('role') === 'alertdialog',
                                    cookie: /cookie|consent|gdpr/i.test(text + ' ' + el.id + ' ' + el.className + ' ' + fw.testIdOf(el)) }));
    if (dialogs.length >= 20) break;
  }
  return { url: location.href, title: squash(document.title, 200), lang: document.documentElement.lang || '',
           landmarks, headings, links, buttons, forms, lists, dialogs };
}
