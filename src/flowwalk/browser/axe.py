"""axe-core in the page: the one place flowwalk runs it.

The script is the vendored axe.min.js (`flowwalk.vendor`), evaluated into the page's main frame
once per document through the DevTools protocol (`page.evaluate`), so a page's Content Security
Policy, which would refuse an injected <script> tag, does not stop it. `run_axe` answers the
violations in plain dicts, the offending elements as axe's own CSS selectors (a selector path
through iframes and shadow roots joined with ' >> ').
"""

from __future__ import annotations

from typing import Any, Sequence

from flowwalk.browser.errors import PlaywrightError, translated, translating
from flowwalk.browser.scripts import script
from flowwalk.vendor import axe_info, axe_script

__all__ = ["AxeContextError", "axe_version", "rule_selection", "run_axe"]

#: at most this many offending elements are kept per rule (the count says how many there were)
TARGETS_MAX = 10



class AxeContextError(Exception):
    """The part of the page to check (`selector`) matches nothing: axe has nothing to look at."""


def rule_selection(include: Sequence[str], skip: Sequence[str]) -> dict[str, Any]:
    """axe.run's options for `rules: {include, skip}`: tags stand for their rules (experimental
    rules only when named), `skip` switches rules off."""
    rules = axe_info()["rules"]
    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if include:
        chosen: list[str] = []
        for item in include:
            named = [item] if item in rules else [
                rid for rid, r in rules.items() if item in r["tags"] and "experimental" not in r["tags"]]
            chosen.extend(r for r in named if r not in chosen and r not in skip)
        options["runOnly"] = {"type": "rule", "values": chosen}
    if skip:
        options["rules"] = {rid: {"enabled": False} for rid in skip}
    return options


def axe_version() -> str:
    """The vendored axe-core's version (recorded with each accessibility check)."""
    return str(axe_info()["version"])


def _inject(page: Any) -> None:
    with translating():
        if not page.evaluate("() => typeof window.axe === 'object' && typeof window.axe.run === 'function'"):
            page.evaluate(axe_script())


def run_axe(page: Any, *, include: str | None, exclude: Sequence[str], rules: Sequence[str] = (),
            skip: Sequence[str] = ()) -> list[dict[str, Any]]:
    """axe-core's violations on the page (or within `include`, a CSS selector), `exclude` left
    out. Raises AxeContextError when `include` matches nothing, browser.errors' PageError kinds
    otherwise."""
    _inject(page)
    options = rule_selection(rules, skip)
    if "runOnly" in options and not options["runOnly"]["values"]:
        return []
    try:
        found = page.evaluate(script("axe_run"), {"include": include, "exclude": list(exclude), "options": options,
                                                  "max": TARGETS_MAX})
    except PlaywrightError as exc:
        # axe's own error for an empty context comes back as the page's error
        if "No elements found for include" in str(exc):
            raise AxeContextError(include or "") from exc
        raise translated(exc, include) from exc
    return list(found)
