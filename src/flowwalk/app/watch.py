"""`flowwalk run PATH --watch`: one Playwright and one Chromium for the whole watch, and on each save
a walk of what the save touched.

What is watched: every input file under the paths (flow specs, rule files, steps files, `.robot`
suites), every file a loaded scenario's steps come from (a steps file it calls, a folder hook, even
outside the paths), the hook files each spec's folders could hold (so a new `before_each.steps.yaml`
counts), and flowwalk.yaml. Each poll (`POLL_S`) compares their modification times and sizes; a
change is taken once nothing changed for `SETTLE_S` (an editor's save is often two writes: a
truncate and a write, or a temporary file and a rename). Polling, not file-system events: a spec
tree is small, a stat per file per poll costs little, and it sees saves on bind mounts and network
folders where inotify stays silent, with no compiled dependency.

What is walked again: the scenarios of a changed file, those whose steps come from a changed file,
new ones, and the setups whose sessions those start from; every scenario when flowwalk.yaml changed.
A walk prints what a one-shot run prints (`app.run.walk_suites`), and the report folder then holds
the latest walk of every scenario (app/latest.py). A file that does not load is shown at
`path:line:col` with its hint and held back; the others are walked, and the watch goes on.

SIGINT or SIGTERM ends the watch (a walk in flight is cancelled; the report covers what ran), exit
`CANCELLED` (5), as any run ended by a signal.
"""

from __future__ import annotations

import os
import sys
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, TextIO

from flowwalk.app.run import RunRequest, cancelled_by_signals, check_preview_settings, gate_of, plan_of, walk_suites
from flowwalk.cooperative import CancelToken
from flowwalk.errors import Problem, SpecError, UsageError
from flowwalk.exitcodes import ExitCode
from flowwalk.model import Scenario, Suite
from flowwalk.settings import CONFIG_FILE, Settings
from flowwalk.spec.config import settings_for

__all__ = ["POLL_S", "SETTLE_S", "changed_between", "depends_on", "execute_watch", "stamps", "to_walk"]

#: seconds between two looks at the watched files
POLL_S = 0.1
#: a change is taken once the files stood still this long (the debounce)
SETTLE_S = 0.2

#: a file's modification time (ns) and size; absent files have none
Stamp = tuple[int, int]


def stamps(paths: Iterable[str]) -> dict[str, Stamp]:
    """The stamp of each of `paths` that exists."""
    found: dict[str, Stamp] = {}
    for path in paths:
        try:
            stat = os.stat(path)
        except OSError:
            continue
        found[path] = (stat.st_mtime_ns, stat.st_size)
    return found


def changed_between(before: dict[str, Stamp], after: dict[str, Stamp]) -> set[str]:
    """The paths created, deleted or changed from `before` to `after`."""
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


def depends_on(scenario: Scenario, root: str | Path) -> set[str]:
    """The absolute paths a scenario is read from: its file, and each file its steps come from
    (steps files it calls, folder hooks, and the calls' own files)."""
    names = {scenario.loc.path}
    for rule in scenario.rules:
        for step in rule.steps:
            names.add(step.loc.path)
            names.update(n for frame in step.frames for n in (frame.path, frame.file))
    return {os.path.abspath(os.path.join(root, n)) for n in names if n}


def to_walk(suites: list[Suite], changed: set[str], known: set[str], root: str | Path, *,
            everything: bool = False) -> list[Suite]:
    """The suites, each cut to the scenarios a change touched (see the module doc): those that
    depend on a changed path, those not `known` (not in the last report), and the setups saving a
    session one of them starts from. `everything`: all of them (flowwalk.yaml changed)."""
    scenarios = [sc for suite in suites for sc in suite.scenarios]
    chosen = {sc.id for sc in scenarios
              if everything or sc.id not in known or depends_on(sc, root) & changed}
    sessions = {sc.session for sc in scenarios if sc.id in chosen and sc.session}
    chosen |= {sc.id for sc in scenarios if any(name in sessions for name, _rule in sc.saves)}
    cut = [replace(suite, scenarios=tuple(sc for sc in suite.scenarios if sc.id in chosen)) for suite in suites]
    return [suite for suite in cut if suite.scenarios]


@dataclass
class _Loaded:
    """What the last look at the files gave: the settings, the suites that loaded, the problems."""

    settings: Settings
    suites: list[Suite]
    problems: list[Problem]


