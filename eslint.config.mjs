// ESLint's configuration for the JavaScript flowwalk ships (tests/contract/test_js_lint.py runs it):
// the scripts it runs in pages (src/flowwalk/browser/js/) and the report page's (report/report.js).
// The vendored axe-core is not ours to lint.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["src/flowwalk/browser/js/*.js", "src/flowwalk/report/report.js"],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: "script",
      globals: globals.browser,
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
  {
    files: ["src/flowwalk/browser/js/*.js"],
    rules: {
      // a page script is one expression: Playwright evaluates it and calls the function it is
      "no-unused-expressions": "off",
      // a helper the /* global */ comment names must be defined by browser/scripts.py (HELPERS)
      "no-undef": "error",
      "no-shadow": ["error", { builtinGlobals: false }],
      "prefer-const": "error",
      "eqeqeq": ["error", "smart"],
    },
  },
];
