/* global cssPath */
/* flowwalk: the one element of a role beside each named match, as a CSS path */
(els, css) => {
  const out = [];
  for (const e of els.slice(0, 5)) {
    if (e.control && e.control.matches(css)) { out.push(cssPath(e.control)); continue; }  // a <label>
    for (let p = e.parentElement, d = 0; p && d < 4; p = p.parentElement, d++) {
      const found = Array.from(p.querySelectorAll(css)).filter((x) => x !== e && !x.contains(e));
      if (!found.length) continue;
      if (found.length === 1) out.push(cssPath(found[0]));
      break;
    }
  }
  return out.filter((s) => s);
}
