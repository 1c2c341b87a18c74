/* flowwalk: axe-core's violations, the offending elements as axe's selectors */
async ({ include, exclude, options, max }) => {
  const context = {};
  if (include) context.include = [include];
  if (exclude.length) context.exclude = exclude.map((s) => [s]);
  const ctx = include || exclude.length ? context : document;
  const result = await window.axe.run(ctx, options);
  const flat = (t) => (Array.isArray(t) ? t.map(flat).join(' >> ') : String(t));
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact || 'minor', help: v.help, helpUrl: v.helpUrl,
    count: v.nodes.length, targets: v.nodes.slice(0, max).map((n) => flat(n.target)),
  }));
}
