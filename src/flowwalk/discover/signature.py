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
from typing import Any, Mapping
from urllib.parse import urlsplit

__all__ = ["dom_signature", "outline", "template_key", "url_template"]

_NUMBER = re.compile(r"\d+")
_ID_SEGMENT = re.compile(r"^(\d+|[0-9a-f]{8,}|[0-9a-f-]{32,36})$", re.IGNORECASE)


def _norm(text: Any) -> str:
    return _NUMBER.sub("0", " ".join(str(text or "").split()).lower())[:80]


def outline(survey: Mapping[str, Any]) -> dict[str, Any]:
    """The semantic outline a signature hashes (kept in crawl.json so a person can see why two
    pages were one)."""
    landmarks = sorted({f"{lm.get('role')}:{_norm(lm.get('name'))}" for lm in survey.get("landmarks") or ()})
    headings = [f"h{h.get('level')}:{_norm(h.get('text'))}" for h in (survey.get("headings") or ())[:30]]
    fields = []
    for form in survey.get("forms") or ():
        for f in form.get("fields") or ():
            fields.append(f"{f.get('type')}:{_norm(f.get('name'))}")
    buttons = sorted({_norm(b.get("name")) for b in survey.get("buttons") or () if b.get("name")})
    # links inside lists of items would make every list length a new page: only landmarks' links count
    links = sorted({_norm(a.get("name")) for a in survey.get("links") or ()
                    if a.get("name") and str(a.get("landmark") or "").startswith(("navigation", "banner", "contentinfo"))})
    return {"landmarks": landmarks, "headings": headings, "fields": fields, "buttons": buttons, "links": links}


def dom_signature(survey: Mapping[str, Any]) -> str:
    """12 hex digits of the outline's SHA-256."""
    data = json.dumps(outline(survey), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:12]


def url_template(url: str) -> str:
    """`/items/42/edit` -> `/items/{id}/edit` (numbers, hex and UUID segments become `{id}`)."""
    parts = urlsplit(url)
    segments = ["{id}" if _ID_SEGMENT.match(s) else s for s in parts.path.split("/")]
    return "/".join(segments) + (("#" + parts.fragment) if parts.fragment.startswith(("/", "!")) else "")


def template_key(url: str, survey: Mapping[str, Any]) -> str:
    """Pages with the same URL template and the same outline apart from heading texts are one
    template (`/products/7` "Red shirt" and `/products/9` "Blue hat")."""
    shape = outline(survey)
    shape["headings"] = [h.split(":", 1)[0] for h in shape["headings"]]
    data = json.dumps({"url": url_template(url), "shape": shape}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:12]
