"""Bad input for the loaders: hypothesis strategies, and the one property every input must meet.

Shared by the short run in the test suite (`test_fuzz_loading.py`) and the long run
(`scripts/fuzz_load.py`). Three targets:

- `documents`: random YAML/JSON documents (keys and values drawn partly from the spec vocabulary,
  so that some get past the parser into the models), written as flow or rule files and loaded with
  `spec.loader.load_suites`;
- `mutations`: every valid example (`examples/`, `tests/corpus/**/good`) parsed, mutated (a key
  deleted, a value of the wrong type, a huge string, deep nesting, unicode, a key added), written
  back as YAML or JSON, then possibly damaged as text (a duplicated key line, an anchor/alias bomb,
  a NUL byte, invalid UTF-8, random bytes, truncation, an empty or comments-only file, tabs, CRLF),
  loaded with `load_suites`;
- `robot`: the `.robot` suites of the examples and the corpus with random cells (keywords,
  variables of every RF kind, settings, control structures, continuation lines, section headers),
  loaded with `spec.robot.load_robot_suite` and, through discovery, with `load_suites`.

The property (`check_load`): the load returns suites, or refuses with problems that each render as
`<path>:<line>:<col>: error: <one line>` plus `  hint: <one line>`; no other exception; the load
stays under `MAX_CPU_S` seconds of CPU and `MAX_PEAK_BYTES` of traced memory.
"""

from __future__ import annotations

import gc
import json
import re
import signal
import threading
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import yaml
from hypothesis import strategies as st

from flowwalk.errors import Problem, SpecError
from flowwalk.model import Suite
from flowwalk.settings import Secrets, Settings
from flowwalk.spec.loader import display_path, load_suites
from flowwalk.spec.robot import load_robot_suite

REPO = Path(__file__).resolve().parents[2]
#: bounds of one load; CPU time (not wall) so that a busy shared machine does not fail the property
MAX_CPU_S = 2.0
MAX_PEAK_BYTES = 64 * 1024 * 1024
#: wall seconds after which a load counts as hung and is interrupted
HANG_S = 20.0

SETTINGS = Settings(
    secret_names=("PASSWORD", "API_TOKEN", "DEMO_PASSWORD", "ADMIN_PASSWORD"),
    secrets=Secrets({"PASSWORD": "pw", "DEMO_PASSWORD": "pw"}),
    variables={"DEMO_USER": "ada@example.com", "EMAIL": "qa@example.com"},
    base_url="http://127.0.0.1:9",
)


def seed_files() -> dict[str, list[Path]]:
    """The valid inputs every mutation starts from, by format."""
    docs = sorted([*REPO.glob("examples/flows/*.flow.*"), *REPO.glob("examples/failing/*.flow.*"),
                   *REPO.glob("examples/**/*.rules.yaml"), *REPO.glob("tests/corpus/flows/good/*"),
                   *REPO.glob("tests/corpus/rules/good/*.rules.y*ml")])
    robots = sorted([*REPO.glob("examples/robot/*.robot"), *REPO.glob("tests/corpus/robot/*.robot")])
    return {"docs": [p for p in docs if p.is_file()], "robot": robots}


SEEDS = seed_files()
SEED_DATA: list[tuple[str, Any]] = [(p.name, yaml.safe_load(p.read_text())) for p in SEEDS["docs"]]
SEED_ROBOT: list[tuple[str, str]] = [(p.name, p.read_text()) for p in SEEDS["robot"]]


# --- the property -----------------------------------------------------------------------------------


class PropertyViolation(AssertionError):
    """An input broke the loading property; the message says how, and the file keeps the input."""


@dataclass(frozen=True)
class LoadResult:
    outcome: str          # accepted | refused
    problems: int
    wall_s: float
    cpu_s: float
    peak_bytes: int
    size: int


_EDITOR_BREAK = re.compile(r"\r\n|\r|\n")
_RENDERED = re.compile(r"(?P<path>[^\n]+?):(?P<line>[0-9]+):(?P<col>[0-9]+): error: (?P<msg>[^\n]+)\n"
                       r"  hint: (?P<hint>[^\n]+)")


