"""TodoMVC Backbone refactored: five ids and one class renamed in its HTML, JS and CSS alike.

The app the suite fetches (`scripts/fetch_thirdparty.sh`, npm `todomvc@0.1.1`) is copied and its
input, list, counter, "toggle all" and "clear completed" ids and its todo checkbox's `toggle` class
renamed consistently, so the app works exactly as before while every spec written for the
original breaks. `bug=True` also plants "adding does nothing" (Enter no longer creates a todo);
`deny=True` plants what the suites' absence checks deny: "clear completed" shows with nothing
completed, and a todo being edited keeps its checkbox and label in view.
Used by tests/thirdparty/test_todomvc_refactor.py and bench/heal_refactor.py.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

__all__ = ["IDS", "CLASSES", "ADDING_DOES_NOTHING", "DENIED", "refactored", "original"]

IDS = {"new-todo": "todo-input", "todo-list": "todos", "todo-count": "items-left", "toggle-all": "mark-all",
       "clear-completed": "purge-done"}
CLASSES = {"toggle": "done-box"}
#: (file under examples/backbone/js/views, the text, what replaces it): Enter in the input does nothing
ADDING_DOES_NOTHING = ("app-view.js", "if (e.which === ENTER_KEY && this.$input.val().trim()) {", "if (false) {")
#: (the footer template's condition, what replaces it; a CSS rule appended): what the absence checks deny
DENIED = ("<% if (completed) { %>", "<% if (true) { %>", "\n#todos li.editing .view { display: block !important; }\n")


def _copy(package: Path, root: Path) -> Path:
    shutil.copytree(package / "examples" / "backbone", root / "examples" / "backbone")
    if (package / "learn.json").is_file():
        shutil.copy(package / "learn.json", root / "learn.json")
    return root / "examples" / "backbone"


def _rename(text: str) -> str:
    for old, new in IDS.items():
        text = re.sub(rf"(?<![\w-]){re.escape(old)}(?![\w-])", new, text)
    for old, new in CLASSES.items():
        # `.toggle` in a selector, `class="toggle"` in markup; never `toggle:`, `toggleClass` or `.toggle()`
        text = re.sub(rf"(?<=\.){re.escape(old)}(?![\w(-])", new, text)
        text = re.sub(rf'(class="){re.escape(old)}(")', rf"\g<1>{new}\g<2>", text)
    return text


def original(package: Path, root: Path, *, bug: bool = False) -> Path:
    """A copy of the app as published (with the bug planted when asked): the folder to serve."""
    app = _copy(package, root)
    if bug:
        _plant(app)
    return root


def refactored(package: Path, root: Path, *, bug: bool = False, deny: bool = False) -> Path:
    """A refactored copy of the app under `root` (see the module docstring): the folder to serve."""
    app = _copy(package, root)
    files = [app / "index.html", *sorted((app / "js").rglob("*.js")),
             app / "bower_components" / "todomvc-common" / "base.css"]
    for path in files:
        text = path.read_text(encoding="utf-8")
        path.write_text(_rename(text), encoding="utf-8")
    index = (app / "index.html").read_text(encoding="utf-8")
    assert 'id="todo-input"' in index and 'class="done-box"' in index and "new-todo" not in index
    if bug:
        _plant(app)
    if deny:
        old, new, css = DENIED
        assert old in index, "the app changed: its footer template has no completed condition"
        (app / "index.html").write_text(index.replace(old, new), encoding="utf-8")
        with (app / "bower_components" / "todomvc-common" / "base.css").open("a", encoding="utf-8") as out:
            out.write(css)
    return root


def _plant(app: Path) -> None:
    name, old, new = ADDING_DOES_NOTHING
    path = app / "js" / "views" / name
    text = path.read_text(encoding="utf-8")
    assert old in text, f"the app changed: {old!r} is not in {name}"
    path.write_text(text.replace(old, new), encoding="utf-8")
