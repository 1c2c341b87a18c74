/* global fw, implicitRole */
/* flowwalk: each match's element id and how it looks (target re-resolution) */
(els, max) => {
  return { n: els.length, items: els.slice(0, max).map((e) => (
    { id: fw.idOf(e), visible: fw.visible(e), enabled: !fw.disabled(e), role: implicitRole(e) })) };
}