def check_problem(problem: Problem, display: str, text: str | None) -> None:
    """One refusal reads `path:line:col: error: ...` + `  hint: ...`, at a place that exists."""
    rendered = problem.render()
    match = _RENDERED.fullmatch(rendered)
    if match is None:
        raise PropertyViolation(f"problem does not render as path:line:col: error + hint:\n{rendered!r}")
    if match["path"] != display:
        raise PropertyViolation(f"problem names {match['path']!r}, not the file {display!r}:\n{rendered}")
    line, col = int(match["line"]), int(match["col"])
    if line < 1 or col < 1:
        raise PropertyViolation(f"position {line}:{col} is not 1-based:\n{rendered}")
    if text is not None:
        # lines as an editor counts them: \n, \r\n and a lone \r end a line; NEL, LS, PS (PyYAML) and
        # VT, FF, FS, GS, RS (Robot Framework's str.splitlines()) do not
        lines = _EDITOR_BREAK.split(text)
        if line > len(lines) + 1:
            raise PropertyViolation(f"line {line} is past the end of the file ({len(lines)} lines):\n{rendered}")


class LoadHung(Exception):
    """A load still running after `HANG_S` seconds of wall time (raised by an interval timer)."""


def _on_alarm(_signum: int, _frame: Any) -> None:
    raise LoadHung(f"the load did not finish within {HANG_S:g} s")


def _measured(load: Callable[[], Any]) -> tuple[Any, BaseException | None, float, float, int]:
    # no collection during the load: a full collection of the fuzzer's own (large) heap must not be
    # billed to it (the load's own garbage is then counted in the peak too: a conservative bound)
    gc_was_on = gc.isenabled()
    gc.disable()
    # a hang must not hang the fuzz: in the main thread an interval timer interrupts it
    timed = threading.current_thread() is threading.main_thread()
    if timed:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, HANG_S)
    tracemalloc.start()
    wall, cpu = time.perf_counter(), time.thread_time()
    error: BaseException | None = None
    result: Any = None
    try:
        result = load()
    except BaseException as exc:  # noqa: BLE001 - classified by the caller
        error = exc
    finally:
        if gc_was_on:
            gc.enable()
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    cpu = time.thread_time() - cpu
    wall = time.perf_counter() - wall
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    if isinstance(error, LoadHung):
        raise PropertyViolation(f"{error} ({cpu:.1f} s of CPU)")
    return result, error, wall, cpu, peak


def _text_of(data: bytes) -> str | None:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _bounded(wall: float, cpu: float, peak: int, path: Path) -> None:
    if cpu > MAX_CPU_S:
        raise PropertyViolation(f"loading {path.name} took {cpu:.2f} s of CPU (limit {MAX_CPU_S} s)")
    if peak > MAX_PEAK_BYTES:
        raise PropertyViolation(f"loading {path.name} peaked at {peak / 2**20:.1f} MiB "
                                f"(limit {MAX_PEAK_BYTES / 2**20:.0f} MiB)")


def check_load(path: Path, data: bytes, settings: Settings = SETTINGS) -> LoadResult:
    """Write `data` to `path`, load it with `load_suites`, and check the property."""
    path.write_bytes(data)
    display = display_path(path)
    result, error, wall, cpu, peak = _measured(lambda: load_suites([str(path)], settings))
    if error is not None and not isinstance(error, SpecError):
        raise PropertyViolation(f"load_suites raised {type(error).__name__}: {error}") from error
    _bounded(wall, cpu, peak, path)
    text = _text_of(data)
    if isinstance(error, SpecError):
        if not error.problems:
            raise PropertyViolation("SpecError with no problem")
        for problem in error.problems:
            check_problem(problem, display, text)
        return LoadResult("refused", len(error.problems), wall, cpu, peak, len(data))
    if not (isinstance(result, list) and len(result) == 1 and isinstance(result[0], Suite)):
        raise PropertyViolation(f"load_suites returned {result!r}")
    return LoadResult("accepted", 0, wall, cpu, peak, len(data))


