/* global TEST_ID_ATTRIBUTES */
/* flowwalk: the prelude of every read script (browser/scripts.py defines it as `fw`), so there is one
 * answer to each of these questions:
 *
 * - **visible** (`fw.visible(e)`): the element is connected, is rendered (the DOM's checkVisibility: no
 *   `display: none` on it or an ancestor, no `content-visibility: hidden` ancestor), its computed
 *   `visibility` is `visible`, and its box is not empty. An element with `display: contents` has
 *   no box of its own: it is visible when one of its children is. This is Playwright's meaning of
 *   visible (what `locator.is_visible()` and `visible=true` answer), with `checkVisibility` added,
 *   and what the stabilized checks have always used. `aria-hidden`, `inert` and the `hidden`
 *   attribute do not enter into it: `hidden` hides through the user agent's `display: none`
 *   (which `checkVisibility` sees; a stylesheet that shows a `[hidden]` element shows it), and the
 *   other two hide from assistive technology and input, not from sight.
 * - **offered** (`fw.offered(e)`): visible, and not inside `aria-hidden="true"` or `inert`: an
 *   element a person can see and use. The page survey (discover) lists only these.
 * - **text** (`fw.norm(s)`: runs of whitespace become one space, trimmed; `fw.textOf(e)`: an
 *   element's rendered `innerText`, or `textContent` for a non-HTML element, normalised).
 *   `fw.heldText(e)`: the text an element holds whether it is shown or not: its rendered text when
 *   visible, else its `textContent`, normalised (discover's observation lists hidden elements too,
 *   so that one appearing after an action has the text it shows).
 *   `fw.contentOf(e)`: what an element shows: its text, or, when that is under 3 characters, with
 *   the alt text of the images it holds (an icon button, a label that is an `<img alt="Search">`).
 * - **disabled** (`fw.disabled(e)`: `:disabled`, or inside `aria-disabled="true"`).
 * - **role** (`fw.roleOf(e)`): the first token of its `role` attribute, else its implicit role
 *   as ARIA in HTML gives it and Playwright's roleUtils computes it (`a[href]` link, `button`,
 *   the input types, `select` combobox or listbox, headings, lists and items, landmarks,
 *   `form` and `section` when named, table parts, `dialog`, `img` with alt text, ...); `summary`
 *   is a button, as Chromium exposes it; '' for an element with no role (`div`, `span`).
 * - **accessible name** (`fw.nameOf(e)`), in the order of the accessible-name computation:
 *   `aria-labelledby` (the referenced elements' text), `aria-label`, then what the element's kind
 *   takes: a form field its labels (`fw.labelOf`), then `title`, then `placeholder` (text fields);
 *   an input button its value; an image its `alt`; a fieldset its legend, a table its caption, a
 *   figure its figcaption; an element whose role takes its name from its content (button, link,
 *   heading, tab, option, checkbox, cell, row, ...) what it shows (`fw.contentOf`); last,
 *   `title`. Normalised as `fw.norm`, not cut: each read cuts it to its own length.
 *   `fw.accessibleName(e)` is `{ name, from }`: the name and which of these it came from (heal
 *   weighs a name that is only a title or a placeholder as a hint, not as what the element shows).
 * - **label** (`fw.labelOf(e)`): the text of a labelable element's `<label>`s (`for=` or
 *   wrapping), the controls inside a label left out (`<label>Action: <select>...</select></label>`
 *   is "Action:"); '' when it has none.
 * - **test id** (`fw.testIdAttr(e)`, `fw.testIdOf(e)`): the first attribute of
 *   `fw.testIdAttributes()` the element has with a value, and that value. The list is the run's
 *   `test_id_attribute` setting, set in every context by its init script (browser/scripts.py
 *   `context_script`), else the setting's default (composed in as `TEST_ID_ATTRIBUTES`).
 * - **element ids** (`fw.idOf(e)` / `fw.byId(id)`): a number per element, stable for the page's
 *   life (a WeakMap: the page keeps no references), so reads that find the same element can be
 *   merged and a later read can find it again.
 * - **quiet** (`fw.quiet(level)`): how long the page has been still, as `js/quiet.js` (an init
 *   script of every context) records it: milliseconds since the last DOM mutation anywhere in the
 *   document or its shadow roots, the last `input`/`change` event and the last URL change; with
 *   `level` 'layout' also whether an animation or transition runs and whether the document, its
 *   fonts and its images have finished loading. A verify-until-stable check reads it to show that
 *   what it read held over the interval without waiting for a second read (walk/checks.py).
 */
