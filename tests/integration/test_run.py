"""The run loop: variables refused before any browser, workers, retries, run timeout, cancel, crashes."""

from __future__ import annotations

import os
import signal
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from flowwalk import events as ev
from flowwalk.cooperative import CancelToken
from flowwalk.exitcodes import ExitCode
from flowwalk.plan.model import Plan
from flowwalk.settings import Secrets, default_executable
from flowwalk.report.emit import EmitWriter
from flowwalk.report.records import read_run
from flowwalk.report.verdict import build_verdict
from flowwalk.walk.run import RunSummary, run_plan

from test_walker import (  # the scenario builders of the walker tests
    click,
    emit,
    expect,
    fill,
    flow,
    make_settings,
    rule,
    scenario,
    wait_for,
    wait_ms,
)

pytestmark = pytest.mark.browser


class Recorder:
    """An emit handler that also proves events never arrive concurrently."""

    def __init__(self) -> None:
        self.events: list[ev.Event] = []
        self._busy = threading.Lock()
        self.overlaps = 0
        self.on_event: Any = None

    def __call__(self, event: ev.Event) -> None:
        if not self._busy.acquire(blocking=False):
            self.overlaps += 1
            self._busy.acquire()
        try:
            time.sleep(0.001)  # widen the window in which an unserialised emit would overlap
            self.events.append(event)
            if self.on_event is not None:
                self.on_event(event)
        finally:
            self._busy.release()

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def rules(self) -> dict[str, ev.RuleFinished]:
        """Final RuleFinished per test id."""
        return {e.test_id: e for e in self.of(ev.RuleFinished)}


def assert_exit_agrees(summary: RunSummary, recorder: Recorder, out: Path) -> None:
    """The run's exit code (its summary and run_finished) is the one verdict.json gives for its emit.jsonl."""
    with EmitWriter(out) as write:
        for event in recorder.events:
            write(event)
    assert isinstance(recorder.events[-1], ev.RunFinished)
    assert recorder.events[-1].exit_code == summary.exit_code == build_verdict(read_run(out)).exit_code


@pytest.fixture()
def out(tmp_path: Path) -> Path:
    return tmp_path / "report"


@pytest.fixture()
def page_url(site: Any) -> Any:
    return lambda name: f"{site.url}/walker/{name}"


# --- variables before the browser -----------------------------------------------------------------


def test_a_missing_variable_fails_the_scenario_before_any_browser_starts(out, page_url) -> None:
    needs_customer = flow("needs-customer", [fill("#name", "{{CUSTOMER}}"), click("#save")], page_url("basic.html"))
    token_step = fill("#token", "{{PASSWORD}}")
    dag = scenario("needs-password", [
        rule("login", token_step, click("#login")),
        rule("after-login", click("#login"), parents=("login",)),
        rule("independent", click("#bump")),
    ], page_url("login.html"))
    # a Chromium that does not exist: any attempt to start one would be recorded as a launch error
    settings = make_settings(out, executable="/nonexistent/chromium", secret_names=("PASSWORD",),
                             secrets=Secrets({}))
    recorder = Recorder()
    summary = run_plan([needs_customer, dag], settings, recorder)
    assert summary.launch_errors == ()
    assert isinstance(recorder.events[0], ev.RunStarted) and isinstance(recorder.events[-1], ev.RunFinished)
    results = recorder.rules()
    customer = results[needs_customer.id].failure
    assert (customer.failure_class, customer.runtime_code, customer.step_index) == (
        "credential_rejected", "VARIABLE_MISSING", 1)
    assert "{{CUSTOMER}}" in customer.message and "--var" in customer.message
    assert (customer.path, customer.line) == (needs_customer.rules[0].steps[0].loc.path,
                                              needs_customer.rules[0].steps[0].loc.line)
    login = results[f"{dag.id}/login"]
    assert login.status == "failed" and "{{PASSWORD}}" in login.failure.message
    assert login.failure.line == token_step.loc.line
    after = results[f"{dag.id}/after-login"]
    assert (after.status, after.reason, after.failure.parent) == ("skipped", "parent_failed", "login")
    assert results[f"{dag.id}/independent"].status == "skipped"
    assert summary.exit_code == ExitCode.SPEC_NEEDS_REVIEW
    assert_exit_agrees(summary, recorder, out)
    assert recorder.events[-1].exit_code == ExitCode.SPEC_NEEDS_REVIEW
    assert not recorder.of(ev.StepFinished)            # nothing was walked


