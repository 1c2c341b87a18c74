/* flowwalk: an id or class that looks generated (long digit or hex runs, css-/sc- prefixes) */
(v) => /\d{4,}|[0-9a-f]{8,}|^(css|sc|jsx|svelte|ng|v)-|__[A-Za-z0-9]{5}/i.test(v)
