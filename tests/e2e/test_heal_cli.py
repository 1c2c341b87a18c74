"""Healing as a user meets it: `flowwalk run` over real spec files and the healing corpus pages,
an earlier run's report as the fingerprints, then `flowwalk heal --apply` and a clean run.

The flows are written for tests/site/pages/heal/v1.html; `--var PAGE=...` points them at a page
where their selectors broke."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Iterator

import pytest
from _cli import FLOWWALK, ROOT

from fake_model import FakeModel, Reply

# one worker takes the module, so the passing run that records the fingerprints (`first`) is walked
# once a suite run
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("heal_cli")]

SITE = ROOT / "tests" / "site" / "pages"

SAVE = """\
spec_version: "1"
name: save the profile
url: /heal/{{PAGE}}
steps:
  - type: goto
    url: /heal/{{PAGE}}
  - type: act
    action: fill
    target: the Email field
    selector: "#email"
    value: "{{PASSWORD}}"
  - type: act
    action: click
    target: the Save button
    selector: "#save-btn"   # the primary action
  - type: expect
    kind: text_contains
    selector: "#status"
    value: Saved
"""

TODO = """\
spec_version: "1"
name: tick a todo
url: /heal/{{PAGE}}
steps:
  - type: goto
    url: /heal/{{PAGE}}
  - type: act
    action: click
    target: checkbox of "Write report"
    selector: "#todo-1 .toggle"
  - type: expect
    kind: text_contains
    selector: "#status"
    value: "done: Write report"
