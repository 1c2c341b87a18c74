"""The project's CI, its release and the example workflows: parsed, and held to what makes them
work on GitHub. (tests/contract/test_workflow_lint.py lints them with actionlint and the schemas.)"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "workflows"
ACTION = "flowwalk/flowwalk@v0"  # the reference the README tells users to copy


def load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if True in data:  # YAML 1.1 reads the key `on` as a boolean
        data["on"] = data.pop(True)
    return data


def steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


def uses(workflow: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    return [s for s in steps(workflow) if str(s.get("uses", "")).startswith(prefix)]


def permissions(workflow: dict[str, Any], job: str) -> dict[str, str]:
    merged = dict(workflow.get("permissions") or {})
    merged.update(workflow["jobs"][job].get("permissions") or {})
    return merged


def _prefix(template: str) -> str:
    """`flowwalk-shard-${{ matrix.shard }}` / `flowwalk-shard-*` -> `flowwalk-shard-`."""
    return re.split(r"\$\{\{|\*", template, maxsplit=1)[0]


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yml")) + sorted((ROOT / ".github/workflows").glob("*.yml")),
                         ids=lambda p: p.name)
def test_every_workflow_parses_and_declares_least_privilege(path: Path) -> None:
    workflow = load(path)
    assert workflow["name"] and workflow["on"] and workflow["jobs"]
    assert workflow.get("permissions", {}).get("contents") == "read", "a top-level permissions block"
    for name, job in workflow["jobs"].items():
        assert "runs-on" in job and job.get("timeout-minutes"), name
    for step in steps(workflow):
        ref = str(step.get("uses", ""))
        if ref.startswith("actions/"):
            assert re.match(r"^actions/[\w-]+@v\d+$", ref), ref
        elif ref and not ref.startswith(("./", "flowwalk/")):  # a third party's action: a release line
            assert re.match(r"^[\w-]+/[\w-]+@(v\d+|release/v\d+)$", ref), ref


def test_ci_runs_the_readme_test_command_and_both_actions_with_this_commits_code() -> None:
    ci = load(ROOT / ".github/workflows/ci.yml")
    assert any(s.get("run") == ".ci/run" for s in steps(ci))
    assert (ROOT / ".ci" / "run").is_file()
    assert "bookworm" in ci["jobs"]["tests"]["container"]  # Debian, for Debian's Chromium
    for job, action in (("action", "./"), ("composite", "./composite")):
        local = uses({"jobs": {job: ci["jobs"][job]}}, "./")
        assert local and all(s["uses"] == action for s in local), job
        inputs = set(yaml.safe_load((ROOT / action / "action.yml").read_text())["inputs"])
        for step in local:
            assert set(step.get("with", {})) <= inputs, set(step["with"]) - inputs
    # the composite installs this commit's package, not the release it pins
    assert ci["jobs"]["composite"]["env"]["FLOWWALK_PACKAGE"] == "${{ github.workspace }}"


def test_ci_builds_the_docker_action_from_this_commits_dockerfile(tmp_path: Path) -> None:
    """action.yml names the released image; CI's own step turns it into the commit's Dockerfile."""
    job = load(ROOT / ".github/workflows/ci.yml")["jobs"]["action"]["steps"]
    first_use = next(i for i, s in enumerate(job) if s.get("uses") == "./")
    (rewrite,) = [s for s in job[:first_use] if "action.yml" in str(s.get("run", ""))]
    shutil.copy(ROOT / "action.yml", tmp_path / "action.yml")
    subprocess.run(["bash", "-eo", "pipefail", "-c", rewrite["run"]], cwd=tmp_path, check=True, capture_output=True)
    rewritten = yaml.safe_load((tmp_path / "action.yml").read_text(encoding="utf-8"))
    original = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert original["runs"]["image"].startswith("docker://")
    assert rewritten["runs"] == {"using": "docker", "image": "Dockerfile"}
    assert {k: v for k, v in rewritten.items() if k != "runs"} == {k: v for k, v in original.items() if k != "runs"}


def test_release_builds_checks_and_publishes_the_package_and_the_image() -> None:
    release = load(ROOT / ".github/workflows/release.yml")
    assert release["on"] == {"push": {"tags": ["v*"]}}
    dist, pypi, image = (release["jobs"][name] for name in ("dist", "pypi", "image"))
    runs = [str(s.get("run", "")) for s in dist["steps"]]
    assert any("scripts/release_tags.py" in r and "github.ref_name" not in r for r in runs)
    assert any(r.startswith("python -m build") for r in runs)
    assert any("twine check --strict dist/*" in r for r in runs)
    (upload,) = [s for s in dist["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact@")]

    # trusted publishing: an OIDC token for this job only, no stored API token
    assert permissions(release, "pypi")["id-token"] == "write" and pypi["environment"]["name"] == "pypi"
    assert pypi["needs"] == "dist"
    (download,) = uses({"jobs": {"pypi": pypi}}, "actions/download-artifact@")
    assert download["with"]["name"] == upload["with"]["name"]
    (publish,) = uses({"jobs": {"pypi": pypi}}, "pypa/gh-action-pypi-publish@")
    assert "with" not in publish or "password" not in publish["with"]
    assert "secrets." not in (ROOT / ".github/workflows/release.yml").read_text(encoding="utf-8")

    assert permissions(release, "image")["packages"] == "write" and image["needs"] == "dist"
    (build,) = uses({"jobs": {"image": image}}, "docker/build-push-action@")
    assert build["with"]["platforms"] == "linux/amd64,linux/arm64" and build["with"]["push"] is True
    assert build["with"]["file"] == "Dockerfile" and build["with"]["context"] == "."
    assert build["with"]["tags"] == "${{ needs.dist.outputs.tags }}"
    assert dist["outputs"]["tags"] == "${{ steps.names.outputs.tags }}"
    assert uses({"jobs": {"image": image}}, "docker/setup-qemu-action@"), "arm64 is built under emulation"
    (login,) = uses({"jobs": {"image": image}}, "docker/login-action@")
    assert login["with"]["registry"] == "ghcr.io"


@pytest.mark.parametrize("name", ["single-job.yml", "sharded.yml", "fork-safe.yml"])
def test_examples_use_the_published_action_with_known_inputs(name: str) -> None:
    workflow = load(EXAMPLES / name)
    (step,) = uses(workflow, "flowwalk/")
    assert step["uses"] == ACTION
    inputs = set(yaml.safe_load((ROOT / "action.yml").read_text())["inputs"])
    assert set(step["with"]) <= inputs, set(step["with"]) - inputs
    assert ACTION in (ROOT / "README.md").read_text(encoding="utf-8")


def test_single_job_may_comment_and_keeps_its_report() -> None:
    workflow = load(EXAMPLES / "single-job.yml")
    assert permissions(workflow, "flowwalk")["pull-requests"] == "write"
    (upload,) = uses(workflow, "actions/upload-artifact@")
    assert upload["if"] == "${{ !cancelled() }}"  # the report matters most when the checks failed


def test_sharded_uploads_one_artifact_per_shard_and_merges_them_once() -> None:
    workflow = load(EXAMPLES / "sharded.yml")
    checks, verdict = workflow["jobs"]["checks"], workflow["jobs"]["verdict"]
    shards = checks["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, int(workflow["env"]["SHARDS"]) + 1))
    assert checks["strategy"]["fail-fast"] is False
    (action,) = [s for s in checks["steps"] if str(s.get("uses", "")).startswith("flowwalk/")]
    assert action["with"]["shard"] == "${{ matrix.shard }}/${{ env.SHARDS }}"
    assert action["with"]["comment-mode"] == "off"  # one comment, from the verdict job
    (upload,) = [s for s in checks["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert upload["if"] == "${{ !cancelled() }}" and "${{ matrix.shard }}" in upload["with"]["name"]

    assert verdict["needs"] == "checks" and verdict["if"] == "${{ !cancelled() }}"
    (download,) = [s for s in verdict["steps"] if str(s.get("uses", "")).startswith("actions/download-artifact@")]
    assert _prefix(download["with"]["pattern"]) == _prefix(upload["with"]["name"])
    assert "merge-multiple" not in download["with"], "every shard writes the same file names"
    runs = [s["run"] for s in verdict["steps"] if "run" in s]
    merge = next(r for r in runs if r.startswith("flowwalk merge"))
    folder = download["with"]["path"].rstrip("/")
    assert f"{folder}/{download['with']['pattern']}" in merge and "--out flowwalk-report" in merge
    publish = next(s for s in verdict["steps"] if str(s.get("run", "")).startswith("flowwalk publish"))
    assert "--report flowwalk-report" in publish["run"] and publish["env"]["GITHUB_TOKEN"] == "${{ github.token }}"
    assert publish["if"] == "${{ !cancelled() }}"  # publish even after merge exits with a failing verdict
    assert permissions(workflow, "verdict")["pull-requests"] == "write"
    assert permissions(workflow, "verdict")["checks"] == "write" and "--check-run" in publish["run"]
    assert "pull-requests" not in permissions(workflow, "checks")


def test_fork_safe_pair_hands_the_report_from_the_untrusted_to_the_trusted_workflow() -> None:
    tests, publisher = load(EXAMPLES / "fork-safe.yml"), load(EXAMPLES / "fork-safe-publish.yml")
    assert "pull_request" in tests["on"] and "pull_request_target" not in tests["on"]
    # nothing to write with a fork's token; `actions: read` fetches the base branch's last report
    assert permissions(tests, "checks") == {"contents": "read", "actions": "read"}
    (action,) = uses(tests, "flowwalk/")
    assert action["with"]["comment-mode"] == "off"
    (upload,) = uses(tests, "actions/upload-artifact@")

    trigger = publisher["on"]["workflow_run"]
    assert trigger["workflows"] == [tests["name"]] and trigger["types"] == ["completed"]
    granted = publisher["permissions"]
    assert granted["actions"] == "read" and granted["pull-requests"] == "write"
    assert uses(publisher, "actions/checkout@") == [], "the trusted workflow never checks out PR code"
    (download,) = uses(publisher, "actions/download-artifact@")
    assert download["with"]["name"] == upload["with"]["name"]
    assert download["with"]["run-id"] == "${{ github.event.workflow_run.id }}"
    assert download["with"]["github-token"] == "${{ github.token }}"
    publish = next(s for s in steps(publisher) if str(s.get("run", "")).startswith("flowwalk publish"))
    assert f"--report {download['with']['path'].rstrip('/')}" in publish["run"]
    assert "--commit-status" in publish["run"] and granted["statuses"] == "write"
    assert "workflow_run.event == 'pull_request'" in publisher["jobs"]["publish"]["if"]


@pytest.mark.parametrize("name", ["single-job.yml", "sharded.yml", "fork-safe.yml"])
def test_examples_start_from_the_base_branchs_last_report_when_there_is_one(name: str) -> None:
    """A first run has no earlier report (flowwalk then balances by count, with a notice); the next
    ones get its durations and fingerprints from the base branch's last run."""
    workflow = load(EXAMPLES / name)
    assert workflow["on"]["push"]["branches"] == ["main"], "the base branch's runs leave the report"
    (job_name,) = [j for j, job in workflow["jobs"].items() if any(str(s.get("uses", "")).startswith("flowwalk/")
                                                                   for s in job["steps"])]
    job = workflow["jobs"][job_name]
    assert permissions(workflow, job_name)["actions"] == "read"
    names = [s.get("name") for s in job["steps"]]
    fetch = job["steps"][names.index("the base branch's last report")]
    (action,) = [s for s in job["steps"] if str(s.get("uses", "")).startswith("flowwalk/")]
    assert job["steps"].index(fetch) < job["steps"].index(action)
    assert fetch["env"]["BRANCH"] == "${{ github.base_ref || github.ref_name }}"
    assert "--name flowwalk-report --dir last-report" in fetch["run"]
    assert "continue-on-error" not in fetch, "the step never fails: no report is a notice, not a warning"
    assert action["with"]["durations"] == "last-report/emit.jsonl" and "fingerprints" not in action["with"]
    uploaded = {s["with"]["name"] for j in workflow["jobs"].values() for s in j["steps"]
                if str(s.get("uses", "")).startswith("actions/upload-artifact@")}
    assert "flowwalk-report" in uploaded, "the report the next runs fetch"


