/* flowwalk: which of these CSS selectors could have a visible match (null: not plain CSS) */
(selectors) => {
  const roots = [document];
  for (let i = 0; i < roots.length; i++) {
    for (const el of roots[i].querySelectorAll('*')) if (el.shadowRoot) roots.push(el.shadowRoot);
    if (roots.length > 200) break;
  }
  return selectors.map((sel) => {
    try {
      for (const root of roots) {
        for (const el of root.querySelectorAll(sel)) {
          const r = el.getBoundingClientRect();
          if ((r.width > 0 && r.height > 0) || getComputedStyle(el).display === 'contents') return true;
        }
      }
      return false;
    } catch { return null; }
  });
}
