/* flowwalk: one element -> its fingerprint (heal/fingerprint.py bounds and compares them) */
(el) => {
  const cut = (s, n) => { s = String(s == null ? '' : s).replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n) : s; };
  const tag = el.tagName.toLowerCase();
  const attr = (n) => el.getAttribute(n);
  const type = (attr('type') || '').toLowerCase();
  let role = (attr('role') || '').trim().split(/\s+/)[0];
  if (!role) {
    if (tag === 'button' || tag === 'summary') role = 'button';
    else if (tag === 'a' && el.hasAttribute('href')) role = 'link';
    else if (/^h[1-6]$/.test(tag)) role = 'heading';
    else if (tag === 'select') role = 'combobox';
    else if (tag === 'textarea') role = 'textbox';
    else if (tag === 'input') {
      if (['button', 'submit', 'reset', 'image'].includes(type)) role = 'button';
      else if (type === 'checkbox' || type === 'radio') role = type;
      else if (type === 'search') role = 'searchbox';
      else if (['', 'text', 'email', 'tel', 'url', 'password'].includes(type)) role = 'textbox';
    }
  }
  let aname = attr('aria-label') || '';
  if (!aname && attr('aria-labelledby')) {
    aname = attr('aria-labelledby').split(/\s+/).map((i) => { const l = document.getElementById(i); return l ? l.textContent : ''; }).join(' ');
  }
  if (!aname && el.labels && el.labels.length) aname = Array.from(el.labels).map((l) => l.textContent).join(' ');
  if (!aname) aname = attr('alt') || attr('title') || attr('placeholder') || '';
  if (!aname && tag === 'input' && ['button', 'submit', 'reset'].includes(type)) aname = el.value || '';
  const text = ['input', 'select', 'textarea'].includes(tag) ? '' : el.textContent;
  if (!aname && ['button', 'link', 'tab', 'menuitem', 'heading', 'checkbox', 'radio'].includes(role)) aname = text;
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
    testid: cut(attr('data-testid') || attr('data-test-id') || attr('data-test') || attr('data-qa') || attr('data-cy'), 120),
    classes: Array.from(el.classList).slice(0, 8).map((c) => cut(c, 60)), text: cut(text, 80), type,
    href: cut(attr('href'), 120), nth, ancestors, context: cut(context, 80),
  };
}
