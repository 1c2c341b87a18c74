"""Reusable steps: steps files and the calls that run them (`use:` with `with:`), named groups, the
hooks a folder or a file runs around each of its tests, and the data tables that run one spec per row.

All of it is settled when a spec is loaded. A call's steps file is read once (`StepsLibrary`), its
parameters bound to the call's arguments (typed: a whole-value placeholder `"{{count}}"` becomes the
argument itself, a number or a list; one inside text becomes its text), validated as a steps file,
and built into the flat list of `model.Step`s the walker runs. Each built step keeps where it is
written (the steps file's line) and the blocks it runs inside (`model.Step.frames`: the call with
its own line, a group, a hook), which is how the reports nest steps and how a failure names both
lines. A steps file that calls itself, directly or through others, is refused at the call that
closes the loop.

Placeholders that name no parameter (or column) are left for the run: run variables, secrets and
`extract`ed values, as anywhere else in a spec. Regular expressions are never substituted
(flow-spec v1), parameters included: a placeholder of a parameter inside one is refused.
"""

from __future__ import annotations

import copy
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ContextManager, Iterator, Mapping, Protocol, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from flowwalk import model as m
from flowwalk.errors import Location, Problem
from flowwalk.events import FrameKind, StepFrame
from flowwalk.spec import models as sm
from flowwalk.spec.problems import errors_to_problems
from flowwalk.spec.source import NAME_SHOWN, PathKey, Source, SourceError, escape, load_source, quote
from flowwalk.spec.spelling import did_you_mean
from flowwalk.spec.variables import LITERAL_KINDS

if TYPE_CHECKING:
    from flowwalk.settings import Settings

__all__ = ["CALL_DEPTH_MAX", "EXPANDED_MAX", "HOOK_NAMES", "Blocks", "BoundSteps", "Builder", "StepsFile", "StepsLibrary", "bind",
           "steps_display", "unknown_placeholders"]

#: how deep calls may nest (a call in a steps file a call runs, ...)
CALL_DEPTH_MAX = 10
#: the most steps one test may become once its calls are expanded
EXPANDED_MAX = 1000
#: the hook files a folder may hold, by the frame they open
HOOK_NAMES: dict[FrameKind, tuple[str, ...]] = {
    "before_each": tuple(f"before_each{suffix}" for suffix in sm.STEPS_SUFFIXES),
    "after_each": tuple(f"after_each{suffix}" for suffix in sm.STEPS_SUFFIXES),
}
_WHOLE = re.compile(r"^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$")
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def _naming_the_caller(found: list[Problem], source: Source, passed: Mapping[str, Location]) -> list[Problem]:
    """Each problem at a placeholder of `source` that an argument of the call filled, with the place
    the call wrote that argument: the value that is wrong is the caller's, not the steps file's."""
    filled: dict[tuple[int, int], str] = {}
    for key, (line, col) in source.values.items():
        value = source.get(key)
        names = [n for n in _PLACEHOLDER.findall(value) if n in passed] if isinstance(value, str) else []
        if key[:1] == ("steps",) and names:
            filled[(line, col)] = names[0]
    out = []
    for problem in found:
        name = filled.get((problem.loc.line, problem.loc.col)) if problem.loc.path == source.path else None
        out.append(replace(problem, message=f"{problem.message}, passed as '{name}' by the call at {passed[name]}")
                   if name else problem)
    return out


def steps_display(caller: str, written: str) -> str:
    """The path of the steps file `written` in the file `caller`, relative to the project root, with
    '/' (as `Location` paths and test ids are)."""
    joined = os.path.normpath(os.path.join(os.path.dirname(caller), written))
    return joined.replace(os.sep, "/")


