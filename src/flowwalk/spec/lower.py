"""The one lowering: the authoring tree's steps (spec/models/steps.py, spec/models/checks.py) into
the frozen `model.Step`s the walker runs, for every producer (flow specs, rule files, `.robot`
keywords, steps files).

`StepBuilder` gives each step its location and its text for people (`act click 'the sign-up
button'`), expands calls, groups, frame blocks and popups in place (through spec/calls.py's
`Blocks`), and checks what only the file system can tell (a user verifier's module exists, two
checks do not share a baseline).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from pydantic import TypeAdapter, ValidationError

from flowwalk import model as m
from flowwalk.errors import Location, Problem
from flowwalk.settings import Settings
from flowwalk.spec import models as sm
from flowwalk.spec.calls import Blocks, StepsLibrary
from flowwalk.spec.problems import errors_to_problems
from flowwalk.spec.source import NAME_SHOWN, PathKey, Source, escape, quote
from flowwalk.spec.spelling import did_you_mean

TEXT_LIMIT = 80


def show(value: str) -> str:
    """A value quoted for a step's text, cut to a readable length, on one line (control characters
    escaped: a step's text goes into reports and into problems that name the step)."""
    text = value if len(value) <= TEXT_LIMIT else value[: TEXT_LIMIT - 1] + "…"
    return f"'{escape(text)}'"


def expect_text(step: Any) -> str:
    """`expect <kind> ...` for people, from an expect model."""
    kind = step.kind
    if kind == "beacon":
        return f"expect beacon {step.vendor}" + (f" {show(step.event)}" if step.event else "")
    if kind == "count":
        op, n = next((sym, getattr(step, name)) for name, sym in
                     (("equals", "=="), ("at_least", ">="), ("at_most", "<=")) if getattr(step, name) is not None)
        return f"expect count {show(step.selector)} {op} {n}"
    if kind == "attribute":
        how, val = ("=", step.equals) if step.equals is not None else ("contains", step.contains)
        return f"expect attribute {show(step.selector)} {step.name} {how} {show(val)}"
    if kind in ("texts", "classes"):
        how, items = ("==", step.equals) if step.equals is not None else ("contains", step.contains)
        return f"expect {kind} {show(step.selector)} {how} {show_items(items)}"
    if kind in sm.STATE_KINDS:
        return state_text(step)
    if kind in ("has_text", "input_value", "has_class", "lacks_class"):
        return f"expect {kind} {show(step.selector)} {show(step.value)}"
    if kind in sm.ELEMENT_STATE_KINDS:
        return f"expect {kind} {show(step.selector)}"
    if kind in ("aria_snapshot", "screenshot", "accessible"):
        text = f"expect {kind}"
        if getattr(step, "name", None):
            text += f" {step.name}"
        return text + (f" of {show(step.selector)}" if step.selector else "")
    if getattr(step, "match_case", False):
        return f"expect {kind} {show(step.value)} (match case)"
    return f"expect {kind} {show(step.value)}"


# --- state beyond the DOM (issue 36 phase B) ----------------------------------------------------------


def _compared(step: Any) -> str:
    how = next((k for k in sm.COMPARISONS if getattr(step, k, None) is not None), None)
    if how is None:
        return ""
    # a cookie's value is never written anywhere a report shows: the step's text included
    return f" {how} …" if step.kind == "cookie" else f" {how} {show(getattr(step, how))}"


def state_text(step: Any) -> str:
    """`expect storage 'todos' path title equals 'milk'` for people; never a cookie's value."""
    kind, absent = step.kind, " absent" if getattr(step, "absent", False) else ""
    if kind in ("storage", "storage_count"):
        area = "" if step.area == "local" else " (session)"
        if kind == "storage":
            path = f" path {step.path}" if step.path else ""
            return f"expect storage{area} {show(step.key)}{path}{absent}{_compared(step)}"
        op, n = next((sym, getattr(step, name)) for name, sym in
                     (("equals", "=="), ("at_least", ">="), ("at_most", "<=")) if getattr(step, name) is not None)
        where = "".join(f" {k}={show(v)}" for k, v in (step.where or {}).items())
        return f"expect storage_count{area} {show(step.prefix + '*')}{where} {op} {n}"
    if kind == "cookie":
        return f"expect cookie {show(step.name)}{absent}{_compared(step)}"
    if kind == "js":
        return f"expect js {show(step.expr)}{_compared(step)}"
    method = f"{step.method} " if step.method else ""
    status = f" -> {step.status}" if step.status else ""
    return f"expect request {method}{show(step.url)}{absent}{status}"


