/* global fw, selectorsOf, cssPath, fingerprint */
/* flowwalk: the recorder's init script (browser/recorder.py adds it to every document of the
   recording's context). It hands what a person does to the binding `__flowwalk_record` as plain
   records: each element as the selector the one selector writer gives it (selector.js, then
   css_path.js) and its fingerprint (fingerprint.js), so that a later run can heal it.

   - clicks and double clicks (a click on a checkbox, a radio or the label of one is its change),
     each after the hover it needed, when a menu opened on hover showed what was clicked;
   - fills: the field's value after each input; a password field's value, or a field's marked
     secret in the toolbar, is never sent (`value: null, secret: true`);
   - the keys that matter: Enter, Escape, Tab, and any key with Control, Alt or Meta; outside a
     text field also the arrows, Home, End, Page Up/Down, Backspace and Delete;
   - selects, checks and unchecks, file inputs (the files' names), HTML drag and drop;
   - in the top document, a toolbar in a shadow root: the check picked next (visible, text,
     value, texts or count of a list, checked) is the element clicked next, which the page never
     sees; URL checks the address; Secret marks the field clicked next; the arrows (Move) take the bar to the
     other edge (top, bottom) when it lies over the page's own; Stop ends the recording. */
(() => {
  const BINDING = '__flowwalk_record';
  const FLAG = '__flowwalk_recorder_f31a2c';
  if (Object.prototype.hasOwnProperty.call(window, FLAG)) return;
  Object.defineProperty(window, FLAG, { value: true, enumerable: false });
  const send = (record) => {
    const deliver = window[BINDING];
    if (typeof deliver === 'function') deliver(record).catch(() => {});
  };
  const selectorOf = (el) => {
    const best = selectorsOf(el, null);
    if (best.length) return best[0].selector;
    return cssPath(el, null) || el.tagName.toLowerCase();
  };
  const described = (el) => ({ selector: selectorOf(el), fp: fingerprint(el) });
  const secrets = new WeakSet();
  const TEXT_TYPES = ['', 'text', 'email', 'password', 'search', 'tel', 'url', 'number', 'date', 'time',
    'datetime-local', 'month', 'week', 'color'];
  const typeOf = (el) => (el.getAttribute('type') || '').toLowerCase();
  const isTextField = (el) => !!el && ((el.tagName === 'INPUT' && TEXT_TYPES.includes(typeOf(el)))
    || el.tagName === 'TEXTAREA' || el.isContentEditable);
  const isToggle = (el) => !!el && el.tagName === 'INPUT' && ['checkbox', 'radio'].includes(typeOf(el));
  const isSecret = (el) => (el.tagName === 'INPUT' && typeOf(el) === 'password') || secrets.has(el);
  // a secret's name: the field's name or id, else its label, as an environment variable is named
  const secretName = (el) => {
    const raw = el.getAttribute('name') || el.id || fw.labelOf(el) || 'secret';
    const name = raw.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase() || 'SECRET';
    return /^[0-9]/.test(name) ? 'SECRET_' + name : name;
  };
  let host = null;
  const ours = (e) => !!host && e.composedPath().includes(host);
  const elementOf = (e) => {
    const first = e.composedPath()[0];
    return first && first.nodeType === 1 ? first : e.target;
  };
  const ACTIONABLE = 'button, a[href], input, select, textarea, summary, label, [role=button], [role=link], '
    + '[role=checkbox], [role=radio], [role=tab], [role=menuitem], [role=option], [role=switch], [onclick]';
  const actionable = (el) => (el.closest && el.closest(ACTIONABLE)) || el;

  // --- the toolbar: picking a check ---------------------------------------------------------------
  let mode = null;
  // the element a press in a picking mode went down on, and whether it was checked then
  let pressed = null;
  let lit = null;
  let status = null;
  const light = (el) => {
    if ((lit && lit.el) === el) return;
    if (lit) lit.el.style.outline = lit.outline;
    lit = el ? { el, outline: el.style.outline } : null;
    if (el) el.style.outline = '2px solid #d9480f';
  };
  const say = (text) => { if (status) status.textContent = text; };
  const MODES = [['visible', 'Visible'], ['text', 'Text'], ['value', 'Value'], ['texts', 'List'],
    ['count', 'Count'], ['checked', 'Checked'], ['secret', 'Secret']];
  const itemsOf = (el) => {
    for (let item = el; item && item.parentElement && item !== document.body; item = item.parentElement) {
      const parent = item.parentElement;
      const same = Array.from(parent.children).filter((c) => c.tagName === item.tagName);
      if (same.length < 2 && !['LI', 'TR', 'OPTION'].includes(item.tagName)) continue;
      const inner = [];
      for (let e = el; e !== item; e = e.parentElement) inner.unshift(e.tagName.toLowerCase());
      const rest = [item.tagName.toLowerCase(), ...inner].join(' > ');
      const base = selectorOf(parent);
      const css = !/^[a-z-]+=/i.test(base) && !base.includes('>>');
      const selector = css ? base + ' > ' + rest : base + ' >> :scope > ' + rest;
      let found;
      try { found = Array.from(parent.querySelectorAll(':scope > ' + rest)); } catch { found = []; }
      if (!found.includes(el)) continue;
      return { selector, fp: fingerprint(found[0]), texts: found.map((f) => fw.textOf(f)) };
    }
    return null;
  };
  const pick = (el) => {
    const picked = mode;
    mode = null;
    light(null);
    if (picked === 'secret') {
      if (!isTextField(el)) { say('Secret: click a text field'); return; }
      secrets.add(el);
      say('marked secret: ' + secretName(el));
      send({ kind: 'secret', ...described(el), name: secretName(el) });
      return;
    }
    if (picked === 'texts' || picked === 'count') {
      const items = itemsOf(el);
      if (!items) { say('no list around that element'); return; }
      say(picked + ': ' + items.texts.length + ' items');
      send({ kind: 'expect', check: picked, selector: items.selector, fp: items.fp, texts: items.texts });
      return;
    }
    if (picked === 'value') {
      if (!('value' in el)) { say('Value: click a field'); return; }
      if (isSecret(el)) { say('a secret field\'s value is never written'); send({ kind: 'refused', what: 'value' }); return; }
      send({ kind: 'expect', check: 'value', ...described(el), value: String(el.value) });
    } else if (picked === 'checked') {
      // read as the press found it: by the click, a checkbox has flipped and a radio is checked
      // (their prevented default puts them back after)
      const checked = pressed && pressed.el === el ? pressed.checked : isToggle(el) ? !el.checked : !!el.checked;
      send({ kind: 'expect', check: checked ? 'checked' : 'unchecked', ...described(el) });
    } else if (picked === 'text') {
      const text = fw.textOf(el);
      send(text ? { kind: 'expect', check: 'text', ...described(el), value: text }
        : { kind: 'expect', check: 'visible', ...described(el) });
    } else {
      send({ kind: 'expect', check: 'visible', ...described(el) });
    }
    say('checked: ' + picked);
  };
  const toolbar = () => {
    if (window !== window.top || host || !document.documentElement) return;
    host = document.createElement('flowwalk-recorder');
    const root = host.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = ':host{all:initial;position:fixed;z-index:2147483647;bottom:8px;right:8px}'
      + ':host(.top){bottom:auto;top:8px}'
      + '.bar{display:flex;gap:4px;align-items:center;font:12px system-ui,sans-serif;background:#1f2933;'
      + 'color:#f5f7fa;padding:6px 8px;border-radius:6px;box-shadow:0 2px 8px #0006}'
      + 'button{font:inherit;border:0;border-radius:4px;padding:3px 7px;background:#3e4c59;color:inherit;cursor:pointer}'
      + 'button.on{background:#d9480f}button.stop{background:#c92a2a}.status{min-width:9em;opacity:.8;padding-left:4px}';
    const bar = document.createElement('div');
    bar.className = 'bar';
    const title = document.createElement('b');
    title.textContent = '\u25cf flowwalk';
    bar.append(title);
    const buttons = [];
    for (const [name, label] of MODES) {
      const b = document.createElement('button');
      b.textContent = label;
      b.dataset.mode = name;
      b.addEventListener('click', () => {
        mode = mode === name ? null : name;
        for (const o of buttons) o.classList.toggle('on', o.dataset.mode === mode);
        say(mode ? 'click an element' : '');
      });
      buttons.push(b);
      bar.append(b);
    }
    const url = document.createElement('button');
    url.textContent = 'URL';
    url.addEventListener('click', () => { send({ kind: 'expect', check: 'url', url: location.href }); say('checked: URL'); });
    // the bar may lie over what the person wants to click: it moves to the other edge and back
    const move = document.createElement('button');
    move.textContent = '\u21c5';
    move.title = 'Move the toolbar';
    move.addEventListener('click', () => host.classList.toggle('top'));
    const stop = document.createElement('button');
    stop.textContent = 'Stop';
    stop.className = 'stop';
    stop.addEventListener('click', () => { send({ kind: 'stop' }); say('stopped'); });
    status = document.createElement('span');
    status.className = 'status';
    bar.append(url, move, stop, status);
    root.append(style, bar);
    document.documentElement.append(host);
    const unpress = () => { for (const o of buttons) o.classList.remove('on'); };
    window.addEventListener('flowwalk-picked', unpress);
  };
  if (document.documentElement) toolbar();
  document.addEventListener('DOMContentLoaded', toolbar);

  // --- the hover a click needed --------------------------------------------------------------------
  // Two ways a menu opens on hover. A style sheet's: the clicked element (or an element around it)
  // is hidden by a rule without :hover and shown by one with it, whose hovered element is around
  // it: that element is hovered first. A script's: an element the pointer came onto (and not
  // clicked or typed at since) changed the page within a second, and the change holds the clicked
  // element but the pointer's element does not: that element is hovered first.
  const hides = (style) => style.display === 'none' || style.visibility === 'hidden' || style.opacity === '0';
  const shows = (style) => (!!style.display && style.display !== 'none') || style.visibility === 'visible'
    || (!!style.opacity && style.opacity !== '0');
  const matches = (el, sel) => { try { return el.matches(sel); } catch { return false; } };
  const styleRules = () => {
    const out = [];
    const walk = (rules) => {
      for (const rule of Array.from(rules)) {
        if (rule.selectorText) out.push(rule);
        else if (rule.cssRules) { try { walk(rule.cssRules); } catch { /* unreadable */ } }
      }
    };
    for (const sheet of Array.from(document.styleSheets)) { try { walk(sheet.cssRules); } catch { /* another origin's */ } }
    return out;
  };
  const cssHover = (el) => {
    const rules = styleRules();
    const hovering = rules.filter((r) => r.selectorText.includes(':hover') && shows(r.style));
    if (!hovering.length) return null;
    const hiding = rules.filter((r) => !r.selectorText.includes(':hover') && hides(r.style));
    for (let shown = el; shown && shown !== document.body; shown = shown.parentElement) {
      for (const rule of hovering) {
        for (const part of rule.selectorText.split(',')) {
          const at = part.lastIndexOf(':hover');
          if (at < 0 || !matches(shown, part)) continue;
          const tail = part.slice(at + 6).match(/^[^\s>+~]*/)[0];
          if (!part.slice(at + 6 + tail.length).trim()) continue;   // it styles the hovered element itself
          if (!hiding.some((r) => matches(shown, r.selectorText))) continue;
          const own = (part.slice(0, at) + tail).replace(/:hover/g, '').trim() || '*';
          for (let h = shown.parentElement; h && h !== document.documentElement; h = h.parentElement) {
            if (matches(h, own) && matches(h, ':hover')) return h;
          }
        }
      }
    }
    return null;
  };
  let over = null;
  // the checkbox or radio just clicked, until its change comes
  let toggling = null;
  const revealed = [];
  const REVEAL_MS = 1000;
  const observer = new MutationObserver((changes) => {
    if (!over || mode || Date.now() - over.t > REVEAL_MS) return;
    for (const change of changes) {
      const nodes = change.type === 'childList' ? Array.from(change.addedNodes) : [change.target];
      for (const node of nodes) {
        if (node.nodeType !== 1 || node === host) continue;
        revealed.push({ by: over.el, node });
        if (revealed.length > 50) revealed.shift();
      }
    }
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true,
    attributeFilter: ['class', 'style', 'hidden', 'open', 'aria-expanded', 'aria-hidden'] });
  const scriptHover = (el) => {
    for (let i = revealed.length - 1; i >= 0; i -= 1) {
      const { by, node } = revealed[i];
      if (by.isConnected && node.contains(el) && !by.contains(el)) return by;
    }
    return null;
  };
  const hoverNeeded = (el) => cssHover(el) || scriptHover(el);

  // --- what the person does -----------------------------------------------------------------------
  // a select's and a file input's change is also taken when a script fired it (Playwright's
  // select_option and set_input_files do, as the tests drive the page): no page fires its own
  const SCRIPTED = (e) => e.type === 'change' && ['SELECT', 'INPUT'].includes(elementOf(e).tagName)
    && (elementOf(e).tagName === 'SELECT' || typeOf(elementOf(e)) === 'file');
  const listen = (type, handler) => window.addEventListener(type, (e) => {
    if ((!e.isTrusted && !SCRIPTED(e)) || ours(e)) return;
    try { handler(e); } catch { /* a record lost is better than a page broken */ }
  }, true);
  for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup']) {
    listen(type, (e) => {
      if (!mode) return;
      if (type === 'pointerdown') pressed = { el: elementOf(e), checked: !!elementOf(e).checked };
      e.preventDefault();
      e.stopImmediatePropagation();
    });
  }
  // what a press or a key changes is theirs, not the hover's
  listen('pointerdown', () => { over = null; });
  listen('keydown', () => { over = null; });
  listen('pointerover', (e) => { if (!mode) over = { el: actionable(elementOf(e)), t: Date.now() }; });
  listen('mousemove', (e) => { if (mode) light(elementOf(e)); });
  listen('click', (e) => {
    const target = elementOf(e);
    if (mode) {
      e.preventDefault();
      e.stopImmediatePropagation();
      pick(target);
      window.dispatchEvent(new Event('flowwalk-picked'));
      return;
    }
    const el = actionable(target);
    const needed = e.detail > 1 ? null : hoverNeeded(el);
    if (needed) send({ kind: 'hover', ...described(needed) });
    const control = el.tagName === 'LABEL' ? el.control : null;
    if (isToggle(el)) {
      // its change is the record; a page that replaces the box in its click handler (TodoMVC)
      // leaves the change on a detached box, which reaches no listener: then this click says it
      const toggled = { el, kind: el.checked ? 'check' : 'uncheck', ...described(el) };
      toggling = toggled;
      setTimeout(() => {
        if (toggling !== toggled) return;
        toggling = null;
        if (!el.isConnected) send({ kind: toggled.kind, selector: toggled.selector, fp: toggled.fp });
      }, 0);
      return;
    }
    if (isToggle(control)) return;   // the box's own click follows
    if (e.detail > 1) return;                       // a double click's second click: dblclick is the record
    send({ kind: 'click', ...described(el), detail: e.detail, field: isTextField(el) || isTextField(control) || el.tagName === 'SELECT',
      control: control ? selectorOf(control) : null });
  });
  listen('dblclick', (e) => send({ kind: 'dblclick', ...described(actionable(elementOf(e))) }));
  listen('input', (e) => {
    const el = elementOf(e);
    if (!isTextField(el)) return;
    const secret = isSecret(el);
    send({ kind: 'fill', ...described(el), secret, name: secret ? secretName(el) : null,
      value: secret ? null : (el.isContentEditable ? el.innerText : String(el.value)) });
  });
  listen('change', (e) => {
    const el = elementOf(e);
    if (isToggle(el)) {
      if (toggling && toggling.el === el) toggling = null;
      send({ kind: el.checked ? 'check' : 'uncheck', ...described(el) });
    }
    else if (el.tagName === 'SELECT' && !el.multiple) send({ kind: 'select', ...described(el), value: String(el.value) });
    else if (el.tagName === 'INPUT' && typeOf(el) === 'file') {
      send({ kind: 'upload', ...described(el), files: Array.from(el.files || []).map((f) => f.name) });
    }
  });
  const ALWAYS = ['Enter', 'Escape', 'Tab'];
  const OUTSIDE_FIELDS = ['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown',
    'Backspace', 'Delete'];
  listen('keydown', (e) => {
    if (mode && e.key === 'Escape') { mode = null; light(null); say(''); window.dispatchEvent(new Event('flowwalk-picked')); return; }
    const el = document.activeElement || document.body;
    const chord = e.ctrlKey || e.altKey || e.metaKey;
    if (['Control', 'Alt', 'Meta', 'Shift'].includes(e.key)) return;
    // a key that moves a select's choice is its change; a key that edits a field is its fill
    const moves = OUTSIDE_FIELDS.includes(e.key) && !isTextField(el) && el.tagName !== 'SELECT';
    if (!chord && !ALWAYS.includes(e.key) && !moves) return;
    const key = [e.ctrlKey && 'Control', e.altKey && 'Alt', e.metaKey && 'Meta', chord && e.shiftKey && 'Shift',
      e.key.length === 1 && chord ? e.key.toLowerCase() : e.key].filter(Boolean).join('+');
    send({ kind: 'press', ...described(el), key });
  });
  let dragged = null;
  listen('dragstart', (e) => { dragged = described(actionable(elementOf(e))); });
  listen('drop', (e) => {
    if (!dragged) return;
    const to = described(elementOf(e));
    send({ kind: 'drag', ...dragged, to: to.selector, to_fp: to.fp });
    dragged = null;
  });
  listen('dragend', () => { dragged = null; });
})();
