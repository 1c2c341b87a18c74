/* flowwalk: the start of every context's init script: the run's test-id attributes (the
   `test_id_attribute` setting), which `fw.testIdAttributes()` reads (js/prelude.js) */
(ids) => {
  try {
    Object.defineProperty(window, Symbol.for('flowwalk.testIdAttributes'),
                          { value: Object.freeze(ids.slice()), configurable: false, writable: false, enumerable: false });
  } catch { /* defined already in this document */ }
}