def _text(value: Any) -> str:
    """An argument as text, inside a longer string (`true`, `3`, `2.5`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _type_name(value: Any) -> str:
    return {bool: "a boolean", int: "a whole number", float: "a number", list: "a list"}.get(type(value), "text")


def bind(node: Any, values: Mapping[str, Any], source: Source, path: PathKey, problems: list[Problem],
         what: str) -> Any:
    """`node` (the raw value at `path` of `source`) with every placeholder that names one of `values`
    replaced: a whole-value placeholder by the value itself (typed), one inside text by its text. A
    list cannot be part of a text, and a regular expression is never substituted: both are problems.
    `what` names the values in messages ("parameter", "column")."""
    if isinstance(node, dict):
        literal = node.get("kind") in LITERAL_KINDS
        out: dict[str, Any] = {}
        for key, value in node.items():
            if literal and key == "value" and isinstance(value, str):
                for name in _PLACEHOLDER.findall(value):
                    if name in values:
                        problems.append(Problem(
                            source.loc(path + (key,)),
                            f"{what} '{name}' is not substituted in a regular expression",
                            "a regular expression is literal (flow-spec v1): write the pattern out, or check "
                            "with text_contains, which takes the " + what))
                out[key] = value
            else:
                out[key] = bind(value, values, source, path + (key,), problems, what)
        return out
    if isinstance(node, list):
        return [bind(value, values, source, path + (i,), problems, what) for i, value in enumerate(node)]
    if not isinstance(node, str) or "{{" not in node:
        return node
    whole = _WHOLE.match(node)
    if whole and whole.group(1) in values:
        return copy.deepcopy(values[whole.group(1)])

    def text_of(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            return match.group(0)
        value = values[name]
        if isinstance(value, list):
            problems.append(Problem(source.loc(path), f"list {what} '{name}' is part of a text",
                                    f"a list takes a whole value: write \"{{{{{name}}}}}\" alone, where a list "
                                    "goes (equals: of a texts check, a list parameter)"))
            return match.group(0)
        return _text(value)

    return _PLACEHOLDER.sub(text_of, node)


def unknown_placeholders(node: Any, names: Sequence[str], known: Sequence[str], source: Source, path: PathKey,
                         problems: list[Problem], what: str) -> None:
    """A placeholder left after binding that is one letter off a name of `names` (a parameter, a
    column) and no variable the run knows (`known`): a misspelling, refused at load rather than
    failing the run for a missing variable."""
    if isinstance(node, dict):
        for key, value in node.items():
            unknown_placeholders(value, names, known, source, path + (key,), problems, what)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            unknown_placeholders(value, names, known, source, path + (i,), problems, what)
    elif isinstance(node, str):
        for name in _PLACEHOLDER.findall(node):
            guess = did_you_mean(name, list(names)) if name not in known and name not in names else ""
            if guess:
                problems.append(Problem(source.loc(path), f"'{{{{{name}}}}}' names no {what}",
                                        f"did you mean '{{{{{guess}}}}}'? {what}s here: {', '.join(names)}; "
                                        "any other name is a run variable (--var)"))


# --- steps files ------------------------------------------------------------------------------------


class _Params(BaseModel):
    """A steps file's `params` block alone: read before the steps, which need the arguments bound."""

    model_config = ConfigDict(extra="ignore", strict=True, defer_build=True)
    params: Annotated[dict[sm.Identifier, sm.ParamModel], Field(max_length=sm.PARAMS_MAX)] = Field(
        default_factory=dict)


@dataclass
class StepsFile:
    """A steps file as read: its source, and its parameters once they validated (None: they did not)."""

    source: Source
    params: dict[str, sm.ParamModel] | None
    problems: list[Problem] = field(default_factory=list)


@dataclass(frozen=True)
class BoundSteps:
    """A steps file with one call's arguments bound and validated: the model (None: refused), the
    bound source the steps are built from, and the problems binding and validating found, those of
    validation before `_naming_the_caller` names the call that passed a value (each call its own)."""

    model: sm.StepsFileModel | None
    source: Source
    binding: tuple[Problem, ...]
    validation: tuple[Problem, ...]
    #: whether every step is a plain step: no block, popup or baseline (whose building depends on
    #: the test calling: frame ids, step numbers, the spec a baseline sits beside)
    flat: bool = False
    #: its steps as built, by the stabilize settings of the builder (see `Blocks._flat_steps`)
    built: dict[tuple[Any, ...], tuple[tuple[m.Step, ...], tuple[Problem, ...]]] = field(
        default_factory=dict, compare=False)


def _frozen(value: Any) -> Any:
    """An argument as a key: its type with it, since `True == 1 == 1.0` bind to different text."""
    return (type(value).__name__, tuple(value) if isinstance(value, list) else value)


