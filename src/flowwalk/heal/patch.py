"""Heals as a patch of the spec files: the diff a team reviews and keeps.

A heal (`events.Heal`, from a report's `healed` findings) names a spec file, the line of an act
step and the selector it replaced. `plan_patch` finds that step again in the file and rewrites
only the selector's own text, in place, so comments, key order, indentation, quoting of other
values and line endings stay as written:

- YAML (flows, rule files, steps files): the `selector` value of the step mapping starting on that
  line, set in ruamel.yaml's round-trip tree (spec/writer.py's `YamlEdit`) and written by it: in
  the value's own quotes, or in the other quotes when the new selector holds the one and not the
  other (`'[data-testid="x"]'`, never `"[data-testid=\\"x\\"]"`); plain stays plain where YAML
  reads it back as written. Of what ruamel writes only the changed characters are taken, so the
  rest of the file stays byte for byte as it was;
- JSON (flows, steps files): the `selector` string of the step object starting on that line,
  replaced in the text (a round-trip library would write YAML, or lose the file's layout);
- `.robot` suites: the `locator "..."` embedded in the keyword call on that line, escaped as Robot
  Framework reads it (`\\`, `\\${`).

Every rewrite is checked by reading the new text back with the same parser: the one value changes
to the new selector and nothing else changes, or the heal is skipped. A heal is also skipped, with
its reason, when the file changed since the run (the old selector is no longer at that line), when
the selector comes from a variable or a YAML anchor, or when the report holds two different heals
of one step. The same heal recorded by several attempts or shards is written once.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence, Union

import yaml

from flowwalk.events import Heal
from flowwalk.heal.rename import rewrite, tokens as selector_tokens
from flowwalk.report.records import read_heal, read_run
from flowwalk.spec.source import LineTable, SourceError, decode, escape, parse_json, parse_yaml, quote
from flowwalk.spec.writer import YamlEdit, anchored, block_scalar, spelled, value_line

SPEC_SUFFIXES = (".yaml", ".yml", ".json", ".robot")
_BREAKS = re.compile(r"[\r\n\x85\u2028\u2029]")
_PLACEHOLDER = re.compile(r"\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}")
_JSON_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"')
_Key = Union[str, int]


@dataclass(frozen=True)
class SelectorEdit:
    """One heal as a change of the text: `old_lines` (first_line..last_line) become `new_lines`."""

    path: str
    first_line: int
    last_line: int
    old_lines: tuple[str, ...]   # without their line endings
    new_lines: tuple[str, ...]
    heal: Heal
    #: the tests that recorded this heal, in report order
    tests: tuple[str, ...]
    #: the character range of the old selector's text in the file, and what replaces it
    start: int
    end: int
    replacement: str


@dataclass(frozen=True)
class Skipped:
    """A heal that is not in the patch, and why."""

    path: str
    line: int
    reason: str

    def render(self) -> str:
        return f"{escape(self.path)}:{self.line}: skipped: {self.reason}"


@dataclass(frozen=True)
class HealPatch:
    """Every heal of a report, as edits of the spec files (and the heals that could not be)."""

    root: Path
    edits: tuple[SelectorEdit, ...]
    skipped: tuple[Skipped, ...]
    #: heals the spec files already have (applied before): nothing to do
    kept: tuple[Heal, ...] = ()
    #: per spec path: (the text that was read, the text with every edit made)
    texts: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: whether the file started with a UTF-8 byte order mark (kept when writing)
    boms: dict[str, bool] = field(default_factory=dict)

    @property
    def diff(self) -> str:
        """A unified diff (`git apply` / `patch -p1` from the root); empty when nothing changes."""
        return "".join(unified_diff(path, old, new) for path, (old, new) in sorted(self.texts.items()))


# --- collecting heals ------------------------------------------------------------------------------


def collect_heals(report_dir: Path) -> list[tuple[Heal, tuple[str, ...]]]:
    """Every distinct heal of the report (each attempt of each test, every shard), with the tests
    that recorded it; a heal found by several attempts or shards is listed once."""
    run = read_run(report_dir)
    found: dict[tuple[str, int, str, str], tuple[Heal, list[str]]] = {}
    for test in run.tests:
        records = [a.record for a in test.history] or ([test.final] if test.final else [])
        for record in records:
            for finding in record.findings:
                heal = read_heal(finding)
                if heal is None:
                    continue
                key = (heal.path, heal.line, heal.old_selector, heal.new_selector)
                if key not in found:
                    found[key] = (heal, [])
                if test.test_id not in found[key][1]:
                    found[key][1].append(test.test_id)
    return [(heal, tuple(tests)) for heal, tests in found.values()]


# --- planning --------------------------------------------------------------------------------------


class _Refused(Exception):
    """This heal cannot be written into the file; the message says why."""


class _AlreadyKept(Exception):
    """The spec already has the healed selector at that step (the patch was applied before)."""


@dataclass(frozen=True)
class _Site:
    """Where the old selector's text sits, and the spellings of the new one to try, best first."""

    start: int
    end: int
    tokens: tuple[str, ...]


