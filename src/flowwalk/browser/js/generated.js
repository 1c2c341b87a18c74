/* flowwalk: an id or class that looks generated: long digit or hex runs (`ember1234`), css-/sc-/ng-
   prefixes, a component library's counter (`react-select-3-input`, `headlessui-menu-button-5`,
   `downshift-0-label`, `mui-12`), React's useId (`:r1:`, `radix-:r1:`) */
(v) => /\d{4,}|[0-9a-f]{8,}|^(css|sc|jsx|svelte|ng|v)-|__[A-Za-z0-9]{5}|^(react-select|downshift|mui|headlessui(-[a-z]+)*|rc(-[a-z]+)+)-\d+(-|$)|^(radix-)?:r[0-9a-z]*:$/i.test(v)
