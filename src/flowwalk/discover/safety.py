"""What the crawl may touch: destructive controls, the hosts in scope, and URL keys.

A control is destructive when any of its words contains a word of the destructive list as whole
words: `destructive_word` and `words_of` live in model.py, because the healer (heal/meaning.py)
keeps the same controls out of its reach; `destructive` asks it about a surveyed element, and
`destructive_control` about an observed one.
"""

from __future__ import annotations

from typing import Iterable
from urllib.parse import urlsplit, urlunsplit

from flowwalk.browser.explored import Control, Element, Form
from flowwalk.model import destructive_word, words_of

__all__ = ["destructive", "destructive_control", "destructive_word", "host_in_scope", "url_key", "words_of"]


def destructive(element: Element, words: Iterable[str]) -> str | None:
    """The destructive word a surveyed link, button or form says (its names, classes, attributes), or None."""
    return destructive_word({"name": element.name, "text": element.text, "testid": element.testid, "id": element.id,
                             "raw_href": element.raw_href, "action": element.action if isinstance(element, Form) else "",
                             "classes": element.classes, "attrs": element.attrs}, words)


def destructive_control(control: Control, words: Iterable[str]) -> str | None:
    """The destructive word an observed control says (its name, its id, classes, href, value, text), or None."""
    return destructive_word({"name": control.name, "text": control.words}, words)


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
