/* flowwalk: an init script of every context: when the document last changed, and a count of every change */
(() => { try {
  const key = Symbol.for('flowwalk.quiet');
  if (window[key]) return;
  const start = performance.now();
  // n counts everything that could change a read (`seen`); waiters are woken by it (`Page.changed`)
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
    try { observe(root); } catch { /* observing is best effort; the check then reads twice */ }
    return root;
  };
  document.addEventListener('DOMContentLoaded', () => declared(document), true);
  for (const proto of [Element.prototype, typeof ShadowRoot === 'undefined' ? null : ShadowRoot.prototype]) {
    const f = proto && Object.getOwnPropertyDescriptor(proto, 'setHTMLUnsafe');
    if (!f || typeof f.value !== 'function') continue;
    Object.defineProperty(proto, 'setHTMLUnsafe', { ...f, value: function setHTMLUnsafe(...a) {
      const r = f.value.apply(this, a);
      try { declared(this); } catch { /* best effort */ }
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
} catch { /* never disturb the page: without the record, checks read twice */ } })();
