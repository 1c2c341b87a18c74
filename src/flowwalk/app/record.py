"""`flowwalk record URL --out FILE`: a person records a flow in a headed browser; the command
prints what to do, asks how each dialog is answered, and says what it wrote.

Where no display exists the command says so and how to get one, and writes nothing (exit 3).
"""

from __future__ import annotations

from typing import Callable, TextIO

from flowwalk.errors import UsageError
from flowwalk.exitcodes import ExitCode
from flowwalk.record import RecordRequest, RecordResult, display_problem, finish, start

__all__ = ["RecordRequest", "record", "say_result"]


def _asker(ask: Callable[[str], str], console: TextIO) -> Callable[[str, str, str], tuple[bool, str | None]]:
    def answer(kind: str, message: str, default: str) -> tuple[bool, str | None]:
        if kind == "beforeunload":
            return True, None
        print(f"record: the page opened a {kind}: {message!r}", file=console, flush=True)
        if kind == "alert":
            ask("  press Enter to close it ")
            return True, None
        accepted = ask("  accept it? [Y/n] ").strip().lower() not in ("n", "no")
        if kind == "prompt" and accepted:
            typed = ask(f"  the answer [{default}]: ")
            return True, typed or default
        return accepted, None

    return answer


def say_result(result: RecordResult, console: TextIO) -> None:
    """What was written, the secrets a run needs and the notes, as the console shows them."""
    print(f"record: wrote {result.out} ({result.steps} steps)", file=console)
    if result.fingerprints is not None:
        print(f"record: kept the elements' fingerprints in {result.fingerprints}: the first run after a refactor "
              f"heals from them with --fingerprints {result.fingerprints}", file=console)
    for note in result.notes:
        print(f"record: note: {note}", file=console)
    setup = f"{result.setup} " if result.setup is not None else ""
    if result.secrets:
        flags = " ".join(f"--secret {name}" for name in result.secrets)
        print(f"record: the spec reads secrets from the environment: flowwalk run {setup}{result.out} {flags}",
              file=console)
    elif setup:
        print(f"record: the spec starts from its setup's session: flowwalk run {setup}{result.out}", file=console)


def record(request: RecordRequest, *, console: TextIO, ask: Callable[[str], str] = input) -> int:
    """Record in a headed browser until the person presses Stop or closes it; the exit code."""
    problem = None if request.headless else display_problem()
    if problem is not None:
        raise UsageError(problem)
    recording = start(request, answer_dialog=_asker(ask, console))
    print(f"record: recording {request.url or 'where the spec leaves the page'} into {request.out}\n"
          "record: use the page; pick checks from the toolbar at its bottom right; press Stop there (or close "
          "the browser, or Ctrl+C here) to write the file", file=console, flush=True)
    try:
        recording.wait_until_done()
    except KeyboardInterrupt:
        print("record: stopped from the console", file=console)
    say_result(finish(recording, request), console)
    return ExitCode.OK
