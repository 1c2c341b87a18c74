"""A rehearsal of .github/workflows/release.yml: every step that can run offline, read from the file.

For a tag `v<the package version>` pushed to `flowwalk/flowwalk`:

- job `dist`: the tag check and the computed names (`scripts/release_tags.py`, its output read back
  as GitHub reads $GITHUB_OUTPUT), `python -m build`, `twine check --strict`. Each `run:` is the
  workflow's own text; the one change is `--no-isolation` for the build, whose isolated
  environment would download setuptools (the release runner has the network; a rehearsal should
  not need it). The step that pip-installs the tools is not run: they are this checkout's test
  dependencies.
- job `image`: docker/build-push-action's `file`, `context`, `labels` and `tags`, given to
  `podman build` for this machine's architecture only (the release adds arm64 under QEMU) and
  never pushed; the image must carry the labels, answer to every computed tag and hold the
  version the tag names.

Not rehearsed, as they need GitHub: the PyPI upload (trusted publishing), the ghcr.io login and
push, the artifact hand-over between the jobs (the dist folder is passed here directly).
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_actions import parse_output_file

from engine import IMAGE_REPO, ROOT, Podman
from flowwalk import __version__

RELEASE = ROOT / ".github" / "workflows" / "release.yml"
TAG = f"v{__version__}"
CONTEXT = {"github.ref_name": TAG, "github.repository_owner": "flowwalk", "github.repository": "flowwalk/flowwalk",
           "github.server_url": "https://github.com", "github.actor": "octocat"}
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def workflow() -> dict[str, Any]:
    return yaml.safe_load(RELEASE.read_text(encoding="utf-8"))


def evaluate(text: str, context: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        assert match.group(1) in context, f"the rehearsal does not know {match.group(0)}"
        return context[match.group(1)]
    return _EXPRESSION.sub(value, text)


@pytest.fixture(scope="module")
def dist_job(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Job `dist`'s run steps, run in a copy of the checkout: its outputs and its dist/ folder."""
    job = workflow()["jobs"]["dist"]
    work = tmp_path_factory.mktemp("release") / "checkout"
    # a copy of the checkout as it is, committed or not: the rehearsal is of this working tree
    shutil.copytree(ROOT, work, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".cache", "node_modules", "dist", "build", "__pycache__", "*.egg-info", ".mypy_cache"))
    outputs: dict[str, str] = {}
    ran: list[tuple[str, str]] = []
    skipped: list[str] = []
    env_base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env_base["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env_base['PATH']}"  # `python` is this venv's
    for step in job["steps"]:
        if "run" not in step:
            continue
        script = str(step["run"])
        if script.startswith("python -m pip install"):
            skipped.append(script)
            continue
        if script.strip() == "python -m build":
            script = "python -m build --no-isolation"
        output_file = work.parent / f"output-{len(ran)}"
        env = {**env_base, **{k: evaluate(str(v), CONTEXT) for k, v in (step.get("env") or {}).items()},
               "GITHUB_OUTPUT": str(output_file)}
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", evaluate(script, CONTEXT)],
                              cwd=work, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{script}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        if step.get("id") and output_file.exists():
            outputs.update({f"steps.{step['id']}.outputs.{k}": v
                            for k, v in parse_output_file(output_file.read_text()).items()})
        ran.append((script, done.stdout))
    return {"outputs": outputs, "ran": ran, "skipped": skipped, "dist": work / "dist", "job": job}


def test_the_dist_job_checks_the_tag_builds_and_checks_the_sdist_and_the_wheel(dist_job: dict[str, Any]) -> None:
    scripts = [script for script, _ in dist_job["ran"]]
    assert [s.split()[:3] for s in scripts] == [["python", "scripts/release_tags.py", "--tag"],
                                                ["python", "-m", "build"], ["python", "-m", "twine"]]
    assert len(dist_job["skipped"]) == 1
    outputs = dist_job["outputs"]
    assert outputs["steps.names.outputs.version"] == __version__
    tags = outputs["steps.names.outputs.tags"].split("\n")
    major, minor = __version__.split(".")[:2]
    assert tags[0] == f"ghcr.io/flowwalk/flowwalk:{__version__}" and f"ghcr.io/flowwalk/flowwalk:{major}.{minor}" in tags
    # the job's outputs are these step outputs
    assert {k: evaluate(v, outputs) for k, v in dist_job["job"]["outputs"].items()} == {
        "version": __version__, "tags": "\n".join(tags)}
    names = sorted(p.name for p in dist_job["dist"].iterdir())
    assert names == [f"flowwalk-{__version__}-py3-none-any.whl", f"flowwalk-{__version__}.tar.gz"]
    twine = dist_job["ran"][2][1]
    assert twine.count("PASSED") == 2, twine


def test_a_tag_that_is_not_the_version_stops_the_release_before_anything_is_built(tmp_path: Path) -> None:
    (names,) = [s for s in workflow()["jobs"]["dist"]["steps"] if s.get("id") == "names"]
    env = {**os.environ, **{k: evaluate(str(v), {**CONTEXT, "github.ref_name": "v9.9.9"})
                            for k, v in names["env"].items()}, "GITHUB_OUTPUT": str(tmp_path / "out")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", names["run"]], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0, "the pipe into tee must not hide the refusal (shell: bash is -eo pipefail)"
    assert "tag 'v9.9.9' does not name the package version" in done.stderr
    assert not (tmp_path / "out").exists() or "version=" not in (tmp_path / "out").read_text()


def test_the_image_job_builds_the_dockerfile_for_this_architecture_with_the_labels_and_tags(
        podman: Podman, dist_job: dict[str, Any]) -> None:
    job = workflow()["jobs"]["image"]
    (build,) = [s for s in job["steps"] if str(s.get("uses", "")).startswith("docker/build-push-action@")]
    arch = {"x86_64": "amd64", "aarch64": "arm64"}[platform.machine()]
    assert f"linux/{arch}" in build["with"]["platforms"].split(",")
    context = {**CONTEXT, "github.sha": "0" * 40, "needs.dist.outputs.version": __version__,
               "needs.dist.outputs.tags": dist_job["outputs"]["steps.names.outputs.tags"]}
    labels = [line for line in evaluate(build["with"]["labels"], context).splitlines() if line.strip()]
    tags = [line for line in evaluate(build["with"]["tags"], context).splitlines() if line.strip()]
    assert build["with"]["push"] is True  # what the release does; the rehearsal never pushes
    extra: list[str] = []  # this machine's architecture is podman's default (an explicit --platform misses the layer cache)
    for label in labels:
        extra += ["--label", label]
    for tag in tags[1:]:
        extra += ["--tag", tag]
    image_id, _ = podman.build(tags[0], *extra, dockerfile=ROOT / build["with"]["file"],
                               context=ROOT / build["with"]["context"])
    try:
        inspected = yaml.safe_load(podman("image", "inspect", "--format", "{{json .Labels}}", image_id).stdout)
        for label in labels:
            name, _, value = label.partition("=")
            assert inspected[name] == value, name
        for tag in tags:
            assert podman("image", "inspect", "--format", "{{.Id}}", tag).stdout.strip() == image_id.removeprefix("sha256:")
        version = podman("run", "--rm", "--entrypoint", "flowwalk", image_id, "--version")
        assert version.stdout.strip() == f"flowwalk, version {__version__}"
        arch_seen = podman("image", "inspect", "--format", "{{.Architecture}}", image_id).stdout.strip()
        assert arch_seen == arch
    finally:
        for tag in tags:  # the tags are this test's; the image stays as layer cache
            podman("untag", image_id, tag, check=False)
    assert IMAGE_REPO not in tags[0]
