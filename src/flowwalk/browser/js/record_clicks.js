/* global fw */
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
    const note = (type) => (event) => {
      try {
        if (!event.isTrusted) return;
        let el = event.target;
        if (el && el.nodeType !== 1) el = el.parentElement || el;
        const entry = { t: now.call(Date), tag: '', id: '', classes: [], testid: '', testid_attr: '', text: '', ref: null };
        if (el && el.nodeType === 1) {
          entry.tag = String(el.localName || el.nodeName || '').toLowerCase();
          entry.id = clip(el.id || '', 60);
          entry.classes = Array.prototype.slice.call(el.classList || [], 0, 3).map((c) => clip(c, 40));
          entry.testid_attr = fw.testIdAttr(el);
          entry.testid = clip(fw.testIdOf(el), 60);
          entry.text = clip(fw.textOf(el), 80);
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
