"""Choosing the selector a generated step pins, and the words its `target` says.

The order is the one a person reviewing the spec would want: a test id, then an id that is not
generated (the page's selector writer, browser/js/selector.js, answers these two), then a label
or role (an `aria-label`, a field's `name` or placeholder, a link's `href`, a role with
`aria-controls`), then the element's text as a `text="..."` selector, and a positional chain
(`main > ul > li:nth-of-type(2) > a`) only when nothing better matches exactly one element.
"""

from __future__ import annotations

from flowwalk.browser.explored import Element

__all__ = ["RANK", "choose_selector", "target_of"]

#: how a candidate names its element, best first
RANK = ("testid", "id", "label", "role", "text", "position")


def choose_selector(element: Element) -> str | None:
    """The best candidate of a surveyed element that matches exactly one element, else None."""
    for candidate in sorted(element.candidates, key=lambda c: RANK.index(c.how) if c.how in RANK else len(RANK)):
        if candidate.count == 1 and len(candidate.selector) <= 512:
            return candidate.selector
    return None


_NOUNS = {"link": "link", "button": "button", "dialog": "dialog", "list": "list", "form": "form", "heading": "heading"}
_FIELD_NOUNS = {"checkbox": "checkbox", "radio": "option", "select": "menu", "textarea": "box", "search": "search box"}


def target_of(element: Element) -> str:
    """A short description a person understands: 'the Log in button', 'the Email field'."""
    kind = element.kind
    name = " ".join((element.name or element.text).split())[:80]
    if kind == "field":
        noun = _FIELD_NOUNS.get(element.type, "field")
    elif kind == "button" and element.role == "tab":
        noun = "tab"
    else:
        noun = _NOUNS.get(kind, "element")
    if not name:
        ident = element.testid or element.id
        return f"the {ident} {noun}".replace("  ", " ") if ident else f"the {noun}"
    return f"the {name} {noun}"
