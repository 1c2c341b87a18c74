/* flowwalk: where the last click landed (the record record_clicks.js keeps) */
(root, selector) => {
  const record = window['__flowwalk_click_record_5c3e81'];
  if (!record) return null;
  let zones = null, invalid = false;
  if (selector) {
    try {
      zones = Array.from(document.querySelectorAll(selector))
        .map((m) => m.closest('button, [role=button], a, [role=link]') || m);
    } catch { invalid = true; }
  }
  const element = (entry) => {
    try { return entry && entry.ref ? entry.ref.deref() || null : null; } catch { return null; }
  };
  const show = (entry) => {
    if (!entry) return null;
    const el = element(entry);
    const out = { t: entry.t, tag: entry.tag, id: entry.id, classes: entry.classes.slice(), testid: entry.testid, testid_attr: entry.testid_attr || '',
                  text: entry.text, connected: !!(el && el.isConnected) };
    if (zones && zones.length && out.connected) out.inside = zones.some((z) => z === el || z.contains(el));
    return out;
  };
  const down = element(record.pointerdown), hit = element(record.click);
  return { click: show(record.click), pointerdown: show(record.pointerdown),
           in_pointerdown: down && hit ? (down === hit || down.contains(hit)) : null,
           matches: zones ? zones.length : null, invalid_selector: invalid };
}