class StepsLibrary:
    """The steps files one load reads, each parsed once, the hook files each folder holds, and each
    steps file bound to the arguments of its calls, once per distinct arguments: a folder's hook is
    bound and validated once for all the specs of the folder. Their paths are relative to the
    project root `root`. A library belongs to one load, so what it holds is what that load read
    (`run --watch` loads with a new one after each change)."""

    def __init__(self, root: str | Path = ".") -> None:
        self.root = root
        self._files: dict[str, StepsFile | Problem] = {}
        self._hooks: dict[tuple[str, FrameKind], str | None] = {}
        self._bound: dict[tuple[Any, ...], BoundSteps] = {}

    def bound(self, display: str, loaded: StepsFile, args: Mapping[str, Any], known: Sequence[str]) -> BoundSteps:
        """`loaded` (the steps file at `display`) with `args` bound and validated; `known`: the run
        variables a placeholder may name besides the parameters."""
        if self._files.get(display) is not loaded:
            return _bind_steps(loaded, args, known)   # not this load's reading of the file: not kept
        key = (display, tuple((name, _frozen(value)) for name, value in args.items()), tuple(known))
        found = self._bound.get(key)
        if found is None:
            found = self._bound[key] = _bind_steps(loaded, args, known)
        return found

    def load(self, display: str) -> StepsFile | Problem:
        """The steps file at `display` (relative to the root), or the problem reading it."""
        found = self._files.get(display)
        if found is None:
            found = self._files[display] = self._read(display)
        return found

    def exists(self, display: str) -> bool:
        return os.path.isfile(os.path.join(self.root, display))

    def _read(self, display: str) -> StepsFile | Problem:
        try:
            source = load_source(Path(self.root, display), escape(display))
        except SourceError as exc:
            return exc.problem
        if not isinstance(source.data, dict):
            shown = "a list" if isinstance(source.data, list) else _type_name(source.data)
            return Problem(source.loc(()), f"the steps file must be a mapping, got {shown}",
                           "a steps file is a mapping: steps_version, params (optional) and steps")
        try:
            params = _Params.model_validate({"params": source.data.get("params", {})}).params
        except ValidationError as exc:
            return StepsFile(source, None, errors_to_problems(exc, source, _Params))
        loops = default_loops(params, source)
        return StepsFile(source, None, loops) if loops else StepsFile(source, dict(params))

    def hook(self, folder: str, kind: FrameKind) -> str | None:
        """The `before_each` or `after_each` steps file of `folder` (relative, '/'), or None."""
        key = (folder, kind)
        if key not in self._hooks:
            found = None
            for name in HOOK_NAMES[kind]:
                candidate = f"{folder}/{name}" if folder not in ("", ".") else name
                if self.exists(candidate):
                    found = candidate
                    break
            self._hooks[key] = found
        return self._hooks[key]

    def hooks(self, spec_path: str, kind: FrameKind) -> list[str]:
        """The hook files of kind `kind` that apply to the spec at `spec_path`: those of its folder and
        of every folder above it up to the project root, outermost first for `before_each`,
        innermost first for `after_each` (as pytest's fixtures and Playwright's hooks nest)."""
        parts = spec_path.split("/")[:-1]
        if parts and parts[0] == "..":
            return []   # above the root: no folder there is the project's
        folders = ["."] + ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
        found = [h for h in (self.hook(folder, kind) for folder in folders) if h is not None]
        return found if kind == "before_each" else found[::-1]


def _names_in(value: Any) -> list[str]:
    """The placeholder names in a default (text, or a list of texts), in order, each once."""
    texts = value if isinstance(value, list) else [value]
    return list(dict.fromkeys(n for t in texts if isinstance(t, str) for n in _PLACEHOLDER.findall(t)))


