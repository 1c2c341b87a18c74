"""Sharding: which scenarios each of N CI jobs runs. Pure, deterministic, balanced by time.

Every job of a matrix computes the same plan from the same files and the same durations file,
so the assignment must not depend on the machine, the Python process or the order files were
found in: scenarios are sorted by id, weights are integer milliseconds, and every tie is broken
by id or shard number (never `hash()`, which is salted per process). The unit is a scenario, so
a rule DAG never crosses shards. A setup that saves a session is walked in every shard that holds a
scenario starting from it (`session_setups`), and counted once in that shard's weight: the
dependants of one login spread over the shards like any other scenarios.

Balancing is longest-first bin packing (LPT) followed by a small exchange pass: LPT alone can be
a third worse than the best split on unlucky inputs; moving or swapping one scenario at a time
between the heaviest shard and another closes most of that gap at negligible cost.
"""

from __future__ import annotations

import bisect
from dataclasses import replace
import json
import statistics
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from flowwalk.environment import describe, layers_of
from flowwalk.errors import Problem, SpecError, UsageError
from flowwalk.model import Scenario, Suite
from flowwalk.plan.model import DurationSource, Plan
from flowwalk.plan.select import Selection, select_scenarios
from flowwalk.reportfolder import ReportFolder
from flowwalk.spec.sessions import session_key, setups_by_key
from flowwalk.spec.source import escape

if TYPE_CHECKING:  # settings are passed in, never built here
    from flowwalk.settings import Settings

#: exchange-pass rounds per scenario; each round strictly lowers one shard pair's maximum
_ROUNDS_PER_SCENARIO = 4


# --- durations ---------------------------------------------------------------------------------


def _durations_from_emit(lines: Iterable[str]) -> tuple[dict[str, float], int]:
    """Seconds per scenario from an emit.jsonl: all attempts of a scenario count (a retried
    scenario costs its shard every attempt). Unreadable lines are skipped: a cancelled run
    legitimately ends with a truncated one. Also returns how many event records were read."""
    sections: list[dict[str, float]] = [{}]
    events = 0
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        event = record.get("event")
        events += isinstance(event, str)
        if event == "run_started" and sections[-1]:
            sections.append({})
        elif event == "scenario_finished":
            sid, ms = record.get("scenario_id"), record.get("duration_ms")
            if isinstance(sid, str) and isinstance(ms, (int, float)) and not isinstance(ms, bool) and ms >= 0:
                sections[-1][sid] = sections[-1].get(sid, 0.0) + ms / 1000.0
    # a merged emit.jsonl has one section per shard; a scenario duplicated across sections
    # (a shard given twice) keeps its last measurement
    out: dict[str, float] = {}
    for section in sections:
        out.update(section)
    return out, events


def durations_file_missing(path: str | Path) -> bool:
    """True when `path` names no file: no such file, or a folder without an emit.jsonl. Not an
    error: a first run, or a CI job that found no earlier report to download, shards by count."""
    p = Path(path)
    return not (ReportFolder(p).emit if p.is_dir() else p).exists()


def missing_durations_notice(path: str) -> str:
    return (f"--durations '{escape(path)}': no such file (a first run, or no earlier report was found); "
            "balancing by count, and the next run can balance by this run's emit.jsonl")


def load_durations(path: str | Path) -> tuple[dict[str, float], str]:
    """Seconds per scenario id from an earlier run's emit.jsonl (or its report folder) or from
    a JSON object `{scenario id: seconds}`. Returns (durations, "emit" | "json")."""
    p = Path(path)
    if p.is_dir():
        p = ReportFolder(p).emit
    hint = ("  hint: pass an earlier run's emit.jsonl (or its report folder), or a JSON object "
            "{\"<scenario id>\": seconds}")
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"--durations '{escape(path)}': no such file\n{hint}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--durations '{escape(path)}': cannot read it ({error})\n{hint}") from None
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict) and "event" not in whole:
        out: dict[str, float] = {}
        for key, value in whole.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise UsageError(f"--durations '{escape(path)}': the duration of '{escape(key)}' "
                                 f"is {json.dumps(value)}, "
                                 f"not a number of seconds >= 0\n{hint}")
            out[key] = float(value)
        return out, "json"
    durations, events = _durations_from_emit(text.splitlines())
    if not events:
        raise UsageError(f"--durations '{escape(path)}': neither an emit.jsonl nor a JSON object of durations\n{hint}")
    return durations, "emit"


