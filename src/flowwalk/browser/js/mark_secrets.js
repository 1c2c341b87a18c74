/* flowwalk: mark the elements whose value or own text holds a secret, in every open shadow root;
   returns how each marked element is named (tag#id.class, at most 20 of them) */
({ secrets, attr }) => {
  const marked = [];
  const holds = (text) => !!text && secrets.some((s) => text.includes(s));
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (el.classList && el.classList.length ? '.' + el.classList[0] : '');
  const mark = (el) => { if (!el.hasAttribute(attr)) { el.setAttribute(attr, ''); marked.push(name(el)); } };
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (('value' in el && typeof el.value === 'string' && holds(el.value))
          || Array.from(el.childNodes).some((n) => n.nodeType === 3 && holds(n.nodeValue))
          || holds(el.getAttribute('title')) || holds(el.getAttribute('placeholder'))) mark(el);
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  visit(document);
  return marked.slice(0, 20);
}
