/* global fw */
/* flowwalk: one element -> its fingerprint (heal/fingerprint.py bounds and compares them) */
(el) => {
  const cut = (s, n) => { s = String(s == null ? '' : s).replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n) : s; };
  const tag = el.tagName.toLowerCase();
  const attr = (n) => el.getAttribute(n);
  const type = (attr('type') || '').toLowerCase();
  const role = fw.roleOf(el);
  // the accessible name, and the title that describes the element when it is not its name: a
  // button renamed from "Go" to "Run" keeps its title "Run the selected action"
  const named = fw.nameOf(el), title = fw.norm(attr('title'));
  const aname = title && !named.includes(title) ? named + ' ' + title : named;
  const text = ['input', 'select', 'textarea'].includes(tag) ? '' : el.textContent;
  const short = (e) => {
    let s = e.tagName.toLowerCase();
    if (e.id) s += '#' + e.id;
    const c = Array.from(e.classList).slice(0, 2);
    if (c.length) s += '.' + c.join('.');
    return cut(s, 60);
  };
  const ancestors = [];
  for (let p = el.parentElement; p && p !== document.body && p !== document.documentElement && ancestors.length < 4; p = p.parentElement) ancestors.push(short(p));
  // the text around an element that has none of its own (a todo's checkbox: its row's text)
  let context = '';
  for (let p = el.parentElement, d = 0; p && d < 3 && p !== document.body; p = p.parentElement, d++) {
    const t = cut(p.textContent, 200);
    if (t && t !== cut(text, 200)) { context = t; break; }
  }
  let nth = 1;
  for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === el.tagName) nth++;
  return {
    tag, id: cut(el.id, 120), name: cut(attr('name'), 120), role, aname: cut(aname, 80),
    testid: cut(fw.testIdOf(el), 120),
    classes: Array.from(el.classList).slice(0, 8).map((c) => cut(c, 60)), text: cut(text, 80), type,
    href: cut(attr('href'), 120), nth, ancestors, context: cut(context, 80),
  };
}