class _Watch:
    """The loop's state: the request, the files watched and their stamps, the last load."""

    def __init__(self, request: RunRequest, settings: Settings, stderr: TextIO):
        self.request = request
        self.stderr = stderr
        self.loaded = _Loaded(settings, [], [])
        self.seen: dict[str, Stamp] = {}

    @property
    def settings(self) -> Settings:
        return self.loaded.settings

    def config_file(self) -> str:
        return os.path.abspath(self.request.config_path or Path(self.settings.root, CONFIG_FILE))

    def load(self, config_changed: bool) -> None:
        """Read flowwalk.yaml again when it changed (a bad one keeps the last good settings), then
        every input file; problems are printed."""
        from flowwalk.spec.loader import load_apart

        settings = self.settings
        problems: list[Problem] = []
        if config_changed:
            try:
                settings = settings_for(self.request.overrides, os.environ, self.request.config_path)
            except SpecError as error:
                problems += error.problems
            except UsageError as error:
                print(f"flowwalk: error: {error}", file=self.stderr)
        try:
            suites, found = load_apart(list(settings.paths), settings)
        except SpecError as error:
            suites, found = [], error.problems
        except UsageError as error:
            print(f"flowwalk: error: {error}", file=self.stderr)
            suites, found = [], []
        self.loaded = _Loaded(settings, suites, problems + found)
        for problem in self.loaded.problems:
            print(problem.render(), file=self.stderr)
        if self.loaded.problems:
            files = len({p.loc.path for p in self.loaded.problems})
            print(f"\n{len(self.loaded.problems)} error{'s' * (len(self.loaded.problems) != 1)} in {files} "
                  f"file{'s' * (files != 1)}; the files that load are walked, and the watch goes on.",
                  file=self.stderr, flush=True)

    def watched(self) -> set[str]:
        """Every path whose change matters (see the module doc)."""
        from flowwalk.spec.calls import HOOK_NAMES
        from flowwalk.spec.loader import discover

        settings = self.settings
        paths = {self.config_file()}
        for given in settings.paths:
            try:
                paths.update(os.path.abspath(p) for p in discover([given], exclude=[settings.out_dir],
                                                                  root=settings.root))
            except SpecError:
                paths.add(os.path.abspath(given))   # missing for now: its creation is a change
        root = os.path.abspath(settings.root)
        folders = {root}
        for suite in self.loaded.suites:
            for scenario in suite.scenarios:
                paths |= depends_on(scenario, root)
                folder = os.path.dirname(os.path.abspath(os.path.join(root, scenario.loc.path)))
                while folder.startswith(root) and folder not in folders:
                    folders.add(folder)
                    folder = os.path.dirname(folder)
        paths.update(os.path.join(f, name) for f in folders for names in HOOK_NAMES.values() for name in names)
        return paths

    def look(self) -> dict[str, Stamp]:
        return stamps(self.watched())

    def settle(self, before: dict[str, Stamp]) -> None:
        """After a load: the stamps the next change is measured from. A path watched before keeps its
        stamp from before the load (a save during the load or the walk is still a change); a path
        watched only now starts from what it is now."""
        now = stamps(self.watched())
        self.seen = {p: before.get(p, stamp) for p, stamp in now.items()}
        self.seen.update({p: stamp for p, stamp in before.items() if p not in now and p in self.watched()})

    def wait_for_change(self, cancel: CancelToken) -> set[str]:
        """Block until a watched file changed and the files stood still for SETTLE_S; the changed
        paths (empty: cancelled)."""
        while not cancel.wait(POLL_S):
            now = self.look()
            changed = changed_between(self.seen, now)
            if not changed:
                continue
            while not cancel.wait(SETTLE_S):   # the debounce: until a look finds nothing new
                later = self.look()
                if later == now:
                    break
                changed |= changed_between(now, later)
                now = later
            return changed if not cancel.is_set() else set()
        return set()


def execute_watch(request: RunRequest, *, console: TextIO, color: bool | str = "auto") -> int:
    """Walk everything once, then again what each save touched, until SIGINT or SIGTERM (see the
    module doc); returns the exit code. Bad options and a bad flowwalk.yaml at the start are refused
    as a run refuses them (UsageError, SpecError); later, they are shown and the watch goes on."""
    from flowwalk.app.latest import Latest
    from flowwalk.reportfolder import ReportFolder
    from flowwalk.walk.resident import Resident

    with ExitStack() as stack:
        if request.serve_dir:
            from flowwalk.serve import StaticServer

            server = stack.enter_context(StaticServer(request.serve_dir))
            if not request.overrides.base_url:
                request = replace(request, overrides=replace(request.overrides, base_url=server.url))
        settings = settings_for(request.overrides, os.environ, request.config_path)
        if check_preview_settings(settings):
            raise UsageError("--wait-for and --watch go separately\n  hint: wait for the site once (flowwalk run "
                             "--wait-for URL), then watch it")
        if request.serve_dir:
            print(f"serving {request.serve_dir} at {server.url}", file=sys.stderr)
        resident = Resident()
        stack.callback(resident.stop)
        resident.start(settings)
        cancel = stack.enter_context(cancelled_by_signals(CancelToken()))
        watch = _Watch(request, settings, sys.stderr)
        out = ReportFolder(Path(settings.out_dir))
        out.clear()
        latest = Latest(out.path)
        changed: set[str] = set()
        first = True
        while first or changed:
            before = watch.look()
            config_changed = watch.config_file() in changed
            watch.load(first or config_changed)
            watch.settle(before)
            loaded, suites = watch.settings, watch.loaded.suites
            whole = plan_of(loaded, suites)
            chosen = to_walk(suites, changed, set(latest.kept), loaded.root, everything=first or config_changed)
            if chosen:
                walk_suites(loaded, plan_of(loaded, chosen), host=resident, sink=latest,
                            report=lambda: latest.write(whole.record()), console=console, cancel=cancel,
                            gate=gate_of(loaded, suites, whole), color=color)
            elif latest.kept:
                latest.write(whole.record())   # a scenario may have left the plan
            if cancel.is_set():
                break
            print(f"flowwalk: watching {len(watch.seen)} files for changes; Ctrl-C ends", file=sys.stderr, flush=True)
            first = False
            changed = watch.wait_for_change(cancel)
        return int(ExitCode.CANCELLED)
    raise AssertionError("unreachable: ExitStack does not swallow")  # pragma: no cover
