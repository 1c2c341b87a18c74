"""The recorder: a person's actions in a browser written as a flow spec (or a steps file).

`start` opens the recording (browser/recorder.py) at the request's URL; a person, or a test with
Playwright's mouse and keyboard, uses the page; `finish` turns what was reported into steps
(record/transcript.py), builds the authoring tree, writes it through the one writer and keeps the
fingerprints beside it (record/written.py). docs/record.md says what is recorded and how.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from flowwalk.browser.recorder import DialogAnswer, Recording
from flowwalk.environment import context_options, device_names
from flowwalk.errors import UsageError
from flowwalk.model import Environment
from flowwalk.record.transcript import Transcript, transcribe
from flowwalk.record.written import FINGERPRINTS_FILE, build_tree, fingerprint_records, merge_fingerprints
from flowwalk.settings import FULL_CHROMIUM, find_root
from flowwalk.spec.formats import format_of
from flowwalk.spec.loader import display_path
from flowwalk.spec.writer import render_as

__all__ = ["RecordRequest", "RecordResult", "display_problem", "finish", "start"]


@dataclass(frozen=True)
class RecordRequest:
    """What `flowwalk record` was asked: where to start, where to write, and the browser."""

    url: str
    out: Path
    device: str | None = None
    steps_file: bool = False
    headless: bool = False
    executable: str | None = None
    browser_args: tuple[str, ...] = ()
    test_ids: tuple[str, ...] = ()
    name: str | None = None


@dataclass
class RecordResult:
    """What was written: the file, its fingerprints' file, the secrets to pass and the notes."""

    out: Path
    steps: int
    fingerprints: Path | None
    secrets: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def display_problem(env: dict[str, str] | None = None) -> str | None:
    """Why a headed browser cannot open here (no X or Wayland display), or None."""
    env = dict(os.environ) if env is None else env
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return ("no display to open the recording's browser in (neither DISPLAY nor WAYLAND_DISPLAY is set)\n"
            "  hint: run it under a virtual display: xvfb-run flowwalk record ... (Debian's package xvfb), "
            "or from a desktop session")


def check(request: RecordRequest) -> None:
    """Refuse a request before a browser starts (nothing is written)."""
    form = format_of(request.out.name)
    wanted = "steps" if request.steps_file else "flow"
    if form is None or form.kind != wanted:
        example = "checks/login.steps.yaml" if request.steps_file else "checks/new.flow.yaml"
        raise UsageError(f"--out '{request.out}' is not a {wanted} file's name\n  hint: name it like {example}")
    if request.out.exists():
        raise UsageError(f"--out '{request.out}' exists\n  hint: record into a new file, or remove this one first")
    if request.device is not None and request.device not in device_names():
        raise UsageError(f"--device '{request.device}' is not one of Playwright's devices\n  hint: e.g. "
                         f"{', '.join(repr(n) for n in device_names()[:3])} (docs/environment.md lists them)")
    if not request.url.startswith(("http://", "https://", "file://")):
        raise UsageError(f"'{request.url}' is not an http(s) URL\n  hint: give the page to start at, "
                         "e.g. http://127.0.0.1:8000/login")


def start(request: RecordRequest, *, playwright: Any = None,
          answer_dialog: Callable[[str, str, str], DialogAnswer] | None = None) -> Recording:
    """The recording, its first page at the request's URL."""
    check(request)
    options = context_options([Environment(device=request.device)]) if request.device else {}
    extra: dict[str, Any] = {"answer_dialog": answer_dialog} if answer_dialog is not None else {}
    recording = Recording(executable=request.executable or FULL_CHROMIUM, headless=request.headless,
                          args=request.browser_args, context_options=options, test_ids=request.test_ids,
                          playwright=playwright, **extra)
    try:
        recording.open(request.url)
    except Exception:
        recording.close()
        raise
    return recording


def _name(request: RecordRequest) -> str:
    if request.name:
        return request.name
    stem = request.out.name.split(".")[0]
    return stem.replace("-", " ").replace("_", " ").strip() or "recorded flow"


def finish(recording: Recording, request: RecordRequest) -> RecordResult:
    """Close the recording and write what it holds; nothing is written when it holds no step."""
    recording.settle()
    records = list(recording.records)
    recording.close()
    transcript: Transcript = transcribe(records, request.url)
    if not transcript.steps:
        raise UsageError("nothing was recorded, so nothing was written\n  hint: act on the page (click, type, "
                         "pick a check in the toolbar) before pressing Stop")
    top = {"device": request.device} if request.device else {}
    tree = build_tree(transcript.steps, name=_name(request), url=request.url, steps_file=request.steps_file, top=top)
    text = render_as(tree, request.out.name)
    request.out.parent.mkdir(parents=True, exist_ok=True)
    request.out.write_text(text, encoding="utf-8")
    root = find_root([str(request.out)])
    shown = display_path(request.out, root)
    records_kept = fingerprint_records(transcript.steps, text, shown)
    kept: Path | None = None
    if records_kept:
        kept = root / FINGERPRINTS_FILE
        merge_fingerprints(kept, shown, records_kept)
    return RecordResult(request.out, len(transcript.steps), kept, transcript.secrets, transcript.notes)
