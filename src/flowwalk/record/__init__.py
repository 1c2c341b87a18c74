"""The recorder: a person's actions in a browser written as a flow spec (or a steps file).

`start` opens the recording (browser/recorder.py) at the request's URL; with `--session NAME` it
first walks the project's setup that saves NAME, and with `--append` the spec being continued,
in the recording's own browser (record/walked.py), so the person starts signed in, where the
spec leaves the page. A person, or a test with Playwright's mouse and keyboard, uses the page;
`finish` turns what was reported into steps (record/transcript.py), builds the authoring tree,
writes it through the one writer (or adds its steps to the continued spec's text:
record/appended.py) and keeps the fingerprints beside it (record/written.py). docs/record.md
says what is recorded and how.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence
from urllib.parse import urlsplit

from flowwalk.browser.recorder import DialogAnswer, Recording
from flowwalk.environment import context_options, device_names
from flowwalk.errors import UsageError
from flowwalk.model import Environment, Scenario
from flowwalk.record.appended import Continued, continued, with_steps
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

    url: str | None
    out: Path
    device: str | None = None
    steps_file: bool = False
    headless: bool = False
    executable: str | None = None
    browser_args: tuple[str, ...] = ()
    test_ids: tuple[str, ...] = ()
    name: str | None = None
    #: continue the spec at `out` (walked first; the new steps added to its text)
    append: bool = False
    #: start signed in: the project's setup that saves this session is walked first
    session: str | None = None
    #: `--var NAME=VALUE` and `--secret NAME` for the walks first, as a run takes them
    variables: Mapping[str, str] = field(default_factory=dict)
    secret_names: tuple[str, ...] = ()


@dataclass
class RecordResult:
    """What was written: the file, its fingerprints' file, the secrets to pass and the notes."""

    out: Path
    steps: int
    fingerprints: Path | None
    secrets: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: the setup a replay needs among its paths (`--session`, or the continued spec's `session`)
    setup: Path | None = None


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
    if request.append:
        if request.steps_file or request.device or request.name:
            raise UsageError("--append continues the spec as it is: --steps-file, --device and --name are its own\n"
                             "  hint: leave them out; the spec keeps its name, device and URL")
        continued(request.out)
        return
    if not request.url:
        raise UsageError("no URL to record at\n  hint: flowwalk record http://127.0.0.1:8000/ --out checks/new.flow.yaml "
                         "(or --append to continue a spec)")
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
    if not str(request.url).startswith(("http://", "https://", "file://")):
        raise UsageError(f"'{request.url}' is not an http(s) URL\n  hint: give the page to start at, "
                         "e.g. http://127.0.0.1:8000/login")


def _setup_of(name: str, request: RecordRequest) -> Path:
    """The project's flow spec that saves session `name`; a UsageError when none or two do."""
    from flowwalk.spec.loader import discover

    here = request.out.parent if request.out.parent.is_dir() else Path(".")
    root = find_root([str(here)])
    found: list[Path] = []
    for path in discover([root], exclude=[root / "flowwalk-report", root / ".flowwalk"]):
        if format_of(path.name) is None or format_of(path.name).kind != "flow":   # type: ignore[union-attr]
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        # a flow spec's top-level key: at the line's start in YAML, indented in JSON
        if any(line.split(":", 1)[1].strip().strip(",").strip("'\"") == name for line in text.splitlines()
               if line.startswith("saves_session:") or line.lstrip().startswith('"saves_session":')):
            found.append(path)
    if len(found) != 1:
        said = "no flow spec" if not found else f"{len(found)} flow specs ({', '.join(map(str, found))})"
        raise UsageError(f"--session '{name}': {said} under {root} saves that session\n  hint: the setup is a flow "
                         f"spec with `saves_session: {name}` (docs/sessions.md)")
    return found[0]


def walks(request: RecordRequest) -> tuple[list[Path], Path | None]:
    """The specs walked before recording (the setup first) and the setup a replay needs."""
    paths: list[Path] = []
    session = request.session
    if request.append:
        from ruamel.yaml import YAML

        data = YAML(typ="safe").load(request.out.read_text(encoding="utf-8"))
        own = data.get("session") if isinstance(data, dict) else None
        if session is not None and own not in (None, session):
            raise UsageError(f"--session '{session}': the spec starts from session '{own}'\n  hint: leave --session "
                             "out: the spec's own setup is walked first")
        session = own if isinstance(own, str) else session
    setup = _setup_of(session, request) if session else None
    if setup is not None:
        paths.append(setup)
    if request.append:
        paths.append(request.out)
    return paths, setup


def _walk_first(recording: Recording, request: RecordRequest, paths: Sequence[Path]) -> None:
    from flowwalk.record.walked import WalkRequest, walk_first
    from flowwalk.spec.loader import load_suites

    origin = urlsplit(request.url) if request.url else None
    base_url = f"{origin.scheme}://{origin.netloc}" if origin is not None and origin.netloc else None
    settings = WalkRequest(request.variables, request.secret_names, request.test_ids, base_url).settings(paths)
    scenarios: list[Scenario] = [sc for suite in load_suites([str(p) for p in paths], settings)
                                 for sc in suite.scenarios]
    if request.append and sum(1 for sc in scenarios if Path(sc.source).resolve() == request.out.resolve()) > 1:
        raise UsageError(f"--append: '{request.out}' is walked as more than one scenario (its examples)\n"
                         "  hint: continue a spec without `examples`")
    walk_first(recording, scenarios, settings)
    if request.url and not request.append:
        with recording.quiet():
            recording.goto(request.url)


def start(request: RecordRequest, *, playwright: Any = None,
          answer_dialog: Callable[[str, str, str], DialogAnswer] | None = None) -> Recording:
    """The recording, its first page at the request's URL (or where the walks first left it)."""
    check(request)
    paths, _ = walks(request)
    options = context_options([Environment(device=request.device)]) if request.device else {}
    extra: dict[str, Any] = {"answer_dialog": answer_dialog} if answer_dialog is not None else {}
    recording = Recording(executable=request.executable or FULL_CHROMIUM, headless=request.headless,
                          args=request.browser_args, context_options=options, test_ids=request.test_ids,
                          playwright=playwright, **extra)
    try:
        if paths:
            recording.open(None)
            _walk_first(recording, request, paths)
        else:
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
    entry = request.url or next((r.record["url"] for r in records if r.record.get("start")), "")
    recording.close()
    transcript: Transcript = transcribe(records, entry)
    if not transcript.steps:
        raise UsageError("nothing was recorded, so nothing was written\n  hint: act on the page (click, type, "
                         "pick a check in the toolbar) before pressing Stop")
    _, setup = walks(request)
    spec: Continued | None = continued(request.out) if request.append else None
    if spec is not None:
        text = with_steps(spec, transcript.steps)
    else:
        top: dict[str, Any] = {"device": request.device} if request.device else {}
        if request.session:
            top["session"] = request.session
        if transcript.hosts:
            top["allowed_hosts"] = transcript.hosts
        tree = build_tree(transcript.steps, name=_name(request), url=str(request.url),
                          steps_file=request.steps_file, top=top)
        text = render_as(tree, request.out.name)
    request.out.parent.mkdir(parents=True, exist_ok=True)
    request.out.write_text(text, encoding="utf-8")
    root = find_root([str(request.out)])
    shown = display_path(request.out, root)
    records_kept = fingerprint_records(transcript.steps, text, shown, skip=spec.steps if spec else 0)
    kept: Path | None = None
    if records_kept:
        kept = root / FINGERPRINTS_FILE
        merge_fingerprints(kept, shown, records_kept, replace=spec is None)
    return RecordResult(request.out, len(transcript.steps), kept, transcript.secrets, transcript.notes, setup)
