/* flowwalk: resolves at the first change the page's record counts after a read */
(a) => {
  const q = window[Symbol.for('flowwalk.quiet')];
  if (!q) return null;
  q.flush();
  return new Promise((resolve) => {
    let timer = null;
    const end = (changed) => { clearTimeout(timer); resolve(changed); };
    const woken = () => {
      const early = a.at + a.gap - performance.now();
      if (early > 0) { clearTimeout(timer); timer = setTimeout(() => resolve(true), early); } else end(true);
    };
    if (q.n !== a.n) { woken(); return; }
    timer = setTimeout(() => end(false), a.cap);
    q.waiters.push(woken);
  });
}
