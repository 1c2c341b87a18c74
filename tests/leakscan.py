"""Looking for secrets in bytes: every spelling of a value, in every file of a folder and every member
of every archive in it (inflated, archives inside archives too).

The spellings are written here apart from flowwalk's own (flowwalk/scrub.py), so a spelling the
scrubber forgets is still looked for.
"""

from __future__ import annotations

import base64
import gzip
import html
import io
import json
import re
import zipfile
from pathlib import Path
from typing import Iterable, Iterator
from urllib.parse import quote, quote_plus

__all__ = ["blobs", "leak_spellings", "leaks"]


def _lower_hex(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), text)


def _b64_at_offsets(data: bytes) -> dict[str, str]:
    """The base64 characters only `data` decides, at the three alignments inside a longer text."""
    out = {"base64": base64.b64encode(data).decode()}
    for shift in range(3):
        text = base64.b64encode(b"\x00" * shift + data).decode()
        core = text[-(-8 * shift // 6):(8 * (shift + len(data))) // 6]
        out[f"base64@{shift}"] = core
        out[f"base64url@{shift}"] = core.replace("+", "-").replace("/", "_")
    return out


def leak_spellings(value: str) -> dict[str, str]:
    """How `value` may be spelled in an artifact, by name: each way of writing it in a URL (or
    not), then each of those as HTML or JSON text, and its base64."""
    written = {
        "raw": value, "plus-for-space": value.replace(" ", "+"), "percent": quote(value, safe=""),
        "percent-path": quote(value), "form": quote_plus(value), "uri-component": quote(value, safe="-_.!~*'()"),
        "percent-lower": _lower_hex(quote(value, safe="")), "form-lower": _lower_hex(quote_plus(value)),
    }
    forms = dict(written)
    for how, text in written.items():
        forms |= {f"{how}+html": html.escape(text), f"{how}+html-text": html.escape(text, quote=False),
                  f"{how}+json": json.dumps(text, ensure_ascii=False)[1:-1],
                  f"{how}+json-ascii": json.dumps(text)[1:-1],
                  f"{how}+json-in-json": json.dumps(json.dumps(text)[1:-1])[1:-1]}
    forms |= _b64_at_offsets(value.encode())
    return {how: form for how, form in forms.items() if len(form) >= 6}


def blobs(folder: Path) -> Iterator[tuple[str, bytes]]:
    """(where, bytes) for every file under `folder` and its name, and every member of every zip
    or gzip file in it, inflated."""
    for path in sorted(folder.rglob("*")):
        where = str(path.relative_to(folder))
        yield f"name of {where}", where.encode()
        if path.is_file() and not path.is_symlink():
            try:
                data = path.read_bytes()
            except OSError:
                continue
            yield from _inflated(where, data)


def _inflated(where: str, data: bytes) -> Iterator[tuple[str, bytes]]:
    yield where, data
    if data[:2] == b"PK":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                for info in archive.infolist():
                    yield f"name of {where}!{info.filename}", info.filename.encode()
                    yield from _inflated(f"{where}!{info.filename}", archive.read(info))
        except zipfile.BadZipFile:
            pass
    elif data[:2] == b"\x1f\x8b":
        try:
            yield from _inflated(f"{where}!gunzip", gzip.decompress(data))
        except (OSError, EOFError):
            pass


def leaks(found: Iterable[tuple[str, bytes]], secrets: dict[str, str]) -> list[str]:
    """`where: SECRET/spelling` for every spelling of every secret in the blobs."""
    needles = [(f"{name}/{how}", form.encode()) for name, value in secrets.items()
               for how, form in leak_spellings(value).items()]
    return [f"{where}: {label}" for where, data in found for label, needle in needles if needle in data]
