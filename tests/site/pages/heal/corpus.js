// the healing corpus pages' behaviour: a click on [data-act] or a change says what happened in #status
const status = (t) => { document.getElementById('status').textContent = t; };
document.addEventListener('click', (ev) => {
  const b = ev.target.closest('[data-act]');
  if (b) status(b.getAttribute('data-act'));
});
document.addEventListener('change', (ev) => {
  const t = ev.target;
  if (t.type === 'checkbox') status((t.checked ? 'done: ' : 'undone: ') + t.closest('li').querySelector('label').textContent);
  else status('typed: ' + t.value);
});