def plan_patch(report_dir: Path, root: Path, *, confine: bool = True,
               extra: Sequence[tuple[Heal, tuple[str, ...]]] = ()) -> HealPatch:
    """The heals of `report_dir` as edits of the spec files under `root` (paths in the report are
    relative to the folder the run ran in: pass that folder). With `confine` (publish, the MCP
    tool) a path that leads outside `root` is skipped; without it (`flowwalk heal` run where the
    run ran) such a path is taken as the run wrote it. `extra` heals (with their tests) are planned
    as if the report held them: the MCP server's agent-chosen candidates."""
    root = Path(root)
    heals = collect_heals(Path(report_dir)) + list(extra)
    skipped: list[Skipped] = []
    by_step: dict[tuple[str, int, str], list[tuple[Heal, tuple[str, ...]]]] = {}
    for heal, tests in heals:
        by_step.setdefault((heal.path, heal.line, heal.old_selector), []).append((heal, tests))
    chosen: dict[str, list[tuple[Heal, tuple[str, ...]]]] = {}
    for (path, line, old), group in by_step.items():
        if len(group) > 1:
            news = ", ".join(f"{quote(h.new_selector)} ({', '.join(t)})" for h, t in group)
            skipped.append(Skipped(path, line, f"{quote(old)} was healed to different selectors: {news}; "
                                               "choose one and edit the spec by hand"))
            continue
        chosen.setdefault(path, []).append(group[0])
    edits: list[SelectorEdit] = []
    kept: list[Heal] = []
    texts: dict[str, tuple[str, str]] = {}
    boms: dict[str, bool] = {}
    for path, group in chosen.items():
        group.sort(key=lambda pair: pair[0].line)
        try:
            file, text, bom = _read_spec(root, path, confine)
        except _Refused as refused:
            skipped.extend(Skipped(path, heal.line, str(refused)) for heal, _ in group)
            continue
        file_edits: list[SelectorEdit] = []
        for heal, tests in group:
            try:
                file_edits.append(_edit(file, text, heal, tests))
            except _Refused as refused:
                skipped.append(Skipped(path, heal.line, str(refused)))
            except _AlreadyKept:
                kept.append(heal)
        # one line of a steps file called with different values is one edit of what it writes
        file_edits = list({(e.start, e.end, e.replacement): e for e in file_edits}.values())
        if not file_edits:
            continue
        new_text = text
        for edit in sorted(file_edits, key=lambda e: e.start, reverse=True):
            new_text = new_text[:edit.start] + edit.replacement + new_text[edit.end:]
        edits.extend(file_edits)
        texts[path] = (text, new_text)
        boms[path] = bom
    edits.extend(_rename_everywhere(root, refactor_renames(h for h, _ in heals), texts, boms,
                                    Path(report_dir), confine))
    edits.sort(key=lambda e: (e.path, e.first_line))
    skipped.sort(key=lambda s: (s.path, s.line))
    return HealPatch(root=root, edits=tuple(edits), skipped=tuple(skipped), kept=tuple(kept), texts=texts,
                     boms=boms)


