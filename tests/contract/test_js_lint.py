"""The JavaScript flowwalk ships is code like the rest: in .js files, linted, and put together right.

- ESLint (npm `eslint`, installed by `scripts/install.sh --with-tests` from package.json; the rules
  are eslint.config.mjs) lints the page scripts (src/flowwalk/browser/js/) and the report page's
  script, with no network. It is first shown a broken script, so a harness that reports nothing fails.
- Every page script, put together with the helpers its `/* global */` comment names
  (browser/scripts.py), parses as JavaScript, and every file is used. What each one does in a page
  is for the browser tests (tests/integration/test_browser_reads.py and the walker's).
- No .py file under src/ holds a JavaScript string over 20 lines: a script that long is a file.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from flowwalk.browser import scripts

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "flowwalk"
PAGE_SCRIPTS = SRC / "browser" / "js"
ESLINT = ROOT / "node_modules" / "eslint" / "bin" / "eslint.js"
INSTALL_HINT = "run scripts/install.sh --with-tests (it installs the lint tools)"
NO_NETWORK = {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": ""}
#: the longest JavaScript string a .py file may hold
INLINE_MAX_LINES = 20


def eslint(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node, f"node is not installed: {INSTALL_HINT}"
    assert ESLINT.is_file(), f"npm eslint is missing: {INSTALL_HINT}"
    return subprocess.run([node, str(ESLINT), "--format", "json", *args], input=stdin, capture_output=True,
                          text=True, timeout=300, cwd=ROOT, env={**os.environ, **NO_NETWORK})


def findings(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [f"{Path(f['filePath']).relative_to(ROOT)}:{m['line']}:{m['column']}: {m['message']} ({m.get('ruleId')})"
            for f in json.loads(done.stdout or "[]") for m in f["messages"]]


def test_eslint_sees_a_broken_page_script() -> None:
    broken = "/* global fw */\n(els) => {\n  const seen = undeclared(els);\n  return fw.visible(els[0]);\n}\n"
    done = eslint("--stdin", "--stdin-filename", "src/flowwalk/browser/js/broken.js", stdin=broken)
    assert done.returncode == 1, done.stderr
    assert any("'undeclared' is not defined" in f for f in findings(done))
    assert any("'seen' is assigned a value but never used" in f for f in findings(done))


def test_the_shipped_javascript_passes_eslint() -> None:
    done = eslint("src/flowwalk/browser/js", "src/flowwalk/report/report.js")
    assert findings(done) == [] and done.returncode == 0, done.stderr[-3000:]


def test_every_page_script_puts_together_into_javascript_that_parses() -> None:
    names = sorted(p.stem for p in PAGE_SCRIPTS.glob("*.js"))
    composed = {name: scripts.script(name) for name in names}
    composed["context"] = scripts.context_script()
    check = ("const all = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
             "for (const [name, [text, statements]] of Object.entries(all)) {\n"
             "  try { new Function(statements ? text : 'return (' + text + ');'); }\n"
             "  catch (e) { console.log(name + ': ' + e.message); process.exitCode = 1; }\n"
             "}\n")
    init = {"context", "quiet", "record_clicks", "recorder"}
    payload = json.dumps({name: [text, name in init] for name, text in composed.items()})
    done = subprocess.run([shutil.which("node") or "node", "-e", check], input=payload, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    # a helper is defined once, at the start of the body of each script that names it
    # and so is a helper of a helper (css_path.js uses fw and generated too)
    candidates = composed["candidates"]
    assert all(candidates.count(f"const {n} = ") == 1 for n in ("fw", "cssPath", "generated", "TEST_ID_ATTRIBUTES"))
    assert candidates.index("const generated = ") < candidates.index("const cssPath = ")
    assert "/* global" not in "".join(composed.values())


def test_every_page_script_is_used() -> None:
    """Each file is a helper, or its name is written in the browser layer's code (`script("name")`)."""
    code = "\n".join(p.read_text() for p in (SRC / "browser").glob("*.py") if p.name != "scripts.py")
    named = set(re.findall(r"""["'](\w+)["']""", code))
    files = {p.stem for p in PAGE_SCRIPTS.glob("*.js")}
    used = (files & named) | set(scripts.HELPERS.values()) | {"record_clicks", "quiet", "test_ids"}
    assert files - used == set(), "page scripts nothing loads"
    assert set(scripts.HELPERS.values()) <= files


def _javascript(text: str) -> bool:
    return bool(re.search(r"=>|\bfunction\s*\(|document\.|querySelector", text))


def _strings(tree: ast.Module) -> list[ast.Constant]:
    """The string constants of a module that are not docstrings."""
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs]


def test_no_python_file_holds_a_long_javascript_string() -> None:
    long = [f"{path.relative_to(SRC)}:{node.lineno} ({node.value.count(chr(10)) + 1} lines)"
            for path in sorted(SRC.rglob("*.py")) for node in _strings(ast.parse(path.read_text(), str(path)))
            if node.value.count("\n") + 1 > INLINE_MAX_LINES and _javascript(node.value)]
    assert long == [], "move these to .js files (browser/js/, browser/scripts.py loads them)"
