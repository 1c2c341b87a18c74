/* global fw */
/* flowwalk: a form's fields as its markup asks them to be filled, for discover (`Page.form`) */
(root) => {
  // every field a person can fill (hidden ones left out) with what constrains it: its type, required,
  // pattern, min, max, step, maxlength, minlength, placeholder, the help text that describes it, its
  // options, its value and checked state; and the error messages shown beside it or for the whole form
  const form = root.matches('form') ? root : (root.closest('form') || root);
  // the field's own row: the widest of the usual wrappers first (a date widget wraps its input in a <p>)
  const ROWS = ['.form-row', '.form-group', '.field', 'fieldset > div', 'li', 'p'];
  const rowOf = (el) => ROWS.map((s) => el.closest(s)).find(Boolean) || el.parentElement;
  // which of ROWS the row is ('' for the field's parent): `row:has(field)` finds it again
  const rowKind = (el) => ROWS.find((s) => el.closest(s)) || '';
  const texts = (els) => Array.from(els).filter(fw.offered).map((e) => fw.textOf(e)).filter(Boolean);
  const fields = Array.from(form.querySelectorAll('input, select, textarea'))
    .filter((el) => !['hidden', 'submit', 'button', 'reset', 'image'].includes((el.getAttribute('type') || '').toLowerCase()) && fw.offered(el))
    .slice(0, 40).map((el) => {
      const row = rowOf(el);
      const described = (el.getAttribute('aria-describedby') || '').split(/\s+/).map((id) => id && document.getElementById(id)).filter(Boolean);
      const errors = row ? texts(row.querySelectorAll('.errorlist li, .invalid-feedback, .field-error, .error-message, [role=alert]')) : [];
      const help = texts(described.length ? described : (row ? row.querySelectorAll('.help, .helptext, .form-text, small') : []))
        .filter((t) => !errors.includes(t));
      return { name: el.getAttribute('name') || '', id: el.id || '', tag: el.localName,
               type: el.localName === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : el.localName,
               classes: Array.from(el.classList).slice(0, 6), required: !!el.required || el.getAttribute('aria-required') === 'true',
               pattern: el.getAttribute('pattern') || '', min: el.getAttribute('min') || '', max: el.getAttribute('max') || '',
               step: el.getAttribute('step') || '', maxlength: el.maxLength > 0 ? el.maxLength : 0, minlength: el.minLength > 0 ? el.minLength : 0,
               placeholder: el.getAttribute('placeholder') || '', help: help.join(' ').slice(0, 300),
               options: el.localName === 'select' ? Array.from(el.options).slice(0, 50).map((o) => ({ value: o.value, text: fw.norm(o.text) })) : [],
               value: el.type === 'password' ? '' : String(el.value || '').slice(0, 200), checked: !!el.checked,
               errors, row: rowKind(el) };
    });
  return { fields, errors: texts(document.querySelectorAll('.errornote, .alert-danger, .form-errors, form [role=alert], .errorlist.nonfield li')) };
}
