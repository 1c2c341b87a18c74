"""The GitLab CI and CircleCI examples (examples/ci/) against each CI's published JSON Schema, as
SchemaStore carries it vendored in check-jsonschema (`vendor.gitlab-ci`, `vendor.circle-ci`),
offline: a proxy that refuses every connection is set. Each schema is first shown a broken file, so
a harness that reports nothing fails. tests/e2e/test_ci_examples.py runs the same files' jobs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from test_workflow_lint import check_jsonschema

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = {"vendor.gitlab-ci": ROOT / "examples" / "ci" / "gitlab-ci.yml",
            "vendor.circle-ci": ROOT / "examples" / "ci" / "circleci.yml"}
BROKEN = {"vendor.gitlab-ci": "checks:\n  script: echo\n  parallel: 0\n  when: sometimes\n",
          "vendor.circle-ci": "version: 2.1\njobs:\n  checks:\n    parallelism: many\n    steps: [checkout]\n"}


@pytest.mark.parametrize("schema", sorted(EXAMPLES))
def test_a_broken_file_is_refused_by_the_schema(schema: str, tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(BROKEN[schema])
    done = check_jsonschema(schema, [broken])
    assert done.returncode == 1, done.stdout + done.stderr


@pytest.mark.parametrize("schema", sorted(EXAMPLES))
def test_the_example_validates_against_the_cis_schema(schema: str) -> None:
    done = check_jsonschema(schema, [EXAMPLES[schema]])
    assert done.returncode == 0, done.stdout + done.stderr


def test_each_example_shards_with_auto_and_merges_once() -> None:
    gitlab = yaml.safe_load(EXAMPLES["vendor.gitlab-ci"].read_text())
    assert int(gitlab["checks"]["parallel"]) > 1 and "--shard auto" in " ".join(gitlab["checks"]["script"])
    assert gitlab["verdict"]["needs"] == [{"job": "checks", "artifacts": True}]
    assert gitlab["verdict"]["artifacts"]["reports"]["junit"] == "flowwalk-report/junit.xml"
    assert "reports" not in gitlab["checks"]["artifacts"]   # one test report for the run, not one per shard
    assert gitlab[".flowwalk-image"]["image"]["entrypoint"] == [""]
    circle = yaml.safe_load(EXAMPLES["vendor.circle-ci"].read_text())
    checks = circle["jobs"]["checks"]
    assert int(checks["parallelism"]) > 1
    assert any("--shard auto" in str(step.get("run", "")) for step in checks["steps"] if isinstance(step, dict))
    assert circle["workflows"]["browser-checks"]["jobs"][1] == {"verdict": {"requires": ["checks"]}}


def test_the_examples_run_the_image_of_the_package_version() -> None:
    from flowwalk import __version__

    import re

    for path in EXAMPLES.values():
        images = re.findall(r"ghcr\.io/flowwalk/flowwalk:[\w.-]+", path.read_text())
        assert images and set(images) == {f"ghcr.io/flowwalk/flowwalk:{__version__}"}, (path, images)