def state_fields(step: Any) -> dict[str, Any]:
    """The `model.Expect` fields of a state check's model: its `StateQuery` and its comparison."""
    fields: dict[str, Any] = {}
    kind = step.kind
    if kind == "storage_count":
        # its equals / at_least / at_most bound a number of keys, as a count check's do
        name, op = next((n, o) for n, o in (("equals", "eq"), ("at_least", "gte"), ("at_most", "lte"))
                        if getattr(step, n) is not None)
        return {"count": getattr(step, name), "op": op,
                "state": m.StateQuery(area=step.area, key=step.prefix, fields=tuple((step.where or {}).items()))}
    how = next((k for k in sm.COMPARISONS if getattr(step, k, None) is not None), None)
    if how is not None:
        fields.update(value=getattr(step, how), match=how)
        if how == "matches":
            fields["pattern"] = re.compile(getattr(step, how))
    if kind == "storage":
        query = m.StateQuery(area=step.area, key=step.key, path=step.path, absent=step.absent)
    elif kind == "cookie":
        attrs = tuple((k, str(getattr(step, k))) for k in ("http_only", "secure", "same_site", "expires",
                                                           "expires_after_s") if getattr(step, k) is not None)
        query = m.StateQuery(key=step.name, attrs=attrs, absent=step.absent)
    elif kind == "js":
        query = m.StateQuery(expr=step.expr)
    else:
        query = m.StateQuery(url=step.url, method=step.method, status=step.status,
                             fields=tuple((step.body or {}).items()), absent=step.absent)
    fields["state"] = query
    return fields


def show_items(items: Sequence[str]) -> str:
    """A list of items for a step's text: `['a', 'b', …]`, cut to a readable length."""
    shown = ", ".join(f"'{escape(i)}'" for i in items)
    if len(shown) > TEXT_LIMIT:
        shown = shown[: TEXT_LIMIT - 1] + "…"
    return f"[{shown}]"


