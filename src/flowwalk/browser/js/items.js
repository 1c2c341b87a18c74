/* global fw */
/* flowwalk: every match of one selector, item by item, in document order (the first a.max): its text
   (rendered and normalised by fw.textOf, or with a.raw its textContent exactly as the DOM holds it,
   whitespace and all) and its class attribute ('' when it has none), each clipped to a.clip */
(els, a) => {
  const clip = (t) => (t.length > a.clip ? t.slice(0, a.clip) : t);
  const items = els.slice(0, a.max);
  const out = { n: els.length,
                texts: items.map((e) => clip(a.raw ? String(e.textContent || '') : fw.textOf(e))),
                classes: items.map((e) => clip(e.getAttribute('class') || '')) };
  if (a.q) out.quiet = fw.quiet(a.q);
  out.seq = fw.seq();
  return out;
}