def build_patch(report_dir: Path, root: Path) -> str:
    """The unified diff of the spec files that keeps every heal of `report_dir` ("" when none)."""
    return plan_patch(report_dir, root).diff


def apply_patch(patch: HealPatch) -> list[Path]:
    """Write the patched spec files; returns them. A file that changed since `plan_patch` read it
    is left alone (raises `PatchConflictError` after writing the others)."""
    written: list[Path] = []
    changed: list[str] = []
    for path, (old, new) in sorted(patch.texts.items()):
        file = patch.root / path
        try:
            current = decode(file.read_bytes(), path)
        except (OSError, SourceError):
            changed.append(path)
            continue
        if current != old:
            changed.append(path)
            continue
        data = (("\ufeff" if patch.boms.get(path) else "") + new).encode("utf-8")
        # a whole new file or none: an interrupted write must not leave half a spec behind
        fd, tmp = tempfile.mkstemp(prefix=f".{file.name}.", suffix=".heal", dir=file.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.chmod(tmp, file.stat().st_mode & 0o7777)
            os.replace(tmp, file)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        written.append(file)
    if changed:
        raise PatchConflictError(changed, written)
    return written


class PatchConflictError(Exception):
    """Spec files that changed between reading and writing the patch; they were not written."""

    def __init__(self, paths: list[str], written: list[Path]):
        self.paths = paths
        self.written = written
        super().__init__(f"changed while the patch was made, not written: {', '.join(paths)}")


def _read_spec(root: Path, path: str, confine: bool) -> tuple[Path, str, bool]:
    if not path.lower().endswith(SPEC_SUFFIXES):
        raise _Refused(f"not a spec file flowwalk heals ({', '.join(SPEC_SUFFIXES)})")
    file = (root / path).resolve()
    if confine and not file.is_relative_to(root.resolve()):
        raise _Refused(f"the file is outside {root} (run flowwalk heal from the folder the run ran in, "
                       f"or pass it as --root)")
    if not file.is_file():
        raise _Refused(f"no such file under {root} (run flowwalk heal from the folder the run ran in, "
                       f"or pass it as --root)")
    try:
        data = file.read_bytes()
        text = decode(data, path)
    except OSError as error:
        raise _Refused(f"cannot read the file: {error.strerror or error}") from None
    except SourceError as error:
        raise _Refused(error.problem.message) from None
    return file, text, data.startswith(b"\xef\xbb\xbf")


def _edit(file: Path, text: str, heal: Heal, tests: tuple[str, ...]) -> SelectorEdit:
    if heal.old_selector == heal.new_selector:
        raise _Refused(f"the heal keeps the selector {quote(heal.old_selector)}: nothing to change")
    if _BREAKS.search(heal.new_selector):
        raise _Refused("the new selector holds a line break; edit the spec by hand")
    suffix = file.suffix.lower()
    if suffix == ".robot":
        site, check = _robot_site(text, heal)
    elif suffix == ".json":
        site, check = _json_site(text, heal)
    else:
        site, check = _yaml_site(text, heal)
    for token in site.tokens:
        if _BREAKS.search(token):
            continue
        candidate = text[:site.start] + token + text[site.end:]
        if check(candidate):
            return _as_edit(text, heal, tests, site.start, site.end, token)
    raise _Refused(f"{quote(heal.new_selector)} cannot be written here so that it reads back unchanged; "
                   "edit the spec by hand")


def _as_edit(text: str, heal: Heal, tests: tuple[str, ...], start: int, end: int, token: str) -> SelectorEdit:
    table = LineTable(text)
    first, _ = table.position(start)
    last, _ = table.position(max(start, end - 1))
    begin = table.starts[first - 1]
    stop = table.starts[last] if last < len(table.starts) else len(text)
    old_block = text[begin:stop]
    new_block = text[begin:start] + token + text[end:stop]
    return SelectorEdit(path=heal.path, first_line=first, last_line=last, old_lines=tuple(_lines(old_block)),
                        new_lines=tuple(_lines(new_block)), heal=heal, tests=tests, start=start, end=end,
                        replacement=token)


def _lines(block: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", re.sub(r"(\r\n|\r|\n)$", "", block))


def _as_written(heal: Heal, written: str) -> Heal | None:
    """The heal as it applies to the selector `written` in the file: itself when that is its old
    selector; when the file writes it with variables (a steps file's `{{position}}`) and the heal is
    a refactor's renames (heal/rename.py), the same renames of what is written; else None."""
    if written == heal.old_selector:
        return heal
    if not heal.renames or not _PLACEHOLDER.search(written):
        return None
    parts = _PLACEHOLDER.split(written)
    if not re.fullmatch(".+?".join(re.escape(p) for p in parts), heal.old_selector):
        return None
    new = rewrite(written, heal.renames)
    return None if new is None else dataclasses.replace(heal, old_selector=written, new_selector=new)


def _changed_since(heal: Heal, seen: list[str], what: str) -> Exception:
    """Why no selector at the heal's line is the old one (`seen`: the selectors that are there)."""
    if heal.new_selector in seen:
        return _AlreadyKept()
    if not seen:
        return _Refused(f"no act step with a selector starts at line {heal.line} any more ({what}); the file "
                        f"changed since the run, so this heal of {quote(heal.old_selector)} was not applied")
    found = next((f for f in seen if _PLACEHOLDER.search(f)), seen[0])
    if _PLACEHOLDER.search(found):
        return _Refused(f"the selector is written with a variable ({quote(found)}), so the healed value "
                        f"{quote(heal.new_selector)} cannot replace it; edit the spec by hand")
    return _Refused(f"the selector at this step is now {quote(found)}, not {quote(heal.old_selector)}: the file "
                    "changed since the run, so this heal was not applied")


# --- YAML ------------------------------------------------------------------------------------------


def _yaml_site(text: str, heal: Heal) -> tuple[_Site, Any]:
    edit, data = _yaml_edit(text, heal.path)
    seen: list[str] = []
    for path, step in _yaml_steps(edit.doc, (), heal.line, set()):
        sub = _key_path(step, heal.selector_key)
        holder: Any = _at(step, sub[:-1]) if sub else None
        value = holder.get(sub[-1]) if sub and isinstance(holder, dict) else None
        if not isinstance(value, str) or sub is None:
            continue
        seen.append(str(value))
        written = _as_written(heal, str(value))
        if written is None:
            continue
        heal = written
        if anchored(value):
            raise _Refused("the selector comes from a YAML anchor shared with other steps; edit the anchor by hand")
        if block_scalar(value):
            raise _Refused("the selector is written as a block scalar (| or >); edit the spec by hand")
        line = value_line(holder, sub[-1])
        holder[sub[-1]] = spelled(heal.new_selector, value)
        start, end, replacement = edit.changes([line])[line]
        expected = copy.deepcopy(data)
        _set(expected, path + sub, heal.new_selector)
        return _Site(start, end, (replacement,)), lambda candidate: _yaml_reads(candidate, expected)
    raise _changed_since(heal, seen, "YAML")


def _yaml_edit(text: str, display: str) -> tuple[YamlEdit, Any]:
    """The file read to be edited, and its data as the loader reads it."""
    try:
        # the bounded reader first: a file that grew an alias bomb since the run is refused here,
        # before anything below expands or compares it
        parse_yaml(text, display)
    except SourceError as error:
        raise _Refused(f"the file is no longer a readable spec ({error.problem.message})") from None
    try:
        return YamlEdit(text), yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as error:
        raise _Refused(f"the file is no longer valid YAML ({str(error).splitlines()[0]})") from None


def _yaml_steps(node: Any, path: tuple[_Key, ...], line: int,
                seen: set[int]) -> Iterator[tuple[tuple[_Key, ...], dict[Any, Any]]]:
    """The step mappings of a `YamlEdit.doc` that start at `line`, with their paths."""
    if isinstance(node, (dict, list)):
        if id(node) in seen:
            return  # an alias: its content was walked where the anchor is
        seen.add(id(node))
    if isinstance(node, dict):
        if len(path) >= 2 and path[-2] == "steps" and isinstance(path[-1], int) \
                and getattr(node, "lc").line + 1 == line:
            yield path, node
        for key, value in node.items():
            yield from _yaml_steps(value, path + (key,), line, seen)
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _yaml_steps(item, path + (i,), line, seen)


def _yaml_reads(text: str, expected: Any) -> bool:
    try:
        return bool(yaml.safe_load(text) == expected)
    except yaml.YAMLError:
        return False


def _at(data: Any, path: tuple[_Key, ...]) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _key_path(step: Any, key: str) -> tuple[_Key, ...] | None:
    """Where in a step (its data) the healed selector is: `selector`, `for` (a wait), `await` (an
    act's), or `fields.<name>` (an emit field's selector)."""
    if not isinstance(step, dict):
        return None
    if key.startswith("fields."):
        name = key[len("fields."):]
        fields = step.get("fields")
        for i, item in enumerate(fields if isinstance(fields, list) else []):
            if isinstance(item, dict) and item.get("name") == name:
                return ("fields", i, "selector")
        return None
    return (key,)


def _set(data: Any, path: tuple[_Key, ...], value: str) -> None:
    for part in path[:-1]:
        data = data[part]
    data[path[-1]] = value


# --- JSON ------------------------------------------------------------------------------------------


def _json_site(text: str, heal: Heal) -> tuple[_Site, Any]:
    try:
        source = parse_json(text, heal.path)
    except SourceError as error:
        raise _Refused(f"the file is no longer valid JSON ({error.problem.message})") from None
    table = LineTable(text)
    seen: list[str] = []
    for path, (line, _col) in source.values.items():
        if line != heal.line or len(path) < 2 or path[-2] != "steps" or not isinstance(path[-1], int) \
                or not isinstance(source.get(path), dict):
            continue
        sub = _key_path(source.get(path), heal.selector_key)
        where = source.values.get(path + sub) if sub else None
        value = source.get(path + sub) if sub else None
        if where is None or not isinstance(value, str) or sub is None:
            continue
        seen.append(value)
        written = _as_written(heal, value)
        if written is None:
            continue
        heal = written
        start = table.starts[where[0] - 1] + where[1] - 1
        token = _JSON_STRING.match(text, start)
        if token is None:  # pragma: no cover - the parser just read a string here
            continue
        expected = copy.deepcopy(source.data)
        _set(expected, path + sub, heal.new_selector)
        # keep the file's own spelling of non-ASCII text: \\u escapes if it used them here
        ascii_first = "\\u" in token.group()
        tokens = (json.dumps(heal.new_selector, ensure_ascii=ascii_first),
                  json.dumps(heal.new_selector, ensure_ascii=not ascii_first))
        return _Site(token.start(), token.end(), tokens), lambda candidate: _json_reads(candidate, expected)
    raise _changed_since(heal, seen, "JSON")


def _json_reads(text: str, expected: Any) -> bool:
    try:
        return bool(json.loads(text) == expected)
    except ValueError:
        return False


# --- Robot Framework -------------------------------------------------------------------------------


def _robot_calls(text: str, line: int) -> list[Any]:
    """The keyword tokens of the calls written on `line` (Robot Framework's own parser)."""
    from robot.api import Token, get_model
    from robot.api.parsing import ModelVisitor
    from robot.parsing.model import statements

    found: list[Any] = []

    class Finder(ModelVisitor):  # type: ignore[misc]  # RF ships no types for it
        def visit_KeywordCall(self, node: statements.KeywordCall) -> None:  # noqa: N802 (RF's visitor API)
            token = node.get_token(Token.KEYWORD)
            if token is not None and token.lineno == line:
                found.append(token)

    Finder().visit(get_model(text))
    return found


def _robot_literal(value: str) -> str:
    """`value` as Robot Framework text that reads back as exactly `value` (no variables)."""
    return re.sub(r"([$@&%])\{", r"\\\1{", value.replace("\\", "\\\\"))


def _robot_site(text: str, heal: Heal) -> tuple[_Site, Any]:
    from robot.utils import unescape
    from robot.variables import search_variable

    from flowwalk.spec.robot_keywords import Match, match_keyword

    new = heal.new_selector
    if new != new.strip() or "  " in new or "\t" in new or "|" in new:
        raise _Refused(f"{quote(new)} has leading, trailing or repeated spaces, a tab or a '|', which a .robot "
                       "cell cannot hold as written; edit the suite by hand")
    if _PLACEHOLDER.search(new):
        raise _Refused(f"{quote(new)} holds '{{{{...}}}}', which a .robot suite refuses; edit the suite by hand")
    table = LineTable(text)
    seen: list[str] = []
    for token in _robot_calls(text, heal.line):
        match = match_keyword(token.value)
        if not isinstance(match, Match) or "css" not in match.args:
            continue
        raw = match.args["css"]
        if search_variable(raw, ignore_errors=True).start >= 0:  # an unescaped ${...}, @{...}, ...
            raise _Refused(f"the locator is written with a variable ({quote(raw)}), so the healed value "
                           f"{quote(new)} cannot replace it; edit the suite by hand")
        seen.append(str(unescape(raw)))
        if seen[-1] != heal.old_selector:
            continue
        written = _robot_literal(new)
        name = token.value
        # the locator's place in the call: the occurrence whose replacement the same keyword reads back
        for at in (m.start() for m in re.finditer(re.escape(raw), name)):
            renamed = name[:at] + written + name[at + len(raw):]
            again = match_keyword(renamed)
            if isinstance(again, Match) and again.keyword is match.keyword and again.args.get("css") == written \
                    and {k: v for k, v in again.args.items() if k != "css"} == \
                    {k: v for k, v in match.args.items() if k != "css"}:
                start = table.starts[heal.line - 1] + token.col_offset + at
                return (_Site(start, start + len(raw), (written,)),
                        lambda candidate: _robot_reads(candidate, heal.line, match.keyword, new))
    raise _changed_since(heal, seen, "a locator keyword call")


def _robot_reads(text: str, line: int, keyword: Any, new: str) -> bool:
    from robot.utils import unescape

    from flowwalk.spec.robot_keywords import Match, match_keyword

    for token in _robot_calls(text, line):
        match = match_keyword(token.value)
        if isinstance(match, Match) and match.keyword is keyword and str(unescape(match.args["css"])) == new:
            return True
    return False


# --- the diff --------------------------------------------------------------------------------------


def _diff_lines(text: str) -> list[str]:
    """Lines as `git diff` splits them (at `\\n` only), each with its ending."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


def unified_diff(path: str, old: str, new: str) -> str:
    """One file's unified diff with `a/` and `b/` prefixes; marks a last line without a newline."""
    if old == new:
        return ""
    out: list[str] = []
    for line in difflib.unified_diff(_diff_lines(old), _diff_lines(new), f"a/{path}", f"b/{path}", n=3):
        if line.startswith(("---", "+++")):
            line = line.rstrip("\n") + "\n"
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


def describe(edits: Iterable[SelectorEdit]) -> list[str]:
    """One line per edit, for people: `path:line: 'old' -> 'new' (method, score)`."""
    return [f"{escape(e.path)}:{e.first_line}: {quote(e.heal.old_selector)} -> {quote(e.heal.new_selector)} "
            f"({e.heal.method}, score {e.heal.score:.2f})" for e in edits]


# --- a refactor, renamed everywhere ----------------------------------------------------------------

#: the keys of a step, rule, emit field or verifier whose string is a selector
_SELECTOR_KEYS = frozenset({"selector", "for", "await", "child_scope"})
#: the keys whose list holds selectors
_SELECTOR_LISTS = frozenset({"mask", "dismiss"})


def refactor_renames(heals: Iterable[Heal]) -> dict[str, str]:
    """The run's refactor as one map: every id and class its heals renamed (`#new-todo` ->
    `#todo-input`). A token two heals renamed differently is left out."""
    found: dict[str, str | None] = {}
    for heal in heals:
        for old, new in heal.renames.items():
            found[old] = new if found.get(old, new) == new else None
    return {old: new for old, new in found.items() if new is not None}


def _spec_files(root: Path, report_dir: Path) -> list[str]:
    """Every spec, rules, steps and .robot file under `root` (the report folder left out), as paths
    relative to it."""
    from flowwalk.spec.loader import SKIP_DIRS, file_kind

    skip = report_dir.resolve()
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and (Path(folder) / d).resolve() != skip)
        found += [Path(os.path.relpath(Path(folder) / name, root)).as_posix() for name in sorted(files)
                  if file_kind(name) is not None]
    return found


def _renamed_data(data: Any, renames: dict[str, str]) -> Any:
    """`data` (a parsed spec) with the renames made in every selector it holds."""
    if isinstance(data, list):
        return [_renamed_data(item, renames) for item in data]
    if not isinstance(data, dict):
        return data
    out: dict[Any, Any] = {}
    for key, value in data.items():
        if key in _SELECTOR_KEYS and isinstance(value, str):
            out[key] = rewrite(value, renames) or value
        elif key in _SELECTOR_LISTS and isinstance(value, list):
            out[key] = [rewrite(v, renames) or v if isinstance(v, str) else v for v in value]
        else:
            out[key] = _renamed_data(value, renames)
    return out


@dataclass(frozen=True)
class _Rename:
    """One selector of a file renamed: its text at start..end, the selectors, the text written there."""

    start: int
    end: int
    old: str
    new: str
    key: str
    replacement: str


def _rename_everywhere(root: Path, renames: dict[str, str], texts: dict[str, tuple[str, str]],
                       boms: dict[str, bool], report_dir: Path, confine: bool) -> list[SelectorEdit]:
    """The run's refactor (`renames`) made in every selector of every spec file under `root` and of
    the files the heals edited: absence checks and steps no run reached included, since renaming is
    not healing and the diff is reviewed. Adds the files it changes to `texts`."""
    if not renames:
        return []
    edits: list[SelectorEdit] = []
    for path in dict.fromkeys([*texts, *_spec_files(root, report_dir)]):
        if path in texts:
            original, current = texts[path]
        else:
            try:
                _, original, boms[path] = _read_spec(root, path, confine)
            except _Refused:
                continue
            current = original
        renamed = _renamed_text(path, current, renames)
        if renamed is None:
            continue
        new_text, chosen = renamed
        table = LineTable(current)
        for site, token in chosen:
            heal = Heal(old_selector=site.old, new_selector=site.new, method="renamed", score=1.0, target="",
                        step_index=0, path=path, line=table.position(site.start)[0], selector_key=site.key,
                        kind="rename", renames={t: renames[t] for t in selector_tokens(site.old) if t in renames})
            edits.append(_as_edit(current, heal, (), site.start, site.end, token))
        texts[path] = (original, new_text)
    return edits


def _renamed_text(path: str, text: str,
                  renames: dict[str, str]) -> tuple[str, list[tuple[_Rename, str]]] | None:
    """`text` with the renames made, and each renamed selector with the text written; None when
    nothing is renamed or the renamed file would not read back as the same spec renamed."""
    suffix = Path(path).suffix.lower()
    try:
        if suffix == ".robot":
            sites = _robot_renames(text, renames)
            reads: Any = None
        elif suffix == ".json":
            sites = _json_renames(text, path, renames)
            expected = _renamed_data(json.loads(text), renames)
            reads = lambda candidate: _json_reads(candidate, expected)  # noqa: E731
        else:
            edit, data = _yaml_edit(text, path)
            sites = _yaml_renames(edit, renames)
            expected = _renamed_data(data, renames)
            reads = lambda candidate: _yaml_reads(candidate, expected)  # noqa: E731
    except (_Refused, ValueError):
        return None
    if not sites:
        return None
    new = text
    # two selectors on one line of YAML share one edit of it: made once
    for site in sorted({(s.start, s.end): s for s in sites}.values(), key=lambda s: s.start, reverse=True):
        new = new[:site.start] + site.replacement + new[site.end:]
    if reads is not None and not reads(new):
        return None
    return new, [(site, site.replacement) for site in sites]


def _yaml_renames(edit: YamlEdit, renames: dict[str, str]) -> list[_Rename]:
    found: list[tuple[int, str, str, str]] = []
    seen: set[int] = set()

    def site(name: str, holder: Any, key: Any) -> None:
        value = holder[key]
        if not isinstance(value, str) or block_scalar(value) or anchored(value):
            return
        new = rewrite(str(value), renames)
        if new is None or _BREAKS.search(new):
            return
        found.append((value_line(holder, key), str(value), new, name))
        holder[key] = spelled(new, value)

    def walk(node: Any) -> None:
        if not isinstance(node, (dict, list)) or id(node) in seen:
            return
        seen.add(id(node))
        for key, value in (node.items() if isinstance(node, dict) else enumerate(node)):
            if key in _SELECTOR_KEYS and isinstance(node, dict):
                site(str(key), node, key)
            elif key in _SELECTOR_LISTS and isinstance(node, dict) and isinstance(value, list):
                for i in range(len(value)):
                    site(str(key), value, i)
            else:
                walk(value)

    walk(edit.doc)
    changes = edit.changes([line for line, *_ in found])
    return [_Rename(*changes[line][:2], old, new, key, changes[line][2]) for line, old, new, key in found
            if line in changes]


def _json_renames(text: str, path: str, renames: dict[str, str]) -> list[_Rename]:
    source = parse_json(text, path)
    table = LineTable(text)
    sites: list[_Rename] = []
    for where, (line, col) in source.values.items():
        value = source.get(where)
        key = where[-1] if where and isinstance(where[-1], str) else where[-2] if len(where) > 1 else None
        if not isinstance(value, str) or not (key in _SELECTOR_KEYS and where[-1] == key
                                              or key in _SELECTOR_LISTS and isinstance(where[-1], int)):
            continue
        new = rewrite(value, renames)
        token = _JSON_STRING.match(text, table.starts[line - 1] + col - 1)
        if new is None or token is None:
            continue
        ascii_first = "\\u" in token.group()
        written = json.dumps(new, ensure_ascii=ascii_first)
        sites.append(_Rename(token.start(), token.end(), value, new, str(key), written))
    return sites


def _robot_renames(text: str, renames: dict[str, str]) -> list[_Rename]:
    from robot.api import Token, get_model
    from robot.api.parsing import ModelVisitor
    from robot.utils import unescape
    from robot.variables import search_variable

    from flowwalk.spec.robot_keywords import Match, match_keyword

    table = LineTable(text)
    sites: list[_Rename] = []

    class Finder(ModelVisitor):  # type: ignore[misc]  # RF ships no types for it
        def visit_KeywordCall(self, node: Any) -> None:  # noqa: N802 (RF's visitor API)
            token = node.get_token(Token.KEYWORD)
            match = match_keyword(token.value) if token is not None else None
            if not isinstance(match, Match) or "css" not in match.args:
                return
            raw = match.args["css"]
            if search_variable(raw, ignore_errors=True).start >= 0:
                return
            old = str(unescape(raw))
            new = rewrite(old, renames)
            if new is None or new != new.strip() or "  " in new or "\t" in new or "|" in new:
                return
            written = _robot_literal(new)
            for at in (m.start() for m in re.finditer(re.escape(raw), token.value)):
                again = match_keyword(token.value[:at] + written + token.value[at + len(raw):])
                if isinstance(again, Match) and again.keyword is match.keyword and again.args.get("css") == written:
                    start = table.starts[token.lineno - 1] + token.col_offset + at
                    sites.append(_Rename(start, start + len(raw), old, new, "selector", written))
                    return

    Finder().visit(get_model(text))
    return sites
