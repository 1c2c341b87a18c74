/* global fw */
/* flowwalk: the page's messages */
() => {
  const out = [];
  const sel = '[role=alert], [role=status], [aria-live], .error, .errors, .invalid-feedback, .field-error, .help-block, [class*=error i]';
  for (const el of document.querySelectorAll(sel)) {
    if (!fw.offered(el)) continue;
    const text = fw.norm(el.innerText);
    if (text && text.length <= 300 && !out.includes(text)) out.push(text);
    if (out.length >= 20) break;
  }
  return out;
}