def test_other_scenarios_still_run_when_one_is_refused(out, page_url) -> None:
    refused = flow("refused", [fill("#name", "{{CUSTOMER}}")], page_url("basic.html"))
    fine = flow("fine", [fill("#name", "{{WHO}}"), click("#save"), expect("text_contains", "Saved Eve", "#status")],
                "{{BASE_URL}}/walker/basic.html")
    recorder = Recorder()
    settings = make_settings(out, variables={"WHO": "Eve"}, base_url=page_url("").rsplit("/walker/", 1)[0])
    summary = run_plan([refused, fine], settings, recorder)
    assert summary.tests == {refused.id: "failed", fine.id: "passed"}
    assert summary.failure_classes == {refused.id: "credential_rejected"}
    started = recorder.of(ev.RunStarted)[0]
    assert started.settings["variables"] == {"WHO": "Eve"}
    assert started.plan["assigned"] == [refused.id, fine.id]


# --- workers ---------------------------------------------------------------------------------------


def _normalized(events: list[ev.Event]) -> dict[str, list[tuple[Any, ...]]]:
    """Per scenario, its events without timings or worker numbers."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    for e in events:
        sid = getattr(e, "scenario_id", None)
        if sid is None:
            continue
        failure = getattr(e, "failure", None)
        row = (type(e).__name__, getattr(e, "rule", None), getattr(e, "index", None), getattr(e, "attempt", None),
               getattr(e, "status", None), getattr(e, "reason", None), getattr(e, "skipped_steps", None),
               failure.failure_class if failure else None, failure.runtime_code if failure else None,
               failure.step_index if failure else None, getattr(e, "fields", None))
        out.setdefault(sid, []).append(row)
    return out


def test_two_workers_give_the_same_results_as_one(out, page_url) -> None:
    scenarios = [
        flow("w-pass", [fill("#name", "Ann"), click("#save"), expect("text_contains", "Saved Ann", "#status")],
             page_url("basic.html")),
        flow("w-fail", [click("#bump"), expect("text_contains", "7", "#counter", timeout_ms=300), click("#bump")],
             page_url("basic.html")),
        scenario("w-dag", [rule("guarded", expect("selector_exists", selector="#absent"), click("#bump")),
                           rule("child", click("#bump"), parents=("guarded",)),
                           rule("other", click("#bump"), wait_ms(400),
                                emit("n", *[]), expect("text_contains", "1", "#counter"))], page_url("basic.html")),
        flow("w-slow", [wait_ms(600), click("#bump")], page_url("basic.html")),
    ]
    one, two = Recorder(), Recorder()
    s1 = run_plan(scenarios, make_settings(out / "one", workers=1), one)
    s2 = run_plan(scenarios, make_settings(out / "two", workers=2), two)
    assert _normalized(one.events) == _normalized(two.events)
    assert s1.tests == s2.tests and s1.exit_code == s2.exit_code == ExitCode.SITE_MISBEHAVED
    assert s1.counts == s2.counts == {"total": 6, "passed": 3, "failed": 1, "skipped": 2, "flaky": 0}
    assert {e.worker for e in two.of(ev.ScenarioStarted)} == {1, 2}
    assert {e.worker for e in one.of(ev.ScenarioStarted)} == {1}
    assert one.overlaps == two.overlaps == 0
    for recorder in (one, two):
        assert isinstance(recorder.events[0], ev.RunStarted) and isinstance(recorder.events[-1], ev.RunFinished)
        # a scenario's own events keep their order: started, ..., finished
        for sid, rows in _normalized(recorder.events).items():
            assert rows[0][0] == "ScenarioStarted" and rows[-1][0] == "ScenarioFinished", sid


def test_known_durations_send_the_longest_scenarios_first_to_the_workers(out, page_url) -> None:
    scenarios = sorted((flow(f"order-{n}", [click("#bump")], page_url("basic.html")) for n in "abcd"),
                       key=lambda s: s.id)
    ids = [s.id for s in scenarios]
    plan = Plan(scenarios=tuple(scenarios), assigned=tuple(ids), shards=(tuple(ids),),
                estimates={ids[0]: 0.2, ids[1]: 0.3, ids[2]: 5.0, ids[3]: 4.0})
    two, one = Recorder(), Recorder()
    summary = run_plan(plan, make_settings(out / "two", workers=2), two)
    started = [e.scenario_id for e in two.of(ev.ScenarioStarted)]
    assert set(started[:2]) == {ids[2], ids[3]} and set(started[2:]) == {ids[0], ids[1]}
    assert list(summary.tests) == ids                  # the results keep plan order
    assert two.of(ev.RunStarted)[0].plan["assigned"] == ids
    # a lone worker keeps plan order: its first results come soonest that way
    run_plan(plan, make_settings(out / "one", workers=1), one)
    assert [e.scenario_id for e in one.of(ev.ScenarioStarted)] == ids


# --- retries ---------------------------------------------------------------------------------------


class _FlakyHandler(BaseHTTPRequestHandler):
    """/flaky answers a broken page the first time, a good one after that."""

    hits = 0

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_GET(self) -> None:  # noqa: N802
        if self.path != "/flaky":
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        type(self).hits += 1
        state = "down" if type(self).hits == 1 else "up"
        body = f"<!doctype html><title>flaky</title><p id='state'>{state}</p>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture()
def flaky_site() -> Iterator[str]:
    handler = type("Handler", (_FlakyHandler,), {"hits": 0})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/flaky"
    server.shutdown()
    server.server_close()
    thread.join(5)


def test_a_scenario_that_passes_on_a_retry_is_flaky(out, page_url, flaky_site) -> None:
    flaky = flow("flaky", [expect("text_contains", "up", "#state", timeout_ms=300)], flaky_site)
    broken = flow("broken", [expect("text_contains", "Nope", "#status", timeout_ms=200)], page_url("basic.html"))
    recorder = Recorder()
    summary = run_plan([flaky, broken], make_settings(out, retries=1), recorder)
    finished = [(e.scenario_id, e.attempt, e.status, e.final) for e in recorder.of(ev.ScenarioFinished)]
    assert finished == [(flaky.id, 1, "failed", False), (flaky.id, 2, "flaky", True),
                        (broken.id, 1, "failed", False), (broken.id, 2, "failed", True)]
    rule_attempts = [(e.test_id, e.attempt, e.status) for e in recorder.of(ev.RuleFinished)]
    assert (flaky.id, 1, "failed") in rule_attempts and (flaky.id, 2, "flaky") in rule_attempts
    assert summary.tests == {flaky.id: "flaky", broken.id: "failed"}
    assert summary.counts["flaky"] == 1
    assert [e.attempt for e in recorder.of(ev.ScenarioStarted)] == [1, 2, 1, 2]
    assert_exit_agrees(summary, recorder, out)


@pytest.mark.parametrize(("case", "expected"), [
    ("assertion_failed", ExitCode.SITE_MISBEHAVED),
    ("spec_step_unresolvable", ExitCode.SPEC_NEEDS_REVIEW),
    ("infrastructure_error", ExitCode.INFRASTRUCTURE_FAILED),
    ("flaky under flaky_policy fail", ExitCode.SPEC_NEEDS_REVIEW),
])
def test_the_exit_code_is_the_verdicts_for_each_failure_class(out, page_url, flaky_site, case, expected) -> None:
    fine = flow("fine", [click("#bump")], page_url("basic.html"))
    settings = make_settings(out)
    if case == "assertion_failed":
        other = flow("broken", [expect("text_contains", "Nope", "#status", timeout_ms=200)], page_url("basic.html"))
    elif case == "spec_step_unresolvable":
        other = flow("lost", [click("#no-such-button")], page_url("basic.html"))
    elif case == "infrastructure_error":
        other, settings = fine, make_settings(out, executable="/nonexistent/chromium")
    else:
        other = flow("flaky", [expect("text_contains", "up", "#state", timeout_ms=300)], flaky_site)
        settings = make_settings(out, retries=1, flaky_policy="fail")
    recorder = Recorder()
    summary = run_plan([fine, other] if other is not fine else [fine], settings, recorder)
    if case in summary.failure_classes.values():
        assert set(summary.failure_classes.values()) == {case}
    else:
        assert summary.tests[other.id] == "flaky"
    assert summary.exit_code == expected
    assert_exit_agrees(summary, recorder, out)


# --- run timeout, cancel, crash -----------------------------------------------------------------------


def test_the_run_timeout_skips_scenarios_not_started(out, page_url) -> None:
    slow = flow("slow", [click("#bump"), wait_for("#never-there")], page_url("basic.html"))
    later = flow("later", [click("#bump")], page_url("basic.html"))
    recorder = Recorder()
    t0 = time.monotonic()
    # the run deadline counts from the start of the run, Chromium's launch included
    summary = run_plan([slow, later], make_settings(out, run_timeout_s=4.0, rule_timeout_ms=30_000), recorder)
    assert time.monotonic() - t0 < 12
    results = recorder.rules()
    assert results[slow.id].failure.runtime_code == "RUN_TIMEOUT"
    assert (results[later.id].status, results[later.id].reason) == ("skipped", "run_timeout")
    assert summary.exit_code == ExitCode.INFRASTRUCTURE_FAILED
    assert_exit_agrees(summary, recorder, out)


def test_max_failures_stops_starting_scenarios_and_reports_the_rest_not_run(out, page_url) -> None:
    url = page_url("basic.html")
    broken = [flow(f"broken-{i}", [expect("url_contains", "/never-there", timeout_ms=200)], url) for i in (1, 2)]
    fine = flow("fine", [expect("url_contains", "basic")], url)
    recorder = Recorder()
    summary = run_plan([*broken, fine], make_settings(out, max_failures=1), recorder)
    results = recorder.rules()
    assert results[broken[0].id].status == "failed"
    # one worker: after the first failure nothing else starts, passing or not
    assert [(results[s.id].status, results[s.id].reason) for s in (broken[1], fine)] == [
        ("skipped", "max_failures"), ("skipped", "max_failures")]
    assert summary.exit_code == ExitCode.SITE_MISBEHAVED
    assert_exit_agrees(summary, recorder, out)


def test_the_watchdog_stops_only_this_runs_browsers(out, page_url, flowwalk_browser, site) -> None:  # type: ignore[no-untyped-def]
    # a cancel during a long Playwright wait: nothing but the watchdog can end that wait, and it
    # must not take the test session's own browser (nor the MCP server's, nor discover's) with it
    stuck = flow("stuck", [click("#bump"), wait_for("#never-there")], page_url("basic.html"))
    cancel = CancelToken()
    recorder = Recorder()

    def on_event(event: ev.Event) -> None:
        if isinstance(event, ev.StepFinished) and event.scenario_id == stuck.id and event.index == 1:
            threading.Timer(0.5, cancel.cancel).start()    # step 2's 30 s wait is in flight by then

    recorder.on_event = on_event
    t0 = time.monotonic()
    summary = run_plan([stuck], make_settings(out, rule_timeout_ms=30_000), recorder, cancel=cancel)
    assert time.monotonic() - t0 < 20
    assert summary.cancelled
    assert recorder.rules()[stuck.id].status in ("failed", "skipped")
    assert flowwalk_browser.is_alive()
    other = flowwalk_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=())
    try:
        other.goto(f"{site.url}/", timeout_ms=10_000)
    finally:
        other.close()


def test_cancel_stops_starting_scenarios_and_says_so(out, page_url) -> None:
    first = flow("first", [click("#bump"), wait_ms(1000), click("#bump")], page_url("basic.html"))
    rest = [flow(f"rest-{i}", [click("#bump")], page_url("basic.html")) for i in range(2)]
    cancel = CancelToken()
    recorder = Recorder()

    def on_event(event: ev.Event) -> None:
        # SIGTERM arrives while the first scenario's rule is in flight (its step 1 just ended)
        if isinstance(event, ev.StepFinished) and event.scenario_id == first.id and event.index == 1:
            cancel.cancel("SIGTERM")   # as the CLI's handler does

    recorder.on_event = on_event
    summary = run_plan([first, *rest], make_settings(out), recorder, cancel=cancel)
    results = recorder.rules()
    assert results[first.id].status == "passed"          # the scenario in flight finishes its rule
    for sc in rest:
        assert (results[sc.id].status, results[sc.id].reason) == ("skipped", "cancelled")
    cancelled = recorder.of(ev.RunCancelled)
    assert [c.signal for c in cancelled] == ["SIGTERM"]
    assert recorder.events[-2] is cancelled[0] and isinstance(recorder.events[-1], ev.RunFinished)
    assert summary.cancelled and summary.exit_code == ExitCode.CANCELLED
    assert_exit_agrees(summary, recorder, out)
    assert recorder.events[-1].cancelled is True


def _descendants() -> dict[int, str]:
    """pid -> command line of every process below this one (Linux /proc)."""
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                commands[int(entry)] = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    mine: dict[int, str] = {}
    frontier = [os.getpid()]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in mine:
                mine[child] = commands.get(child, "")
                frontier.append(child)
    return mine


class Killer:
    """SIGKILLs, when called, the processes below this one that started after it was made and whose
    command line `matches`: the run's own browser or driver, never the test session's."""

    def __init__(self, matches: Callable[[str], bool]):
        self.before = set(_descendants())
        self.matches = matches
        self.killed: list[int] = []

    def __call__(self) -> None:
        for pid, cmd in _descendants().items():
            if pid not in self.before and self.matches(cmd):
                os.kill(pid, signal.SIGKILL)
                self.killed.append(pid)


def is_browser_process(cmd: str) -> bool:
    """Chromium's browser process (not a renderer or another helper)."""
    return os.path.realpath(default_executable()) in cmd and "--type=" not in cmd


