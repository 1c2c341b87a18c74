"""The JavaScript flowwalk runs in pages: the files of `browser/js/`, each read once and put together.

A file is one function expression (what a read or an action evaluates), a helper the others use,
or an init script of every context. Its `/* global a, b */` comment names the helpers it uses, for
ESLint (tests/contract/test_js_lint.py) and for `script`, which starts the function's body with
`const a = <a's file>;` for each of them and for each helper those use, each once, a helper before
the helpers that use it. `HELPERS` maps each helper's name to its file; `CONSTANTS` are values
Python gives the scripts. `fw` (prelude.js) is the one meaning of visible, offered, text, disabled,
role, accessible name, label, test id, element ids and quiet that every read shares
(docs/architecture.md, "Reading the page").

The test-id attributes are the run's `test_id_attribute` setting: `context_script` sets them in
every document of a context, once; a page no flowwalk context made reads the setting's default.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources

from flowwalk.model import TEST_ID_ATTRIBUTES

__all__ = ["CONSTANTS", "HELPERS", "compose", "context_script", "script"]

#: the helpers a script can name in its `/* global */` comment: name -> file (without `.js`)
HELPERS = {"fw": "prelude", "fingerprint": "fingerprint", "cssPath": "css_path", "cssPosition": "css_position",
           "generated": "generated", "selectorsOf": "selector"}
#: the values a script can name there: name -> its JavaScript text
CONSTANTS = {"TEST_ID_ATTRIBUTES": json.dumps(list(TEST_ID_ATTRIBUTES))}

_GLOBALS = re.compile(r"/\*\s*global\s+([^*]*)\*/")
#: the comments a file opens with (what it is, for whoever reads the file): not sent to the page
_HEADER = re.compile(r"\A(?:\s*/\*.*?\*/)*\s*", re.S)


def _source(name: str) -> str:
    return (resources.files("flowwalk.browser") / "js" / f"{name}.js").read_text(encoding="utf-8")


def _names(source: str) -> list[str]:
    """The names a script's `/* global */` comment lists."""
    found = _GLOBALS.search(source)
    return [n.strip() for n in found.group(1).split(",") if n.strip()] if found else []


def _bare(source: str) -> str:
    """A file's text without the comments it opens with."""
    return _HEADER.sub("", source, count=1).strip()


def compose(source: str) -> str:
    """`source` (a function expression) with the helpers its `/* global */` comment names, and theirs,
    defined at the start of its body, each once, a helper before those that use it; the comments it
    opens with are left out."""
    order: list[str] = []

    def visit(name: str) -> None:
        if name in order:
            return
        if name in HELPERS:
            for inner in _names(_source(HELPERS[name])):
                visit(inner)
        order.append(name)

    for name in _names(source):
        visit(name)
    rest = _bare(source)
    if not order:
        return rest
    body = rest.index("{", rest.index("=>")) + 1
    helpers = "".join(f"\n  const {n} = {CONSTANTS[n] if n in CONSTANTS else _bare(_source(HELPERS[n])).rstrip(';')};"
                      for n in order)
    return rest[:body] + helpers + rest[body:]


@cache
def script(name: str) -> str:
    """The file `browser/js/<name>.js`, composed (see the module docstring); read once per process."""
    return compose(_source(name))


@cache
def context_script(test_ids: tuple[str, ...] = TEST_ID_ATTRIBUTES) -> str:
    """The init script of every scenario context: the run's test-id attributes (`test_ids`, the
    `test_id_attribute` setting, for `fw.testIdOf`), the click recorder, then the page's record of
    when it last changed (`fw.quiet`, `Page.changed`)."""
    return (f"({script('test_ids')})({json.dumps(list(test_ids))});\n" + script("record_clicks") + "\n"
            + script("quiet"))