def check_robot(path: Path, data: bytes, settings: Settings = SETTINGS) -> LoadResult:
    """Write a `.robot` file and load it with `load_robot_suite` (and `load_suites` when it is a
    suite discovery would pick up); both must meet the property and agree."""
    path.write_bytes(data)
    display = display_path(path)
    result, error, wall, cpu, peak = _measured(lambda: load_robot_suite(path, display, settings))
    if error is not None:
        raise PropertyViolation(f"load_robot_suite raised {type(error).__name__}: {error}") from error
    _bounded(wall, cpu, peak, path)
    suite, problems = result
    text = _text_of(data)
    if suite is None and not problems:
        raise PropertyViolation("load_robot_suite returned neither a suite nor a problem")
    if suite is not None and problems:
        raise PropertyViolation("load_robot_suite returned a suite and problems")
    for problem in problems:
        check_problem(problem, display, text)
    # the same file through the public entry point (named explicitly, so always loaded)
    whole = check_load(path, data, settings)
    if (whole.outcome == "accepted") != (suite is not None):
        raise PropertyViolation(f"load_suites {whole.outcome} what load_robot_suite "
                                f"{'accepted' if suite is not None else 'refused'}")
    return LoadResult("accepted" if suite is not None else "refused", len(problems), wall + whole.wall_s,
                      cpu + whole.cpu_s, max(peak, whole.peak_bytes), len(data))


# --- strategies: random documents ---------------------------------------------------------------

KEYS = ("spec_version", "name", "description", "url", "allowed_hosts", "steps", "assertions", "type",
        "action", "selector", "target", "value", "kind", "vendor", "event", "severity", "optional", "ms",
        "for", "into", "await", "verify", "timeout_ms", "stabilize", "window_ms", "stable_reads", "count",
        "equals", "at_least", "at_most", "rules_version", "verification", "scenarios", "rules", "parents",
        "retry", "max", "delay_ms", "guard_policy", "child_scope", "interrupts", "variables", "secrets",
        "fields", "source", "attr", "expr", "options", "read_after_write", "invariant_check", "verifier",
        "<<")
VALUES = ("1", "1.1", 1, 1.1, "goto", "act", "expect", "wait", "extract", "emit", "click", "fill",
          "press", "hover", "scroll", "select", "check", "url_contains", "url_matches", "text_contains",
          "beacon", "count", "attribute", "ga4", "critical", "warning", "/", "/login", "http://127.0.0.1/",
          "javascript:alert(1)", "{{EMAIL}}", "{{PASSWORD}}", "{{ NOPE }}", "{{", "#id", "//xpath",
          "xpath=//a", "a | b", "text=Log in", "(", "[", "*", "a" * 513, "", " ", True, False, None, 0, -1,
          10**30, 1e308, "yes", "no", "~", "0x1F", "2024-01-01", "skip", "abort", "paused", "override")

scalars = st.one_of(
    st.sampled_from(VALUES), st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
    st.text(max_size=40),
)
keys = st.one_of(st.sampled_from(KEYS), st.text(max_size=20))
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=6), st.dictionaries(keys, children, max_size=8)),
    max_leaves=60,
)
#: a top level that looks like a spec more often than not
spec_like = st.fixed_dictionaries(
    {}, optional={k: json_values for k in ("spec_version", "name", "url", "steps", "rules_version",
                                             "scenarios", "assertions", "allowed_hosts", "verification")},
).flatmap(lambda d: st.dictionaries(keys, json_values, max_size=4).map(lambda extra: {**d, **extra}))

FLOW_NAMES = ("x.flow.yaml", "x.flow.yml", "x.flow.json", "x.rules.yaml", "x.rules.yml")


def encode(data: Any, as_json: bool, flow_style: bool | None, ascii_only: bool) -> bytes:
    if as_json:
        return json.dumps(data, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    text = yaml.safe_dump(data, default_flow_style=flow_style, allow_unicode=not ascii_only, sort_keys=False)
    return text.encode("utf-8", "surrogatepass")


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, bytes]:
    """(file name, bytes): a random document written as a flow or rule file."""
    data = draw(st.one_of(spec_like, json_values))
    name = draw(st.sampled_from(FLOW_NAMES))
    as_json = name.endswith(".json") or draw(st.booleans())
    return name, encode(data, as_json, draw(st.sampled_from([None, True, False])), draw(st.booleans()))


