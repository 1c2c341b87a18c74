"""The JavaScript flowwalk runs in pages: the files of `browser/js/`, each read once and put together.

A file is one function expression (what a read or an action evaluates), a helper the others use,
or an init script of every context. Its `/* global a, b */` comment names the helpers it uses, for
ESLint (tests/contract/test_js_lint.py) and for `script`, which starts the function's body with
`const a = <a's file>;` for each of them. `HELPERS` maps each helper's name to its file; `fw`
(prelude.js) is the one meaning of visible, offered, text, disabled, element ids and quiet that
every read shares (docs/architecture.md, "Reading the page").
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

__all__ = ["HELPERS", "compose", "context_script", "script"]

#: the helpers a script can name in its `/* global */` comment: name -> file (without `.js`)
HELPERS = {"fw": "prelude", "fingerprint": "fingerprint", "cssPath": "css_path", "cssPosition": "css_position",
           "implicitRole": "role_of", "generated": "generated"}

_GLOBALS = re.compile(r"/\*\s*global\s+([^*]*)\*/")
#: the comments a file opens with (what it is, for whoever reads the file): not sent to the page
_HEADER = re.compile(r"\A(?:\s*/\*.*?\*/)*\s*", re.S)


def _source(name: str) -> str:
    return (resources.files("flowwalk.browser") / "js" / f"{name}.js").read_text(encoding="utf-8")


def compose(source: str) -> str:
    """`source` (a function expression) with the helpers its `/* global */` comment names defined at
    the start of its body; the comments it opens with are left out."""
    found = _GLOBALS.search(source)
    names = [n.strip() for n in found.group(1).split(",") if n.strip()] if found else []
    rest = _HEADER.sub("", source, count=1).strip()
    if not names:
        return rest
    body = rest.index("{", rest.index("=>")) + 1
    helpers = "".join(f"\n  const {n} = {script(HELPERS[n]).rstrip(';')};" for n in names)
    return rest[:body] + helpers + rest[body:]


@cache
def script(name: str) -> str:
    """The file `browser/js/<name>.js`, composed (see the module docstring); read once per process."""
    return compose(_source(name))


@cache
def context_script() -> str:
    """The init script of every scenario context: the click recorder, then the page's record of
    when it last changed (`fw.quiet`, `Page.changed`)."""
    return script("record_clicks") + "\n" + script("quiet")
