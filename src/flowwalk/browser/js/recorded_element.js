/* global selectorsOf, cssPath, fingerprint */
/* flowwalk: an element the recorder names from outside its page (an iframe's element, for a
   `frame:` block): its selector from the one selector writer (selector.js, then css_path.js) and
   its fingerprint, as recorder.js names the elements a person used */
(el) => {
  const best = selectorsOf(el, null);
  const selector = best.length ? best[0].selector : (cssPath(el, null) || el.tagName.toLowerCase());
  return { selector, fp: fingerprint(el) };
}
