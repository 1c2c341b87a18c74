"""`flowwalk heal` and the MCP server's `propose_heal`: a report's heals and baselines as one change
of the checkout (`plan_heal`), and writing it (`apply_heal`).

Its reach is the report's project root (`heal_root`): spec paths in a report are relative to it, a
file outside it is never changed, and a report whose heals name files the root does not hold (the
wrong root, or specs moved since the run) changes nothing at all.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from flowwalk.errors import UsageError
from flowwalk.events import Heal
from flowwalk.exitcodes import ExitCode
from flowwalk.heal.baselines import BaselinePlan, apply_baselines, plan_baselines
from flowwalk.heal.patch import HealPatch, PatchConflictError, apply_patch, collect_heals, describe, plan_patch
from flowwalk.report.records import read_run
from flowwalk.settings import find_root
from flowwalk.spec.source import escape

__all__ = ["HealPlan", "HealRequest", "HealWritten", "apply_heal", "plan_heal"]


@dataclass(frozen=True)
class HealRequest:
    """What `flowwalk heal` and the MCP server's `propose_heal` are asked."""

    report_dir: Path = Path("flowwalk-report")
    #: the project root the report's spec paths are relative to; only files inside it change.
    #: None: the root the report records, else the one `flowwalk run` would find here (`heal_root`)
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


def heal_root(report_dir: Path, given: Path | None = None) -> Path:
    """The root a report's spec paths are relative to: `given` (--root, a folder), else the root the
    report records when this machine has that folder, else the one `flowwalk run` would find from
    the current folder (a report downloaded from CI into a checkout elsewhere)."""
    if given is not None:
        if not given.is_dir():
            raise UsageError(f"--root '{escape(given)}' is not a folder\n  hint: pass the project root of the run "
                             f"(spec paths in the report are relative to it; the run printed it)")
        return given
    recorded = read_run(report_dir).root
    if recorded and os.path.isdir(recorded):
        return Path(recorded)
    return find_root([])


def plan_heal(request: HealRequest) -> HealPlan:
    """The report's heals and baselines as a change of the spec files under the root; writes nothing.
    UsageError, and no change at all, when a heal's file is not under the root."""
    root = heal_root(request.report_dir, request.root)
    heals = collect_heals(request.report_dir) + list(request.extra)
    lost = sorted({h.path for h, _ in heals if not _inside(root, h.path)})
    if lost:
        shown = ", ".join(escape(p) for p in lost[:5]) + (f" and {len(lost) - 5} more" if len(lost) > 5 else "")
        raise UsageError(f"the report's heals name {len(lost)} file{'s' * (len(lost) != 1)} the project root "
                         f"{escape(root)} does not hold ({shown}), so nothing was changed\n  hint: pass the root the "
                         f"run printed (--root), or heal the moved specs by hand")
    return HealPlan(plan_patch(request.report_dir, root, extra=request.extra), plan_baselines(request.report_dir, root))


def _inside(root: Path, path: str) -> bool:
    file = (root / path).resolve()
    return file.is_relative_to(root.resolve()) and file.is_file()


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