# --- strategies: mutations of the valid examples ------------------------------------------------


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out.extend(_paths(value, prefix + (key,)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out.extend(_paths(value, prefix + (index,)))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        node = node[part]
    return node


def _copy(node: Any) -> Any:
    return json.loads(json.dumps(node)) if node is not None else None


# text that YAML and JSON can carry (no lone surrogates), every plane
unicode_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=200)


STRUCTURAL = ("delete", "wrong_type", "huge_string", "deep_nesting", "unicode", "add_key", "duplicate_item",
              "empty_container")


@st.composite
def structural(draw: st.DrawFn, data: Any, what: str | None = None) -> Any:
    """One structural mutation (`what`, else drawn) of `data` (a deep copy); returns the new root."""
    paths = _paths(data)
    path = paths[draw(st.integers(0, len(paths) - 1))]
    what = what or draw(st.sampled_from(STRUCTURAL))
    if what == "huge_string":
        size = draw(st.sampled_from([2049, 10_000, 100_000, 400_000]))
        new: Any = draw(st.sampled_from(["a", "é", "\U0001F600", "{{X}}", " ", "\\"])) * size
    elif what == "deep_nesting":
        depth = draw(st.integers(20, 300))
        new = draw(st.sampled_from(["x", 1, None]))
        container = draw(st.sampled_from(["list", "dict"]))
        for _ in range(depth):
            new = [new] if container == "list" else {"k": new}
    elif what == "unicode":
        new = draw(unicode_text)
    elif what == "wrong_type":
        new = draw(json_values)
    elif what == "empty_container":
        new = draw(st.sampled_from([[], {}, "", None]))
    else:
        new = None
    if not path:  # the root
        if what == "delete":
            return draw(st.sampled_from([None, {}, [], ""]))
        return new if what not in ("add_key", "duplicate_item") else data
    parent = _get(data, path[:-1])
    last = path[-1]
    if what == "delete":
        del parent[last]
    elif what == "add_key":
        target = parent[last] if isinstance(parent[last], dict) else parent
        if isinstance(target, dict):
            target[draw(keys)] = draw(json_values)
    elif what == "duplicate_item":
        if isinstance(parent, list):
            parent.insert(last, _copy(parent[last]))
    else:
        parent[last] = new
    return data


# textual damage: applied to the encoded bytes
TEXT_DAMAGE = ("none", "none", "none", "duplicate_key", "alias_bomb", "nul", "invalid_utf8", "random_bytes",
               "truncate", "empty", "whitespace", "comments_only", "tabs", "crlf", "bom", "anchors",
               "two_documents", "unknown_tag", "huge_file")


def alias_bomb(width: int, depth: int) -> str:
    lines = ['lol0: &l0 "lol"']
    for level in range(1, depth + 1):
        refs = ", ".join(f"*l{level - 1}" for _ in range(width))
        lines.append(f"lol{level}: &l{level} [{refs}]")
    return "\n".join(lines) + "\n"


@st.composite
def damage(draw: st.DrawFn, data: bytes, what: str | None = None) -> bytes:
    """Textual damage (`what`, else drawn; often none) to an encoded document."""
    what = what or draw(st.sampled_from(TEXT_DAMAGE))
    if what == "none":
        return data
    if what == "duplicate_key":
        lines = data.split(b"\n")
        keyed = [i for i, line in enumerate(lines) if re.match(rb"\s*(- )?\"?[A-Za-z_]+\"?\s*:", line)]
        if keyed:
            i = keyed[draw(st.integers(0, len(keyed) - 1))]
            lines.insert(i + 1, lines[i].replace(b"- ", b"  ", 1))
        return b"\n".join(lines)
    if what == "alias_bomb":
        bomb = alias_bomb(draw(st.integers(2, 12)), draw(st.integers(2, 12))).encode()
        where = draw(st.sampled_from(["top", "value"]))
        if where == "top":
            return bomb + data
        return bomb + b"description: *l" + str(draw(st.integers(0, 2))).encode() + b"\n" + data
    if what == "nul":
        at = draw(st.integers(0, len(data)))
        return data[:at] + b"\x00" + data[at:]
    if what == "invalid_utf8":
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xe2\x82"])) + data[at:]
    if what == "random_bytes":
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.binary(min_size=1, max_size=64)) + data[at:]
    if what == "truncate":
        return data[: draw(st.integers(0, max(0, len(data) - 1)))]
    if what == "empty":
        return b""
    if what == "whitespace":
        return draw(st.sampled_from([b" ", b"\n\n", b"\t\n", b"\r\n", b"\xef\xbb\xbf"]))
    if what == "comments_only":
        return b"# nothing here\n# at all\n"
    if what == "tabs":
        return data.replace(b"  ", b"\t", draw(st.integers(1, 5)))
    if what == "crlf":
        return data.replace(b"\n", b"\r\n")
    if what == "bom":
        return b"\xef\xbb\xbf" + data
    if what == "anchors":
        return b"x-common: &common {type: act, action: click, selector: '#a'}\n" + data
    if what == "two_documents":
        return data + b"\n---\n" + data
    if what == "unknown_tag":
        return data.replace(b": ", b": !!python/object:os.system ", 1)
    return _huge(draw, data)