def default_loops(params: Mapping[str, sm.ParamModel], source: Source) -> list[Problem]:
    """A default that names a parameter whose default leads back to it (itself included): it has no
    value, whatever a call passes. One problem per loop, at the default of its first parameter."""
    refs = {name: [r for r in _names_in(p.default) if r in params] for name, p in params.items()}
    problems: list[Problem] = []
    looped: set[str] = set()

    def back_to(start: str, name: str, chain: list[str]) -> list[str] | None:
        for ref in refs[name]:
            if ref == start:
                return chain + [ref]
            if ref not in chain:
                found = back_to(start, ref, chain + [ref])
                if found:
                    return found
        return None

    for name in params:
        chain = None if name in looped else back_to(name, name, [name])
        if chain:
            looped.update(chain)
            problems.append(Problem(source.loc(("params", name, "default")),
                                    f"the default of parameter {quote(name, NAME_SHOWN)} leads back to itself: "
                                    f"{' -> '.join(chain)}",
                                    "a default may name other parameters (\"{{base}}/login\"), not one whose default "
                                    "names it: write one of the defaults out"))
    return problems


# --- blocks: calls, groups and hooks, expanded into flat steps --------------------------------------


class Builder(Protocol):
    """What expanding a block needs of the lowering that meets it (spec/lower.py's `StepBuilder`):
    the block's own steps built, from the file being read, into the problems of the load."""

    source: Source
    settings: Settings
    problems: list[Problem]
    stabilize: m.Stabilize
    stabilize_overridden: bool

    def steps(self, steps: Sequence[Any], path: PathKey) -> tuple[m.Step, ...]: ...

    def step(self, step: Any, path: PathKey) -> m.Step: ...

    def salvage(self, steps: Any, path: PathKey) -> tuple[m.Step, ...]: ...

    def reading(self, source: Source) -> ContextManager[None]: ...

    def counted(self, steps: int) -> None: ...