# --- assignment --------------------------------------------------------------------------------


def _lpt(weights: Mapping[str, int], total: int, needs: Mapping[str, str],
         overhead: Mapping[str, int]) -> list[list[str]]:
    """Longest first onto the shard it leaves least loaded (a scenario that starts from a session
    adds its setup's weight to a shard that does not run that setup yet); ties by id, then by the
    lower shard number."""
    bins: list[list[str]] = [[] for _ in range(total)]
    loads = [0] * total
    present: list[set[str]] = [set() for _ in range(total)]
    for sid in sorted(weights, key=lambda s: (-weights[s], s)):
        setup = needs.get(sid)

        def after(k: int) -> int:
            return loads[k] + weights[sid] + (overhead[setup] if setup is not None and setup not in present[k] else 0)

        target = min(range(total), key=lambda k: (after(k), k))
        loads[target] = after(target)
        bins[target].append(sid)
        if setup is not None:
            present[target].add(setup)
    return bins


def _load(ids: Iterable[str], weights: Mapping[str, int], needs: Mapping[str, str], overhead: Mapping[str, int]) -> int:
    """A shard's weight: its scenarios, and once each setup one of them starts from."""
    ids = list(ids)
    return sum(weights[s] for s in ids) + sum(overhead[x] for x in {needs[s] for s in ids if s in needs})


def _improve(bins: list[list[str]], weights: Mapping[str, int], max_rounds: int, needs: Mapping[str, str],
             overhead: Mapping[str, int]) -> list[list[str]]:
    """Move or swap one scenario between the heaviest shard and another while that lowers the pair's
    maximum. A move takes a session's setup along when the other shard lacks it (and leaves it
    behind when nothing else needs it there); a swap is between two scenarios of the same session
    (or of none), so that neither shard's setups change. Without sessions each accepted exchange
    strictly lowers the sum of squared loads, so this terminates; `max_rounds` bounds it anyway."""
    loads = [_load(b, weights, needs, overhead) for b in bins]
    for _ in range(max_rounds):
        heavy = min(range(len(bins)), key=lambda k: (-loads[k], k))
        users: dict[str, int] = {}
        for sid in bins[heavy]:
            if sid in needs:
                users[needs[sid]] = users.get(needs[sid], 0) + 1
        best: tuple[int, int, str, str] | None = None  # (new pair max, shard, from heavy, from other)
        for other in range(len(bins)):
            gap = loads[heavy] - loads[other]
            if other == heavy or gap <= 1:
                continue
            # the other shard's scenarios by session, each list by weight
            theirs: dict[str | None, list[tuple[int, str]]] = {}
            for sid in bins[other]:
                theirs.setdefault(needs.get(sid), []).append((weights[sid], sid))
            for group in theirs.values():
                group.sort()
            for mine in sorted(bins[heavy]):
                wa, setup = weights[mine], needs.get(mine)
                shed = overhead[setup] if setup is not None and users[setup] == 1 else 0
                pay = overhead[setup] if setup is not None and setup not in theirs else 0
                pair_max = max(loads[heavy] - wa - shed, loads[other] + wa + pay)
                if pair_max < loads[heavy] and (best is None or (pair_max, other, mine, "") < best):
                    best = (pair_max, other, mine, "")
                same = theirs.get(setup, [])
                # the best transfer d = wa - wb is the one nearest gap / 2, with 0 < d < gap
                pos = bisect.bisect_left([w for w, _ in same], wa - gap / 2)
                for j in (pos - 1, pos, pos + 1):
                    if 0 <= j < len(same):
                        d = wa - same[j][0]
                        if 0 < d < gap:
                            candidate = (max(loads[heavy] - d, loads[other] + d), other, mine, same[j][1])
                            if best is None or candidate < best:
                                best = candidate
        if best is None:
            break
        _, other, mine, theirs_id = best
        bins[heavy].remove(mine)
        bins[other].append(mine)
        if theirs_id:
            bins[other].remove(theirs_id)
            bins[heavy].append(theirs_id)
        loads[heavy] = _load(bins[heavy], weights, needs, overhead)
        loads[other] = _load(bins[other], weights, needs, overhead)
    return bins


