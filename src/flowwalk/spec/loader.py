"""Finding input files and loading them all into `model.Suite`s, refusing with every problem at once.

`discover` walks the given paths for the files spec/formats.py's table names (`*.flow.{yaml,yml,json}`,
`*.rules.{yaml,yml}`, `*.steps.{yaml,yml,json}`, checked on their own as they make no suite, and the
`.robot` files that are aitester-bdd suites); a file named explicitly is loaded whatever its name.
`load_suites` loads each file by its format's loader, checks secret placeholders, and raises one
`SpecError` holding the problems of every file, so a user fixes them all in one round.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Iterable, Sequence

from flowwalk.errors import Location, Problem, SpecError, UsageError
from flowwalk.model import Suite
from flowwalk.settings import Settings
from flowwalk.spec.calls import StepsLibrary
from flowwalk.spec.formats import format_of, load_parsed
from flowwalk.spec.sessions import session_problems
from flowwalk.spec.spelling import choices_hint
from flowwalk.spec.source import Source, SourceError, escape, load_source
from flowwalk.spec.variables import secret_misuse

#: folders never searched: tooling, dependencies and virtual environments
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".nox",
                       ".mypy_cache", ".pytest_cache", ".ruff_cache"})


def display_path(path: str | Path, root: str | Path = ".") -> str:
    """The path as errors and test ids show it: relative to the project root, with '/'."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    return rel.replace(os.sep, "/")


def file_kind(name: str) -> str | None:
    """flow, rules, steps or robot by the file name (spec/formats.py); None when the name says nothing."""
    found = format_of(name)
    return found.kind if found else None


def _find(paths: Sequence[str | Path], exclude: Iterable[str | Path] = (),
          root: str | Path = ".") -> tuple[list[Path], list[Problem]]:
    problems: list[Problem] = []
    excluded = {os.path.abspath(p) for p in exclude if p}
    found: dict[str, Path] = {}
    for given in paths:
        text = str(given)
        if not os.path.exists(text):
            # the path comes from the command line: escaped, so a line break in it cannot split the problem
            problems.append(Problem(Location(escape(display_path(text, root)) if text else "''", 1, 1),
                                    f"path '{escape(text)}' does not exist",
                                    "check the spelling, or run from the repository root"))
            continue
        if os.path.isfile(text):
            found.setdefault(os.path.abspath(text), Path(text))
            continue
        for folder, dirs, files in os.walk(text):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS
                             and os.path.abspath(os.path.join(folder, d)) not in excluded)
            for name in files:
                form = format_of(name)
                full = os.path.join(folder, name)
                if form is None or form.claims is not None and not form.claims(Path(full)):
                    continue
                found.setdefault(os.path.abspath(full), Path(full))
    ordered = sorted(found.values(), key=lambda p: display_path(p, root))
    return ordered, problems


def outside_root(paths: Sequence[str | Path], settings: Settings) -> UsageError | None:
    """The refusal of a path outside the project root (a root that was named, or a path flowwalk.yaml
    names: a found root holds every path of the command line), or None. Settings built without a
    root (`Settings()`) show such a path with its `../`."""
    if "root" not in settings.origins:
        return None
    root = os.path.abspath(settings.root)
    for given in paths:
        full = os.path.abspath(given)
        if os.path.exists(full) and os.path.commonpath([root, full]) != root:
            where = settings.origin("root")
            return UsageError(f"'{escape(str(given))}' is outside the project root {escape(root)} ({where})\n"
                              f"  hint: test ids and folder hooks are relative to the root, so every spec must be "
                              f"inside it: name a --root that holds it, or leave --root out to find one")
    return None


def discover(paths: Sequence[str | Path], exclude: Iterable[str | Path] = (), root: str | Path = ".") -> list[Path]:
    """Every input file under `paths`, sorted and without duplicates. A missing path is refused."""
    files, problems = _find(paths, exclude, root)
    if problems:
        raise SpecError(problems)
    return files


def load_file(path: Path, settings: Settings,
              library: StepsLibrary | None = None) -> tuple[Suite | None, list[Problem]]:
    """One input file, by its kind; problems instead of exceptions. `library`: the steps files read
    so far, shared by the files of one load."""
    suite, problems, _source = _load_file(path, settings, library or StepsLibrary(settings.root))
    return suite, problems


