"""`--shard auto`: this job's shard from the CI system's own parallelism variables.

Each CI that runs copies of one job in parallel tells every copy which one it is, with its own
names and its own counting (`PARALLELISM`, checked against each CI's documentation):

| CI | marker | index | total | counts from |
|---|---|---|---|---|
| GitLab CI (`parallel: N`) | `GITLAB_CI` | `CI_NODE_INDEX` | `CI_NODE_TOTAL` | 1 |
| CircleCI (`parallelism: N`) | `CIRCLECI` | `CIRCLE_NODE_INDEX` | `CIRCLE_NODE_TOTAL` | 0 |
| Buildkite (`parallelism: N`) | `BUILDKITE` | `BUILDKITE_PARALLEL_JOB` | `BUILDKITE_PARALLEL_JOB_COUNT` | 0 |
| Azure Pipelines (`strategy: parallel: N`) | `TF_BUILD` | `SYSTEM_JOBPOSITIONINPHASE` | `SYSTEM_TOTALJOBSINPHASE` | 1 |

GitHub Actions and Jenkins define no such variables (a matrix's values are the workflow's own), so
there `auto` is refused with the explicit form to use instead. Pure: the environment is passed in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from flowwalk.errors import UsageError

__all__ = ["PARALLELISM", "Parallelism", "ShardFromCI", "shard_from_ci"]


@dataclass(frozen=True)
class Parallelism:
    """How one CI names a parallel job's place: the variable that says "this is that CI", the
    index and total variables, and whether the index counts from 0 or from 1."""

    ci: str
    marker: str
    index: str
    total: str
    first: int
    #: what the CI calls the setting, for the hint
    setting: str


PARALLELISM: tuple[Parallelism, ...] = (
    Parallelism("GitLab CI", "GITLAB_CI", "CI_NODE_INDEX", "CI_NODE_TOTAL", 1, "parallel: N"),
    Parallelism("CircleCI", "CIRCLECI", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0, "parallelism: N"),
    Parallelism("Buildkite", "BUILDKITE", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0,
                "parallelism: N"),
    Parallelism("Azure Pipelines", "TF_BUILD", "SYSTEM_JOBPOSITIONINPHASE", "SYSTEM_TOTALJOBSINPHASE", 1,
                "strategy: parallel: N"),
)

#: CIs that run jobs in parallel without telling a job its place
_WITHOUT = (
    ("GitHub Actions", "GITHUB_ACTIONS",
     "a matrix names its own shards: matrix: {shard: [1/4, 2/4, 3/4, 4/4]} and shard: ${{ matrix.shard }}"),
    ("Jenkins", "JENKINS_URL",
     "give each parallel branch its own --shard K/N (from a matrix axis or the branch's own variables)"),
)


@dataclass(frozen=True)
class ShardFromCI:
    index: int
    total: int
    #: which variables said so, for the log and the plan record: `GitLab CI (CI_NODE_INDEX=2, CI_NODE_TOTAL=4)`
    source: str


def _number(env: Mapping[str, str], name: str) -> int | None:
    text = env.get(name, "").strip()
    return int(text) if text.isdigit() else None


def shard_from_ci(env: Mapping[str, str]) -> ShardFromCI:
    """This job's shard (1-based K of N) from the CI's parallelism variables; UsageError when the
    CI sets none, sets them out of range, or is not one that has them."""
    for p in PARALLELISM:
        if not env.get(p.marker, "").strip():
            continue
        total, index = _number(env, p.total), _number(env, p.index)
        said = ", ".join(f"{name}={env[name]}" for name in (p.index, p.total) if name in env)
        if total is None and index is None:
            raise UsageError(f"--shard auto: {p.ci} without {p.index} and {p.total}\n"
                             f"  hint: run the job in parallel ({p.setting}), or pass --shard K/N")
        if index is None and total == 1:
            # GitLab sets CI_NODE_TOTAL=1 on a job without parallel: one shard
            return ShardFromCI(1, 1, f"{p.ci} ({said}: the job does not run in parallel)")
        k = None if index is None else index - p.first + 1
        if total is None or total < 1 or k is None or not 1 <= k <= total:
            raise UsageError(f"--shard auto: {p.ci}'s {said or 'variables'} do not name a shard\n"
                             f"  hint: {p.index} counts from {p.first} up to {p.total}"
                             f"{' - 1' if p.first == 0 else ''}; or pass --shard K/N")
        return ShardFromCI(k, total, f"{p.ci} ({said})")
    for ci, marker, hint in _WITHOUT:
        if env.get(marker, "").strip():
            raise UsageError(f"--shard auto: {ci} does not tell a job its place among parallel jobs\n  hint: {hint}")
    known = ", ".join(f"{p.ci} ({p.index}/{p.total})" for p in PARALLELISM)
    raise UsageError(f"--shard auto: no CI parallelism variables found\n  hint: auto reads {known}; "
                     f"elsewhere pass --shard K/N")
