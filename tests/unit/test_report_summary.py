"""summary.md and the failure grouping the PR comment reuses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flowwalk.events import Failure, Heal
from flowwalk.plan.shard import plan_run
from flowwalk.report.records import RunRecords, read_run
from markdown_tables import broken_tables
from sample_run import healed_events, sample_events, sample_suites, typed, write_sample_run
from flowwalk.report.summary import SUMMARY_LIMIT, code, group_failures, render_summary, screenshot_missing
from flowwalk.report.verdict import build_verdict
from flowwalk.report.verdict_json import verdict_data
from flowwalk.settings import Settings


def sample(tmp_path: Path, extra: int = 0, **kw: Any) -> tuple[dict[str, Any], RunRecords]:
    suites = sample_suites(extra=extra)
    write_sample_run(tmp_path, sample_events(suites, plan_run(suites, Settings()).record(), **kw))
    records = read_run(tmp_path)
    return verdict_data(build_verdict(records)), records


def test_failures_are_grouped_by_what_the_reader_should_do(tmp_path: Path) -> None:
    verdict, _ = sample(tmp_path)
    groups = group_failures(typed(verdict))
    assert [g.key for g in groups] == ["site", "spec"]
    site, spec = groups
    assert [i.test_id for i in site.items] == ["examples/flows/checkout.flow.yaml#Checkout saves the order"]
    # spec_step_unresolvable before credential_rejected (contract order)
    assert [i.failure_class for i in spec.items] == ["spec_step_unresolvable", "credential_rejected"]
    login = spec.items[0]
    assert login.step == "step 2 (act click 'the sign in button')"
    assert login.location == "examples/rules/shop.rules.yaml:18"
    assert len(login.dependents) == 3 and spec.affected == 5
    assert site.items[0].screenshot == \
        "screenshots/examples-flows-checkout-flow-yaml-checkout-saves-the-order-a2-s5.png"


def test_the_summary_reads_as_a_verdict_then_each_root_cause(tmp_path: Path) -> None:
    verdict, records = sample(tmp_path)
    text = render_summary(typed(verdict), records)
    assert text.startswith("## ❌ flowwalk: the site misbehaved: 3 of 14 tests failed (exit 1)\n")
    assert "| 14 | 6 | 3 | 4 | 1 |" in text
    assert text.index("### The site misbehaved: 1 root cause") < text.index("### A spec needs review: 2 root causes, "
                                                                            "5 tests affected")
    assert ("**assertion_failed** at `step 5 (expect text_contains 'Saved')` · "
            "`examples/flows/checkout.flow.yaml:12`") in text
    assert "- expected: `'#status' contains 'Saved' (case-insensitive)`" in text
    assert "- observed: `'#status' reads 'Saving failed, try again'`" in text
    assert "- skipped because of it (3): `cart`, `checkout`, `profile`" in text
    assert ("- `examples/suites/search.robot#Search finds products/results` — attempt 1: assertion\\_failed at "
            "`expect count '.result' gte 3`; passed on attempt 2") in text
    assert "### Slowest" in text


def test_a_passing_run_says_so_in_one_line(tmp_path: Path) -> None:
    verdict, records = sample(tmp_path)
    verdict = {**verdict, "outcome": "passed", "exit_code": 0, "root_causes": [], "flaky": [],
               "counts": {"total": 14, "passed": 14, "failed": 0, "skipped": 0, "flaky": 0}}
    text = render_summary(typed(verdict), records)
    assert text.startswith("## ✅ flowwalk: all checks passed: 14 tests (exit 0)")
    assert "root cause" not in text


def test_page_text_cannot_break_the_markdown(tmp_path: Path) -> None:
    verdict, records = sample(tmp_path)
    cause = verdict["root_causes"][0]
    cause["message"] = "<img src=x onerror=alert(1)> **bold** [link](http://evil)"
    cause["observed"] = "text with `backticks` and\nnewlines"
    text = render_summary(typed(verdict), records)
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt; \\*\\*bold\\*\\* \\[link\\](http://evil)" in text
    assert "- observed: `` text with `backticks` and newlines ``" in text
    assert code("`x`") == "`` `x` ``"


def test_the_summary_stays_under_the_job_summary_cap_and_says_what_it_cut(tmp_path: Path) -> None:
    verdict, records = sample(tmp_path, extra=300)
    cause = verdict["root_causes"][0]
    many = [{**cause, "test_id": f"{cause['test_id']} #{i}", "message": "m" * 400} for i in range(6000)]
    verdict = {**verdict, "root_causes": many}
    text = render_summary(typed(verdict), records)
    assert len(text.encode("utf-8")) <= SUMMARY_LIMIT
    assert "more sections cut to stay under 1024 KiB: see junit.xml and report.html" in text
    assert text.rstrip().endswith("</sub>")


def test_two_hundred_failures_fit_the_job_summary_with_every_table_whole(tmp_path: Path) -> None:
    verdict, records = sample(tmp_path, extra=300)
    cause = verdict["root_causes"][0]
    many = [{**cause, "test_id": f"{cause['test_id']} #{i}", "message": "m" * 400} for i in range(200)]
    text = render_summary(typed({**verdict, "root_causes": many}), records)
    assert len(text.encode("utf-8")) <= SUMMARY_LIMIT and "cut to stay under" not in text
    assert text.count(" #199") >= 1 and broken_tables(text) == []
    # a summary that must be cut drops whole sections, never part of a table
    small = render_summary(typed({**verdict, "root_causes": many}), records, limit=60_000)
    assert len(small.encode("utf-8")) <= 60_000 and "cut to stay under" in small and broken_tables(small) == []


def test_heals_are_listed_with_the_way_to_keep_them(tmp_path: Path) -> None:
    hostile = 'button:has-text("a | b `x` <script>")'
    heals = [("a.flow.yaml#a", Heal(old_selector="#old|x", new_selector=hostile, method="model", score=0.8,
                                    target="the | button", step_index=3, path="a.flow.yaml", line=12,
                                    screenshot="screenshots/a.png"))]
    for policy, note in (("pass", "counted as passed (heal policy: pass)"),
                         ("fail", "they fail this run (heal policy: fail)")):
        write_sample_run(tmp_path / policy, healed_events(heals, heal_policy=policy))
        records = read_run(tmp_path / policy)
        verdict = verdict_data(build_verdict(records))
        text = render_summary(typed(verdict), records)
        section = text[text.index("### Healed selectors: 1"):]
        assert note in section
        row = next(line for line in section.splitlines() if line.startswith("| `a.flow.yaml#a`"))
        # every | of the values is escaped, so the table keeps its five columns
        assert row == ("| `a.flow.yaml#a` | `a.flow.yaml:12` step 3 | `#old\\|x` → "
                       "`` button:has-text(\"a \\| b `x` <script>\") `` | model, score 0.80 | `screenshots/a.png` |")
        assert "`flowwalk heal --report <this report folder> --apply`" in section
    assert verdict["outcome"] == "spec_needs_review" and text.startswith("## ⚠️ flowwalk: a spec needs review")


def test_a_failure_without_its_screenshot_says_why_and_one_with_it_says_nothing() -> None:
    why = "the full-page screenshot did not finish within its 10.0 s: the page was still drawing"
    def failure(**fields: Any) -> Failure:
        return Failure(failure_class="assertion_failed", runtime_code="TIMEOUT", retryable=False,
                       step_kind="observation_or_assertion", message="", **fields)

    assert screenshot_missing(failure(context={"evidence_skipped": {"screenshot": why}})) == why
    assert screenshot_missing(failure(screenshot="screenshots/a.png",
                                      context={"evidence_skipped": {"screenshot": why}})) == ""
    assert screenshot_missing(failure(context={"evidence_skipped": {"a11y_snapshot": "no time left"}})) == ""
    assert screenshot_missing(failure(context={"evidence_skipped": "not a mapping"})) == ""
    assert screenshot_missing(failure()) == ""
