"""The trace scrubber: a Playwright trace archive rewritten so that no secret is in it, in any spelling.

`scrub_trace(source, target, values)` reads the zip Playwright wrote (`tracing.stop(path=...)`)
and writes a new one:

- the event logs (`*.trace`, `*.network`: one JSON object a line; `*.stacks`: one JSON document)
  are parsed, and every string in them, keys included, has every spelling of every value replaced
  with `***` (`spellings`): the action log (a fill's value, a route's headers, an evaluate's
  arguments, call logs), the network entries (URLs, headers, cookies, post data), the DOM snapshots
  (an input's value, echoed text, attributes, the frame's URL), console messages and page errors;
- a resource (`resources/<sha1>[.ext]`: response bodies, post bodies, stylesheets) that decodes as
  UTF-8 has the same replacement over its text; one that changed gets the name of its new content's
  sha1, and every reference to the old name (`_file`, `file`, `sha1`, `_sha1` in the logs) follows;
- what cannot be scrubbed as text is dropped: a binary resource holding the bytes of a spelling (its
  references go too, so the viewer shows it empty), and every screencast frame (`screencast/*` and its
  `screencast-frame` events): pixels cannot be proved clean. flowwalk starts tracing without the
  screencast where a secret can reach the page (walk/scenario.py), so this only drops what a
  context recorded regardless;
- any other entry is kept when its bytes hold no spelling, else dropped.

The logs are rewritten as JSON, never patched as text, so a spelling that contains a quote or a
backslash cannot break the structure the viewer parses. `ScrubReport` counts what was replaced,
renamed and dropped. With no values the archive is copied as it is.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import quote, quote_plus

__all__ = ["MASK", "MIN_LENGTH", "ScrubReport", "Scrubber", "scrub_trace", "spellings"]

MASK = "***"
#: values shorter than this are not scrubbed (a one-letter cookie would turn the trace to stars)
MIN_LENGTH = 4
#: the least characters a base64 spelling must have to be replaced (shorter ones match by chance)
_MIN_BASE64 = 8
_JSONL = (".trace", ".network")
_REFERENCE_KEYS = ("_file", "file", "sha1", "_sha1")


def _percent(value: str) -> set[str]:
    forms = {quote(value, safe=""), quote_plus(value, safe=""), quote(value, safe="/:"),
             quote(value, safe="-_.!~*'()"), quote_plus(value, safe="-_.!~*'()")}
    # the same bytes with lower-case hex digits (some encoders write %c3%a9)
    return forms | {re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), f) for f in forms}


def _base64(data: bytes) -> set[str]:
    """The base64 characters `data` fixes at each of the three alignments it can have inside a
    longer base64 text, in both alphabets, and the whole padded encoding."""
    forms = {base64.b64encode(data).decode("ascii")}
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + data).decode("ascii")
        start = -(-8 * shift // 6)
        end = (8 * (shift + len(data))) // 6
        forms.add(encoded[start:end])
    forms |= {f.replace("+", "-").replace("/", "_") for f in forms}
    return {f for f in forms if len(f) >= _MIN_BASE64}


def spellings(value: str) -> set[str]:
    """Every spelling of `value` an artifact can carry: raw, spaces as `+` alone, percent-encoded
    (path, query and form styles, `+` for spaces, either hex case), HTML-escaped, JSON-escaped (ASCII or not, and a JSON
    string inside a JSON string), and base64 at every alignment."""
    # `+` for each space alone: a query decoded with decodeURIComponent, which leaves `+` as it is
    forms = {value, value.replace(" ", "+")}
    forms |= {f for text in list(forms) for f in (html.escape(text), html.escape(text, quote=False),
                                                  html.escape(text).replace("&#x27;", "&#39;"))}
    forms |= _percent(value)
    for text in list(forms):
        for ascii_only in (True, False):
            escaped = json.dumps(text, ensure_ascii=ascii_only)[1:-1]
            forms.add(escaped)
            forms.add(json.dumps(escaped)[1:-1])
    forms |= _base64(value.encode("utf-8"))
    return {f for f in forms if f}


@dataclass
class ScrubReport:
    """What one scrub did."""

    replaced: int = 0
    renamed: int = 0
    dropped: list[str] = field(default_factory=list)


class Scrubber:
    """Every spelling of `values` (each at least MIN_LENGTH long) replaced with `***`."""

    def __init__(self, values: Iterable[str]):
        forms: set[str] = set()
        for value in values:
            if value and len(value) >= MIN_LENGTH:
                forms |= spellings(value)
        ordered = sorted(forms, key=lambda f: (-len(f), f))
        self.forms = tuple(ordered)
        self._text = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        self._bytes = re.compile(b"|".join(re.escape(f.encode("utf-8")) for f in ordered)) if ordered else None
        self.replaced = 0

    def __bool__(self) -> bool:
        return self._text is not None

    def text(self, value: str) -> str:
        if self._text is None:
            return value
        out, count = self._text.subn(MASK, value)
        self.replaced += count
        return out

    def holds(self, data: bytes) -> bool:
        """Do the bytes hold a spelling (as UTF-8)?"""
        return self._bytes is not None and self._bytes.search(data) is not None

    def deep(self, obj: Any) -> Any:
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, list):
            return [self.deep(v) for v in obj]
        if isinstance(obj, dict):
            return {self.text(k): self.deep(v) for k, v in obj.items()}
        return obj


def _renamed(obj: Any, names: dict[str, str | None]) -> Any:
    """`obj` with each reference to a renamed resource renamed (None: dropped, the key removed)."""
    if isinstance(obj, list):
        return [_renamed(v, names) for v in obj]
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        for key, value in obj.items():
            if key in _REFERENCE_KEYS and isinstance(value, str) and value in names:
                if names[value] is not None:
                    out[key] = names[value]
                continue
            out[key] = _renamed(value, names)
        return out
    return obj


def _resource(name: str, data: bytes, scrubber: Scrubber) -> bytes | None:
    """A resource's scrubbed bytes; None when it holds a spelling and is not text."""
    if not scrubber.holds(data):
        return data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return scrubber.text(text).encode("utf-8")