"""

SECRET = "s3cret-Pa55!"


def flowwalk(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI run from `cwd`, as a user runs it from their repository (spec paths relative to it)."""
    env = {**os.environ, "PASSWORD": SECRET, "PYTHONPATH": str(ROOT / "src")}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([*FLOWWALK, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=240)


def run(specs: Path, out: Path, page: str, *extra: str) -> dict[str, Any]:
    """`flowwalk run` from the folder holding `specs` (the user's repository)."""
    repo = specs.parent if specs.is_dir() else specs.parent.parent
    result = flowwalk("run", str(specs.relative_to(repo)), "--serve", str(SITE), "--out", str(out),
                      "--var", f"PAGE={page}", "--secret", "PASSWORD", "--workers", "1", *extra, cwd=repo)
    assert result.returncode in (0, 1, 2), result.stderr
    verdict = json.loads((out / "verdict.json").read_text())
    verdict["_exit"] = result.returncode
    verdict["_stdout"] = result.stdout
    return verdict


def records(out: Path, event: str) -> list[dict[str, Any]]:
    lines = (out / "emit.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["event"] == event]


def findings(out: Path) -> list[dict[str, Any]]:
    return [f for r in records(out, "rule_finished") for f in r["findings"] if f["kind"] == "healed"]


def failure(out: Path) -> dict[str, Any]:
    [rule] = [r for r in records(out, "rule_finished") if r["failure"]]
    return rule["failure"]  # type: ignore[no-any-return]


def write_specs(folder: Path) -> Path:
    folder.mkdir()
    (folder / "save.flow.yaml").write_text(SAVE)
    (folder / "todo.flow.yaml").write_text(TODO)
    return folder


@pytest.fixture()
def specs(tmp_path: Path) -> Path:
    """The specs in a repository of the test's own (`heal --apply` writes into them)."""
    return write_specs(tmp_path / "specs")


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The passing run on the page the selectors were written for, from a repository holding the same
    specs at the same paths: it records the fingerprints (read by the tests, written by none)."""
    repo = tmp_path_factory.mktemp("first")
    out = repo / "first"
    verdict = run(write_specs(repo / "specs"), out, "v1.html")
    assert verdict["_exit"] == 0, verdict["_stdout"]
    return out


def test_a_passing_run_records_small_redacted_fingerprints(first: Path) -> None:
    acts = [r for r in records(first, "step_finished") if r["kind"] == "act"]
    assert len(acts) == 3
    for record in acts:
        fp = record["detail"]["fingerprint"]
        assert fp["pinned"] in ("#email", "#save-btn", "#todo-1 .toggle") and fp["age"] == 0
        assert len(json.dumps(fp)) < 1500
    assert SECRET not in (first / "emit.jsonl").read_text()
    assert not findings(first)


def test_broken_selectors_heal_and_are_findings(specs: Path, first: Path, tmp_path: Path) -> None:
    out = tmp_path / "healed"
    verdict = run(specs, out, "renamed-ids.html", "--fingerprints", str(first))
    assert verdict["_exit"] == 0, verdict["_stdout"]
    heals = {f["heal"]["old_selector"]: f["heal"] for f in findings(out)}
    assert heals.keys() == {"#email", "#save-btn", "#todo-1 .toggle"}
    assert heals["#save-btn"]["new_selector"] == "#save-button"
    # the id renamed in place, keeping the selector's structure: the checkbox, not its label
    assert heals["#todo-1 .toggle"]["new_selector"] == "#item-1 .toggle"
    assert all(h["method"] in ("deterministic", "renamed") and h["score"] >= 0.65 for h in heals.values())
    assert all(h["line"] > 1 and h["path"].startswith("specs/") for h in heals.values())
    assert records(out, "model_called") == []


def test_the_durations_file_is_the_default_fingerprints(specs: Path, first: Path, tmp_path: Path) -> None:
    out = tmp_path / "healed"
    verdict = run(specs, out, "renamed-classes.html", "--durations", str(first / "emit.jsonl"))
    assert verdict["_exit"] == 0, verdict["_stdout"]
    # '#email' and '#save-btn' still match there: their fingerprints are carried one run older,
    # without a probe; '#todo-1 .toggle' lost its class and healed, and its old fingerprint is
    # carried too, so the next run can heal from it again
    carried = [r["detail"]["fingerprint"]["age"] for r in records(out, "step_finished") if r["kind"] == "act"]
    assert carried == [1, 1, 1]
    assert [f["heal"]["old_selector"] for f in findings(out)] == ["#todo-1 .toggle"]


def test_a_heal_whose_fingerprint_held_is_judged_by_its_own_step(specs: Path, first: Path, tmp_path: Path) -> None:
    """The impostor's Save holds the fingerprint of the Save the spec was written for (tag, role,
    text, place), so the heal stands and the next check's wrong text is the site's failure, not the
    heal's: the run still fails, as the site misbehaved."""
    out = tmp_path / "impostor"
    verdict = run(specs / "save.flow.yaml", out, "impostor.html", "--fingerprints", str(first))
    assert verdict["_exit"] == 1, verdict["_stdout"]
    failed = failure(out)
    assert failed["failure_class"] == "assertion_failed" and "Stored elsewhere" in failed["message"]
    assert [f["heal"]["new_selector"] for f in findings(out)] == ["#save"]


def test_nothing_good_enough_fails_naming_the_best_candidates(specs: Path, first: Path, tmp_path: Path) -> None:
    out = tmp_path / "removed"
    verdict = run(specs / "save.flow.yaml", out, "removed.html", "--fingerprints", str(first))
    assert verdict["_exit"] == 2, verdict["_stdout"]
    failed = failure(out)
    assert failed["failure_class"] == "spec_step_unresolvable" and failed["step_index"] == 3
    assert "'#save-btn' matched nothing and nothing else is good enough" in failed["message"]
    assert "(best: " in failed["message"] and failed["candidates"]
    assert not findings(out)


@pytest.fixture()
def fake() -> Iterator[FakeModel]:
    with FakeModel() as server:
        yield server


def test_the_model_heals_within_its_cap_and_every_call_is_recorded(specs: Path, first: Path, tmp_path: Path,
                                                                   fake: FakeModel) -> None:
    """Two flows need the model on two-similar.html; the cap is 1: the first heals, the second fails
    quota_exceeded, and both still run. No request body holds the secret typed into the page."""
    project = tmp_path / "project"
    (project / "specs").mkdir(parents=True)
    for name in ("a", "b"):
        (project / "specs" / f"{name}.flow.yaml").write_text(SAVE.replace("save the profile", f"save {name}"))
    (project / "flowwalk.yaml").write_text(f"model:\n  base_url: {fake.base_url}\n  model: fake-1\n"
                                           "  max_calls: 1\n  timeout_s: 5\n")
    fake.default = lambda body: Reply({"candidate": 1, "reason": "the first Save"})
    out = tmp_path / "model"
    fingerprints = tmp_path / "fp"
    shutil.copytree(first, fingerprints)
    # the fingerprints of save.flow.yaml, recorded under its own path; the copies share the selector
    verdict = run(project / "specs", out, "two-similar.html", "--fingerprints", str(fingerprints))
    assert verdict["_exit"] == 2, verdict["_stdout"]
    heals = findings(out)
    assert [h["heal"]["method"] for h in heals] == ["model"]
    calls = records(out, "model_called")
    assert [(c["call"], c["outcome"], c["decision"]) for c in calls] == [(1, "answered", calls[0]["decision"])]
    assert calls[0]["decision"].startswith("candidate 1 of ") and len(calls[0]["prompt_sha256"]) == 64
    failed = failure(out)
    assert failed["failure_class"] == "quota_exceeded" and "cap of 1" in failed["message"]
    assert len(fake.requests) == 1
    assert SECRET.encode() not in fake.requests[0].raw
    assert "Save" in fake.requests[0].text and "{{PASSWORD}}" not in fake.requests[0].body["messages"][0]["content"]


def test_the_round_trip_broken_run_heal_apply_clean_run(specs: Path, first: Path, tmp_path: Path) -> None:
    """Broken selectors heal; `flowwalk heal --apply` writes the new selectors into the specs; the
    next run passes with no heal at all."""
    out = tmp_path / "healed"
    assert run(specs, out, "renamed-ids.html", "--fingerprints", str(first))["_exit"] == 0
    assert len(findings(out)) == 3
    applied = flowwalk("heal", "--report", str(out), "--apply", cwd=specs.parent)
    assert applied.returncode == 0, applied.stderr
    text = (specs / "save.flow.yaml").read_text()
    assert 'selector: "#save-button"   # the primary action' in text or "#save-button" in text
    assert "# the primary action" in text            # comments and formatting kept
    again = tmp_path / "again"
    verdict = run(specs, again, "renamed-ids.html")
    assert verdict["_exit"] == 0, verdict["_stdout"]
    assert not findings(again)


ADMIN = """\
spec_version: "1"
name: search the books
url: /heal/admin/index.html
steps:
  - type: goto
    url: /heal/admin/index.html
  - type: act
    action: click
    target: Books link in the Catalog module
    selector: "tr.model-books > th > a"
  - type: expect
    kind: url_contains
    value: changelist.html#book
  - type: act
    action: fill
    target: changelist search box
    selector: "#searchbar-input"
    value: Dune
  - type: act
    action: click
    target: Search button
    selector: "#changelist-search button"
  - type: expect
    kind: text_contains
    selector: "#status"
    value: Searched
  - type: act
    action: click
    target: Available filter
    selector: "#changelist-filter a[href='?status=free']"
  - type: expect
    kind: url_contains
    value: status=available
"""


def test_targets_as_people_write_them_heal_with_no_earlier_report_and_round_trip(tmp_path: Path) -> None:
    """No fingerprints: four broken selectors on a Django-admin-shaped site heal from their targets
    alone; `heal --apply` writes them into the spec; the next run passes with no heal."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "admin.flow.yaml").write_text(ADMIN)
    out = tmp_path / "healed"
    verdict = run(specs, out, "unused")
    assert verdict["_exit"] == 0, verdict["_stdout"]
    heals = {f["heal"]["old_selector"]: f["heal"]["new_selector"] for f in findings(out)}
    assert len(heals) == 4 and heals["#searchbar-input"] == "#searchbar"
    assert all(f["heal"]["method"] == "deterministic" for f in findings(out))
    applied = flowwalk("heal", "--report", str(out), "--apply", cwd=specs.parent)
    assert applied.returncode == 0, applied.stderr
    assert "#searchbar-input" not in (specs / "admin.flow.yaml").read_text()
    again = tmp_path / "again"
    verdict = run(specs, again, "unused")
    assert verdict["_exit"] == 0, verdict["_stdout"]
    assert not findings(again)


FIRST_BOOK = """\
spec_version: "1.1"
name: select the first book
url: /changelist.html
steps:
  - type: act
    action: check
    target: the first book's checkbox
    selector: "#result_list tbody tr:first-child input.select-row"
  - type: expect
    kind: checked
    selector: "#result_list tbody tr:first-child input.action-select"
"""

#: the first row of the change list, and a new book put before it (a list ordered newest first)
DUNE_ROW = '<tr><td class="action-checkbox"><input type="checkbox" name="_selected_action" value="1"'
NEW_ROW = ('<tr><td class="action-checkbox"><input type="checkbox" name="_selected_action" value="6" '
           'class="action-select" aria-label="Select this object for an action - Beloved"></td><th class="field-title">'
           '<a href="#book-6">Beloved</a></th><td class="field-author nowrap">Toni Morrison</td>'
           '<td class="field-status">Available</td></tr>\n')


def test_a_positional_heal_survives_the_first_rows_data_changing(tmp_path: Path) -> None:
    """'the first book's checkbox' heals to the first row's checkbox by position: after `heal
    --apply` a new book is first, and the healed spec still checks the first row's checkbox (a
    selector by the book's aria-label would check Dune's, now second, and fail the check)."""
    site = tmp_path / "site"
    site.mkdir()
    page = site / "changelist.html"
    shutil.copy(SITE / "heal" / "admin" / "changelist.html", page)
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "first-book.flow.yaml").write_text(FIRST_BOOK)

    def run_here(out: Path) -> subprocess.CompletedProcess[str]:
        return flowwalk("run", "specs", "--serve", str(site), "--out", str(out), "--workers", "1", cwd=tmp_path)

    healed = run_here(tmp_path / "healed")
    assert healed.returncode == 0, healed.stdout + healed.stderr
    [heal] = [f["heal"] for f in findings(tmp_path / "healed")]
    assert heal["method"] == "deterministic" and ":first-of-type" in heal["new_selector"], heal
    assert "Dune" not in heal["new_selector"] and "aria-label" not in heal["new_selector"], heal
    applied = flowwalk("heal", "--report", str(tmp_path / "healed"), "--apply", cwd=tmp_path)
    assert applied.returncode == 0, applied.stderr
    assert heal["new_selector"] in (specs / "first-book.flow.yaml").read_text()
    # the data changes: another book is first
    text = page.read_text()
    assert text.count(DUNE_ROW) == 1
    page.write_text(text.replace(DUNE_ROW, NEW_ROW + DUNE_ROW))
    again = run_here(tmp_path / "again")
    assert again.returncode == 0, again.stdout + again.stderr
    assert not findings(tmp_path / "again")
    [rule] = records(tmp_path / "again", "rule_finished")
    assert rule["status"] == "passed"
