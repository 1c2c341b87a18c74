"""One spec, four working folders, one verdict (issue 46): run from the flow's folder, from its
parent, from the repository's top and by absolute path from an unrelated folder, the same spec with
folder hooks gets the same test ids, the same verdict and the same report, and `--last-failed`,
`--fingerprints` and `heal --apply` behave the same from each of them.

The project: `repo/.git`, `repo/e2e/flowwalk.yaml` (so the project root is `repo/e2e`), the parent
folder's `before_each` accepting a consent banner that hides the page until accepted, the flow's own
folder's `after_each`, a file uploaded from the spec's folder, and another suite `repo/other/` outside the root that heal must never touch.
"""

from __future__ import annotations

import json
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from _cli import FLOWWALK, ROOT

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("root_cli")]

PAGE = """\
<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>shop</title></head>
<body>
  <div id="consent"><p>We use cookies.</p><button id="accept" type="button">Accept all</button></div>
  <main id="app" hidden>
    <button id="{save}" class="btn primary" type="button">Save</button>
    <p id="status" role="status"></p>
    <input id="receipt" type="file"><p id="picked"></p>
  </main>
  <script>
    document.getElementById("accept").onclick = () => {{
      document.getElementById("consent").remove();
      document.getElementById("app").hidden = false;
    }};
    document.getElementById("receipt").onchange = (e) => {{
      document.getElementById("picked").textContent = e.target.files[0].name;
    }};
    document.getElementById("{save}").onclick = () => {{
      document.getElementById("status").textContent = "{said}";
    }};
  </script>
</body>
</html>
"""

FLOW = """\
spec_version: "1.1"
name: save
url: /{{PAGE}}
steps:
  - {type: act, action: upload, selector: "#receipt", value: files/receipt.txt}
  - {type: expect, kind: text_contains, selector: "#picked", value: receipt.txt}
  - type: act
    action: click
    selector: "#save-btn"
  - type: expect
    kind: text_contains
    selector: "#status"
    value: Saved
"""

ACCEPT = """\
steps_version: "1"
steps:
  - {type: act, action: click, selector: "#accept"}
"""

SAVED = """\
steps_version: "1"
steps:
  - {type: expect, kind: visible, selector: "#status"}
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    top = tmp_path_factory.mktemp("project")
    repo = top / "repo"
    (repo / ".git").mkdir(parents=True)
    site = top / "site"
    site.mkdir()
    (site / "v1.html").write_text(PAGE.format(save="save-btn", said="Saved"))
    (site / "renamed.html").write_text(PAGE.format(save="save-button", said="Saved"))
    (site / "broken.html").write_text(PAGE.format(save="save-btn", said="Error"))
    e2e = repo / "e2e"
    (e2e / "checkout").mkdir(parents=True)
    (e2e / "flowwalk.yaml").write_text("retries: 0\n")
    (e2e / "before_each.steps.yaml").write_text(ACCEPT)
    (e2e / "checkout" / "after_each.steps.yaml").write_text(SAVED)
    (e2e / "checkout" / "save.flow.yaml").write_text(FLOW)
    # an upload's file is relative to the spec's folder, whatever folder flowwalk runs from
    (e2e / "checkout" / "files").mkdir()
    (e2e / "checkout" / "files" / "receipt.txt").write_text("paid\n")
    (repo / "other").mkdir()
    (repo / "other" / "save.flow.yaml").write_text(FLOW)
    (top / "elsewhere").mkdir()
    return repo


def places(repo: Path) -> list[tuple[Path, str]]:
    """(working folder, the spec as a user there names it): its folder, its parent, the repository's
    top, and an unrelated folder with the absolute path."""
    spec = repo / "e2e" / "checkout" / "save.flow.yaml"
    return [(spec.parent, "save.flow.yaml"), (spec.parent.parent, "checkout"),
            (repo, "e2e/checkout/save.flow.yaml"), (repo.parent / "elsewhere", str(spec))]


def flowwalk(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("GITHUB_ACTIONS", None)
    env.pop("FLOWWALK_ROOT", None)
    return subprocess.run([*FLOWWALK, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=240)


def walk(repo: Path, cwd: Path, spec: str, out: Path, page: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return flowwalk(cwd, "run", spec, "--serve", str(repo.parent / "site"), "--out", str(out), "--var",
                    f"PAGE={page}", "--workers", "1", *extra)


def report(out: Path) -> dict[str, Any]:
    """What must not depend on the working folder: the verdict without its times and run id, and
    junit.xml's test ids."""
    verdict = json.loads((out / "verdict.json").read_text())
    tests = [{k: v for k, v in t.items() if k not in ("duration_ms", "screenshots")} for t in verdict["tests"]]
    cases = [(c.get("classname"), c.get("name")) for c in ET.parse(out / "junit.xml").iter("testcase")]
    return {"outcome": verdict["outcome"], "exit_code": verdict["exit_code"], "root": verdict["root"],
            "tests": tests, "junit": cases}


