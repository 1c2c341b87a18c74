/* global fw */
/* flowwalk: one read of a selector's matches, for every element kind a check reads */
(els, a) => {
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
  const read = () => {
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
  };
  const out = read();
  if (a.q) out.quiet = fw.quiet(a.q);
  out.seq = fw.seq();
  return out;
}
