/* flowwalk: an element's role: its explicit role, else its tag's (and input type's) */
(e) => {
  const explicit = (e.getAttribute('role') || '').trim().split(/\s+/)[0];
  if (explicit) return explicit;
  const tag = e.tagName.toLowerCase();
  if (tag === 'button' || tag === 'summary') return 'button';
  if (tag === 'a' && e.hasAttribute('href')) return 'link';
  if (/^h[1-6]$/.test(tag)) return 'heading';
  if (tag === 'select') return e.multiple || e.size > 1 ? 'listbox' : 'combobox';
  if (tag === 'textarea') return 'textbox';
  if (tag === 'input') {
    const t = (e.getAttribute('type') || 'text').toLowerCase();
    if (['button', 'submit', 'reset', 'image'].includes(t)) return 'button';
    if (t === 'checkbox' || t === 'radio') return t;
    if (t === 'search') return 'searchbox';
    if (t === 'number') return 'spinbutton';
    if (['text', 'email', 'tel', 'url', 'password', ''].includes(t)) return e.hasAttribute('list') ? 'combobox' : 'textbox';
  }
  return '';
}