def _load_file(path: Path, settings: Settings,
               library: StepsLibrary) -> tuple[Suite | None, list[Problem], Source | None]:
    """`load_file`, and the parsed source of a flow spec or rule file (None for a suite or a steps file)."""
    # a file name may hold a control character (Linux allows a line break): shown escaped, like a key,
    # in its problems and its scenario ids, so each problem stays on one line
    display = escape(display_path(path, settings.root))
    form = format_of(path.name)
    if form is not None:
        return form.load(path, display, settings, library)
    try:
        source = load_source(path, display)
    except SourceError as exc:
        return None, [exc.problem], None
    # named explicitly with a name that says nothing: the content says which format it is
    return load_parsed(source, "rules" if isinstance(source.data, dict) and "rules_version" in source.data
                       else "flow", settings, library)


def load_suites(paths: Sequence[str | Path], settings: Settings) -> list[Suite]:
    """Every suite under `paths` (default: the settings' paths), or SpecError with every problem."""
    suites, problems, _held = _load_all(paths, settings)
    if problems:
        raise SpecError(problems)
    return with_projects(suites, settings)


def load_apart(paths: Sequence[str | Path], settings: Settings) -> tuple[list[Suite], list[Problem]]:
    """Every suite under `paths` that loads without a problem, and every problem of the others (in
    one pass, each once): what `flowwalk run --watch` walks while a file it watches is broken. A
    file is held back by the problems its own load found (a steps file's, at each file calling it)
    and by a problem at one of its scenarios (a session's); a missing path is a problem too."""
    suites, problems, held = _load_all(paths, settings)
    bad = {p.loc.path for p in problems}
    kept = [s for n, s in enumerate(suites) if n not in held and not any(sc.loc.path in bad for sc in s.scenarios)]
    return with_projects(kept, settings), problems


def _load_all(paths: Sequence[str | Path], settings: Settings) -> tuple[list[Suite], list[Problem], set[int]]:
    """Every suite that loaded, every problem (each once), and the suites whose own load found one."""
    named = list(paths) or list(settings.paths)
    refused = outside_root(named, settings)
    if refused is not None:
        raise refused
    files, problems = _find(named, exclude=[settings.out_dir], root=settings.root)
    suites: list[Suite] = []
    held: set[int] = set()
    unloaded: list[Source] = []
    secret_names = set(settings.secret_names)
    library = StepsLibrary(settings.root)
    for path in files:
        suite, found, source = _load_file(path, settings, library)
        problems.extend(found)
        if suite is None:
            unloaded += [source] if source is not None else []
            continue
        misused = [p for scenario in suite.scenarios for p in secret_misuse(scenario, secret_names)]
        problems.extend(misused)
        if found or misused:
            held.add(len(suites))
        suites.append(suite)
    # which file saves a session is known once all of them loaded (those that did not, as written)
    problems.extend(session_problems(suites, unloaded))
    # a steps file's problem is found at each call of it (and when it is checked on its own): once
    return suites, list(dict.fromkeys(problems)), held


def project_id(project: str, scenario_id: str) -> str:
    """A scenario's id in one project: `[iphone-13] specs/home.flow.yaml#home`, as Playwright's
    reporters name a test `[project] › file › title`."""
    return f"[{project}] {scenario_id}"


def with_projects(suites: list[Suite], settings: Settings) -> list[Suite]:
    """Each scenario once per project of flowwalk.yaml (`--project`: only those), its id prefixed
    with the project's name; the suites unchanged when the config names no project."""
    projects = settings.projects
    if settings.project_filter:
        names = [p.name for p in projects]
        for wanted in settings.project_filter:
            if wanted not in names:
                hint = (choices_hint(wanted, names, "projects of flowwalk.yaml") if names else
                        "flowwalk.yaml names no projects: add 'projects:' there (docs/environment.md)")
                raise UsageError(f"--project '{escape(wanted)}' is not a project of flowwalk.yaml\n  hint: {hint}")
        projects = tuple(p for p in projects if p.name in settings.project_filter)
    if not projects:
        return suites
    return [dataclasses.replace(suite, scenarios=tuple(
        dataclasses.replace(sc, id=project_id(p.name, sc.id), project=p.name)
        for sc in suite.scenarios for p in projects)) for suite in suites]