def assign_shards(weights: Mapping[str, int], total: int, needs: Mapping[str, str] | None = None,
                  overhead: Mapping[str, int] | None = None) -> list[list[str]]:
    """Split scenario ids into `total` shards of near-equal summed weight; each shard in id order.

    `needs` maps a scenario that starts from a saved session to the setup that saves it, and
    `overhead` gives each such setup's weight: a setup is not packed itself, it goes into every
    shard that holds one of its dependants and counts once in that shard's weight (as Playwright's
    setup projects run once per shard that needs them). Deterministic for the same input on any
    machine: integer weights, and ties broken by id.
    """
    if total < 1:
        raise ValueError("total must be >= 1")
    needs, overhead = dict(needs or {}), dict(overhead or {})
    bins = _lpt(weights, total, needs, overhead)
    if total > 1:
        bins = _improve(bins, weights, _ROUNDS_PER_SCENARIO * max(1, len(weights)), needs, overhead)
    # heaviest shard first would depend on durations; keep shard content sorted, shard order as packed
    return [sorted({*b, *(needs[s] for s in b if s in needs)}) for b in bins]


# --- the plan ----------------------------------------------------------------------------------


def _scenarios(suites: Sequence[Suite]) -> list[Scenario]:
    seen: dict[str, Scenario] = {}
    problems: list[Problem] = []
    for suite in suites:
        for sc in suite.scenarios:
            if sc.id in seen:
                first = seen[sc.id]
                problems.append(Problem(sc.loc, f"scenario id '{escape(sc.id)}' is used twice (first at {first.loc})",
                                        "give each scenario of a file its own name"))
            else:
                seen[sc.id] = sc
    if problems:
        raise SpecError(problems)
    return sorted(seen.values(), key=lambda s: s.id)


def selection_of(settings: Settings, last_failed_ids: frozenset[str] | None = None) -> Selection:
    """The run's selection from its settings (`--grep`, `--grep-invert`, `--tag`, `--last-failed`);
    `last_failed_ids` are the tests that did not pass in the `--last-failed` report."""
    return Selection(grep=getattr(settings, "grep", None), grep_invert=getattr(settings, "grep_invert", None),
                     tag=getattr(settings, "tag", None), last_failed=getattr(settings, "last_failed", None),
                     last_failed_ids=last_failed_ids if getattr(settings, "last_failed", None) else None)


def _nothing_selected(scenarios: Sequence[Scenario], selection: Selection) -> str:
    """Why a selection that picks nothing is refused: a misspelt tag must not pass a PR gate."""
    record = selection.record(0, len(scenarios))
    tags = sorted({t.lower() for s in scenarios for r in s.rules for t in s.test_tags(r)})
    known = f"the tags of these tests: {', '.join(tags[:30])}" if tags else "none of these tests has a tag"
    return (f"{describe_selection(record)} selects none of the {len(scenarios)} scenarios found\n"
            f"  hint: {known}; `flowwalk plan` shows the test ids")


def _unknown_report(scenarios: Sequence[Scenario], report: str, tested: frozenset[str], root: str) -> str:
    """Why a --last-failed report that shares no test with the run is refused: rerunning "what failed"
    of another suite would walk nothing and pass."""
    theirs = sorted(tested)[0]
    ours = next((sc.test_id(r) for sc in scenarios for r in sc.rules), "")
    return (f"--last-failed '{escape(report)}' holds none of the {len(scenarios)} scenarios found, so it says "
            f"nothing about what to rerun\n  hint: its tests are named like '{escape(theirs)}', this run's like "
            f"'{escape(ours)}' (relative to the project root {escape(root)}): name the report of these specs, or "
            f"the --root that run used")