def hooks_ran(out: Path) -> list[str]:
    """The titles of the blocks the walked steps ran inside."""
    titles = []
    for line in (out / "emit.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record.get("event") == "step_finished":
            titles += [f["title"] for f in record.get("frames") or () if f["title"] not in titles]
    return titles


def test_the_same_spec_gets_the_same_verdict_ids_and_report_from_any_folder(project: Path, tmp_path: Path) -> None:
    root = project / "e2e"
    seen = []
    for n, (cwd, spec) in enumerate(places(project)):
        out = tmp_path / f"v1-{n}"
        result = walk(project, cwd, spec, out, "v1.html")
        assert result.returncode == 0, (cwd, result.stdout, result.stderr)
        assert f"root: {root} " in result.stdout
        seen.append(report(out))
        assert hooks_ran(out) == ["before each (before_each.steps.yaml)", "after each (checkout/after_each.steps.yaml)"]
        assert flowwalk(cwd, "validate", spec).returncode == 0
    assert seen[0]["root"] == str(root)
    assert [t["test_id"] for t in seen[0]["tests"]] == ["checkout/save.flow.yaml#save"]
    assert all(r == seen[0] for r in seen[1:]), seen


def test_last_failed_fingerprints_and_heal_apply_behave_the_same_from_any_folder(project: Path,
                                                                                 tmp_path: Path) -> None:
    where = places(project)
    spec_file = project / "e2e" / "checkout" / "save.flow.yaml"
    # a failing report, written from the repository's top: every folder reruns its one test
    failed = tmp_path / "failed"
    assert walk(project, project, "e2e/checkout/save.flow.yaml", failed, "broken.html").returncode == 1
    passed = tmp_path / "passed"
    assert walk(project, project, "e2e/checkout/save.flow.yaml", passed, "v1.html").returncode == 0
    for cwd, spec in where:
        plan = flowwalk(cwd, "plan", spec, "--last-failed", str(failed), "--json")
        assert plan.returncode == 0, plan.stderr
        assert [s["id"] for s in json.loads(plan.stdout)["scenarios"]] == ["checkout/save.flow.yaml#save"]
        # a report of another project (ids relative to another root) is refused, not a green run of nothing
        other = flowwalk(cwd, "plan", spec, "--last-failed", str(failed), "--root", str(project), "--json")
        assert other.returncode == 3 and "holds none of the 1 scenarios found" in other.stderr, other.stderr

    # the id renamed: healed from the fingerprints of the passing run, read from another folder
    heals = []
    for n, (cwd, spec) in enumerate(where):
        out = tmp_path / f"renamed-{n}"
        result = walk(project, cwd, spec, out, "renamed.html", "--fingerprints", str(passed))
        assert result.returncode == 0, (cwd, result.stdout, result.stderr)
        heals.append(report(out))
    assert all(h == heals[0] for h in heals[1:])
    assert heals[0]["tests"][0]["status"] == "passed"

    # heal --apply from each folder edits the one spec under the report's root, and nothing else
    original = spec_file.read_text()
    other_suite = (project / "other" / "save.flow.yaml").read_text()
    applied = []
    for n, (cwd, _) in enumerate(where):
        result = flowwalk(cwd, "heal", "--report", str(tmp_path / f"renamed-{(n + 1) % 4}"), "--apply")
        assert result.returncode == 0, (cwd, result.stderr)
        applied.append((result.stdout, spec_file.read_text()))
        spec_file.write_text(original)
    assert all(a == applied[0] for a in applied[1:])
    assert applied[0][0].startswith("patched checkout/save.flow.yaml:")
    assert 'selector: "#save-button"' in applied[0][1]
    assert (project / "other" / "save.flow.yaml").read_text() == other_suite
    # named with a root that does not hold the run's spec: refused, nothing written
    refused = flowwalk(project, "heal", "--report", str(tmp_path / "renamed-0"), "--root", "other", "--apply")
    assert refused.returncode == 3 and "nothing was changed" in refused.stderr
    assert spec_file.read_text() == original
    assert (project / "other" / "save.flow.yaml").read_text() == other_suite
