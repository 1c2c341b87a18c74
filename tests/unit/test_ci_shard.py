"""`--shard auto`: the same split as the explicit `--shard K/N`, read from each CI's own parallel job
variables with each CI's own counting (GitLab and Azure count from 1, CircleCI and Buildkite from 0)."""

from __future__ import annotations

import pytest

from flowwalk.ci import shard_from_ci
from flowwalk.errors import UsageError
from flowwalk.plan.shard import plan_run, render_plan
from flowwalk.settings import Overrides, build_settings
from test_shard import corpus

#: (CI's environment for the job that is shard K of 4) for K = 1..4
JOBS = {
    "GitLab CI": lambda k: {"GITLAB_CI": "true", "CI_NODE_INDEX": str(k), "CI_NODE_TOTAL": "4"},
    "CircleCI": lambda k: {"CIRCLECI": "true", "CIRCLE_NODE_INDEX": str(k - 1), "CIRCLE_NODE_TOTAL": "4"},
    "Buildkite": lambda k: {"BUILDKITE": "true", "BUILDKITE_PARALLEL_JOB": str(k - 1),
                            "BUILDKITE_PARALLEL_JOB_COUNT": "4"},
    "Azure Pipelines": lambda k: {"TF_BUILD": "True", "SYSTEM_JOBPOSITIONINPHASE": str(k),
                                  "SYSTEM_TOTALJOBSINPHASE": "4"},
}


@pytest.mark.parametrize("ci", sorted(JOBS))
def test_auto_gives_each_job_the_same_shard_as_the_explicit_form(ci: str) -> None:
    suites = corpus(23)
    for k in range(1, 5):
        auto = build_settings(Overrides(shard="auto"), JOBS[ci](k))
        explicit = build_settings(Overrides(shard=f"{k}/4"), {})
        assert (auto.shard_index, auto.shard_total) == (k, 4)
        assert auto.shard_source is not None and auto.shard_source.startswith(ci)
        planned, expected = plan_run(suites, auto), plan_run(suites, explicit)
        assert planned.assigned == expected.assigned and planned.shards == expected.shards


def test_the_plan_says_which_variables_gave_the_shard() -> None:
    settings = build_settings(Overrides(shard="auto"), JOBS["CircleCI"](3))
    plan = plan_run(corpus(8), settings)
    assert plan.record()["shard"] == {"index": 3, "total": 4, "from": "CircleCI (CIRCLE_NODE_INDEX=2, CIRCLE_NODE_TOTAL=4)"}
    assert "this job is shard 3/4, from CircleCI (CIRCLE_NODE_INDEX=2, CIRCLE_NODE_TOTAL=4)" in render_plan(plan)


def test_auto_is_read_from_the_environment_too() -> None:
    settings = build_settings(Overrides(), {"FLOWWALK_SHARD": "auto", **JOBS["GitLab CI"](2)})
    assert (settings.shard_index, settings.shard_total) == (2, 4)


def test_a_gitlab_job_without_parallel_is_one_shard() -> None:
    found = shard_from_ci({"GITLAB_CI": "true", "CI_NODE_TOTAL": "1"})
    assert (found.index, found.total) == (1, 1)
    assert "does not run in parallel" in found.source


@pytest.mark.parametrize("env, words", [
    ({"GITLAB_CI": "true", "CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "4"}, "CI_NODE_INDEX counts from 1"),
    ({"CIRCLECI": "true", "CIRCLE_NODE_INDEX": "4", "CIRCLE_NODE_TOTAL": "4"}, "counts from 0"),
    ({"BUILDKITE": "true"}, "parallelism: N"),
    ({"GITHUB_ACTIONS": "true"}, "matrix"),
    ({"JENKINS_URL": "https://ci.example/"}, "Jenkins does not tell"),
    ({}, "no CI parallelism variables found"),
])
def test_auto_without_usable_variables_is_refused_with_what_to_do(env: dict[str, str], words: str) -> None:
    with pytest.raises(UsageError) as refused:
        build_settings(Overrides(shard="auto"), env)
    assert words in str(refused.value) and "hint:" in str(refused.value)