class Blocks:
    """What a `StepBuilder` asks when it meets a call or a group: their steps, built flat, each with
    the frames it runs inside. Keeps the frames open now, the steps files being expanded (recursion)
    and the count of steps a test expands to."""

    def __init__(self, builder: Builder, library: StepsLibrary):
        self.builder = builder
        self.library = library
        #: the blocks open now, outermost first
        self.frames: tuple[StepFrame, ...] = ()
        #: the steps files being expanded, outermost first, with the call that opened each
        self.calling: list[tuple[str, Location]] = []
        self._next_id = 0
        self.expanded = 0

    def start_test(self) -> None:
        """Frame ids and the expansion count are per test (a flow, a rule)."""
        self._next_id = 0
        self.expanded = 0

    def frame(self, kind: FrameKind, title: str, loc: Location, file: str = "",
              args: Mapping[str, Any] | None = None) -> StepFrame:
        self._next_id += 1
        return StepFrame(id=self._next_id, kind=kind, title=title, path=loc.path, line=loc.line, file=file,
                         args=dict(args or {}))

    @contextmanager
    def inside(self, frame: StepFrame) -> Iterator[None]:
        self.frames = self.frames + (frame,)
        try:
            yield
        finally:
            self.frames = self.frames[:-1]

    def framed(self, step: m.Step) -> m.Step:
        """`step` with the frames open now."""
        self.expanded += 1
        return replace(step, frames=self.frames) if self.frames else step

    def expand(self, step: Any, path: PathKey) -> tuple[m.Step, ...]:
        """The steps of a call, a group or a frame block (a `CallStep`, `GroupStep` or `FrameStep` at `path`)."""
        source = self.builder.source
        if isinstance(step, sm.GroupStep):
            with self.inside(self.frame("group", step.group, source.loc(path))):
                return self.builder.steps(step.steps, path + ("steps",))
        if isinstance(step, sm.FrameStep):
            block = replace(self.frame("frame", f"frame {quote(step.frame)}", source.loc(path)), selector=step.frame)
            with self.inside(block):
                steps = self.builder.steps(step.steps, path + ("steps",))
            self.navigations_in_frame(steps, block)
            return steps
        return self.call(step.use, step.with_, source.loc(path), path)

    def popup(self, step: Any, path: PathKey) -> tuple[m.Step, ...]:
        """An act with `popup:` (an `ActStep` at `path`), then the steps run in the popup it opens."""
        built = self.builder.step(step, path)
        assert isinstance(built, m.Act)
        what = built.selector or built.target
        opener = f"popup of {built.action}" + (f" {quote(what)}" if what else "")
        block = self.frame("popup", opener, self.builder.source.key_loc(path + ("popup",)))
        act = replace(built, popup=m.PopupPlan(block.id, step.popup.close))
        with self.inside(block):
            steps = self.builder.steps(step.popup.steps, path + ("popup", "steps"))
        return (self.framed(act), *steps)

    def navigations_in_frame(self, steps: Sequence[m.Step], block: StepFrame) -> None:
        """A goto or a history move right inside a frame block would navigate the page, and the frame with it."""
        for step in steps:
            places = [f for f in step.frames if f.kind in m.PLACE_KINDS]
            if isinstance(step, (m.Goto, m.History)) and places and places[-1].id == block.id:
                self.builder.problems.append(Problem(
                    step.loc, f"{step.text} inside the frame block at line {block.line} would navigate the page, "
                    "not the frame", "put it after the frame block; inside the frame, follow a link with an act"))

    # --- calls ---------------------------------------------------------------------------------------

    def call(self, written: str, given: Mapping[str, Any], loc: Location, path: PathKey | None = None,
             kind: FrameKind = "call", title: str | None = None) -> tuple[m.Step, ...]:
        """The steps of the steps file `written` (relative to the file being built) bound to `given`.
        `path` is the call step's place in its file (None: a folder's hook, which is no step);
        a hook is a call of kind before_each / after_each."""
        builder, caller = self.builder, self.builder.source
        problems = builder.problems
        use_loc = caller.loc(path + ("use",)) if path is not None else loc
        display = steps_display(caller.path, written) if path is not None else written
        if not self.library.exists(display):
            problems.append(self._missing(written, display, use_loc))
            return ()
        looped = [d for d, _ in self.calling]
        if display in looped:
            chain = " -> ".join(d for d in looped[looped.index(display):]) + f" -> {display}"
            problems.append(Problem(use_loc, f"recursive use: {chain}",
                                    "a steps file cannot call itself, directly or through other steps files: "
                                    "move the steps they share into a third file both call"))
            return ()
        if len(self.calling) >= CALL_DEPTH_MAX:
            problems.append(Problem(use_loc, f"calls nest more than {CALL_DEPTH_MAX} deep here",
                                    "call fewer steps files from steps files: a spec stays reviewable"))
            return ()
        loaded = self.library.load(display)
        if isinstance(loaded, Problem):
            problems.append(loaded)
            return ()
        if loaded.params is None:
            problems.extend(loaded.problems)
            return ()
        args = self._arguments(loaded, given, caller, path, use_loc, display)
        if args is None:
            return ()
        passed = {name: caller.loc(path + ("with", name)) for name in given} if path is not None else {}
        bound = self._bound(display, loaded, args, passed)
        frame = self.frame(kind, title or f"use {written}", loc, file=display, args=args)
        self.calling.append((display, use_loc))
        try:
            with self.inside(frame), builder.reading(bound.source):
                if bound.model is None:
                    # refused: what else is wrong in its steps is reported with it
                    builder.salvage(bound.source.data.get("steps"), ("steps",))
                    return ()
                steps = (self._flat_steps(bound) if bound.flat else
                         builder.steps(bound.model.steps, ("steps",)))
        finally:
            self.calling.pop()
        if self.expanded > EXPANDED_MAX and not self.calling:
            problems.append(Problem(use_loc, f"the test expands to {self.expanded} steps; the limit is "
                                             f"{EXPANDED_MAX}", "call fewer or smaller steps files"))
        return steps

    def _missing(self, written: str, display: str, loc: Location) -> Problem:
        folder = os.path.dirname(display) or "."
        on_disk = os.path.join(self.library.root, folder)
        near = sorted(n for n in os.listdir(on_disk) if n.endswith(sm.STEPS_SUFFIXES)) if os.path.isdir(on_disk) else []
        # by the names before the shared suffix, which would make every steps file look close
        stems = {_stem(n): n for n in near}
        guess = stems.get(did_you_mean(_stem(os.path.basename(written)), list(stems)), "")
        hint = (f"did you mean '{guess}'? " if guess else "") + (
            f"steps files in {folder}/: {', '.join(near)}" if near else
            "the path is relative to the file that calls it; create the steps file, or fix the path")
        return Problem(loc, f"steps file {quote(written, NAME_SHOWN)} not found ({escape(display)})", hint)

    def _arguments(self, loaded: StepsFile, given: Mapping[str, Any], caller: Source,
                   path: PathKey | None, use_loc: Location, display: str) -> dict[str, Any] | None:
        """The call's arguments by parameter (defaults filled in, text coerced), or None after
        reporting what is wrong with them at the call (a hook's, which has no call written, at the
        parameter in the called steps file; a default's, at the default)."""
        params, called = loaded.params, loaded.source
        assert params is not None
        problems = self.builder.problems
        before = len(problems)
        args: dict[str, Any] = {}
        for name, value in given.items():
            where = caller.loc(path + ("with", name)) if path is not None else use_loc
            param = params.get(name)
            if param is None:
                guess = did_you_mean(name, list(params))
                listed = ", ".join(params) if params else "none"
                problems.append(Problem(caller.key_loc(path + ("with", name)) if path is not None else use_loc,
                                        f"{quote(display, NAME_SHOWN)} has no parameter {quote(name, NAME_SHOWN)}",
                                        (f"did you mean '{guess}'? " if guess else "") + f"its parameters: {listed}"))
                continue
            coerced = _coerce(value, param.type)
            if coerced is None:
                shown = "" if isinstance(value, list) else f" {quote(_text(value))}"
                problems.append(Problem(where, f"parameter {quote(name, NAME_SHOWN)} takes {_article(param.type)}, got "
                                               f"{_type_name(value)}{shown}", _type_hint(name, value, param.type)))
                continue
            args[name] = coerced
        defaulted: set[str] = set()

        def fill(name: str) -> None:
            """The default of `name`, after those of the parameters it names (default_loops refused loops)."""
            param = params[name]
            if name in args or name in given or name in defaulted:
                return
            defaulted.add(name)
            if param.default is None:
                example = {"string": "...", "integer": "1", "number": "1.5", "boolean": "true",
                           "list": "[a, b]"}[param.type]
                problems.append(Problem(use_loc if path is not None else called.key_loc(("params", name)),
                                        f"missing parameter {quote(name, NAME_SHOWN)} of "
                                                 f"{quote(display, NAME_SHOWN)}",
                                        f"add it: with: {{{name}: {example}}}" if path is not None else
                                        f"a hook is called with no arguments: give '{name}' a default"))
                return
            for ref in _names_in(param.default):
                if ref in params:
                    fill(ref)
            args[name] = self._default(loaded.source, name, params, args)

        for name in params:
            fill(name)
        return args if len(problems) == before else None

    def _default(self, source: Source, name: str, params: Mapping[str, sm.ParamModel], args: Mapping[str, Any]) -> Any:
        """The default of parameter `name` with the parameters it names bound to this call's `args`."""
        problems = self.builder.problems
        param, at = params[name], ("params", name, "default")
        known = list(self.builder.settings.variables) + ["BASE_URL"]
        unknown_placeholders(param.default, list(params), known, source, at, problems, "parameter")
        bound = bind(copy.deepcopy(param.default), args, source, at, problems, "parameter")
        value = _coerce(bound, param.type)
        if value is None:
            problems.append(Problem(source.loc(at), f"the default of parameter {quote(name, NAME_SHOWN)} is "
                                                    f"{_type_name(bound)} here, not {_article(param.type)}",
                                    "a whole-value placeholder in a default takes the named parameter's type: "
                                    "name one of the same type, or write it inside text"))
        return value

    def _bound(self, display: str, loaded: StepsFile, args: Mapping[str, Any],
               passed: Mapping[str, Location]) -> BoundSteps:
        """The steps file with `args` bound, validated; its model is None after reporting its problems.
        `passed`: where the call wrote each argument it gave, named by a problem with a value it filled in."""
        known = list(self.builder.settings.variables) + ["BASE_URL"]
        bound = self.library.bound(display, loaded, args, known)
        self.builder.problems.extend(bound.binding)
        if bound.validation:
            self.builder.problems.extend(_naming_the_caller(list(bound.validation), loaded.source, passed))
        return bound

    def _flat_steps(self, bound: BoundSteps) -> tuple[m.Step, ...]:
        """The steps of a flat steps file (`BoundSteps.flat`), built once per stabilize settings and
        then only framed: a plain step's building depends on nothing of the test but those settings;
        the frames open now, the step count and the problems building found are the caller's."""
        builder = self.builder
        assert bound.model is not None
        key = (builder.stabilize_overridden, builder.stabilize)
        found = bound.built.get(key)
        if found is None:
            before = len(builder.problems)
            steps = builder.steps(bound.model.steps, ("steps",))
            bound.built[key] = (tuple(replace(step, frames=()) for step in steps), tuple(builder.problems[before:]))
            return steps
        built, problems = found
        builder.problems.extend(problems)
        builder.counted(len(built))
        return tuple(self.framed(step) for step in built)

    # --- hooks --------------------------------------------------------------------------------------------

    def folder_hooks(self, kind: FrameKind) -> tuple[m.Step, ...]:
        """The steps of the folders' hook files of `kind` for the spec being built."""
        out: list[m.Step] = []
        for hook in self.library.hooks(self.builder.source.path, kind):
            title = f"{kind.replace('_', ' ')} ({hook})"
            out.extend(self.call(hook, {}, Location(hook, 1, 1), None, kind=kind, title=title))
        return tuple(out)

    def file_hook(self, kind: FrameKind, steps: Sequence[Any], path: PathKey) -> tuple[m.Step, ...]:
        """The steps of a spec's own `before_each` / `after_each` list at `path`."""
        with self.inside(self.frame(kind, kind.replace("_", " "), self.builder.source.key_loc(path))):
            return self.builder.steps(steps, path)


