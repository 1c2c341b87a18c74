"""A refactor healed: TodoMVC Backbone with five ids and a class renamed, and specs written before it.

The fixture (tests/todomvc_refactor.py) renames the input, list, counter, "toggle all" and "clear
completed" ids and the todo checkbox's class in the app's HTML, JS and CSS alike. The suites are
Playwright's TodoMVC suite as ported (examples/todomvc, 25 specs) and three hand-written specs that
start with a `wait` on a renamed id (tests/thirdparty/specs/refactor). Both pass on the app as
published; the report of that run is the earlier report the refactored run heals from.

- on the refactored app, with `--fingerprints` of that report, all 28 pass: acts, waits, every
  kind of check that claims an element, `await:` and emit fields healed, each reviewable;
  absence checks never healed;
- `flowwalk heal --apply` writes the renames into every selector of the suites, steps files and
  absence checks included (no spec names an old id or class after it), and the next run passes
  with no heal; with what the absence checks deny planted in the app, each of them fails;
- with "adding does nothing" planted in the refactored app, every spec (each one adds) fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flowwalk.serve import StaticServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from todomvc_refactor import CLASSES, IDS, original, refactored  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("todomvc_refactor"), pytest.mark.long]

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / ".cache" / "thirdparty" / "todomvc" / "package"
ABSENCE_KINDS = ("hidden", "selector_absent", "text_not_contains", "url_not_contains")
#: the specs with absence checks, and the check each must fail at when what it denies is planted
ABSENCE = {"examples/todomvc/clear-completed/hidden-without-completed.flow.yaml",
           "examples/todomvc/editing/hides-controls.flow.yaml", "refactor/completes.flow.yaml"}
SUITES = ("examples/todomvc", "refactor")
#: timeouts for a run where every spec fails: a step that cannot pass gives up in seconds, not after
#: the 10 s action and 30 s wait defaults (a check that a heal wrongly let pass would pass at once);
#: such a run mostly waits, so it walks four specs at a time
FAILING_RUN = "expect_timeout_ms: 1500\naction_timeout_ms: 3000\nrule_timeout_ms: 3000\n"


def _run(project: Path, app: Path, out: Path, *extra: str, paths: tuple[str, ...] = SUITES,
         workers: int = 2) -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    with StaticServer(app) as served:
        done = subprocess.run([sys.executable, "-m", "flowwalk", "run", *paths,
                               "--base-url", served.url, "--out", str(out), "--workers", str(workers), *extra],
                              cwd=project, capture_output=True, text=True, timeout=600,
                              env={k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"})
    verdict = json.loads((out / "verdict.json").read_text())
    records = [json.loads(line) for line in (out / "emit.jsonl").read_text().splitlines() if line.strip()]
    return done.returncode, verdict, records


def _heals(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f["heal"] for r in records if r.get("event") == "rule_finished" for f in r.get("findings") or []
            if f.get("kind") == "healed"] + [f["heal"] for r in records if r.get("event") == "finding"
                                             and (r.get("finding") or {}).get("kind") == "healed"
                                             for f in [r["finding"]]]


def _steps(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r.get("event") == "step_finished"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not (PACKAGE / "examples" / "backbone" / "index.html").is_file():
        pytest.fail("no TodoMVC copy: run `scripts/fetch_thirdparty.sh`", pytrace=False)
    base = tmp_path_factory.mktemp("refactor")
    project = base / "project"
    shutil.copytree(ROOT / "examples" / "todomvc", project / "examples" / "todomvc")
    shutil.copytree(ROOT / "tests" / "thirdparty" / "specs" / "refactor", project / "refactor")
    plain, moved = original(PACKAGE, base / "plain"), refactored(PACKAGE, base / "moved")
    out: dict[str, Any] = {"project": project, "moved": moved, "base": base}
    out["before"] = _run(project, plain, base / "before")
    out["after"] = _run(project, moved, base / "after", "--fingerprints", str(base / "before"))
    return out


def test_the_suites_pass_on_the_app_as_published(runs: dict[str, Any]) -> None:
    code, verdict, _ = runs["before"]
    assert code == 0 and verdict["counts"]["passed"] == verdict["counts"]["total"] == 28, verdict["counts"]


def test_after_the_refactor_every_spec_passes_with_reviewable_heals(runs: dict[str, Any]) -> None:
    code, verdict, records = runs["after"]
    assert verdict["counts"]["passed"] == verdict["counts"]["total"] == 28, [
        (t["source"], t["failure"]["message"][:300]) for t in verdict["tests"] if t["status"] != "passed"]
    assert code == 0
    heals = _heals(records)
    kinds = {h["kind"] for h in heals}
    assert {"act", "wait", "expect", "emit"} <= kinds, kinds
    keys = {h["selector_key"] for h in heals}
    assert {"selector", "for", "await", "fields.left"} <= keys, keys
    renames = {k: v for h in heals for k, v in h["renames"].items()}
    assert renames == {**{f"#{a}": f"#{b}" for a, b in IDS.items()}, ".toggle": ".done-box"}
    # a heal is kept once per run: later steps take it from the run's heals with one read
    methods = [h["method"] for h in heals]
    assert methods.count("renamed") <= 12 and methods.count("run") > 150, methods
    # ... and a selector the run already mended on that page is not read first: the mended one is
    firsts = [h["first"] for h in heals if h["method"] == "run"]
    assert firsts.count(True) > 150, (firsts.count(True), len(firsts))
    assert not [h for h in heals if h["method"] != "run" and h["first"]]


def test_absence_checks_are_never_healed(runs: dict[str, Any]) -> None:
    _, _, records = runs["after"]
    healed = {(h["path"], h["line"]) for h in _heals(records)}
    absent = [s for s in _steps(records) if s["kind"] == "expect" and s["text"].split()[1] in ABSENCE_KINDS]
    assert absent, "the suites have absence checks"
    assert not [s for s in absent if (s["path"], s["line"]) in healed]
    zero = [s for s in _steps(records) if s["text"].startswith("expect count") and s["text"].endswith(" 0")]
    assert zero and not [s for s in zero if (s["path"], s["line"]) in healed]


def test_heal_apply_keeps_the_renames_and_the_next_run_heals_nothing(runs: dict[str, Any]) -> None:
    project, base = runs["project"], runs["base"]
    done = subprocess.run([sys.executable, "-m", "flowwalk", "heal", "--report", str(base / "after"), "--apply"],
                          cwd=project, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    steps_file = (project / "examples/todomvc/steps/add-todo.steps.yaml").read_text()
    assert '"#todo-input"' in steps_file and "#new-todo" not in steps_file
    edit = (project / "examples/todomvc/steps/edit-todo.steps.yaml").read_text()
    assert "#todos li:nth-child({{position}}) label" in edit   # the variable kept
    adds = (project / "refactor/adds.flow.yaml").read_text()
    assert '{type: wait, for: "#todo-input"}' in adds and '"#items-left"}' in adds
    # every use of a renamed id or class, not only the steps that healed: absence checks too
    stale = re.compile("|".join([rf"#{re.escape(a)}(?![\w-])" for a in IDS]
                                + [rf"\.{re.escape(a)}(?![\w-])" for a in CLASSES]))
    left = [(str(f.relative_to(project)), m.group()) for f in sorted(project.rglob("*.yaml"))
            for m in stale.finditer(f.read_text())]
    assert not left, left
    code, verdict, records = _run(project, runs["moved"], base / "again")
    assert code == 0 and verdict["counts"]["passed"] == 28, verdict["counts"]
    assert not _heals(records)
    # the renamed absence checks still deny: with what they deny planted, each fails at its check
    denied = refactored(PACKAGE, base / "denied", deny=True)
    _, verdict, records = _run(project, denied, base / "denied-run", paths=tuple(sorted(ABSENCE)), workers=3)
    failed = {t["source"].split("#")[0]: t for t in verdict["tests"] if t["status"] != "passed"}
    assert set(failed) == ABSENCE, sorted(failed)
    failing = [s for s in _steps(records) if s["status"] == "failed"]
    assert {s["text"].split()[1] for s in failing if s["path"] in ABSENCE} == {"hidden"}, \
        [(s["path"], s["text"], s["status"]) for s in failing]


def test_adding_that_does_nothing_still_fails_every_spec_that_adds(runs: dict[str, Any]) -> None:
    base = runs["base"]
    buggy = refactored(PACKAGE, base / "buggy", bug=True)
    (base / "failing.flowwalk.yaml").write_text(FAILING_RUN)
    code, verdict, _ = _run(runs["project"], buggy, base / "bug", "--fingerprints", str(base / "before"),
                            "--config", str(base / "failing.flowwalk.yaml"), workers=4)
    assert code != 0
    assert verdict["counts"]["failed"] == verdict["counts"]["total"] == 28, [
        t["source"] for t in verdict["tests"] if t["status"] == "passed"]