def _huge(draw: st.DrawFn, data: bytes) -> bytes:
    """Padded with a comment to just under, or just over, the 1 MiB limit."""
    pad = draw(st.sampled_from([(1 << 20) - len(data) - 40, (1 << 20) + 1]))
    return data + b"\n# " + b"x" * max(0, pad) + b"\n"


@st.composite
def mutations(draw: st.DrawFn, structural_kind: str | None = None, damage_kind: str | None = None
              ) -> tuple[str, bytes]:
    """(file name, bytes): a valid example, mutated structurally and perhaps damaged as text.
    With a kind given, that mutation (or damage) is applied once, and only it."""
    seed_name, seed = SEED_DATA[draw(st.integers(0, len(SEED_DATA) - 1))]
    data = _copy(seed)
    if structural_kind:
        data = draw(structural(data, structural_kind))
    elif not damage_kind:
        for _ in range(draw(st.integers(0, 3))):
            data = draw(structural(data))
    if seed_name.endswith(".json"):
        name, as_json = "m.flow.json", True
    else:
        name = "m.rules.yaml" if ".rules." in seed_name else "m.flow.yaml"
        as_json = draw(st.booleans())
    encoded = encode(data, as_json, draw(st.sampled_from([None, False])), draw(st.booleans()))
    if structural_kind:
        return name, encoded
    return name, draw(damage(encoded, damage_kind))


# --- strategies: .robot suites with random cells ------------------------------------------------

ROBOT_CELLS = (
    '${X}', '${BASE_URL}', '${DEMO_USER}', '${DEMO_PASSWORD}', '${ADMIN_PASSWORD}', '@{LIST}', '&{DICT}',
    '%{HOME}', '${{1+1}}', '${X}[0]', '${X.upper()}', '${ ${X} }', '${', '}', '${}', '\\', '...', '#', 'FOR',
    'END', 'IN', 'IF', 'ELSE', 'TRY', 'EXCEPT', 'WHILE', 'RETURN', 'BREAK', '[Setup]', '[Teardown]',
    '[Template]', '[Tags]', '[Arguments]', '[Documentation]', '[Timeout]', 'Given', 'When', 'Then',
    'And', 'But', 'I define rule "r"', 'I define rule "${X}"', 'I declare parents "r"',
    'I declare parents "nope"', 'Given I start scenario "s" at "${BASE_URL}/x"', 'I click locator "#a"',
    'When I type "${DEMO_USER}" into locator "#e"', 'When I type secret "${DEMO_PASSWORD}" into locator "#p"',
    'When I type secret "literal" into locator "#p"', 'Then url contains "/x"', 'And selector "h1" exists',
    'Then locator "h1" contains "${DEMO_PASSWORD}"', 'And I set retry 99999999999 times with -1 ms delay',
    'And I scope children to ""', 'And I configure interrupts', 'dismiss=#x', 'await=#y', 'field=n',
    'locator=//x', 'Then I emit "e"', 'I run shell "rm -rf /"', 'Log', 'Sleep', '1s', 'Evaluate',
    'Run Keyword', 'Set Variable', 'Library', 'Resource', 'Variables', 'Suite Setup', 'Test Setup',
    'aitester_bdd.AITester', 'Given I start verification "v"', 'Then I finalize verification', '',
    'é', '\U0001F600', '\u202e', '"', '""', '" "', 'x' * 3000, '${' + 'A' * 300 + '}',
)
ROBOT_LINES = (
    "*** Settings ***", "*** Variables ***", "*** Test Cases ***", "*** Tasks ***", "*** Keywords ***",
    "*** Comments ***", "*** Settings", "*** Unknown ***", "*** Test Case ***", "Library    aitester_bdd.AITester",
    "Library    SeleniumLibrary", "Suite Setup    Given I start verification \"v\"", "${X}    value",
    "${X}    ${X}", "${Y}    ${X}${X}${X}", "@{L}    a    b", "&{D}    a=1", "${X}=    v", "...    more",
    "    ...    continued", "| *** Test Cases *** |", "| T | I define rule \"r\" |", "T", "Another Test",
    "    [Setup]    Given I start scenario \"s\" at \"${BASE_URL}/\"",
)


