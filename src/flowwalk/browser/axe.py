"""axe-core's side of the accessibility checks: the vendored script's rules and version, and what to run.

`Page.axe` (browser/capture.py) evaluates the vendored axe.min.js (`flowwalk.vendor`) into the
page's main frame once per document and runs js/axe_run.js; it answers the violations in plain
dicts, the offending elements as axe's own CSS selectors (a selector path through iframes and
shadow roots joined with ' >> ').
"""

from __future__ import annotations

from typing import Any, Sequence

from flowwalk.vendor import axe_info

__all__ = ["AxeContextError", "TARGETS_MAX", "axe_version", "rule_selection"]

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
