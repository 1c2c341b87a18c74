"""`flowwalk import`: Playwright Test and Cypress suites (and, on the same core, other tools') read with
tree-sitter and written as flow specs through the one writer, with a ledger row for every call.

- `syntax.py`: parsing (TypeScript, TSX, JavaScript) and node helpers, positions kept;
- `values.py`: the literal values a test writes (strings, templates, constants, lists, regexes);
- `ledger.py`: the rows (converted, approximated, not converted) and the figures;
- `core.py`: the walk every front end shares (describe, tests, hooks, steps, helpers, loops);
- `playwright.py`: Playwright Test's calls as rows of one table;
- `cypress.py`: Cypress's commands and should chainers as rows of one table, custom commands as steps files;
- `output.py`: the specs, steps files, hooks and ledger written out.
"""
