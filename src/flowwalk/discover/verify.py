"""Checking before writing: every generated spec is validated, then walked twice by the real run loop.

The specs are written to a scratch folder, loaded with the same loader `flowwalk validate` uses,
and walked with `walk.run.run_plan` (the machinery of `flowwalk run`, in-process, fresh contexts),
twice. A spec passes only when it loaded without a problem and both walks passed with no finding
(a console error that `no_console_errors` caught counts). Otherwise its failure, as a person
would read it in a report, is what `needs-review/` says about it.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

from flowwalk import events as ev
from flowwalk.cooperative import CancelToken
from flowwalk.discover.generate import GeneratedSpec
from flowwalk.settings import Settings

__all__ = ["RUNS", "verify_specs"]

#: how many times a spec must pass in a row before it is written
RUNS = 2


def _failure_text(event: ev.RuleFinished, run: int) -> str:
    failure = event.failure
    if failure is None:
        if event.findings:
            finding = event.findings[0]
            return f"run {run}: {finding.kind or finding.source} {finding.severity}: {finding.message}"
        return f"run {run}: {event.status}" + (f" ({event.reason})" if event.reason else "")
    where = f"step {failure.step_index} ({failure.step_text}): " if failure.step_index else ""
    # expected/observed rather than the message: the message counts reads and milliseconds, and
    # two discovers of an unchanged site must write the same needs-review files too
    said = (f"expected {failure.expected}; observed {failure.observed}" if failure.expected or failure.observed
            else failure.message)
    return f"run {run}: {failure.failure_class} {failure.runtime_code}: {where}{said}"[:1000]


def verify_specs(specs: Sequence[GeneratedSpec], scratch: Path, settings: Settings, *,
                 progress: Callable[[str], None], cancel: CancelToken) -> dict[str, str | None]:
    """spec path -> None when it passed every check, else why not (one line)."""
    from flowwalk.errors import SpecError
    from flowwalk.spec.loader import load_file
    from flowwalk.spec.variables import secret_misuse
    from flowwalk.walk.run import run_plan

    if scratch.exists():
        shutil.rmtree(scratch)
    verdicts: dict[str, str | None] = {}
    by_id: dict[str, str] = {}
    scenarios: list[Any] = []
    for spec in specs:
        path = scratch / spec.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(spec.text, encoding="utf-8")
        try:
            suite, problems = load_file(path, settings)
        except SpecError as error:   # pragma: no cover - load_file returns problems
            suite, problems = None, list(error.problems)
        if suite is not None:
            for scenario in suite.scenarios:
                problems.extend(secret_misuse(scenario, set(settings.secret_names)))
        if problems or suite is None:
            verdicts[spec.path] = "invalid: " + "; ".join(p.render().replace("\n", " ") for p in problems)[:1000]
            continue
        verdicts[spec.path] = None
        for scenario in suite.scenarios:
            by_id[scenario.id] = spec.path
            scenarios.append(scenario)
    if not scenarios:
        return verdicts
    # the timeouts of `flowwalk run`, so that what passes here is held to what a run holds it to: a
    # failing check gives up after expect_timeout_ms (5 s) in both
    quiet = replace(settings, screenshots="off", trace="off", retries=0, out_dir=str(scratch / "report"))
    for run in range(1, RUNS + 1):
        if cancel.is_set():
            for spec_path in by_id.values():
                if verdicts[spec_path] is None:
                    verdicts[spec_path] = "not verified: discover was cancelled"
            break
        live = [s for s in scenarios if verdicts[by_id[s.id]] is None]
        if not live:
            break
        progress(f"verifying {len(live)} spec{'s' * (len(live) != 1)}: run {run} of {RUNS}")
        found: dict[str, str] = {}

        def collect(event: ev.Event, run: int = run, found: dict[str, str] = found) -> None:
            if isinstance(event, ev.RuleFinished) and (event.status != "passed" or event.findings):
                found.setdefault(event.scenario_id, _failure_text(event, run))

        run_plan(live, quiet, collect, cancel=cancel)
        for scenario_id, text in found.items():
            if scenario_id in by_id and verdicts[by_id[scenario_id]] is None:
                verdicts[by_id[scenario_id]] = text
    return verdicts
