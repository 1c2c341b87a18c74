"""The architecture's rules about code, held in CI: import directions (docs/architecture.md) and mypy."""

from __future__ import annotations

import ast
import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "flowwalk"
# one worker takes the module: each source file is parsed once a suite run (`tree_of`), not once a rule
pytestmark = pytest.mark.xdist_group("code_rules")

#: every package and top-level module of flowwalk: (what it owns, the flowwalk units it may import).
#: An allow-list: a unit that is not here, or an import not in its row, fails. docs/architecture.md's
#: table is rendered from it (`python tests/contract/test_code_rules.py --write-docs`).
#: "__init__" is the package root (`flowwalk.__version__`).
UNITS: dict[str, tuple[str, frozenset[str]]] = {
    "errors": ("the exception tree; `Problem` and `Location` (`path:line:col`)", frozenset()),
    "exitcodes": ("`ExitCode` and `decide_outcome`, the one exit rule", frozenset()),
    "events": ("the event dataclasses of emit.jsonl and their vocabularies", frozenset()),
    "model": ("the one internal model (Suite, Scenario, Rule, steps) and the step vocabularies",
              frozenset({"errors", "events"})),
    "dag": ("the rule DAG: Kahn order, cycles, ancestors (for spec/, plan/ and walk/)", frozenset({"errors", "model"})),
    "llm": ("the language model's configuration (flowwalk.yaml's `model:` block): presets, caps",
            frozenset({"errors"})),
    "ci": ("`--shard auto`: a parallel job's place from the CI's own variables", frozenset({"errors"})),
    "readiness": ("the readiness wait before a run walks a preview, and the run's HTTP headers and credentials",
                  frozenset({"errors"})),
    "settings": ("frozen Settings from argv + env + flowwalk.yaml, built once",
                 frozenset({"ci", "errors", "llm", "model", "readiness"})),
    "environment": ("the browser's environment: Playwright's device table (`devices.json`) and the layers "
                    "(flowwalk.yaml, project, spec) merged into context options", frozenset({"model"})),
    "lazy": ("PEP 562 exports for `flowwalk.agent` and `flowwalk.browser`", frozenset()),
    "cooperative": ("`offload`: a blocking call that lets the thread's other workers go on; `CancelToken`",
                    frozenset()),
    "serve": ("the static server of `--serve`", frozenset()),
    "reportfolder": ("`ReportFolder`: the report folder's files and folders, named once", frozenset()),
    "scrub": ("the trace scrubber: a Playwright trace archive rewritten with no spelling of a secret in it",
              frozenset()),
    "spec": ("reading files into `model.Suite`: the table of file formats, sources with positions, pydantic "
             "models (the authoring tree), the one lowering of the tree into `model` steps (`lower.StepBuilder`), "
             "calls in another tool's language as tree steps (`foreign.translate`), variables, redaction, the input "
             "JSON Schemas; the writer of trees and in-place YAML edits (ruamel.yaml)", frozenset({"dag", "environment", "errors", "events", "model", "settings",
                                                   "vendor"})),
    "importer": ("`flowwalk import`: foreign suites (Playwright Test, Cypress) parsed with tree-sitter, mapped call by call "
                 "through one table into the authoring tree, written by the one writer, with a ledger of every call",
                 frozenset({"errors", "spec"})),
    "plan": ("the plan (pure), shards balanced by durations, never splitting a scenario",
             frozenset({"dag", "environment", "errors", "model", "reportfolder", "settings", "spec"})),
    "browser": ("the only package importing playwright: launch, sessions, the typed page API (reads and actions), "
                "network, the scripts run in pages, errors translated once",
                frozenset({"errors", "lazy", "model", "readiness", "settings", "vendor"})),
    "agent": ("the optional language model: the one client, the prompt boundary, the caps, the call records",
              frozenset({"__init__", "cooperative", "errors", "lazy", "llm", "spec"})),
    "vendor": ("third-party files shipped as package data (axe-core) and their readers", frozenset()),
    "snapshots": ("baseline files beside the spec and the pure comparisons (pixels, aria text)",
                  frozenset({"reportfolder"})),
    "report": ("emit writer, record reader, junit, verdict, summary, console, html, merge",
               frozenset({"errors", "events", "exitcodes", "model", "reportfolder"})),
    "heal": ("one meaning of a target (read, ranked, decided, with or without a fingerprint), finding and mending "
             "over a page `Reader`, fingerprints, the heal record, the diff writer",
             frozenset({"agent", "browser.records", "errors", "events", "model", "report", "reportfolder",
                        "snapshots", "spec"})),
    "walk": ("the run loop and the walker: rules, guards, retries, checks, recovery, verifiers, healing",
             frozenset({"__init__", "agent", "browser", "cooperative", "dag", "environment", "errors", "events",
                        "exitcodes", "heal", "model", "plan", "scrub", "settings", "snapshots", "spec"})),
    "discover": ("crawl, DOM signatures, features, spec generation, verify-before-write",
                 frozenset({"agent", "browser", "cooperative", "errors", "events", "model", "settings", "spec",
                            "walk"})),
    "github": ("the GitHub and GitLab clients (the only `requests` users for either), the comment, the merge "
               "request note, outputs, publish",
               frozenset({"__init__", "errors", "exitcodes", "report", "reportfolder", "settings"})),
    "record": ("the recorder: what a person does in a browser (browser/recorder.py) as the authoring tree, "
               "written by the one writer with its fingerprints; a setup or the continued spec walked first "
               "by the walker in the recording's browser",
               frozenset({"browser", "environment", "errors", "events", "heal", "model", "settings", "spec",
                          "walk"})),
    "app": ("the commands, one typed function each (request in, result out), for the CLI and the MCP server",
            frozenset({"cooperative", "discover", "errors", "events", "exitcodes", "github", "heal", "importer", "model",
                       "plan", "readiness", "record", "report", "reportfolder", "serve", "settings", "spec", "walk"})),
    "mcp": ("the MCP server (the only user of the `mcp` SDK): tools thin over `app`, answers bounded",
            frozenset({"__init__", "agent", "app", "cooperative", "discover", "errors", "events", "heal", "report",
                       "reportfolder", "settings", "spec", "walk"})),
    "cli": ("click group: fill a command's request, call its one function, print the result; errors to exit codes",
            frozenset({"__init__", "app", "cooperative", "discover", "errors", "exitcodes", "mcp", "plan",
                       "settings"})),
    "entry": ("the console script: for `run`, spawns Playwright's driver before anything heavy is imported",
              frozenset({"browser", "cli"})),
    "__init__": ("the package root: `__version__`", frozenset()),
    "__main__": ("`python -m flowwalk`", frozenset({"entry"})),
}
#: modules a unit's row may name on their own ("browser.records"), without the rest of their package:
#: they import the standard library only (`test_a_module_named_alone_imports_the_standard_library_only`)
ALONE = ("flowwalk.browser.records",)
#: third-party modules only some places may import
ONLY_IN = {
    "playwright": {"browser"},
    # the walker's invariant_check GETs an endpoint of the app under test, and the readiness wait the
    # site's URL; everything GitHub goes through github/client.py, everything GitLab through
    # github/gitlab_client.py; every model request goes through agent/client.py
    "requests": {"github/client.py", "github/gitlab_client.py", "walk/verifiers.py", "agent/client.py",
                 "readiness.py"},
    "click": {"cli"},
    "mcp": {"mcp"},
    "tree_sitter": {"importer"},
    "tree_sitter_typescript": {"importer"},
    "tree_sitter_javascript": {"importer"},
}