class StepBuilder:
    """Converts step models into `model.Step`s for one file, collecting problems as it goes. Calls
    and groups are expanded in place (spec/calls.py): `steps` returns the flat list the walker runs."""

    def __init__(self, source: Source, settings: Settings, stabilize: m.Stabilize | None = None,
                 stabilize_overridden: bool = False, library: StepsLibrary | None = None):
        self.source = source
        #: the file being loaded (a called steps file's steps are built with `source` set to it)
        self.root = source
        self.settings = settings
        self.problems: list[Problem] = []
        #: the stabilize settings a check starts from (run settings merged with file defaults)
        self.stabilize = stabilize or settings.stabilize
        self.stabilize_overridden = stabilize_overridden
        self._verifier_dirs: list[Path] | None = None
        #: baseline file -> where the first check using it is (two checks cannot share a baseline)
        self._baselines: dict[str, Location] = {}
        #: the default baseline name's prefix: "" in a flow, "<scenario>-<rule>-" in a rule file
        self.snapshot_prefix = ""
        #: the 1-based position of the step being built among its test's steps, calls expanded
        self._index = 0
        #: whether two checks sharing a baseline are reported (not while salvaging: see `salvage`)
        self.check_baselines = True
        self.blocks = Blocks(self, library or StepsLibrary(settings.root))

    def loc(self, path: PathKey) -> Location:
        return self.source.loc(path)

    def start_test(self) -> None:
        """What follows are the steps of another test (a flow, a row of one, a rule)."""
        self._index = 0
        self.blocks.start_test()

    def test_steps(self, steps: Sequence[Any], path: PathKey) -> tuple[m.Step, ...]:
        """The steps of one test (a rule), calls and groups expanded."""
        self.start_test()
        return self.steps(steps, path)

    def steps(self, steps: Sequence[Any], path: PathKey) -> tuple[m.Step, ...]:
        out: list[m.Step] = []
        for i, step in enumerate(steps):
            out.extend(self.one(step, path + (i,)))
        return tuple(out)

    def one(self, step: Any, path: PathKey) -> tuple[m.Step, ...]:
        """The steps one step model at `path` runs: itself, or a block's steps."""
        if isinstance(step, (sm.CallStep, sm.GroupStep, sm.FrameStep)):
            return self.blocks.expand(step, path)
        self._index += 1
        if isinstance(step, sm.ActStep) and step.popup is not None:
            return self.blocks.popup(step, path)
        return (self.blocks.framed(self.step(step, path)),)

    def counted(self, steps: int) -> None:
        """`steps` plain steps of the test, built before (a flat steps file's), are built here too."""
        self._index += steps

    def salvage(self, steps: Any, path: PathKey) -> tuple[m.Step, ...]:
        """The steps at `path` as written, in a file that did not validate: each step that validates
        on its own is built (its calls, frame blocks and verifiers checked, its problems collected),
        and a block that does not has its own steps salvaged, so that a shape error in one step
        hides nothing wrong in another. Baselines are left to `shared_baselines`, which counts the
        steps as written."""
        out: list[m.Step] = []
        saved, self.check_baselines = self.check_baselines, False
        try:
            for i, raw in enumerate(steps if isinstance(steps, list) else ()):
                try:
                    step = _step_adapter().validate_python(raw)
                except ValidationError:
                    out.extend(self._salvage_block(raw, path + (i,)))
                    continue
                out.extend(self.one(step, path + (i,)))
        finally:
            self.check_baselines = saved
        return tuple(out)

    def _salvage_block(self, raw: Any, path: PathKey) -> tuple[m.Step, ...]:
        """The steps inside a group, frame block or popup that did not validate, salvaged."""
        if not isinstance(raw, dict):
            return ()
        if "type" not in raw and isinstance(raw.get("frame"), str):
            opened = self.blocks.frame("frame", f"frame {quote(raw['frame'])}", self.loc(path))
            block = dataclasses.replace(opened, selector=raw["frame"])
            with self.blocks.inside(block):
                steps = self.salvage(raw.get("steps"), path + ("steps",))
            self.blocks.navigations_in_frame(steps, block)
            return steps
        if "type" not in raw and "group" in raw:
            return self.salvage(raw.get("steps"), path + ("steps",))
        popup = raw.get("popup") if raw.get("type") == "act" else None
        return self.salvage(popup.get("steps"), path + ("popup", "steps")) if isinstance(popup, dict) else ()

    @contextmanager
    def reading(self, source: Source) -> Iterator[None]:
        """Build from `source` (a called steps file) for a while: locations and verifier lookups are its."""
        saved = self.source, self._verifier_dirs
        self.source, self._verifier_dirs = source, None
        try:
            yield
        finally:
            self.source, self._verifier_dirs = saved

    def lower(self, step: Any, loc: Location) -> m.Step:
        """One step of the tree (no block, no verifier) at `loc`: for a producer whose steps have no
        place in a `Source` of their own (a `.robot` keyword call, a call in another tool's language)."""
        return self._step(step, (), loc)

    def step(self, step: Any, path: PathKey) -> m.Step:
        return self._step(step, path, self.loc(path))

    def _step(self, step: Any, path: PathKey, loc: Location) -> m.Step:
        if isinstance(step, sm.GotoStep):
            return m.Goto(loc=loc, text=f"goto {show(step.url)}", optional=step.optional, url=step.url)
        if isinstance(step, sm.ActStep):
            shown = step.target if step.target is not None else step.selector or ""
            return m.Act(loc=loc, text=f"act {step.action} {show(shown)}", optional=step.optional,
                         verify=self.verifiers(step.verify, path + ("verify",)), action=step.action,
                         selector=step.selector, target=step.target, value=step.value,
                         await_selector=step.await_, **act_extras(step))
        if isinstance(step, sm.WaitStep):
            text = f"wait {step.ms}ms" if step.ms is not None else f"wait for {show(step.for_ or '')}"
            return m.Wait(loc=loc, text=text, optional=step.optional, ms=step.ms, for_selector=step.for_)
        if isinstance(step, sm.ExtractStep):
            return m.Extract(loc=loc, text=f"extract {show(step.selector)} into {step.into}",
                             optional=step.optional, selector=step.selector, into=step.into)
        if isinstance(step, sm.HistoryStep):
            return m.History(loc=loc, text=step.type, optional=step.optional, move=step.type)
        if isinstance(step, sm.EmitStep):
            fields = tuple(m.EmitField(name=f.name, source=f.source, selector=f.selector, attr=f.attr, expr=f.expr)
                           for f in step.fields)
            return m.Emit(loc=loc, text=f"emit {show(step.name)}", optional=step.optional, name=step.name,
                          fields=fields)
        return self.expect(step, loc)

    def expect(self, step: Any, loc: Location) -> m.Expect:
        kind = step.kind
        fields: dict[str, Any] = {"kind": kind, "selector": step.__dict__.get("selector")}
        if kind == "beacon":
            fields.update(vendor=step.vendor, event=step.event)
        elif kind == "count":
            for name, op in (("equals", "eq"), ("at_least", "gte"), ("at_most", "lte")):
                if getattr(step, name) is not None:
                    fields.update(count=getattr(step, name), op=op)
        elif kind == "attribute":
            if step.equals is not None:
                fields.update(attr=step.name, value=step.equals, match="equals")
            else:
                fields.update(attr=step.name, value=step.contains, match="contains")
        elif kind in ("texts", "classes"):
            if step.equals is not None:
                fields.update(items=tuple(step.equals), match="equals")
            else:
                fields.update(items=tuple(step.contains), match="contains")
        elif kind in sm.STATE_KINDS:
            fields.update(state_fields(step))
        elif "value" in step.__dict__:
            fields["value"] = step.value
        for flag in ("match_case", "keep_whitespace"):
            if step.__dict__.get(flag):
                fields[flag] = True
        if kind in ("url_matches", "text_matches"):
            fields["pattern"] = re.compile(step.value)
        if kind in m.SNAPSHOT_EXPECTS:
            fields["snapshot"] = self.snapshot(step, loc)
        if kind == "accessible":
            fields["axe"] = axe_options(step)
        overrides = step.stabilize.overrides() if step.stabilize is not None else {}
        if overrides or self.stabilize_overridden:
            fields["stabilize"] = dataclasses.replace(self.stabilize, **overrides)
        return m.Expect(loc=loc, text=expect_text(step), optional=step.optional,
                        timeout_ms=step.timeout_ms, **fields)

    # --- baselines ------------------------------------------------------------------------------

    def snapshot(self, step: Any, loc: Location) -> m.Snapshot:
        """The baseline of an aria_snapshot or screenshot expect: `<spec>.snapshots/<name>.yml|png`,
        `name` defaulting to `step-<n>`, n the step's 1-based index (prefixed with the scenario and
        the rule in a rule file)."""
        if step.name is None and self.blocks.calling:
            self.problems.append(Problem(loc, f"{step.kind} check in a steps file has no 'name'",
                                         "name its baseline (a parameter can: name: \"cart-{{page}}\"), so that "
                                         "each call compares with its own"))
        # beside the spec being loaded, also for a check a steps file holds
        name, baseline = baseline_of(self.root.path, self.snapshot_prefix, self._index, step.kind, step.name)
        first = self._baselines.setdefault(baseline, loc) if self.check_baselines else loc
        if first is not loc:
            self.problems.append(shared_baseline(loc, baseline, first))
        if step.kind == "aria_snapshot":
            return m.Snapshot(name=name, baseline=baseline)
        ratio = step.max_diff_ratio
        return m.Snapshot(name=name, baseline=baseline,
                          threshold=step.threshold if step.threshold is not None else m.Snapshot.threshold,
                          max_diff_pixels=step.max_diff_pixels, max_diff_ratio=ratio,
                          mask=tuple(step.mask), full_page=step.full_page)

    # --- verifiers ------------------------------------------------------------------------------

    def verifiers(self, items: Sequence[Any] | None, path: PathKey) -> tuple[m.VerifierRef, ...]:
        out: list[m.VerifierRef] = []
        for i, item in enumerate(items or ()):
            ref = self.verifier(item, path + (i,))
            if ref is not None:
                out.append(ref)
        return tuple(out)

    def verifier(self, item: Any, path: PathKey) -> m.VerifierRef | None:
        loc = self.loc(path)
        if isinstance(item, str):
            if item == "read_after_write":
                return m.VerifierRef(name=item, loc=loc)
            module = self.verifier_module(item, loc)
            return m.VerifierRef(name=item, loc=loc, options={"module": module, "args": {}}) if module else None
        options: dict[str, Any]
        if isinstance(item, sm.ReadAfterWriteItem):
            opts = item.read_after_write
            options = {k: v for k, v in (("selector", opts.selector if opts else None),
                                         ("expected", opts.expected if opts else None)) if v is not None}
            timeout = opts.timeout_ms if opts and opts.timeout_ms else 5000
            return m.VerifierRef(name="read_after_write", loc=loc, options=options, timeout_ms=timeout)
        if isinstance(item, sm.InvariantItem):
            inv = item.invariant_check
            if inv.expect is not None:
                options = {"expect": self.expect(inv.expect, self.loc(path + ("invariant_check", "expect")))}
            else:
                http = inv.http
                assert http is not None  # the model refuses neither/both
                options = {"http": {"url": http.url, "status": http.status, "json_field": http.json_field,
                                    "equals": http.equals}}
            return m.VerifierRef(name="invariant_check", loc=loc, options=options, timeout_ms=inv.timeout_ms or 5000)
        user = item
        module = self.verifier_module(user.verifier, self.loc(path + ("verifier",)))
        if not module:
            return None
        return m.VerifierRef(name=user.verifier, loc=loc, options={"module": module, "args": dict(user.options)},
                             timeout_ms=user.timeout_ms or 5000)

    def verifier_dirs(self) -> list[Path]:
        """`verifiers/` next to the file and in each folder above it (up to the project root), then
        the run's verifiers folder: the nearest one wins."""
        if self._verifier_dirs is None:
            dirs: list[Path] = []
            root = Path(self.settings.root).resolve()
            here = (root / self.source.path).resolve().parent
            while True:
                dirs.append(here / "verifiers")
                if here == root or root not in here.parents:
                    break
                here = here.parent
            configured = Path(self.settings.verifiers_dir).resolve()
            if configured not in dirs:
                dirs.append(configured)
            self._verifier_dirs = dirs
        return self._verifier_dirs

    def verifier_module(self, name: str, loc: Location) -> str | None:
        for folder in self.verifier_dirs():
            for candidate in (folder / f"{name}.py", folder / name / "__init__.py"):
                if candidate.is_file():
                    rel = os.path.relpath(candidate, Path.cwd())
                    return rel.replace(os.sep, "/")
        known = sorted({p.stem for d in self.verifier_dirs() if d.is_dir() for p in d.glob("*.py")
                        if not p.name.startswith("_")})
        builtin = ", ".join(sm.BUILTIN_VERIFIERS)
        guess = did_you_mean(name, known + list(sm.BUILTIN_VERIFIERS)) if known else ""
        # (a verifier name is an identifier; a file name found in verifiers/ may hold anything)
        hint = (f"did you mean {quote(guess, NAME_SHOWN)}? " if guess else "") + (
            f"create verifiers/{escape(name)}.py with a verify(context) function, or use a built-in one ({builtin})")
        if known:
            hint += f"; user verifiers found: {', '.join(escape(k) for k in known)}"
        self.problems.append(Problem(loc, f"unknown verifier {quote(name, NAME_SHOWN)}", hint))
        return None


