"""Third-party files flowwalk ships as package data, and the one reader of each (stdlib only).

`axe/`: axe-core (MPL-2.0, shipped unmodified with its LICENSE), injected into the page by
`browser/axe.py`; `axe.json` records its version, the npm tarball's integrity, the script's SRI
hash and every rule id with its tags and help URL. `scripts/vendor_axe.py VERSION` refreshes all
three from the npm registry and checks both hashes.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = ["axe_info", "axe_rule_ids", "axe_script", "axe_tags"]


@lru_cache(maxsize=1)
def axe_info() -> dict[str, Any]:
    """axe.json: name, version, license, integrity, script_sri, rules {id: {tags, help_url}}."""
    text = resources.files(__name__).joinpath("axe", "axe.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@lru_cache(maxsize=1)
def axe_script() -> str:
    """The axe.min.js source, as vendored."""
    return resources.files(__name__).joinpath("axe", "axe.min.js").read_text(encoding="utf-8")


def axe_rule_ids() -> tuple[str, ...]:
    return tuple(axe_info()["rules"])


def axe_tags() -> tuple[str, ...]:
    """Every tag some rule carries (wcag2a, wcag21aa, best-practice, ...), sorted."""
    return tuple(sorted({t for r in axe_info()["rules"].values() for t in r["tags"]}))
