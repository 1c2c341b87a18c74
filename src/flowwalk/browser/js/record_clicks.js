/* flowwalk: an init script of every context: what the last trusted pointerdown and click reached */
(() => {
  try {
    const name = '__flowwalk_click_record_5c3e81';
    if (Object.prototype.hasOwnProperty.call(window, name)) return;
    const record = Object.create(null);
    record.pointerdown = null;
    record.click = null;
    Object.defineProperty(window, name, { value: record, enumerable: false, configurable: false, writable: false });
    const now = Date.now;
    const Ref = typeof WeakRef === 'function' ? WeakRef : null;
    const clip = (text, n) => (typeof text === 'string' && text.length > n ? text.slice(0, n - 1) + '\u2026' : text);
    const textOf = (el) => {
      let out = '';
      try {
        const walker = (el.ownerDocument || document).createTreeWalker(el, 4);
        let seen = 0, node;
        while (out.length <= 80 && seen < 200 && (node = walker.nextNode())) {
          seen++;
          const parent = node.parentElement;
          if (parent && (parent.localName === 'script' || parent.localName === 'style')) continue;
          out = (out + ' ' + String(node.nodeValue || '').slice(0, 200)).replace(/\s+/g, ' ');
        }
      } catch { /* an unusual node: no text */ }
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
      } catch { /* never disturb the page */ }
    };
    window.addEventListener('pointerdown', note('pointerdown'), { capture: true, passive: true });
    window.addEventListener('click', note('click'), { capture: true, passive: true });
  } catch { /* never disturb the page */ }
})();
