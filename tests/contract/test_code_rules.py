"""The architecture's rules about code, held in CI: import directions (docs/architecture.md) and mypy."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "flowwalk"

#: package (or top-level module) -> flowwalk packages it must never import
FORBIDDEN = {
    "spec": {"walk", "browser", "report", "github", "cli", "app"},
    "plan": {"walk", "browser", "report", "github", "cli", "app"},
    "browser": {"walk", "report", "github", "spec", "plan", "cli", "app"},
    "walk": {"report", "github", "cli", "app"},
    "report": {"browser", "walk", "spec", "github", "cli", "app"},
    "github": {"browser", "walk", "spec", "cli", "app"},
    "model": {"spec", "plan", "browser", "walk", "report", "github", "settings", "cli", "app"},
    "events": {"spec", "plan", "browser", "walk", "report", "github", "settings", "cli", "app"},
    "settings": {"spec", "plan", "browser", "walk", "report", "github", "cli", "app"},
    # the model client knows prompts and caps, never pages or runs: callers hand it text
    "agent": {"plan", "browser", "walk", "report", "github", "cli", "app"},
}
#: third-party modules only some places may import
ONLY_IN = {
    "playwright": {"browser"},
    # the walker's invariant_check GETs an endpoint of the app under test; everything GitHub goes
    # through github/client.py; every model request goes through agent/client.py
    "requests": {"github/client.py", "walk/verifiers.py", "agent/client.py"},
}


def imports_of(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def owner(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def test_imports_go_one_way() -> None:
    broken = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for name in imports_of(path):
            parts = name.split(".")
            if parts[0] == "flowwalk" and len(parts) > 1:
                if parts[1] in FORBIDDEN.get(owner(path), set()):
                    broken.append(f"{rel} imports {name}")
            elif parts[0] in ONLY_IN:
                allowed = ONLY_IN[parts[0]]
                if owner(path) not in allowed and rel not in allowed:
                    broken.append(f"{rel} imports {name} (only {', '.join(sorted(allowed))} may)")
    assert broken == []


def test_nothing_imports_the_cli() -> None:
    """Only the console script's entry module, which starts the driver before it (browser/driver.py)."""
    users = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
             if any(n == "flowwalk.cli" or n.startswith("flowwalk.cli.") for n in imports_of(p))]
    assert users == ["entry.py"]


def test_mypy_strict_is_clean_on_src() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary"], cwd=ROOT,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


#: Playwright Page / Frame / Locator methods: the walker's modules hand pages and elements to
#: `flowwalk.browser` (element.py, locate.py, session.py) instead of calling these on them
PLAYWRIGHT_CALLS = {
    "locator", "click", "dblclick", "fill", "press", "hover", "focus", "check", "uncheck", "select_option",
    "set_input_files", "scroll_into_view_if_needed", "evaluate", "evaluate_all", "inner_text", "inner_html",
    "input_value", "get_attribute", "is_visible", "is_enabled", "is_checked", "wait_for", "wait_for_timeout",
    "wait_for_selector", "nth", "title", "query_selector", "query_selector_all",
}
#: walk/ modules that read the page with their own scripts (one round trip per read), by design:
#: stabilized checks, target re-resolution, verifiers and the healer's fingerprints
READS_THE_PAGE = {"checks.py", "resolve.py", "verifiers.py", "healer.py"}


def test_the_walker_calls_playwright_only_through_the_browser_layer() -> None:
    broken = []
    for path in sorted((PACKAGE / "walk").glob("*.py")):
        if path.name in READS_THE_PAGE:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in PLAYWRIGHT_CALLS:
                broken.append(f"walk/{path.name}:{node.lineno} calls .{node.func.attr}()")
            elif isinstance(node, ast.Attribute) and node.attr == "url" and isinstance(node.value, ast.Attribute) \
                    and node.value.attr == "page":
                broken.append(f"walk/{path.name}:{node.lineno} reads .page.url")
    assert broken == []
