/* global fw */
/* flowwalk: the page's tables as a person reads them, for discover (`Page.tables`) */
(root, limit) => {
  // each visible table with a selector of its own: the header texts and each header's sort link, the
  // rows shown (their whole text, normalised, each cell's, and the first link of each), how many; then every link
  // of the page that turns a page of a list (?p=2, ?page=2) and the text around it
  const offered = Array.from(document.querySelectorAll('table')).filter(fw.offered);
  const tables = offered.map((t) => {
    const body = t.tBodies.length ? Array.from(t.tBodies[0].rows) : Array.from(t.rows).filter((r) => !r.querySelector('th') || r.querySelector('td'));
    const rows = body.filter(fw.offered);
    const head = t.tHead && t.tHead.rows.length ? Array.from(t.tHead.rows[0].cells) : [];
    const link = (el) => { const a = el && el.querySelector('a[href]'); return a ? a.getAttribute('href') : ''; };
    const sel = t.id && /^[A-Za-z][\w-]*$/.test(t.id) ? '#' + t.id : (offered.length === 1 ? 'table' : '');
    return { selector: sel, headers: head.map((c) => fw.textOf(c)), sorts: head.map(link),
             rows: rows.slice(0, limit).map((r) => fw.textOf(r)), links: rows.slice(0, limit).map(link), count: rows.length,
             cells: rows.slice(0, limit).map((r) => Array.from(r.cells).map((c) => fw.textOf(c))),
             body: t.tBodies.length ? 'tbody > tr' : 'tr' };
  });
  const pager = Array.from(document.querySelectorAll('a[href]')).filter(fw.offered)
    .filter((a) => /[?&](p|page)=\d+(&|$)/.test(a.getAttribute('href')))
    .map((a) => ({ text: fw.textOf(a), href: a.getAttribute('href'), around: fw.textOf(a.parentElement).slice(0, 200) }));
  return { tables, pager };
}