@functools.cache
def tree_of(path: Path) -> ast.Module:
    """`path` parsed (the rules only read the trees)."""
    return ast.parse(path.read_text(), str(path))


def imports_of(path: Path) -> set[str]:
    """Every module `path` imports, at run time or for type checking (both must follow the rules)."""
    names: set[str] = set()
    for node in ast.walk(tree_of(path)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "flowwalk":  # `from flowwalk import app, __version__`: each name
                names.update(f"flowwalk.{alias.name}" for alias in node.names)
            else:
                names.add(node.module)
    return names


def owner(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def unit_of(name: str) -> str | None:
    """The flowwalk unit a module name belongs to (`flowwalk.walk.checks` -> walk), else None."""
    parts = name.split(".")
    if parts[0] != "flowwalk":
        return None
    if len(parts) == 1 or parts[1] == "__version__":
        return "__init__"
    return parts[1]


def unit_graph() -> dict[str, dict[str, set[str]]]:
    """{unit: {unit it imports: the files that do}}."""
    graph: dict[str, dict[str, set[str]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        mine = owner(path)
        row = graph.setdefault(mine, {})
        for name in imports_of(path):
            other = unit_of(name)
            if name in ALONE and name.removeprefix("flowwalk.") in UNITS.get(mine, ("", frozenset()))[1]:
                other = name.removeprefix("flowwalk.")
            if other is not None and other != mine:
                row.setdefault(other, set()).add(path.relative_to(PACKAGE).as_posix())
    return graph


def test_every_unit_has_a_row_and_imports_only_what_its_row_allows() -> None:
    graph = unit_graph()
    missing = sorted(set(graph) - set(UNITS))
    assert not missing, f"add a row to UNITS for {missing} (what it owns, what it may import)"
    broken = [f"{', '.join(sorted(files))} import(s) flowwalk.{other} (UNITS[{unit!r}] allows "
              f"{', '.join(sorted(UNITS[unit][1])) or 'nothing of flowwalk'})"
              for unit, row in graph.items() for other, files in row.items() if other not in UNITS[unit][1]]
    assert broken == []
    stale = sorted(set(UNITS) - set(graph))
    assert not stale, f"UNITS has rows for units that no longer exist: {stale}"


def test_third_party_modules_are_imported_only_where_allowed() -> None:
    broken = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for name in imports_of(path):
            top = name.split(".")[0]
            if top in ONLY_IN and owner(path) not in ONLY_IN[top] and rel not in ONLY_IN[top]:
                broken.append(f"{rel} imports {name} (only {', '.join(sorted(ONLY_IN[top]))} may)")
    assert broken == []


def test_a_module_named_alone_imports_the_standard_library_only() -> None:
    """browser/records.py, which heal/ reads without the browser layer: no Playwright, no flowwalk."""
    for name in ALONE:
        path = PACKAGE.joinpath(*name.split(".")[1:]).with_suffix(".py")
        foreign = sorted(n for n in imports_of(path) if n.split(".")[0] not in sys.stdlib_module_names)
        assert foreign == [], f"{path.relative_to(PACKAGE)} imports {foreign}"


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path whose last node is its first, or None (depth-first)."""
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for other in sorted(graph.get(node, ())):
            if state.get(other) == 1:
                return path[path.index(other):] + [other]
            if other not in state:
                found = visit(other)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_two_units_import_each_other_even_through_others() -> None:
    graph = unit_graph()
    cycle = find_cycle({unit: set(row) for unit, row in graph.items()})
    assert cycle is None, " -> ".join(f"{u} ({', '.join(sorted(graph[u][v]))})" if v else u
                                      for u, v in zip(cycle, cycle[1:] + [""]))


def package_modules(package: str) -> dict[str, Path]:
    """{module of `package`, dotted below it: its file}: `lower` for spec/lower.py, `models` for
    spec/models/__init__.py, `models.steps` for spec/models/steps.py. The package's own `__init__.py`
    is left out: it only re-exports."""
    root = PACKAGE / package
    modules = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            modules[".".join(parts)] = path
    return modules


def module_graph(package: str) -> dict[str, set[str]]:
    """{module of `package`: the modules of `package` it imports}, every import counted: at the top of
    the module, inside a function, or for type checking only (a state module that imports its users
    is a circle too). A module of a package inside `package` (spec/models/steps.py) is a module of
    its own (`models.steps`); an import names the longest module its dotted name starts with."""
    modules = package_modules(package)

    def module_of(name: str) -> str | None:
        parts = name.split(".")[2:] if name.startswith(f"flowwalk.{package}.") else []
        return next((".".join(parts[:cut]) for cut in range(len(parts), 0, -1)
                     if ".".join(parts[:cut]) in modules), None)

    graph = {}
    for name, path in modules.items():
        imported = {module_of(n) for n in imports_of(path)}
        for node in ast.walk(tree_of(path)):   # `from flowwalk.walk import healing`
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported |= {module_of(f"{node.module}.{a.name}") for a in node.names}
        graph[name] = {m for m in imported if m is not None} - {name}
    return graph


def test_no_import_cycle_among_the_modules_of_a_package() -> None:
    """With `test_no_two_units_import_each_other_even_through_others` (a cycle that crosses packages
    crosses units): no two modules of flowwalk import each other, directly or through others."""
    packages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    assert "spec" in packages
    cycles = {package: find_cycle(module_graph(package)) for package in packages}
    assert {package: " -> ".join(cycle) for package, cycle in cycles.items() if cycle} == {}


def test_no_flowwalk_module_imports_relatively() -> None:
    """The import rules read absolute imports only: a relative one would pass them unseen."""
    relative = sorted(path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py")
                      if any(isinstance(node, ast.ImportFrom) and node.level for node in ast.walk(tree_of(path))))
    assert relative == []


def test_the_allow_list_itself_has_no_cycle() -> None:
    """So that no row can be widened into a cycle that a later import would then close."""
    assert find_cycle({unit: set(allowed) for unit, (_, allowed) in UNITS.items()}) is None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def _label(unit: str) -> str:
    if unit == "__init__":
        return "`flowwalk` (`__init__.py`)"
    return f"`{unit}/`" if (PACKAGE / unit).is_dir() else f"`{unit}.py`"


def render_table() -> str:
    """docs/architecture.md's table of units, in UNITS's order."""
    lines = ["| unit | owns | may import |", "|---|---|---|"]
    for unit, (owns, allowed) in UNITS.items():
        names = sorted("flowwalk" if name == "__init__" else name for name in allowed)
        lines.append(f"| {_label(unit)} | {owns} | {', '.join(names) or 'nothing of flowwalk'} |")
    return "\n".join(lines) + "\n"


DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- units: rendered from tests/contract/test_code_rules.py UNITS -->\n"
END = "<!-- end of units -->\n"


def test_the_architecture_page_shows_the_allow_list() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert BEGIN in text and END in text, f"{DOC} lost its markers"
    shown = text[text.index(BEGIN) + len(BEGIN):text.index(END)]
    assert shown == render_table(), "docs/architecture.md's table drifted: python tests/contract/test_code_rules.py --write-docs"


def test_nothing_imports_the_cli() -> None:
    """Only the console script's entry module, which starts the driver before it (browser/driver.py)."""
    users = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
             if any(n == "flowwalk.cli" or n.startswith("flowwalk.cli.") for n in imports_of(p))]
    assert users == ["entry.py"]


def private_names_defined(tree: ast.Module) -> set[str]:
    """The underscore names a module defines: its functions, methods and classes, the names it
    assigns (module, class and local), and the attributes its code sets on `self` or `cls`."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            names.add(node.attr)
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


def _own_object(node: ast.expr) -> bool:
    """`self`, `cls` or `super()`: a class reaching its own (or its bases') members."""
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def private_reaches(trees: dict[str, ast.Module], allowed: set[tuple[str, str]] = frozenset()) -> list[str]:
    """Every `obj._name` of the modules `trees` ({relative path: tree}) where `_name` is a private
    member another of them defines and its own module does not; `allowed`: (module, name) pairs."""
    defined = {rel: private_names_defined(tree) for rel, tree in trees.items()}
    owners: dict[str, set[str]] = {}
    for rel, names in defined.items():
        for name in names:
            owners.setdefault(name, set()).add(rel)
    return [f"{rel}:{node.lineno} reads {ast.unparse(node)} ({', '.join(sorted(owners[node.attr]))} "
            f"defines {node.attr}: give it a public name)"
            for rel, tree in trees.items() for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in owners and node.attr not in defined[rel]
            and not _own_object(node.value) and (rel, node.attr) not in allowed]


def test_no_module_reaches_into_another_modules_private_members() -> None:
    """`obj._name`, where `_name` is a private member some other flowwalk module defines (and this
    one does not), is a seam that should have a public name. Third-party privates are out of this
    rule: Playwright's are listed in browser/seams.py and checked by test_playwright_seams.py."""
    from flowwalk.browser.seams import PRIVATE_NAMES

    seams = {(user, name.split(".")[0]) for (_, name), user in PRIVATE_NAMES.items()}
    assert private_reaches(package_trees(), seams) == []


def package_trees() -> dict[str, ast.Module]:
    """Every module of src/flowwalk, parsed: {path relative to the package: tree}."""
    return {path.relative_to(PACKAGE).as_posix(): tree_of(path) for path in sorted(PACKAGE.rglob("*.py"))}


def test_no_module_imports_another_modules_private_names() -> None:
    """`from flowwalk.x import _name` is the same reach as `x._name`: what is shared is public."""
    broken = [f"{rel}:{node.lineno} imports {alias.name} from {node.module or '.' * node.level}"
              for rel, tree in package_trees().items() for node in ast.walk(tree)
              if isinstance(node, ast.ImportFrom)
              and (node.level > 0 or (node.module or "").split(".")[0] == "flowwalk")
              for alias in node.names if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert broken == []


def test_the_private_member_rule_sees_a_reach_into_another_class_and_nothing_else() -> None:
    trees = {"crawl.py": ast.parse("class Crawler:\n    def _click(self): pass\n    def run(self): self._click()\n"),
             "inpage.py": ast.parse("class InPage(Base):\n    def go(self):\n        self.crawl._click()\n"
                                    "        super()._click(); self._click(); self.page._impl_obj\n"),
             "other.py": ast.parse("_click = 1\nclass Other:\n    def go(self, crawl): crawl._click()\n")}
    assert private_reaches(trees) == ["inpage.py:3 reads self.crawl._click (crawl.py, other.py defines _click: "
                                      "give it a public name)"]
    assert private_reaches(trees, {("inpage.py", "_click")}) == []


#: the modules that present a verdict (summary.md, report.html, the console, the PR comment, the Action,
#: GitLab, publish, the MCP answers, the commands): they read the typed records (report/verdict_model.py,
#: events.FailureContext, events.StepEvidence), never verdict.json's or an evidence dict's keys
PRESENTERS = ("report/summary.py", "report/html.py", "report/console.py", "report/junit.py", "github/render.py",
              "github/actions.py", "github/comment.py", "github/gitlab.py", "github/publish.py", "mcp/explain.py",
              "mcp/operations.py", "mcp/server.py", "mcp/resources.py", "app/run.py", "app/reports.py",
              "app/publish.py", "app/latest.py", "app/watch.py", "cli.py")
#: what a verdict, a part of one, or a step's or failure's evidence is called where it is read
VERDICT_NAMES = {"verdict", "test", "cause", "failure", "context", "evidence", "detail", "finding", "heal",
                 "shards", "counts", "gate", "changes", "wait"}


def verdict_dict_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, receiver) of each `X.get("key")` whose X names a verdict or evidence dict (`VERDICT_NAMES`,
    or an attribute `.detail`, `.context`)."""
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            receiver = node.func.value
            name = receiver.id if isinstance(receiver, ast.Name) else (
                receiver.attr if isinstance(receiver, ast.Attribute) else None)
            if name in VERDICT_NAMES:
                found.append((node.lineno, name))
    return found


def test_no_presenter_reads_a_verdict_or_evidence_dict_by_key() -> None:
    # verdict.json is read in one place (report/verdict_json.py) into records; a presenter reads fields
    bad = [f"src/flowwalk/{rel}:{line}: {name}.get(...)" for rel in PRESENTERS
           for line, name in verdict_dict_reads(ast.parse((PACKAGE / rel).read_text()))]
    assert bad == [], "read the typed record's field instead:\n" + "\n".join(bad)
    assert verdict_dict_reads(ast.parse('verdict.get("outcome"); step.detail.get("selector"); env.get("X")')) == \
        [(1, "verdict"), (1, "detail")]


def test_mypy_strict_is_clean_on_src() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary"], cwd=ROOT,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


#: the attributes that hold Playwright's own objects: the session's page and context, the locator of
#: browser/locate.py's `Located`. The page API (`PageSession.page`, browser/page.py) is the rest's.
PLAYWRIGHT_HANDLES = {"playwright_page", "playwright_context", "locator"}
#: Playwright's classes whose methods only Playwright's objects have
PLAYWRIGHT_CLASSES = ("Page", "Frame", "Locator", "FrameLocator", "ElementHandle", "JSHandle", "BrowserContext",
                      "Browser", "BrowserType", "Playwright", "Keyboard", "Mouse", "Touchscreen", "Route", "Request",
                      "Response", "Dialog", "Download", "Worker", "ConsoleMessage", "APIRequestContext")
@functools.cache
def playwright_only_methods() -> frozenset[str]:
    """The names of methods that only Playwright's objects have: every public method of its classes
    that no flowwalk module defines (a function, or a field of a class) and no builtin or standard
    type flowwalk calls has (`count` and `goto` are flowwalk's too, `json` is a requests answer's;
    `evaluate` and `wait_for_load_state` are Playwright's alone)."""
    import asyncio
    import datetime
    import socket

    import playwright.sync_api as sync_api
    import requests

    names = {name for cls in PLAYWRIGHT_CLASSES for name in dir(getattr(sync_api, cls)) if not name.startswith("_")}
    ours = {node.name for tree in package_trees().values() for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    ours |= {node.target.id for tree in package_trees().values() for node in ast.walk(tree)
             if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)}
    others = (str, bytes, list, dict, set, tuple, int, float, Path, datetime.datetime, socket.socket, asyncio.Task,
              requests.Response)
    return frozenset(names - ours - {name for kind in others for name in dir(kind)})


def playwright_uses(tree: ast.Module, only: frozenset[str]) -> list[tuple[int, str]]:
    """(line, what) of each call of a Playwright-only method and each reach for a Playwright handle."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in only:
            found.append((node.lineno, f".{node.func.attr}()"))
        elif isinstance(node, ast.Attribute) and node.attr in PLAYWRIGHT_HANDLES:
            found.append((node.lineno, f".{node.attr}"))
    return sorted(found)


def test_nothing_but_the_browser_layer_calls_playwright() -> None:
    """Every module outside browser/ (walk/, discover/, heal/, the commands, all of it) reads and acts
    on pages through the page API: no Playwright-only method is called and no Playwright object reached."""
    only = playwright_only_methods()
    broken = [f"{rel}:{line} {what}" for rel, tree in package_trees().items() if not rel.startswith("browser/")
              for line, what in playwright_uses(tree, only)]
    assert broken == [], "use the page API (PageSession.page, browser/page.py; discover's browser/explore.py)"


def test_the_playwright_rule_sees_a_raw_call_and_not_flowwalks_own() -> None:
    only = playwright_only_methods()
    assert {"evaluate", "wait_for_load_state", "select_option", "inner_text", "click"} <= only
    assert not {"count", "goto", "title", "close", "act", "match"} & only
    tree = ast.parse("def f(session, page):\n    session.playwright_page.evaluate('1')\n    page.act(el)\n"
                     "    found.locator.first.click()\n    'x'.title()\n")
    assert playwright_uses(tree, only) == [(2, ".evaluate()"), (2, ".playwright_page"), (4, ".click()"), (4, ".locator")]


def _handlers_of(path: Path, name: str) -> list[int]:
    """Lines of the `except` clauses of `path` that name `name`."""
    lines = []
    for node in ast.walk(tree_of(path)):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            names = {n.id for n in ast.walk(node.type) if isinstance(n, ast.Name)}
            names |= {n.attr for n in ast.walk(node.type) if isinstance(n, ast.Attribute)}
            if name in names:
                lines.append(node.lineno)
    return lines


def test_playwright_errors_are_caught_only_in_the_browser_layer() -> None:
    """browser/ translates Playwright's errors once (browser/errors.py `translating`); the rest of
    flowwalk catches flowwalk's own (PageGone, PageUnreadable, TimedOut, InvalidSelector)."""
    broken = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] == "browser":
            continue
        for name in ("PlaywrightError", "PlaywrightTimeoutError", "Error", "TimeoutError"):
            if name in ("Error", "TimeoutError") and "playwright" not in path.read_text():
                continue
            broken += [f"{rel}:{line} catches {name}" for line in _handlers_of(path, name)]
    assert broken == []


#: what browser/errors.py offers the rest of flowwalk: its errors, to catch. Its translation
#: (`translating`, `translated`) and its reading of Playwright's messages are the browser layer's.
BROWSER_ERRORS = frozenset({"BrowserCrashed", "FrameNotShown", "InvalidSelector", "NavigationBlocked", "NotAFrame",
                            "PageError", "PageGone", "PageUnreadable", "TimedOut"})


def translations(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, what) of each name a module takes from browser/errors.py (or `flowwalk.browser`) that is
    not one of its errors, and each call of a `translating` (the page API's and the session's own)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("flowwalk.browser.errors", "flowwalk.browser"):
            found += [(node.lineno, f"imports {a.name}") for a in node.names
                      if a.name not in BROWSER_ERRORS and (node.module == "flowwalk.browser.errors" or
                                                           a.name in ("translating", "translated"))]
        elif isinstance(node, ast.Call) and (getattr(node.func, "attr", None) == "translating"
                                             or getattr(node.func, "id", None) == "translating"):
            found.append((node.lineno, "translating()"))
    return sorted(found)


def test_errors_are_translated_only_in_the_browser_layer() -> None:
    """Outside browser/ no module translates an error itself: it meets flowwalk's own, already
    translated by the page API (or discover's browser/explore.py), and imports nothing else of
    browser/errors.py."""
    broken = [f"{rel}:{line} {what}" for rel, tree in package_trees().items() if not rel.startswith("browser/")
              for line, what in translations(tree)]
    assert broken == [], "read and act through the page API: it translates Playwright's errors once"


def test_the_translation_rule_sees_a_translation_and_not_a_catch() -> None:
    tree = ast.parse("from flowwalk.browser.errors import PageError, translating\n"
                     "from flowwalk.browser import InvalidSelector, PageSession\n"
                     "def f(session):\n    with translating():\n        pass\n"
                     "    with session.translating():\n        pass\n"
                     "    try:\n        g()\n    except PageError:\n        pass\n")
    assert translations(tree) == [(1, "imports translating"), (4, "translating()"), (6, "translating()")]


#: the page scripts that may look at boxes and styles: the prelude (`fw.visible`, the one meaning of
#: visible) and the interrupts' gate, which asks only whether a match could be visible
LAYOUT_READERS = {Path("browser/js/prelude.js"), Path("browser/js/may_show.js")}


def test_one_definition_of_visible() -> None:
    """What "visible" means in the page is written once, in browser/js/prelude.js (`fw.visible`)."""
    marks = ("getBoundingClientRect", "checkVisibility", "getComputedStyle")
    found = [f"{p.relative_to(PACKAGE)} uses {m}" for p in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.js")])
             if p.relative_to(PACKAGE) not in LAYOUT_READERS and "vendor" not in p.parts and "report" not in p.parts
             for m in marks if m in p.read_text()]
    assert found == []


#: what the prelude alone defines in the page (browser/js/prelude.js): an element's text, label,
#: accessible name, role and test id, and the test-id attributes (the `test_id_attribute` setting)
ELEMENT_MEANING = re.compile(r"\b(?:const|let|var|function)\s+((?:text|label|name|role|testid|testId)"
                             r"(?:Of|Text|Attr|Attrs|Attributes)|implicitRole)\s*(?==|\()", re.I)
TEST_ID_LITERAL = re.compile(r"""['"`]data-(?:testid|test-id|test|qa|cy)['"`]""")


def element_meanings(text: str) -> list[str]:
    """The definitions of an element's meaning in a page script's `text` that are the prelude's
    to make: a `textOf`, `labelOf`, `nameOf`, `roleOf` or test-id function, or a test-id attribute
    written as a value."""
    found = [f"defines {m.group(1)}" for m in ELEMENT_MEANING.finditer(text)]
    found += [f"lists {m.group(0)}" for m in TEST_ID_LITERAL.finditer(text)]
    return found


def test_the_element_meaning_rule_sees_a_script_of_its_own() -> None:
    script = ("(el) => {\n  const textOf = (e) => e.innerText;\n  const roleOf = (e) => e.getAttribute('role');\n"
              "  function labelOf(e) { return ''; }\n  const testidAttr = (e) => ['data-testid', \"data-qa\"].find(Boolean);\n"
              "  const text = fw.textOf(el); return fw.nameOf(el) + text + '[data-testid*=cookie i]';\n}\n")
    assert element_meanings(script) == ["defines textOf", "defines roleOf", "defines labelOf", "defines testidAttr",
                                        "lists 'data-testid'", 'lists "data-qa"']


def test_one_meaning_of_an_element() -> None:
    """Role, accessible name, label, text and test id are defined once, in browser/js/prelude.js
    (`fw.roleOf`, `fw.nameOf`, `fw.labelOf`, `fw.textOf`, `fw.testIdOf`), and the test-id
    attributes once, in `model.TEST_ID_ATTRIBUTES` (the setting's default): no other page script
    defines its own."""
    found = [f"{p.relative_to(PACKAGE)} {what}" for p in sorted((PACKAGE / "browser" / "js").glob("*.js"))
             if p.name != "prelude.js" for what in element_meanings(p.read_text(encoding="utf-8"))]
    assert found == []


if __name__ == "__main__":
    if sys.argv[1:] != ["--write-docs"]:
        sys.exit("usage: python tests/contract/test_code_rules.py --write-docs")
    page = DOC.read_text(encoding="utf-8")
    page = page[:page.index(BEGIN) + len(BEGIN)] + render_table() + page[page.index(END):]
    DOC.write_text(page, encoding="utf-8")
