"""`flowwalk heal` and the MCP server's `propose_heal`: a report's heals and baselines as one change
of the checkout (`plan_heal`), and writing it (`apply_heal`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from flowwalk.errors import UsageError
from flowwalk.events import Heal
from flowwalk.exitcodes import ExitCode
from flowwalk.heal.baselines import BaselinePlan, apply_baselines, plan_baselines
from flowwalk.heal.patch import HealPatch, PatchConflictError, apply_patch, describe, plan_patch
from flowwalk.spec.source import escape

__all__ = ["HealPlan", "HealRequest", "HealWritten", "apply_heal", "plan_heal"]


@dataclass(frozen=True)
class HealRequest:
    """What `flowwalk heal` and the MCP server's `propose_heal` are asked."""

    report_dir: Path = Path("flowwalk-report")
    #: the folder the run ran in: spec paths in the report are relative to it, and only files
    #: inside it change; None: the current folder, and a path the run wrote is taken as it is
    root: Path | None = None
    #: heals chosen for steps that did not heal (an agent's answers to the MCP server), with their tests
    extra: tuple[tuple[Heal, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class HealPlan:
    """A report's heals (`patch`) and its new or changed baselines (`baselines`), as one change
    of the checkout: `diff` is what `git apply` takes, `skipped` what is left out and why."""

    patch: HealPatch
    baselines: BaselinePlan

    @property
    def diff(self) -> str:
        return self.patch.diff + self.baselines.diff

    @property
    def skipped(self) -> list[str]:
        return [s.render() for s in self.patch.skipped] + [
            f"baseline {path}: not in the patch: {why}" for path, why in self.baselines.skipped]

    @property
    def files(self) -> list[str]:
        return sorted(self.patch.texts) + [c.path for c in self.baselines.changes]

    @property
    def nothing(self) -> str:
        """Why there is nothing to change, or "" when there is."""
        if self.patch.edits or self.baselines.changes:
            return ""
        return "no heal is left to apply" if self.patch.skipped or self.patch.kept else "the report has no heals"

    @property
    def exit_code(self) -> ExitCode:
        """SPEC_NEEDS_REVIEW when something had to be left out of the diff."""
        return ExitCode.SPEC_NEEDS_REVIEW if self.skipped else ExitCode.OK


def plan_heal(request: HealRequest) -> HealPlan:
    """The report's heals and baselines as a change of the spec files under the root; writes nothing."""
    root = request.root or Path(".")
    if not root.is_dir():
        raise UsageError(f"--root '{escape(root)}' is not a folder\n  hint: pass the folder the run ran in "
                         f"(spec paths in the report are relative to it)")
    # spec paths are as the run wrote them (relative to where it ran, `../` included); a root that
    # was given confines the patch to that folder
    confine = request.root is not None
    return HealPlan(plan_patch(request.report_dir, root, confine=confine, extra=request.extra),
                    plan_baselines(request.report_dir, root, confine=confine))


@dataclass(frozen=True)
class HealWritten:
    """What `apply_heal` wrote, a line each; `conflicts`: spec files that changed while the patch
    was made, not written (then no baseline is written either)."""

    patched: list[str]
    baselines: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


def apply_heal(plan: HealPlan) -> HealWritten:
    """Write the plan's spec files, then its baselines."""
    patch = plan.patch
    try:
        apply_patch(patch)
    except PatchConflictError as conflict:
        written = {str(p) for p in conflict.written}
        return HealWritten(patched=describe(e for e in patch.edits if str(patch.root / e.path) in written),
                           conflicts=list(conflict.paths))
    apply_baselines(plan.baselines)
    return HealWritten(patched=describe(patch.edits), baselines=[change.render() for change in plan.baselines.changes])
