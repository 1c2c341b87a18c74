"""Choosing the selector a generated step pins, and the words its `target` says.

The order is the one a person reviewing the spec would want: a test id, then an id, then a label
or role (an `aria-label`, a field's `name` or placeholder, a link's `href`, a role with
`aria-controls`), then the element's text as a `text="..."` selector, and a positional chain
(`main > ul > li:nth-of-type(2) > a`) only when nothing better matches exactly one element.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["RANK", "choose_selector", "target_of"]

#: how a candidate names its element, best first
RANK = ("testid", "id", "label", "role", "text", "position")


def choose_selector(element: Mapping[str, Any]) -> str | None:
    """The best candidate of a surveyed element that matches exactly one element, else None."""
    candidates = sorted(element.get("candidates") or (), key=lambda c: RANK.index(c.get("how", "position"))
                        if c.get("how") in RANK else len(RANK))
    for candidate in candidates:
        if candidate.get("count") == 1 and len(str(candidate.get("selector") or "")) <= 512:
            return str(candidate["selector"])
    return None


_NOUNS = {"link": "link", "button": "button", "dialog": "dialog", "list": "list", "form": "form", "heading": "heading"}
_FIELD_NOUNS = {"checkbox": "checkbox", "radio": "option", "select": "menu", "textarea": "box", "search": "search box"}


def target_of(element: Mapping[str, Any]) -> str:
    """A short description a person understands: 'the Log in button', 'the Email field'."""
    kind = str(element.get("kind") or "")
    name = " ".join(str(element.get("name") or element.get("text") or "").split())[:80]
    if kind == "field":
        noun = _FIELD_NOUNS.get(str(element.get("type") or ""), "field")
    elif kind == "button" and element.get("role") == "tab":
        noun = "tab"
    else:
        noun = _NOUNS.get(kind, "element")
    if not name:
        ident = str(element.get("testid") or element.get("id") or "")
        return f"the {ident} {noun}".replace("  ", " ") if ident else f"the {noun}"
    return f"the {name} {noun}"