@functools.cache
def _step_adapter() -> TypeAdapter[Any]:
    """One step on its own, for the steps of a file that did not validate (`StepBuilder.salvage`);
    built when first needed, as the models are."""
    return TypeAdapter(sm.Step)


def baseline_of(path: str, prefix: str, index: int, kind: str, name: str | None) -> tuple[str, str]:
    """(name, baseline file) of the `index`th (1-based) step of a spec, an aria_snapshot or screenshot
    check: `<spec>.snapshots/<name>.yml|png`, the name defaulting to `<prefix>step-<index>`."""
    name = name or f"{prefix}step-{index}"
    return name, f"{path}.snapshots/{name}{'.yml' if kind == 'aria_snapshot' else '.png'}"


def shared_baseline(loc: Location, baseline: str, first: Location) -> Problem:
    return Problem(loc, f"baseline '{baseline.rsplit('/', 1)[-1]}' is already used by the check at line {first.line}",
                   "give each check its own 'name'; two checks cannot share one baseline file")


def shared_baselines(source: Source, lists: Sequence[tuple[PathKey, str | None]]) -> list[Problem]:
    """Two checks of one file sharing a baseline, read from the steps as written (each list of steps
    with its default names' prefix): for a file that does not validate, whose steps are not built,
    so that this is reported in the same pass as what else is wrong. A check without a name is
    counted only while its default name is known: not after a call or a group (whose steps are
    counted too), nor in a list whose prefix is None (hooks run before it)."""
    problems: list[Problem] = []
    first: dict[str, Location] = {}
    for path, prefix in lists:
        steps = source.get(path)
        for i, step in enumerate(steps if isinstance(steps, list) else ()):
            if isinstance(step, dict) and any(key in step for key in (*sm.BLOCK_STEPS, "popup")):
                prefix = None
            if not isinstance(step, dict) or step.get("kind") not in m.SNAPSHOT_EXPECTS:
                continue
            name = step.get("name") if isinstance(step.get("name"), str) else None
            if name is None and prefix is None:
                continue
            _, baseline = baseline_of(source.path, prefix or "", i + 1, str(step["kind"]), name)
            loc = source.loc(path + (i,))
            if first.setdefault(baseline, loc) is not loc:
                problems.append(shared_baseline(loc, baseline, first[baseline]))
    return problems