def kill_in_second_step(recorder: Recorder, scenario_id: str, kill: Callable[[], None]) -> None:
    """Call `kill` 0.3 s after the scenario's first step is reported: its second (a wait) is in flight."""
    recorder.on_event = lambda e: (threading.Timer(0.3, kill).start()
                                   if isinstance(e, ev.StepFinished) and e.scenario_id == scenario_id
                                   and e.index == 1 else None)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc to find the browser process")
def test_a_crashed_browser_fails_the_scenario_and_is_relaunched(out, page_url) -> None:
    doomed = flow("doomed", [click("#bump"), wait_ms(4000), click("#bump")], page_url("basic.html"))
    survivor = flow("survivor", [click("#bump"), expect("text_contains", "1", "#counter")], page_url("basic.html"))
    kill_browser = Killer(is_browser_process)
    recorder = Recorder()
    kill_in_second_step(recorder, doomed.id, kill_browser)
    summary = run_plan([doomed, survivor], make_settings(out), recorder)
    assert kill_browser.killed, "no browser process was found to kill"
    results = recorder.rules()
    failure = results[doomed.id].failure
    assert (failure.failure_class, failure.runtime_code) == ("infrastructure_error", "BROWSER_CRASHED")
    assert failure.step_index == 2
    assert results[survivor.id].status == "passed"      # a relaunched browser took the next scenario
    assert summary.exit_code == ExitCode.INFRASTRUCTURE_FAILED
    assert_exit_agrees(summary, recorder, out)