def _bind_steps(loaded: StepsFile, args: Mapping[str, Any], known: Sequence[str]) -> BoundSteps:
    """`loaded` with `args` bound and validated (see `StepsLibrary.bound`)."""
    source = loaded.source
    data = dict(source.data)
    binding: list[Problem] = []
    if "steps" in data:
        # what the file itself writes, not what the arguments brought in
        unknown_placeholders(data["steps"], list(args), known, source, ("steps",), binding, "parameter")
        data["steps"] = bind(data["steps"], args, source, ("steps",), binding, "parameter")
    bound = replace(source, data=data)
    try:
        model = sm.StepsFileModel.model_validate(data)
    except ValidationError as exc:
        return BoundSteps(None, bound, tuple(binding), tuple(errors_to_problems(exc, bound, sm.StepsFileModel)))
    return BoundSteps(None if binding else model, bound, tuple(binding), (), flat=_flat(data.get("steps")))


#: the keys that make a step a block, or open one (a popup)
_BLOCK_KEYS = frozenset((*sm.BLOCK_STEPS, "popup"))


def _flat(node: Any) -> bool:
    """Whether the steps as written hold no block, popup or baseline check, at any depth."""
    if isinstance(node, dict):
        if _BLOCK_KEYS.intersection(node) or node.get("kind") in m.SNAPSHOT_EXPECTS:
            return False
        return all(_flat(value) for value in node.values())
    if isinstance(node, list):
        return all(_flat(value) for value in node)
    return True