(() => {
  const norm = (s) => String(s || '').replace(/\s+/g, ' ').trim();
  const textOf = (e) => norm(e instanceof HTMLElement ? e.innerText : e.textContent);
  const visible = (e) => {
    if (!e || !e.isConnected) return false;
    const style = getComputedStyle(e);
    if (style.display === 'contents') {
      for (const c of e.children) if (visible(c)) return true;
      return false;
    }
    if (style.visibility !== 'visible') return false;
    if (typeof e.checkVisibility === 'function' && !e.checkVisibility()) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const heldText = (e) => (visible(e) ? textOf(e) : norm(e.textContent));
  const offered = (e) => visible(e) && !e.closest('[aria-hidden="true"], [inert]');
  const disabled = (e) => {
    try { if (e.matches(':disabled')) return true; } catch { /* not a form element */ }
    return !!e.closest('[aria-disabled="true"]');
  };
  // element ids live on the window under a symbol, made by the first read that numbers one
  const key = Symbol.for('flowwalk.resolve.ids');
  const store = () => window[key] || (window[key] = { map: new WeakMap(), next: 1, refs: new Map() });
  const idOf = (e) => {
    const s = store();
    let id = s.map.get(e);
    if (!id) { id = s.next++; s.map.set(e, id); (s.refs || (s.refs = new Map())).set(id, new WeakRef(e)); }
    return id;
  };
  const byId = (id) => {
    const refs = window[key] && window[key].refs;
    const ref = refs && refs.get(id); const e = ref && ref.deref();
    return e && e.isConnected ? e : null;
  };
  const hasId = (e, id) => !!window[key] && window[key].map.get(e) === id;
  const quiet = (level) => {
    const q = window[Symbol.for('flowwalk.quiet')];
    if (!q) return null;
    q.flush();
    const now = performance.now();
    const out = { ms: now - Math.max(q.dom, q.url), url_ms: now - q.url };
    if (level === 'layout') {
      out.animating = document.getAnimations().some((a) => a.playState === 'running');
      out.settled = document.readyState === 'complete' && document.fonts.status === 'loaded'
        && Array.from(document.images).every((i) => i.complete);
    }
    return out;
  };
  // the record's change count at this read, and the page's clock (`Page.changed`)
  const seq = () => {
    const q = window[Symbol.for('flowwalk.quiet')];
    if (!q) return null;
    q.flush();
    return { n: q.n, at: performance.now() };
  };
  const tagOf = (e) => e.localName;
  const attr = (e, n) => (e.getAttribute(n) || '').trim();
  const testIdAttributes = () => {
    const set = window[Symbol.for('flowwalk.testIdAttributes')];
    return Array.isArray(set) && set.length ? set : TEST_ID_ATTRIBUTES;
  };
  const testIdAttr = (e) => testIdAttributes().find((a) => !!e.getAttribute(a)) || '';
  const testIdOf = (e) => { const a = testIdAttr(e); return a ? e.getAttribute(a) : ''; };
  // ARIA in HTML's implicit roles, as Playwright's roleUtils maps them
  const byTag = {
    article: 'article', aside: 'complementary', blockquote: 'blockquote', button: 'button', caption: 'caption',
    code: 'code', datalist: 'listbox', dd: 'definition', del: 'deletion', details: 'group', dfn: 'term',
    dialog: 'dialog', dt: 'term', em: 'emphasis', fieldset: 'group', figure: 'figure', hr: 'separator',
    html: 'document', ins: 'insertion', li: 'listitem', main: 'main', mark: 'mark', math: 'math', menu: 'list',
    meter: 'meter', nav: 'navigation', ol: 'list', optgroup: 'group', option: 'option', output: 'status',
    p: 'paragraph', progress: 'progressbar', strong: 'strong', sub: 'subscript', summary: 'button',
    sup: 'superscript', svg: 'img', table: 'table', tbody: 'rowgroup', textarea: 'textbox', tfoot: 'rowgroup',
    thead: 'rowgroup', time: 'time', tr: 'row', ul: 'list',
  };
  const inputRoles = { button: 'button', checkbox: 'checkbox', image: 'button', number: 'spinbutton', radio: 'radio',
                       range: 'slider', reset: 'button', submit: 'button', file: 'button' };
  const sectioning = 'article, aside, main, nav, section';
  const implicitRole = (e) => {
    const tag = tagOf(e);
    if (/^h[1-6]$/.test(tag)) return 'heading';
    switch (tag) {
      case 'a': case 'area': return e.hasAttribute('href') ? 'link' : '';
      case 'input': {
        const type = (e.getAttribute('type') || '').trim().toLowerCase();
        if (type === 'hidden') return '';
        if (type === 'search') return e.hasAttribute('list') ? 'combobox' : 'searchbox';
        if (['', 'text', 'email', 'tel', 'url'].includes(type)) return e.hasAttribute('list') ? 'combobox' : 'textbox';
        return inputRoles[type] || 'textbox';
      }
      case 'select': return e.multiple || e.size > 1 ? 'listbox' : 'combobox';
      case 'img': return e.getAttribute('alt') === '' && !e.getAttribute('title') ? 'presentation' : 'img';
      // named by its attributes (a form's or section's content is no name of it)
      case 'form': case 'section':
        return attr(e, 'aria-label') || attr(e, 'aria-labelledby') || attr(e, 'title') ? (tag === 'form' ? 'form' : 'region') : '';
      case 'header': return e.parentElement && e.parentElement.closest(sectioning) ? '' : 'banner';
      case 'footer': return e.parentElement && e.parentElement.closest(sectioning) ? '' : 'contentinfo';
      case 'td': { const t = e.closest('table'); return t && /^(grid|treegrid)$/.test(attr(t, 'role')) ? 'gridcell' : 'cell'; }
      case 'th': {
        const scope = attr(e, 'scope').toLowerCase();
        if (scope === 'col' || scope === 'colgroup') return 'columnheader';
        if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
        const row = e.parentElement;
        return e.closest('thead') || (row && Array.from(row.children).every((c) => tagOf(c) === 'th')) ? 'columnheader' : 'rowheader';
      }
      default: return byTag[tag] || '';
    }
  };
  const roleOf = (e) => attr(e, 'role').split(/\s+/)[0] || implicitRole(e);
  // the roles whose name comes from their content (ARIA 1.2, as roleUtils lists them)
  const fromContent = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem']);
  // an element's text, or the alt text of the images it holds when it shows none (an icon button)
  const contentOf = (e) => {
    const text = textOf(e);
    if (text.length >= 3) return text;
    const alts = Array.from(e.querySelectorAll('img[alt], svg[aria-label], [role=img][aria-label]'))
      .map((i) => attr(i, 'alt') || attr(i, 'aria-label')).filter(Boolean);
    return norm([text, ...alts].join(' '));
  };
  const isField = (e) => ['input', 'select', 'textarea'].includes(tagOf(e));
  const labelOf = (e) => {
    const labels = e.labels ? Array.from(e.labels) : [];
    return norm(labels.map((l) => {
      const c = l.cloneNode(true);
      for (const x of c.querySelectorAll('input, select, textarea, button')) x.remove();
      return contentOf(c);
    }).join(' '));
  };
  // the accessible name and where it came from (`from`: labelledby, aria-label, label, value,
  // default, alt, caption, content, title or placeholder); '' from '' when it has none
  const accessibleName = (e) => {
    const named = (name, from) => ({ name: norm(name), from: norm(name) ? from : '' });
    const by = attr(e, 'aria-labelledby');
    if (by) {
      const t = by.split(/\s+/).map((i) => { const l = (e.ownerDocument || document).getElementById(i); return l && l !== e ? heldText(l) : ''; }).join(' ');
      if (t.trim()) return named(t, 'labelledby');
    }
    const aria = attr(e, 'aria-label');
    if (aria) return named(aria, 'aria-label');
    const tag = tagOf(e);
    const type = (e.getAttribute('type') || '').trim().toLowerCase();
    if (tag === 'input' && ['button', 'submit', 'reset'].includes(type)) {
      if (e.value) return named(e.value, 'value');
      if (type !== 'button') return named(type === 'submit' ? 'Submit' : 'Reset', 'default');
      return named(attr(e, 'title'), 'title');
    }
    if (tag === 'input' && type === 'image') {
      return attr(e, 'alt') ? named(attr(e, 'alt'), 'alt') : attr(e, 'title') ? named(attr(e, 'title'), 'title') : named(attr(e, 'value'), 'value');
    }
    if (isField(e)) {
      const label = labelOf(e);
      if (label) return named(label, 'label');
      const text = tag === 'textarea' || (tag === 'input' && ['', 'text', 'password', 'search', 'tel', 'email', 'url'].includes(type));
      return attr(e, 'title') ? named(attr(e, 'title'), 'title') : named(text ? attr(e, 'placeholder') : '', 'placeholder');
    }
    if (tag === 'img' || tag === 'area') return attr(e, 'alt') ? named(attr(e, 'alt'), 'alt') : named(attr(e, 'title'), 'title');
    const first = { fieldset: 'legend', table: 'caption', figure: 'figcaption' }[tag];
    if (first) { const c = e.querySelector(':scope > ' + first); if (c && textOf(c)) return named(textOf(c), 'caption'); }
    if (e.labels && e.labels.length) { const label = labelOf(e); if (label) return named(label, 'label'); }   // a labelled button, meter, output
    if (fromContent.has(roleOf(e))) { const text = contentOf(e); if (text) return named(text, 'content'); }
    return named(attr(e, 'title'), 'title');
  };
  const nameOf = (e) => accessibleName(e).name;
  return { norm, textOf, heldText, visible, offered, disabled, idOf, byId, hasId, quiet, seq,
           contentOf, roleOf, nameOf, accessibleName, labelOf, testIdAttributes, testIdAttr, testIdOf };
})()
