/* global fw, generated */
/* flowwalk: the selector writer's first answers for an element: the selectors that match it alone
   (in its document, or with a `scope` element, as `scope >> selector` finds it), best first, each
   `{ selector, how }`:
   - its test id, `[data-qa="x"]`, in each of the `fw.testIdAttributes()` it has, in their order
     ('testid');
   - its id, `#x`, unless the id looks generated (generated.js: `#ember1234`,
     `#react-select-3-input` are never written) ('id').
   Discover's survey (survey.js) and heal's page read (css_path.js) both start from these and go on
   with their own forms after them; an element none of these names alone gets [] here. */
(el, scope) => {
  const root = el.ownerDocument;
  const within = scope && scope !== root ? scope : null;
  const quote = (v) => '"' + String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
  const alone = (sel) => {
    try {
      const found = within ? within.querySelectorAll(sel.startsWith(':scope') ? sel : ':scope ' + sel) : root.querySelectorAll(sel);
      return found.length === 1 && found[0] === el;
    } catch { return false; }
  };
  const out = [];
  const add = (selector, how) => { if (alone(selector) && !out.some((s) => s.selector === selector)) out.push({ selector, how }); };
  for (const a of fw.testIdAttributes()) {
    const v = el.getAttribute(a);
    if (v) add('[' + a + '=' + quote(v) + ']', 'testid');
  }
  if (el.id && !generated(el.id)) add('#' + CSS.escape(el.id), 'id');
  return out;
}