def snapshot_slug(name: str) -> str:
    """A scenario's or a rule's name as part of a baseline's file name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.") or "x"


def act_extras(step: sm.ActStep) -> dict[str, Any]:
    """The v1.1 keys of an act (typing, drag and drop, events, dialogs) as `model.Act` fields."""
    dialog = step.dialog
    return {"delay_ms": step.delay_ms or 0, "to_selector": step.to, "event": step.event,
            "detail": json.dumps(step.detail) if "detail" in step.model_fields_set else None,
            "dialog": m.DialogAnswer(accept=dialog.accept, message=dialog.message, answer=dialog.answer)
            if dialog is not None else None}


def axe_options(item: Any) -> m.AxeOptions:
    """The axe-core options of an `accessible` expect or a `no_accessibility_violations` assertion."""
    rules = item.rules
    return m.AxeOptions(impact=item.impact, include=tuple(rules.include) if rules else (),
                        skip=tuple(rules.skip) if rules else (), exclude=tuple(item.exclude))


def check_steps_file(display: str, settings: Settings, library: StepsLibrary) -> list[Problem]:
    """A steps file checked on its own (`flowwalk validate` of a folder that holds one). With every
    parameter defaulted, its steps are built as a call with no arguments would build them; a
    parameter without a default leaves them to be checked where the file is called (their shape may
    depend on the arguments), and only the file's top level is checked here."""
    loaded = library.load(display)
    if isinstance(loaded, Problem):
        return [loaded]
    if loaded.params is None:
        return list(loaded.problems)
    if all(param.default is not None for param in loaded.params.values()):
        builder = StepBuilder(loaded.source, settings, library=library)
        builder.blocks.start_test()
        builder.blocks.call(display, {}, Location(loaded.source.path, 1, 1))
        return builder.problems
    steps = loaded.source.data.get("steps")
    # the steps wait for a call; a stand-in that is valid lets the rest of the file be checked
    data = dict(loaded.source.data)
    if isinstance(steps, list) and steps:
        data["steps"] = [{"type": "wait", "ms": 1}]
    try:
        sm.StepsFileModel.model_validate(data)
    except ValidationError as exc:
        return errors_to_problems(exc, loaded.source, sm.StepsFileModel)
    return []
