"""The console: a line per test as it finally ends, quiet about passed steps, totals, the report."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

from flowwalk.events import Heal, tally
from flowwalk.plan.shard import plan_run
from flowwalk.report.console import ConsoleReporter
from flowwalk.report.records import read_run
from sample_run import healed_events, sample_events, sample_suites, whole_verdict, write_sample_run
from flowwalk.report.verdict import build_verdict
from flowwalk.settings import Settings


def run_console(stream: io.TextIOBase, **kw: object) -> ConsoleReporter:
    suites = sample_suites()
    console = ConsoleReporter(stream, **kw)  # type: ignore[arg-type]
    for event in sample_events(suites, plan_run(suites, Settings()).record()):
        console(event)
    return console


def test_one_line_per_test_with_failure_class_and_step() -> None:
    out = io.StringIO()
    console = run_console(out, color=False)
    lines = out.getvalue().splitlines()
    assert lines[0] == "flowwalk: 7 scenarios, 14 tests, 1 worker"
    tests = [line for line in lines if line.startswith(("  ✓", "  ✗", "  -", "  ~"))]
    assert len(tests) == 14  # one per test, retried scenarios included once
    failed = next(line for line in tests if "Checkout saves the order" in line)
    assert failed.startswith("  ✗ examples/flows/checkout.flow.yaml#Checkout saves the order")
    assert failed.endswith("2.6s  assertion_failed  step 5 (expect text_contains 'Saved'): "
                           "text 'Saved' not found in '#status' after 5 fresh reads")
    assert any(line.endswith("parent_failed: login") and "#shop/cart" in line for line in tests)
    assert any("#Search finds products/results" in line and line.endswith("flaky: passed on attempt 2")
               for line in tests)
    assert "  ↻ examples/flows/checkout.flow.yaml#Checkout saves the order: attempt 1 failed, retrying" in lines
    assert "goto" not in out.getvalue()  # passed steps stay quiet
    assert lines[-1] == "14 tests: 6 passed, 3 failed, 4 skipped, 1 flaky in 18.7s"
    assert tally(console.statuses) == {"total": 14, "passed": 6, "failed": 3, "skipped": 4, "flaky": 1}


def test_the_first_line_names_the_workers_the_run_can_use() -> None:
    suites = sample_suites()
    events = sample_events(suites, plan_run(suites, Settings()).record())
    started = events[0]
    for workers, shown in ((4, "4 workers"), (64, "7 workers")):  # no more workers than scenarios
        out = io.StringIO()
        ConsoleReporter(out, color=False)(replace(started, settings={**started.settings, "workers": workers}))
        assert out.getvalue().splitlines() == [f"flowwalk: 7 scenarios, 14 tests, {shown}"]


def test_finish_prints_the_verdict_and_where_the_reports_are(tmp_path: Path) -> None:
    (tmp_path / "summary.md").write_text("x")
    (tmp_path / "junit.xml").write_text("x")
    out = io.StringIO()
    ConsoleReporter(out, color=False, report_dir=str(tmp_path)).finish(whole_verdict(outcome="site_misbehaved", exit_code=1))
    assert out.getvalue().splitlines() == ["verdict: the site misbehaved (exit 1)",
                                           f"report: {tmp_path}/ (summary.md, junit.xml)"]


def test_colour_only_when_asked_or_on_a_terminal() -> None:
    plain = io.StringIO()
    run_console(plain, env={})  # auto, not a tty
    assert "\033[" not in plain.getvalue()
    coloured = io.StringIO()
    run_console(coloured, env={"FORCE_COLOR": "1"})
    assert "\033[31massertion_failed\033[0m" in coloured.getvalue()
    no_color = io.StringIO()
    run_console(no_color, env={"NO_COLOR": "1", "FORCE_COLOR": "1"})
    assert "\033[" not in no_color.getvalue()


def test_a_terminal_that_cannot_show_symbols_gets_words() -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")
    run_console(stream, color=False)
    stream.flush()
    text = raw.getvalue().decode("ascii")
    assert "  FAIL  examples/flows/checkout.flow.yaml#Checkout saves the order" in text
    assert "  retry examples/flows/checkout.flow.yaml#Checkout saves the order: attempt 1 failed" in text


def test_a_healed_pass_says_so_and_finish_says_how_to_keep_it(tmp_path: Path) -> None:
    heal = Heal(old_selector="#old", new_selector="button.save", method="deterministic", score=0.9,
                target="the Save button", step_index=2, path="a.flow.yaml", line=5)
    events = healed_events([("a.flow.yaml#a", heal)])
    out = io.StringIO()
    console = ConsoleReporter(out, color=False, report_dir="out")
    for event in events:
        console(event)
    write_sample_run(tmp_path, events)
    console.finish(build_verdict(read_run(tmp_path)))
    text = out.getvalue()
    assert "healed '#old' -> 'button.save'" in text and "warning" not in text
    assert "healed: 1 selector for this run only; `flowwalk heal --report out` shows the diff, `--apply` keeps it" \
        in text


def test_a_shard_header_says_how_many_of_the_plan_s_scenarios_it_got_none_included() -> None:
    suites = sample_suites()
    for index, shown in ((1, "flowwalk: 1 of 7 scenarios, "), (9, "flowwalk: 0 of 7 scenarios, 0 tests, 1 worker (shard 9/9)")):
        record = plan_run(suites, Settings(shard_index=index, shard_total=9)).record()
        out = io.StringIO()
        ConsoleReporter(out, color=False)(sample_events(suites, record)[0])
        assert out.getvalue().startswith(shown), out.getvalue()
