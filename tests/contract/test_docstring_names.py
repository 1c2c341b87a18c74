"""Docstrings name modules and functions in backticks; each name must still exist.

A docstring is read as documentation and trusted, so a stale `walk/walker.py` or a
`Browser.prepare_spare` renamed away is a small lie. Four forms are checked, the ones that are
unambiguously code (a bare word in backticks may be a value, a flag or a field of a spec):

- a source file (`walk/checks.py`, `network.py` beside the module) or a page of docs/
  (`docs/healing.md`): it exists (other file names, `verdict.json`, `flowwalk.yaml`, are what a run
  reads or writes);
- a dotted module path from the package (`flowwalk.browser.driver`), or a dotted name whose head
  is one of the package's modules (`walk.checks`, `report.emit.EmitWriter`): it imports, and its
  attributes resolve (`settings.workers`, a field of the module's class, counts);
- `Class.member` where Class is a class defined in src/: the member is defined on it or a base;
- `name()`: a function or method of that name is defined somewhere in src/, or imported there, or
  is a builtin.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import re
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "flowwalk"

SPAN = re.compile(r"`([^`\n]+)`")
PATH = re.compile(r"^(?:[\w./-]+\.py|docs/[\w./-]+\.md)$")
DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
FILE_NAME = re.compile(r"\.(?:json|jsonl|yaml|yml|md|html|xml|txt|png)$")  # what a run reads or writes
CALL = re.compile(r"^([A-Za-z_][\w.]*)\(\)$")


def _docstrings(tree: ast.Module) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                yield body[0].lineno, body[0].value.value


def _modules() -> dict[str, Path]:
    """Every module of the package by its dotted name, and by its name below flowwalk."""
    out: dict[str, Path] = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(("flowwalk",) + parts)] = path
    return out


def _definitions() -> tuple[set[str], dict[str, set[str]]]:
    """(every function name defined or imported in src/, {class name: member names})."""
    functions: set[str] = set()
    classes: dict[str, set[str]] = {}
    bases: dict[str, list[str]] = {}
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.add(node.name)
                functions.update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))  # a callable given
            elif isinstance(node, ast.ImportFrom):
                functions.update(alias.asname or alias.name for alias in node.names)
            elif isinstance(node, ast.ClassDef):
                members = classes.setdefault(node.name, set())
                bases.setdefault(node.name, []).extend(b.id for b in node.bases if isinstance(b, ast.Name))
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        members.add(item.name)
                    elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        members.add(item.target.id)
                    elif isinstance(item, ast.Assign):
                        members.update(t.id for t in item.targets if isinstance(t, ast.Name))
                for item in ast.walk(node):  # attributes set on self in any method
                    if isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) \
                            and item.value.id == "self" and isinstance(item.ctx, ast.Store):
                        members.add(item.attr)
    for name in list(classes):  # members inherited from a base defined in src/
        seen, todo = set(), list(bases.get(name, ()))
        while todo:
            base = todo.pop()
            if base in seen or base not in classes:
                continue
            seen.add(base)
            classes[name] |= classes[base]
            todo.extend(bases.get(base, ()))
    return functions, classes


def _resolve_dotted(name: str, modules: dict[str, Path], classes: dict[str, set[str]]) -> bool | None:
    """True/False when `name` is a package path; None when it is not one (left unchecked)."""
    full = name if name.startswith("flowwalk.") else "flowwalk." + name
    parts = full.split(".")
    for cut in range(len(parts), 1, -1):
        module = ".".join(parts[:cut])
        if module in modules:
            obj: object = importlib.import_module(module)
            for i, attr in enumerate(parts[cut:]):
                if not hasattr(obj, attr):
                    # `settings.workers`: an attribute of an instance of one of the module's classes
                    return i == 0 and len(parts) == cut + 1 and any(
                        attr in classes.get(c, ()) for c, v in vars(obj).items() if isinstance(v, type))
                obj = getattr(obj, attr)
            return True
    return False if name.startswith("flowwalk.") else None


def stale_names(text: str, where: str, bases: tuple[Path, ...], modules: dict[str, Path],
                functions: set[str], classes: dict[str, set[str]]) -> list[str]:
    """What the backticked names of `text` name that does not exist (see the module docstring)."""
    stale: list[str] = []
    for match in SPAN.finditer(text):
        span = match.group(1).strip()
        at = f"{where}:{text[:match.start()].count(chr(10))}: `{span}`"
        if PATH.match(span):
            if not any((base / span).exists() for base in bases):
                stale.append(f"{at}: no such file")
            continue
        call = CALL.match(span)
        name = call.group(1) if call else span
        if call and "." not in name:
            if name not in functions and name not in classes and not hasattr(builtins, name):
                stale.append(f"{at}: no function of that name in src/")
            continue
        if not DOTTED.match(name) or FILE_NAME.search(name):
            continue
        resolved = _resolve_dotted(name, modules, classes)
        if resolved is False:
            stale.append(f"{at}: does not import or resolve")
        elif resolved is None:
            head, _, member = name.partition(".")
            if head in classes and "." not in member and member not in classes[head]:
                stale.append(f"{at}: {head} has no member {member!r}")
    return stale


def test_every_name_a_docstring_gives_in_backticks_exists() -> None:
    modules = _modules()
    functions, classes = _definitions()
    stale: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(ROOT)
        for line, text in _docstrings(ast.parse(path.read_text(encoding="utf-8"))):
            stale += stale_names(text, f"{rel}:+{line}", (path.parent, SRC, ROOT), modules, functions, classes)
    assert not stale, "docstrings name what does not exist:\n" + "\n".join(stale)


#: pages of docs/ held to the same rule: what they name of the code exists; with the packages whose
#: files the page names by their bare names (architecture.md's "Inside walk/" table)
CHECKED_PAGES = {"architecture.md": ("walk",)}


def test_every_name_the_architecture_page_gives_in_backticks_exists() -> None:
    """docs/architecture.md fixes the modules and their interfaces: each module, function, class or
    member it names in backticks is there (a `walk/checks.py`, a `walk.boundary.gone`, a
    `Page.match`, a `run_check()`)."""
    modules = _modules()
    functions, classes = _definitions()
    stale: list[str] = []
    for page, packages in CHECKED_PAGES.items():
        path = ROOT / "docs" / page
        bases = (SRC, ROOT, path.parent, *(SRC / package for package in packages))
        stale += stale_names(path.read_text(encoding="utf-8"), f"docs/{page}", bases, modules, functions, classes)
    assert not stale, "the page names what does not exist (the number is the line, from 0):\n" + "\n".join(stale)