def test_every_example_installs_flowwalk_from_the_source_docs_action_md_names() -> None:
    from flowwalk import __version__

    wanted = f"pip install flowwalk=={__version__}"
    assert f"pip install flowwalk==<version>" in (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
    installs = [line.strip() for path in sorted(EXAMPLES.glob("*.yml"))
                for line in path.read_text(encoding="utf-8").splitlines() if "pip install" in line]
    assert installs, "the merge and publish jobs install the package"
    for line in installs:
        assert wanted in line, line


def test_the_preview_workflows_take_the_url_from_the_event_and_secrets_by_name_only() -> None:
    from flowwalk.github.entrypoint import run_argv

    deployed = load(EXAMPLES / "preview-deployment.yml")
    assert deployed["on"] == {"deployment_status": None}
    (job,) = deployed["jobs"].values()
    assert "github.event.deployment_status.state == 'success'" in job["if"]
    waited = load(EXAMPLES / "preview-wait.yml")
    for workflow in (deployed, waited):
        (step,) = uses(workflow, ACTION)
        inputs, env = step["with"], step["env"]
        argv = run_argv({f"INPUT_{name.upper()}": str(value) for name, value in inputs.items()})
        assert "--wait-for" in argv
        # each header and credential names a variable the step's env fills, and no value is inline
        named = [arg.split("=", 1)[1] for arg, flag in zip(argv[1:], argv) if flag == "--http-header"]
        named += [arg for arg, flag in zip(argv[1:], argv) if flag == "--http-credentials"]
        assert named and all(name in env for name in named), (named, env)
        assert all("secrets." in env[name] or env[name] == "true" for name in named)
    assert uses(deployed, ACTION)[0]["with"]["base-url"] == "${{ github.event.deployment_status.environment_url }}"