def plan_run(suites: Sequence[Suite], settings: Settings, *, last_failed_ids: frozenset[str] | None = None,
             last_report_ids: frozenset[str] | None = None) -> Plan:
    """The plan of a run: the selected scenarios in id order, and the ones shard K of N runs.

    `last_failed_ids` and `last_report_ids`: the tests that did not pass in the `--last-failed`
    report, and all of its tests; a report none of whose tests is among those the other criteria
    select is refused (another project's report, or one whose ids are not this root's).

    `settings` is a `flowwalk.settings.Settings` (`shard_index`, `shard_total`, `durations_file`
    and the selection's `grep`, `grep_invert`, `tag`, `last_failed` are read). Selection comes
    before sharding (plan/select.py), so the shards split only what was selected. `environment`
    and `projects` give each scenario's environment in the record.
    """
    index, total = int(settings.shard_index), int(settings.shard_total)
    if total < 1 or not 1 <= index <= total:
        raise UsageError(f"--shard '{index}/{total}': K must be between 1 and N\n  hint: shards are numbered 1..N")
    every = _scenarios(suites)
    selection = selection_of(settings, last_failed_ids)
    scenarios = _with_setups(every, select_scenarios(every, selection))
    # --grep/--tag that match no test at all are refused; with --last-failed, matching none of the
    # tests that failed is simply nothing left to rerun
    by_words = replace(selection, last_failed=None, last_failed_ids=None)
    if every and not scenarios and by_words.active and not select_scenarios(every, by_words):
        raise UsageError(_nothing_selected(every, by_words))
    if every and last_report_ids and selection.last_failed:
        candidates = select_scenarios(every, by_words)
        if not any(sc.test_id(r) in last_report_ids for sc in candidates for r in sc.rules):
            raise UsageError(_unknown_report(candidates, selection.last_failed, last_report_ids,
                                             str(getattr(settings, "root", "."))))
    ids = [s.id for s in scenarios]

    learned: dict[str, float] = {}
    kind, path = "none", None
    missing = False
    if getattr(settings, "durations_file", None):
        path = str(settings.durations_file)
        missing = durations_file_missing(path)
        if not missing:
            learned, kind = load_durations(path)
    known = {sid: learned[sid] for sid in ids if sid in learned}
    estimates: dict[str, float] = {}
    default_s: float | None = None
    if known:
        default_s = round(float(statistics.median(known.values())), 3)
        estimates = {sid: round(known.get(sid, default_s), 3) for sid in ids}
        # integer milliseconds, at least 1, so that packing never depends on float rounding and a
        # zero-length scenario still counts
        weights = {sid: max(1, round(estimates[sid] * 1000)) for sid in ids}
    else:
        weights = {sid: 1 for sid in ids}
    needs = session_setups(scenarios)
    setups = set(needs.values())
    shards = assign_shards({sid: w for sid, w in weights.items() if sid not in setups}, total, needs,
                           {sid: weights[sid] for sid in setups})
    if known:
        source = DurationSource(kind=kind, path=path, known=len(known), unknown=len(ids) - len(known),
                                default_s=default_s)
    else:  # nothing learned that applies to this plan: count-balanced, and the record says so
        source = DurationSource(kind="none", path=path, missing=missing)
    environments = {sc.id: describe(layers_of(settings.environment, settings.projects, sc)) for sc in scenarios}
    return Plan(scenarios=tuple(scenarios), assigned=tuple(shards[index - 1]), shard_index=index,
                shard_total=total, shard_source=getattr(settings, "shard_source", None), shards=tuple(tuple(b) for b in shards), estimates=estimates,
                measured=frozenset(known), durations=source,
                selection=selection.record(len(scenarios), len(every)) if selection.active else None,
                environments={sid: env for sid, env in environments.items() if env})


def _with_setups(every: Sequence[Scenario], picked: Sequence[Scenario]) -> list[Scenario]:
    """The picked scenarios and the setups that save the sessions they start from, in plan order:
    a selected scenario never runs without its sign-in."""
    setups = setups_by_key(every)
    needed = {sc.id for sc in picked}
    needed.update(setups[session_key(sc, sc.session)][0].id for sc in picked
                  if sc.session and session_key(sc, sc.session) in setups)
    return [sc for sc in every if sc.id in needed]