def _type_hint(name: str, value: Any, wanted: str) -> str:
    if isinstance(value, str) and "{{" in value:
        return f"a run variable is text, known only when the run starts: write the {wanted} out"
    if isinstance(value, str) and wanted in ("integer", "number", "boolean") and \
            sm.fits_type(_yaml_scalar(value), wanted):
        return f"remove the quotes: {name}: {value.strip()}"
    if wanted == "list":
        return f"write it as a list: {name}: [{escape(_text(value))}]"
    return f"pass {_article(wanted)} (docs/flow-spec.md, 'Reusable steps')"


def _yaml_scalar(text: str) -> Any:
    """What YAML would read `text` as, unquoted (for a hint only)."""
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def _article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def _coerce(value: Any, wanted: str) -> Any:
    """`value` as a parameter of type `wanted`, or None when it is not one. A string parameter takes
    any scalar as its text (YAML reads `with: {count: 3}` as a number); a list takes scalars as text."""
    if wanted == "string":
        return None if isinstance(value, list) else _text(value)
    if wanted == "list":
        return [_text(v) for v in value] if isinstance(value, list) else None
    return value if sm.fits_type(value, wanted) else None


def _stem(name: str) -> str:
    """A steps file's name without its suffix (`login.steps.yaml` -> `login`)."""
    for suffix in sm.STEPS_SUFFIXES:
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name
