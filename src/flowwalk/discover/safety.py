"""What the crawl may touch: destructive controls, the hosts in scope, and URL keys.

A control is destructive when any of its words (text, accessible name, test id, id, classes,
name, href, form action, title) contains a word of the destructive list as whole words. Words
are split on anything that is not a letter or digit and on camelCase humps, so `deleteItem`,
`delete-item`, `/items/3/delete` and "Delete item" all say "delete", while "deleted" or
"Cancellation policy" do not.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping
from urllib.parse import urlsplit, urlunsplit

__all__ = ["destructive_word", "host_in_scope", "url_key", "words_of"]

_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SPLIT = re.compile(r"[^0-9a-z]+")
#: the attributes of a surveyed element whose words say what it does
_ATTRS = ("href", "name", "title", "value", "action", "formaction", "aria-label", "data-action", "onclick")


def words_of(text: str) -> list[str]:
    """`"deleteItem /items/3/delete"` -> `["delete", "item", "items", "3", "delete"]`."""
    return [w for w in _SPLIT.split(_HUMP.sub(" ", text).lower()) if w]


def _contains(words: list[str], phrase: list[str]) -> bool:
    n = len(phrase)
    return any(words[i:i + n] == phrase for i in range(len(words) - n + 1))


def destructive_word(element: Mapping[str, Any], vocabulary: Iterable[str]) -> str | None:
    """The destructive word `element` (a surveyed link, button or form) says, or None."""
    texts = [str(element.get(k) or "") for k in ("name", "text", "testid", "id", "raw_href", "action")]
    texts.extend(str(c) for c in element.get("classes") or ())
    attrs = element.get("attrs") or {}
    texts.extend(str(attrs.get(a) or "") for a in _ATTRS)
    words = words_of(" | ".join(texts))
    for entry in vocabulary:
        phrase = words_of(entry)
        if phrase and _contains(words, phrase):
            return entry
    return None


def host_in_scope(host: str, start_host: str, allow_hosts: Iterable[str]) -> bool:
    """The start URL's host, or an allowed host or one of its subdomains."""
    host = host.lower().rstrip(".")
    if host == start_host.lower():
        return True
    for allowed in allow_hosts:
        allowed = allowed.lower().strip().rstrip(".")
        if allowed and (host == allowed or host.endswith("." + allowed)):
            return True
    return False


def is_hash_route(fragment: str) -> bool:
    """`#/active`, `#!/inbox`: a client-side route, not an anchor on the page."""
    return fragment.startswith(("/", "!"))


def url_key(url: str) -> str:
    """The URL as the crawl tells pages apart: no anchor fragment (a hash route is kept), no
    default port, the host lower-cased; the query stays (it can select a different page)."""
    parts = urlsplit(url)
    fragment = parts.fragment if is_hash_route(parts.fragment) else ""
    netloc = parts.netloc.lower()
    if (parts.scheme == "http" and netloc.endswith(":80")) or (parts.scheme == "https" and netloc.endswith(":443")):
        netloc = netloc.rsplit(":", 1)[0]
    return urlunsplit((parts.scheme.lower(), netloc, parts.path or "/", parts.query, fragment))
