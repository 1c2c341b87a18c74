"""The trace scrubber over hand-made archives shaped like Playwright's (flowwalk/scrub.py)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import zipfile
from pathlib import Path
from urllib.parse import quote, quote_plus

from flowwalk.scrub import MASK, scrub_trace, spellings

SECRET = 'pw "q\\uote" é&<x> 9/9'
TOKEN = "tok-Z81Q"


def _zip(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return path


def _lines(*events: dict) -> bytes:
    return ("\n".join(json.dumps(e) for e in events) + "\n").encode()


def _entries(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist()}


def test_spellings_cover_each_encoding() -> None:
    forms = spellings(SECRET)
    for form in (SECRET, quote(SECRET, safe=""), quote_plus(SECRET), json.dumps(SECRET)[1:-1],
                 json.dumps(SECRET, ensure_ascii=False)[1:-1], "pw &quot;q\\uote&quot; é&amp;&lt;x&gt; 9/9",
                 base64.b64encode(SECRET.encode()).decode(), re.sub("%[0-9A-F]{2}", lambda m: m.group(0).lower(), quote(SECRET, safe=""))):
        assert form in forms, form
    assert SECRET.replace(" ", "+") in forms   # a query decoded with decodeURIComponent
    joined = base64.b64encode(b"user:" + TOKEN.encode()).decode()
    # a value inside a longer base64 text (an Authorization header's user:pass) is found at any alignment
    assert any(f in joined for f in spellings(TOKEN) if f != TOKEN)


def test_logs_resources_and_frames_are_scrubbed_renamed_and_dropped(tmp_path: Path) -> None:
    body = f'<input value="{SECRET}"> {quote_plus(SECRET)}'.encode()
    old = hashlib.sha1(body).hexdigest()
    png = b"\x89PNG\r\n\x1a\n" + TOKEN.encode() + b"\xff\x00"
    png_sha = hashlib.sha1(png).hexdigest()
    clean = b"body { color: red }"
    clean_sha = hashlib.sha1(clean).hexdigest()
    raw = _zip(tmp_path / "raw.zip", {
        "trace.trace": _lines(
            {"type": "before", "callId": "c1", "method": "fill", "params": {"selector": "#pw", "value": SECRET}},
            {"type": "console", "text": f"typed {SECRET}"},
            {"type": "screencast-frame", "pageId": "p", "file": "screencast/p-1.jpeg"},
            {"type": "frame-snapshot", "snapshot": {"html": ["INPUT", {"__playwright_value_": SECRET}],
                                                    "resourceOverrides": [{"url": "a.css", "sha1": f"{clean_sha}.css"}]}},
        ),
        "trace.network": _lines(
            {"type": "resource-snapshot", "snapshot": {
                "request": {"url": f"http://h/?t={quote(TOKEN)}", "headers": [
                    {"name": "Authorization", "value": "Basic " + base64.b64encode(f"u:{TOKEN}".encode()).decode()}]},
                "response": {"content": {"_file": f"resources/{old}.html"}}}},
            {"type": "resource-snapshot", "snapshot": {"request": {"url": "http://h/logo.png", "headers": []},
                                                       "response": {"content": {"_file": f"resources/{png_sha}.png"}}}},
        ),
        "trace.stacks": json.dumps({"files": [], "stacks": []}).encode(),
        f"resources/{old}.html": body,
        f"resources/{png_sha}.png": png,
        f"resources/{clean_sha}.css": clean,
        "screencast/p-1.jpeg": b"\xff\xd8 pixels",
    })
    report = scrub_trace(raw, tmp_path / "out.zip", [SECRET, TOKEN])
    out = _entries(tmp_path / "out.zip")
    everything = b"".join(out.values())
    assert [f for f in spellings(SECRET) | spellings(TOKEN) if f.encode() in everything] == []
    new_body = out[next(n for n in out if n.endswith(".html"))]
    new_name = f"resources/{hashlib.sha1(new_body).hexdigest()}.html"
    assert new_name in out and f"resources/{old}.html" not in out
    assert new_body == f'<input value="{MASK}"> {MASK}'.encode()
    events = [json.loads(line) for line in out["trace.trace"].decode().splitlines()]
    assert [e["type"] for e in events] == ["before", "console", "frame-snapshot"]   # the frame is gone
    assert events[0]["params"]["value"] == MASK and events[2]["snapshot"]["html"][1]["__playwright_value_"] == MASK
    assert events[2]["snapshot"]["resourceOverrides"][0]["sha1"] == f"{clean_sha}.css"   # untouched stays
    network = [json.loads(line) for line in out["trace.network"].decode().splitlines()]
    assert network[0]["snapshot"]["response"]["content"]["_file"] == new_name
    assert "_file" not in network[1]["snapshot"]["response"]["content"]   # the binary resource was dropped
    assert set(report.dropped) == {"screencast/p-1.jpeg", f"resources/{png_sha}.png"}
    assert report.renamed == 1 and report.replaced >= 5
    assert f"resources/{clean_sha}.css" in out


def test_no_values_copies_the_archive(tmp_path: Path) -> None:
    raw = _zip(tmp_path / "raw.zip", {"trace.trace": _lines({"type": "before", "params": {"value": SECRET}}),
                                      "screencast/p.jpeg": b"x"})
    scrub_trace(raw, tmp_path / "out.zip", [])
    assert _entries(tmp_path / "out.zip") == _entries(raw)


def test_short_values_are_not_scrubbed(tmp_path: Path) -> None:
    raw = _zip(tmp_path / "raw.zip", {"trace.trace": _lines({"type": "before", "params": {"value": "abc"}})})
    report = scrub_trace(raw, tmp_path / "out.zip", ["abc"])
    assert report.replaced == 0
