"""DOM signatures: a stable hash of what a page is, so that template pages collapse and loops show.

The signature hashes the page's semantic outline from its survey: landmarks, heading levels and
texts, form fields with their types and labels, button names and link names. Numbers are
normalised (`Order 1041` and `Order 1042` say the same) and list items are left out (a list of 3
notes and one of 4 are the same page), so `/items/1` and `/items/2` share a signature when their
template does. The URL is not part of it: one page reached at two URLs is one page; the template
key (`url_template`) says which URLs look like one template.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, replace
from urllib.parse import urlsplit

from flowwalk.browser.explored import Survey
from flowwalk.discover.state import Outline

__all__ = ["dom_signature", "outline", "template_key", "url_template"]

_NUMBER = re.compile(r"\d+")
_ID_SEGMENT = re.compile(r"^(\d+|[0-9a-f]{8,}|[0-9a-f-]{32,36})$", re.IGNORECASE)


def _norm(text: str) -> str:
    return _NUMBER.sub("0", " ".join(text.split()).lower())[:80]


def outline(survey: Survey) -> Outline:
    """The semantic outline a signature hashes (kept in crawl.json so a person can see why two
    pages were one)."""
    # links inside lists of items would make every list length a new page: only landmarks' links count
    return Outline(
        landmarks=tuple(sorted({f"{lm.role}:{_norm(lm.name)}" for lm in survey.landmarks})),
        headings=tuple(f"h{h.level}:{_norm(h.text)}" for h in survey.headings[:30]),
        fields=tuple(f"{f.type}:{_norm(f.name)}" for form in survey.forms for f in form.fields),
        buttons=tuple(sorted({_norm(b.name) for b in survey.buttons if b.name})),
        links=tuple(sorted({_norm(a.name) for a in survey.links
                            if a.name and a.landmark.startswith(("navigation", "banner", "contentinfo"))})))


def _digest(data: object) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()[:12]


def dom_signature(survey: Survey) -> str:
    """12 hex digits of the outline's SHA-256."""
    return _digest(asdict(outline(survey)))


def url_template(url: str) -> str:
    """`/items/42/edit` -> `/items/{id}/edit` (numbers, hex and UUID segments become `{id}`)."""
    parts = urlsplit(url)
    segments = ["{id}" if _ID_SEGMENT.match(s) else s for s in parts.path.split("/")]
    return "/".join(segments) + (("#" + parts.fragment) if parts.fragment.startswith(("/", "!")) else "")


def template_key(url: str, survey: Survey) -> str:
    """Pages with the same URL template and the same outline apart from heading texts are one
    template (`/products/7` "Red shirt" and `/products/9` "Blue hat")."""
    shape = outline(survey)
    shape = replace(shape, headings=tuple(h.split(":", 1)[0] for h in shape.headings))
    return _digest({"url": url_template(url), "shape": asdict(shape)})