@st.composite
def _robot_line(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        return draw(st.sampled_from(ROBOT_LINES))
    cells = draw(st.lists(st.one_of(st.sampled_from(ROBOT_CELLS), st.text(max_size=30).map(
        lambda t: t.replace("\n", " ").replace("\r", " "))), min_size=1, max_size=5))
    indent = draw(st.sampled_from(["", "    ", "        ", "\t", "  "]))
    sep = draw(st.sampled_from(["    ", "  ", "\t", " | "]))
    return indent + sep.join(cells)


@st.composite
def robot_suites(draw: st.DrawFn) -> tuple[str, bytes]:
    """(file name, bytes): an example suite with random lines inserted, replaced or deleted,
    random cells in existing lines, or textual damage."""
    _, text = SEED_ROBOT[draw(st.integers(0, len(SEED_ROBOT) - 1))]
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(lines)))
        what = draw(st.sampled_from(["insert", "replace", "delete", "cell", "duplicate"]))
        if what == "insert" or not lines:
            lines.insert(at, draw(_robot_line()))
        elif at >= len(lines):
            continue
        elif what == "replace":
            lines[at] = draw(_robot_line())
        elif what == "delete":
            del lines[at]
        elif what == "duplicate":
            lines.insert(at, lines[at])
        else:
            cells = re.split(r"( {2,}|\t)", lines[at])
            cell_at = draw(st.integers(0, len(cells) - 1))
            cells[cell_at] = draw(st.sampled_from(ROBOT_CELLS))
            lines[at] = "".join(cells)
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    hurt = draw(st.sampled_from(["none"] * 6 + ["nul", "invalid_utf8", "truncate", "empty", "crlf", "bom",
                                               "huge_file"]))
    if hurt == "huge_file":
        data = _huge(draw, data)
    elif hurt != "none":
        data = _robot_damage(draw, data, hurt)
    return "s.robot", data


def _robot_damage(draw: st.DrawFn, data: bytes, what: str) -> bytes:
    if what == "nul":
        at = draw(st.integers(0, len(data)))
        return data[:at] + b"\x00" + data[at:]
    if what == "invalid_utf8":
        at = draw(st.integers(0, len(data)))
        return data[:at] + b"\xff\xfe" + data[at:]
    if what == "truncate":
        return data[: draw(st.integers(0, max(0, len(data) - 1)))]
    if what == "empty":
        return b""
    if what == "crlf":
        return data.replace(b"\n", b"\r\n")
    return b"\xef\xbb\xbf" + data


#: violations found and reported (docs/reliability.md), each pinned by a regression test in
#: test_fuzz_loading.py that is marked xfail until flowwalk is fixed. The fuzz counts these apart,
#: so that only a new kind of violation fails it; delete an entry when its bug is fixed. (Empty: bugs
#: A to F are fixed, and a recurrence of any of them fails the fuzz.)
KNOWN_BUGS: dict[str, re.Pattern[str]] = {}


def classify(violation: BaseException) -> str | None:
    """The known bug a violation is an instance of, or None for a new one."""
    text = str(violation)
    for name, pattern in KNOWN_BUGS.items():
        if pattern.search(text):
            return name
    return None


TARGETS: dict[str, tuple[Any, Callable[[Path, bytes], LoadResult]]] = {
    "documents": (documents(), check_load),
    "mutations": (mutations(), check_load),
    "robot": (robot_suites(), check_robot),
}


def save_failure(folder: Path, target: str, name: str, data: bytes, error: BaseException) -> Path:
    """Keep an input that broke the property, with the reason beside it, for a bug report."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{target}-{abs(hash(data)) % 10**10:010d}"
    path = folder / f"{stem}-{name}"
    path.write_bytes(data)
    (folder / f"{stem}.reason.txt").write_text(f"{type(error).__name__}: {error}\n")
    return path