def _log(name: str, data: bytes, scrubber: Scrubber, names: dict[str, str | None]) -> bytes:
    """A JSON log (JSON lines for `*.trace` / `*.network`) scrubbed and its references renamed;
    screencast frames left out. A line that is not JSON is dropped (it cannot be rewritten safely)."""
    text = data.decode("utf-8", errors="replace")
    if not name.endswith(_JSONL):
        try:
            return json.dumps(_renamed(scrubber.deep(json.loads(text)), names), ensure_ascii=False).encode("utf-8")
        except ValueError:
            return b""
    lines = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "screencast-frame":
            continue
        lines.append(json.dumps(_renamed(scrubber.deep(event), names), ensure_ascii=False, separators=(",", ":")))
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""


def scrub_trace(source: Path, target: Path, values: Iterable[str]) -> ScrubReport:
    """Write `source` (a Playwright trace zip) to `target` scrubbed of every spelling of `values`
    (see the module docstring). `target` is written whole or not at all."""
    scrubber = Scrubber(values)
    report = ScrubReport()
    target = Path(target)
    partial = target.with_name(target.name + ".part")
    with zipfile.ZipFile(source) as zin:
        entries = [(info.filename, zin.read(info)) for info in zin.infolist() if not info.is_dir()]
    if not scrubber:
        out_entries = entries
    else:
        names: dict[str, str | None] = {}
        kept: list[tuple[str, bytes]] = []
        logs: list[tuple[str, bytes]] = []
        for name, data in entries:
            if name.endswith((*_JSONL, ".stacks")) and "/" not in name:
                logs.append((name, data))
            elif name.startswith("screencast/"):
                report.dropped.append(name)
            elif name.startswith("resources/"):
                new = _resource(name, data, scrubber)
                if new is None:
                    report.dropped.append(name)
                    _point(names, name, None)
                elif new != data:
                    renamed = _sha1_name(name, new)
                    _point(names, name, renamed)
                    report.renamed += 1
                    kept.append((renamed, new))
                else:
                    kept.append((name, data))
            elif scrubber.holds(data):
                report.dropped.append(name)
            else:
                kept.append((name, data))
        out_entries = [(name, _log(name, data, scrubber, names)) for name, data in logs] + kept
    report.replaced = scrubber.replaced
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as zout:
        seen: set[str] = set()
        for name, data in out_entries:
            if name not in seen:   # two resources scrubbed to the same content share a name
                seen.add(name)
                zout.writestr(name, data)
    partial.replace(target)
    return report


def _sha1_name(name: str, data: bytes) -> str:
    """`resources/<sha1 of data><the old extension>`."""
    base = name.rsplit("/", 1)[1]
    ext = base[base.index("."):] if "." in base else ""
    return f"resources/{hashlib.sha1(data).hexdigest()}{ext}"


def _point(names: dict[str, str | None], old: str, new: str | None) -> None:
    """Map every way the logs name resource `old` (with and without `resources/`, with and without
    its extension: the older `sha1` keys name the bare hash) to `new`."""
    base = old.split("/", 1)[1]
    names[old] = new
    names[base] = None if new is None else new.split("/", 1)[1]
    stem = base.split(".", 1)[0]
    if stem != base:
        names[stem] = None if new is None else new.split("/", 1)[1].split(".", 1)[0]