def session_setups(scenarios: Sequence[Scenario]) -> dict[str, str]:
    """Scenario id -> the id of the setup that saves the session it starts from (for the scenarios
    that start from one whose setup is in the plan): each shard with one of them runs that setup."""
    setups = setups_by_key(scenarios)
    out: dict[str, str] = {}
    for sc in scenarios:
        setup = setups.get(session_key(sc, sc.session)) if sc.session else None
        if setup is not None:
            out[sc.id] = setup[0].id
    return out


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 600 else f"{value / 60:.1f} min"


def describe_selection(record: Mapping[str, object]) -> str:
    """`--tag 'smoke and not slow', --last-failed flowwalk-report (3 tests)` from a selection record."""
    parts = []
    for key, flag in (("grep", "--grep"), ("grep_invert", "--grep-invert"), ("tag", "--tag")):
        if record.get(key) is not None:
            parts.append(f"{flag} '{escape(record[key])}'")
    if record.get("last_failed") is not None:
        n = record.get("last_failed_tests")
        parts.append(f"--last-failed {escape(record['last_failed'])}"
                     + (f" ({n} test{'s' * (n != 1)} did not pass there)" if isinstance(n, int) else ""))
    return ", ".join(parts)


def render_plan(plan: Plan) -> str:
    """What `flowwalk plan --shard K/N` prints: how the plan was balanced, then every shard."""
    n = len(plan.scenarios)
    head = f"plan: {n} scenario{'s' * (n != 1)}"
    head += f" in {plan.shard_total} shards" if plan.shard_total > 1 else ", one shard"
    src = plan.durations
    if src.kind == "none":
        how = "balanced by count"
        if src.missing:
            how += f" (no durations file at {src.path}: a first run, or no earlier report was found)"
        elif src.path:
            how += f" (no scenario of this plan has a duration in {src.path})"
        elif plan.shard_total > 1:
            how += " (pass --durations with an earlier run's emit.jsonl to balance by time)"
    else:
        how = f"balanced by durations from {src.path} ({src.known} known"
        if src.unknown:
            how += f", {src.unknown} estimated at {_seconds(src.default_s or 0.0)}, the median"
        how += ")"
    lines = [f"{head}, {how}"]
    if plan.shard_source:
        lines.append(f"this job is shard {plan.shard_index}/{plan.shard_total}, from {plan.shard_source}")
    if plan.selection:
        lines.append(f"selected by {describe_selection(plan.selection)}: {plan.selection.get('scenarios')} of "
                     f"{plan.selection.get('of')} scenarios")
    by_id = {s.id: s for s in plan.scenarios}
    width = max((len(i) for i in by_id), default=0)
    for number, (ids, est) in enumerate(zip(plan.shards, plan.shard_estimates()), start=1):
        mark = " (this job)" if number == plan.shard_index and plan.shard_total > 1 else ""
        size = f"{len(ids)} scenario{'s' * (len(ids) != 1)}"
        if src.kind != "none":
            size += f", ~{_seconds(est)}"
        lines.append("")
        lines.append(f"shard {number}/{plan.shard_total}{mark}: {size}")
        for sid in ids:
            sc = by_id[sid]
            rules = f"{len(sc.rules)} rule{'s' * (len(sc.rules) != 1)}" if sc.kind != "flow" else "flow"
            row = f"  {sid.ljust(width)}  {rules}"
            if src.kind != "none":
                row += f"  {_seconds(plan.estimates[sid])}"
                if sid not in plan.measured:
                    row += " (median, not measured)"
            if sc.saves:
                row += "  saves session " + ", ".join(f"'{name}'" for name, _ in sc.saves)
            if sc.session:
                row += f"  from session '{sc.session}'"
            lines.append(row.rstrip())
    if not plan.scenarios:
        lines.append("(no scenarios found)")
    return "\n".join(lines)
