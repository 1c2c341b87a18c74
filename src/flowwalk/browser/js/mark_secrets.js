/* flowwalk: mark the elements whose value or own text holds a secret, in every open shadow root */
({ secrets, attr }) => {
  let marked = 0;
  const holds = (text) => !!text && secrets.some((s) => text.includes(s));
  const mark = (el) => { if (!el.hasAttribute(attr)) { el.setAttribute(attr, ''); marked++; } };
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (('value' in el && typeof el.value === 'string' && holds(el.value))
          || Array.from(el.childNodes).some((n) => n.nodeType === 3 && holds(n.nodeValue))
          || holds(el.getAttribute('title')) || holds(el.getAttribute('placeholder'))) mark(el);
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  visit(document);
  return marked;
}
