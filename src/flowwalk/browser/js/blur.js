/* flowwalk: move the focus away from the element, or from the element inside it that has it, as a
   person clicking elsewhere does (blur, focusout, and change for an edited field fire). Returns null
   when it did; else what has the focus ("<button#save>"), or "nothing" when no element has it. */
(el) => {
  const active = el.getRootNode().activeElement;
  if (active && (active === el || el.contains(active))) {
    active.blur();
    return null;
  }
  const focused = document.activeElement;
  if (!focused || focused === document.body || focused === document.documentElement) return 'nothing';
  return '<' + focused.localName + (focused.id ? '#' + focused.id : '') + '>';
}
