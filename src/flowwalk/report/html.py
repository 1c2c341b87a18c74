"""report.html: one self-contained file, built from emit.jsonl alone, that opens from an unzipped
artifact with no network and no server.

The overview (verdict, counts, duration, shards, root causes, flaky, slowest) is plain HTML, so
it reads even with scripts off. The test list is rendered by the inline script from a JSON blob
embedded in the page, a page of rows at a time as the reader scrolls, and each test's step
timeline and failure context only when it is opened: a 1,000-scenario run stays quick to open.

Screenshots are referenced relatively (`screenshots/<name>.png`), not embedded: they already sit
beside report.html in the report folder (the artifact), so the page works from the unzipped
folder with no network, and a run with hundreds of failures does not turn into a page of tens of
megabytes of base64 that every reader must download and parse before the overview shows.

Every string from the run (page text, console messages, URLs) is inserted with textContent by
the script, never as HTML; the blob is escaped so that no value can close its script element.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Sequence

from flowwalk.events import Baseline, Failure, Finding, ScenarioFinished, StepFinished, Violation, to_json
from flowwalk.report.records import RunRecords, TestRecord
from flowwalk.report.summary import (
    HEAL_MEANING, OUTCOME_ICONS, WRITTEN_MEANING, HealItem, Refactor, gate_lead, gate_sections, group_failures,
    heal_policy_text, healed_items, refactor_of, shards_line, verdict_headline, written_baselines,
)
from flowwalk.report.verdict import failure_class, failure_message, help_link, skip_message
from flowwalk.report.verdict_json import shards_data
from flowwalk.report.verdict_model import Verdict


def _asset(name: str) -> str:
    return resources.files("flowwalk.report").joinpath(name).read_text(encoding="utf-8")


def safe_relative(path: Any) -> str | None:
    """A path inside the report folder, usable as a relative link; anything else (absolute,
    a URL scheme such as `javascript:`, `..`) is refused, since it comes from the log."""
    if not isinstance(path, str) or not path:
        return None
    if path.startswith(("/", "\\")) or ":" in path or ".." in Path(path).parts:
        return None
    return path


def _step(step: StepFinished, source: str) -> list[Any]:
    """A step as a compact array: [index, status, kind, text, ms, reads, line, role (null: body), detail, failure,
    path (when another file than the test's: a called steps file), frame ids (outermost first)]."""
    failure = None if step.failure is None else {"class": step.failure.failure_class, "code": step.failure.runtime_code,
                                                 "message": step.failure.message}
    out = [step.index, step.status, step.kind, step.text, _ms_number(step.duration_ms), step.reads, step.line,
           step.role if step.role != "body" else None, step.detail or None, failure,
           step.path if step.path != source else None,
           [f.id for f in step.frames]]
    while out[-1] is None or out[-1] == []:  # report.js reads a missing tail as null / no frames
        out.pop()
    return out


def _ms_number(ms: float) -> float | int:
    """Milliseconds to a tenth, written without `.0` when whole (the page reads either)."""
    tenth = round(ms, 1)
    return int(tenth) if tenth.is_integer() else tenth


#: a block's status from its steps': the worst of them
_WORST = ("failed", "warning", "passed", "skipped")


def _frames(steps: Sequence[StepFinished]) -> dict[str, dict[str, Any]]:
    """The blocks (calls, groups, hooks) a test's steps ran in, by id: what opens each in the timeline,
    with its steps' worst status and their time together."""
    out: dict[str, dict[str, Any]] = {}
    for step in steps:
        for frame in step.frames:
            entry = out.setdefault(str(frame.id), {**to_json(frame), "status": step.status, "ms": 0.0})
            entry["ms"] = round(entry["ms"] + step.duration_ms, 1)
            if _WORST.index(step.status) < _WORST.index(entry["status"]):
                entry["status"] = step.status
    return out


#: the failure fields the page shows, in the order it receives them
_FAILURE_FIELDS = ("failure_class", "runtime_code", "retryable", "step_kind", "message", "step_index", "step_text",
                   "expected", "observed", "diff", "path", "line", "col", "parent", "recovery", "candidates",
                   "context")


def _failure(failure: Failure | None) -> dict[str, Any] | None:
    if failure is None:
        return None
    out = {k: to_json(getattr(failure, k)) for k in _FAILURE_FIELDS}
    out["screenshot"] = safe_relative(failure.screenshot)
    out["label"] = failure_message(failure)
    if failure.baseline is not None:
        out["baseline"] = _baseline(failure.baseline)
    if failure.violations:
        out["violations"] = _violations(failure.violations)
    return out


def _baseline(baseline: Baseline) -> dict[str, Any]:
    """A baseline for the page: its images as links inside the report folder only."""
    out: dict[str, Any] = to_json(baseline)
    for key in ("observed", "expected", "diff"):
        out[key] = safe_relative(out.get(key))
    return out


def _violations(found: Sequence[Violation]) -> list[dict[str, Any]]:
    return [{**to_json(v), "help_url": help_link(v.help_url)} for v in found]


def _test(test: TestRecord, traces: Mapping[str, tuple[ScenarioFinished, ...]]) -> dict[str, Any]:
    failure = test.failure if test.status in ("failed", "skipped") else None
    attempts = {a.attempt: a for a in traces.get(test.scenario_id, ())}
    scenario = attempts[max(attempts)] if attempts else None
    entry: dict[str, Any] = {
        "id": test.test_id, "name": test.name, "scenario": test.scenario_id, "kind": test.kind,
        "source": test.source, "line": test.line, "status": test.status, "reason": test.reason,
        "ms": _ms_number(test.duration_ms), "attempts": test.attempts, "shard": test.shard,
        "class": failure_class(test) or "",
        "headline": (failure_message(failure) if test.status == "failed" else
                     skip_message(test) if test.status == "skipped" else ""),
        "failure": _failure(failure) if test.status == "failed" else None,
        "steps": [_step(s, test.source) for s in test.steps],
        "frames": _frames(test.steps),
        "skipped_steps": test.skipped_steps,
        "findings": [_finding(f) for f in test.findings],
        "emits": [{"name": e.name, "url": e.url, "fields": e.fields} for e in test.emits],
        "routed": [{"step": r.step_index, "method": r.method, "url": r.url, "answer": r.answer, "status": r.status,
                    "route": r.route, "line": r.line, "delay_ms": r.delay_ms, "source": r.source} for r in test.routed],
        "screenshots": [p for p in (safe_relative(s) for s in test.screenshots) if p],
        "tags": list(test.tags),
        "earlier": [{"attempt": a.attempt, "status": a.status, "ms": round(a.duration_ms, 1),
                     "failure": _failure(a.failure), "trace": _trace_of(attempts.get(a.attempt))}
                    for a in test.history[:-1]],
    }
    if scenario is not None and (scenario.trace or scenario.trace_withheld):
        entry["trace"] = safe_relative(scenario.trace)
        entry["trace_withheld"] = scenario.trace_withheld
    return entry


#: what report.js fills in for a key a test leaves out (`_compact`), in the page's `LEFT_OUT`
LEFT_OUT: dict[str, Any] = {"kind": "flow", "attempts": 1, "reason": "", "class": "", "headline": "", "failure": None, "steps": [], "frames": {},
                            "skipped_steps": [], "findings": [], "emits": [], "routed": [], "screenshots": [],
                            "tags": [], "earlier": [], "change": "", "quarantine": None, "excused": ""}


def _compact(entry: dict[str, Any]) -> dict[str, Any]:
    """`entry` without what the page derives: keys at their `LEFT_OUT` value, a scenario id equal to
    the test id, a source equal to the test id's file part. 10,000 tests are mostly passing ones
    with nothing to say beyond their steps."""
    out = {k: v for k, v in entry.items() if k not in LEFT_OUT or v != LEFT_OUT[k]}
    if out.get("scenario") == out["id"]:
        del out["scenario"]
    if out.get("source") == out["id"].split("#", 1)[0]:
        del out["source"]
    return out


def _trace_of(finished: ScenarioFinished | None) -> str | None:
    """The report-folder path of an attempt's trace, if it kept one."""
    return safe_relative(finished.trace) if finished is not None and finished.trace else None


def _finding(finding: Finding) -> dict[str, Any]:
    out: dict[str, Any] = to_json(finding)
    if finding.baseline is not None:
        out["baseline"] = _baseline(finding.baseline)
    out["violations"] = _violations(finding.violations)
    return out


def report_data(verdict: Verdict, records: RunRecords) -> dict[str, Any]:
    """The JSON the page embeds: `run` (what differs between runs) and `tests` (plan order)."""
    traces = {sc.scenario_id: sc.attempts for sc in records.scenarios}
    judged = {t.test_id: t for t in verdict.tests}
    tests = []
    for test in records.tests:
        entry = _test(test, traces)
        seen = judged.get(test.test_id)
        entry.update(change=seen.change if seen else "", quarantine=to_json(seen.quarantine) if seen else None,
                     excused=seen.excused if seen else "")
        tests.append(_compact(entry))
    return {
        "run": {"run_id": verdict.run_id, "started_at": verdict.started_at, "duration_ms": verdict.duration_ms,
                "shards": shards_data(verdict.shards)},
        "outcome": verdict.outcome, "exit_code": verdict.exit_code, "counts": to_json(verdict.counts),
        "tests": tests,
    }


def _embed(data: Any) -> str:
    """JSON that cannot end its <script> element or open a comment, whatever the page text was."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _ms(ms: Any) -> str:
    seconds = float(ms or 0.0) / 1000
    return f"{seconds:.1f} s" if seconds < 60 else f"{int(seconds // 60)} min {int(round(seconds % 60)):02d} s"


def _overview(verdict: Verdict, records: RunRecords) -> str:
    outcome = verdict.outcome
    counts = verdict.counts
    parts = [f'<header class="verdict {_e(outcome)}"><h1>{_e(verdict_headline(verdict))}</h1>']
    facts = [f"run <code>{_e(verdict.run_id or '?')}</code>",
             f"started {_e(verdict.started_at or '?')}", f"took {_ms(verdict.duration_ms)}"]
    shard_text = shards_line(verdict)
    if shard_text:
        facts.append(_e(shard_text))
    parts.append(f'<p class="facts">{" · ".join(facts)}</p></header>')
    parts.append('<section class="counts" aria-label="counts">')
    for key in ("total", "passed", "failed", "skipped", "flaky"):
        parts.append(f'<div class="count {key}"><b>{getattr(counts, key)}</b><span>{key}</span></div>')
    parts.append("</section>")
    warnings = verdict.warnings
    if warnings:
        parts.append('<section class="warnings"><h2>Warnings</h2><ul>'
                     + "".join(f"<li>{_e(w)}</li>" for w in warnings) + "</ul></section>")
    parts.append(_gate(verdict))
    groups = group_failures(verdict)
    if groups:
        parts.append('<section class="causes"><h2>Root causes</h2>')
        for group in groups:
            parts.append(f'<h3>{_e(group.title)} <small>{_e(group.meaning)}</small></h3><ul>')
            for item in group.items:
                deps = (f' <span class="deps">+{len(item.dependents)} skipped because of it</span>'
                        if item.dependents else "")
                parts.append(f'<li><a href="#test={_e(item.test_id)}" data-test="{_e(item.test_id)}">'
                             f"<code>{_e(item.test_id)}</code></a> <b>{_e(item.failure_class)}</b> "
                             f"{_e(item.step)}{deps}<br><span class=\"msg\">{_e(item.message)}</span></li>")
            parts.append("</ul>")
        parts.append("</section>")
    heals = healed_items(verdict)
    if heals:
        parts.append(_heals(heals, str(records.settings.get("heal_policy", "pass"))))
    written = written_baselines(verdict)
    if written:
        parts.append(f'<section class="heals"><h2>Baselines written <small>{len(written)}: {_e(WRITTEN_MEANING)}'
                     "</small></h2><ul>" + "".join(
                         f'<li><code>{_e(path)}</code> <a href="#test={_e(test_id)}" data-test="{_e(test_id)}">'
                         f"<code>{_e(test_id)}</code></a></li>" for path, test_id in written) + "</ul></section>")
    flaky = verdict.flaky
    slowest = verdict.slowest[:10]
    if flaky or slowest:
        parts.append('<section class="side">')
        if flaky:
            parts.append("<div><h2>Flaky</h2><ul>" + "".join(
                f'<li><a href="#test={_e(t)}" data-test="{_e(t)}"><code>{_e(t)}</code></a></li>' for t in flaky)
                + "</ul></div>")
        if slowest:
            parts.append("<div><h2>Slowest</h2><table>" + "".join(
                f'<tr><td><a href="#test={_e(s.test_id)}" data-test="{_e(s.test_id)}"><code>'
                f'{_e(s.test_id)}</code></a></td><td class="num">{_ms(s.duration_ms)}</td></tr>'
                for s in slowest) + "</table></div>")
        parts.append("</section>")
    return "\n".join(parts)


def _gate(verdict: Verdict) -> str:
    """What the run was compared with and what did not fail the job, as summary.md says it
    (`gate_lead`, `gate_sections`), each test id a link to its row."""
    lead = gate_lead(verdict)
    sections = gate_sections(verdict)
    if not lead and not sections:
        return ""
    out = ['<section class="gate">']
    if lead:
        out.append(f"<p>{_inline(lead)}</p>")
    for section in sections:
        out.append(f'<h2>{_e(section.title)} <small>{section.count}: {_e(section.note)}</small></h2><ul>')
        out += [f'<li><a href="#test={_e(tid)}" data-test="{_e(tid)}"><code>{_e(tid)}</code></a>'
                f"{_e(section.sep + detail if detail else '')}</li>" for tid, detail in section.rows]
        out.append(f"<li>… and {section.more} more</li></ul>" if section.more else "</ul>")
    out.append("</section>")
    return "\n".join(out)


def _inline(markdown: str) -> str:
    """The little Markdown the gate lines use (`code`, **bold**) as HTML; a code span that is a
    test id links to the test's row."""
    out = []
    for index, piece in enumerate(markdown.split("`")):
        if index % 2:
            out.append(f'<a href="#test={_e(piece)}" data-test="{_e(piece)}"><code>{_e(piece)}</code></a>')
        else:
            bold = _e(piece).split("**")
            out.append("".join(f"<b>{p}</b>" if i % 2 else p for i, p in enumerate(bold)))
    return "".join(out)


def _refactor(refactor: Refactor) -> str:
    """A refactor's heals as one finding: its renames, and every selector to change as a diff."""
    renames = "".join(f"<li><del><code>{_e(old)}</code></del> → <ins><code>{_e(new)}</code></ins> <small>used in "
                      f"{tests} spec{'s' * (tests != 1)}, {steps} step{'s' * (steps != 1)}</small></li>"
                      for old, new, tests, steps in refactor.renames)
    said = refactor.said(lambda s: f"<code>{_e(s)}</code>")
    return (f'<section class="heals refactor"><h2>A refactor <small>{said}. Keep it with <code>'
            "flowwalk heal --report &lt;this folder&gt; --apply</code>, which writes exactly this diff.</small></h2>"
            f"<ul>{renames}</ul><pre class=\"diff\">{_e(refactor.diff(len(refactor.edits)))}</pre></section>")


def _heals(items: list[HealItem], policy: str) -> str:
    """The healed selectors: old and new selector, how found, score, the screenshot at the heal; a
    refactor's heals as one finding first (`_refactor`)."""
    refactor = refactor_of(items)
    head = _refactor(refactor) if refactor else ""
    items = [i for i in items if not i.renames]
    if not items:
        return head
    rows = []
    for item in items:
        link = safe_relative(item.screenshot)
        shot = (f'<a href="{_e(link)}"><img class="thumb" src="{_e(link)}" alt="the page when step '
                f'{item.step_index} was healed" loading="lazy"></a>') if link else "—"
        target = f'<br><small>target: {_e(item.target)}</small>' if item.target else ""
        rows.append(f'<tr><td><a href="#test={_e(item.test_id)}" data-test="{_e(item.test_id)}"><code>'
                    f"{_e(item.test_id)}</code></a><br><small><code>{_e(item.location)}</code> step "
                    f"{item.step_index}</small></td><td><del><code>{_e(item.old_selector)}</code></del><br>"
                    f"<ins><code>{_e(item.new_selector)}</code></ins>{target}</td><td>{_e(item.method)}</td>"
                    f'<td class="num">{item.score:.2f}</td><td>{shot}</td></tr>')
    count = len(items)
    return head + (f'<section class="heals"><h2>Healed selectors <small>{count} step{"s" * (count != 1)} '
            f"{_e(HEAL_MEANING)}; {_e(heal_policy_text(policy))}. Keep them with <code>flowwalk heal --report "
            "&lt;this folder&gt; --apply</code>.</small></h2><table><thead><tr><th>test</th>"
            "<th>old → new selector</th><th>found by</th><th>score</th><th>screenshot</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table></section>")


def render_html(verdict: Verdict, records: RunRecords) -> str:
    """The report.html page for a run."""
    icon = OUTCOME_ICONS.get(verdict.outcome, "")
    title = f"{icon} {verdict_headline(verdict).split(' ', 1)[1]}" if icon else verdict_headline(verdict)
    return "".join([
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
        # no network: nothing may load from anywhere but this folder
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src 'self' file: data:; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n",
        f"<title>{_e(title)}</title>\n<style>\n{_asset('report.css')}\n</style>\n</head>\n<body>\n<main>\n",
        _overview(verdict, records),
        "\n<section class=\"tests\" aria-label=\"tests\">\n<h2>Tests</h2>\n",
        "<form class=\"filters\" role=\"search\" onsubmit=\"return false\">",
        "<fieldset id=\"status-filter\"><legend>status</legend></fieldset>",
        "<label>failure class <select id=\"class-filter\"><option value=\"\">any</option></select></label>",
        "<label>search <input id=\"search\" type=\"search\" placeholder=\"test id, file, step, message\" "
        "autocomplete=\"off\"></label>",
        "<span id=\"shown\" aria-live=\"polite\"></span></form>\n",
        "<noscript><p>The test list needs JavaScript. summary.md, junit.xml and verdict.json in this folder "
        "hold the same results.</p></noscript>\n",
        "<ol id=\"list\"></ol>\n<div id=\"more\"></div>\n</section>\n</main>\n",
        f"<script type=\"application/json\" id=\"fw-data\">{_embed(report_data(verdict, records))}</script>\n",
        f"<script type=\"application/json\" id=\"fw-left-out\">{_embed(LEFT_OUT)}</script>\n",
        f"<script>\n{_asset('report.js')}\n</script>\n</body>\n</html>\n",
    ])

