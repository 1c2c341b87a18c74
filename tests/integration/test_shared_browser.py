"""Workers that share one Chromium and one Playwright driver (walk/run.py `_host`, browser/together.py):
they walk at once, a crash of the shared browser fails only the scenarios in flight on it, and a
driver that dies hands the work left to a new one."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from flowwalk import events as ev
from flowwalk.browser import together
from flowwalk.agent.client import ChatClient
from flowwalk.llm import LLMConfig
from flowwalk.browser.launch import Browser
from flowwalk.cooperative import offload
from flowwalk.walk import run as run_module
from flowwalk.walk.run import run_plan, worker_groups

from fake_model import FakeModel, Reply
from test_run import Killer, Recorder, assert_exit_agrees, is_browser_process, kill_in_second_step
from test_walker import click, expect, flow, make_settings, wait_ms
from test_walker import out, page_url  # noqa: F401 - the fixtures

pytestmark = pytest.mark.browser


@pytest.fixture()
def launches(monkeypatch: pytest.MonkeyPatch) -> list[Browser]:
    """Every Browser.launch of the run, in order."""
    launched: list[Browser] = []
    original = Browser.launch.__func__  # type: ignore[attr-defined]

    def counting(cls: type, *args: Any, **kwargs: Any) -> Browser:
        browser = original(cls, *args, **kwargs)
        launched.append(browser)
        return browser

    monkeypatch.setattr(Browser, "launch", classmethod(counting))
    return launched


def test_workers_are_grouped_onto_as_few_browsers_as_the_limit_allows() -> None:
    assert run_module.WALKERS_PER_BROWSER == 4
    assert worker_groups(1) == [[1]]
    assert worker_groups(2) == [[1, 2]]
    assert worker_groups(4) == [[1, 2, 3, 4]]
    assert worker_groups(5) == [[1, 3, 5], [2, 4]]
    assert worker_groups(8) == [[1, 3, 5, 7], [2, 4, 6, 8]]
    assert worker_groups(9) == [[1, 4, 7], [2, 5, 8], [3, 6, 9]]


def test_two_workers_walk_at_once_on_one_browser(out: Path, page_url: Any, launches: list[Browser]) -> None:
    scenarios = [flow(f"slow-{n}", [wait_ms(500), click("#bump"), expect("text_contains", "1", "#counter")],
                      page_url("basic.html")) for n in range(4)]
    recorder = Recorder()
    summary = run_plan(scenarios, make_settings(out, workers=2), recorder)
    assert summary.counts["passed"] == 4 and summary.exit_code == 0
    assert len(launches) == 1, "the two workers share one Chromium"
    kinds = [type(e).__name__ for e in recorder.events if isinstance(e, (ev.ScenarioStarted, ev.ScenarioFinished))]
    # the second worker starts before the first one's scenario ends: they walk at once
    assert kinds[:2] == ["ScenarioStarted", "ScenarioStarted"]
    assert {e.worker for e in recorder.of(ev.ScenarioStarted)} == {1, 2}
    assert recorder.overlaps == 0
    assert_exit_agrees(summary, recorder, out)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc to find the browser process")
def test_a_crash_of_the_shared_browser_fails_the_scenarios_on_it_and_the_workers_go_on(
        out: Path, page_url: Any, launches: list[Browser]) -> None:
    doomed = flow("doomed", [click("#bump"), wait_ms(4000), click("#bump")], page_url("basic.html"))
    bystander = flow("bystander", [click("#bump"), wait_ms(4000), click("#bump")], page_url("basic.html"))
    later = [flow(f"later-{n}", [click("#bump"), expect("text_contains", "1", "#counter")], page_url("basic.html"))
             for n in range(3)]
    kill_browser = Killer(is_browser_process)
    recorder = Recorder()
    kill_in_second_step(recorder, doomed.id, kill_browser)
    summary = run_plan([doomed, bystander, *later], make_settings(out, workers=2), recorder)
    assert len(kill_browser.killed) == 1, "one browser for the two workers"
    results = recorder.rules()
    for victim in (doomed, bystander):
        failure = results[victim.id].failure
        assert (failure.failure_class, failure.runtime_code, failure.step_index) == (
            "infrastructure_error", "BROWSER_CRASHED", 2), victim.id
    assert all(results[s.id].status == "passed" for s in later)
    # after the crash each worker goes on with a Chromium of its own, on the thread's driver
    assert len(launches) == 3
    assert_exit_agrees(summary, recorder, out)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc to find the driver process")
def test_a_dead_driver_hands_the_scenarios_left_to_a_new_one(out: Path, page_url: Any,
                                                              launches: list[Browser]) -> None:
    doomed = flow("doomed", [click("#bump"), wait_ms(4000), click("#bump")], page_url("basic.html"))
    bystander = flow("bystander", [click("#bump"), wait_ms(4000), click("#bump")], page_url("basic.html"))
    later = [flow(f"later-{n}", [click("#bump"), expect("text_contains", "1", "#counter")], page_url("basic.html"))
             for n in range(3)]
    kill_driver = Killer(lambda cmd: "run-driver" in cmd)
    recorder = Recorder()
    kill_in_second_step(recorder, doomed.id, kill_driver)
    started = time.monotonic()
    summary = run_plan([doomed, bystander, *later], make_settings(out, workers=2), recorder)
    assert len(kill_driver.killed) == 1, "one driver for the two workers"
    assert time.monotonic() - started < 60
    results = recorder.rules()
    assert set(results) == {s.id for s in (doomed, bystander, *later)}, "every scenario is reported"
    for victim in (doomed, bystander):
        assert results[victim.id].status == "failed", victim.id
        assert results[victim.id].failure.failure_class == "infrastructure_error", victim.id
    assert all(results[s.id].status == "passed" for s in later), "a new driver and Chromium walked the rest"
    assert len(launches) == 2
    assert isinstance(recorder.events[-1], ev.RunFinished)
    assert_exit_agrees(summary, recorder, out)


def test_a_model_request_lets_the_other_walkers_go_on(playwright_instance: Any) -> None:
    """A walker asking the model (agent/client.py, through flowwalk.cooperative.offload) does not stop
    the other walkers of its thread while the answer is on its way."""
    seen: list[str] = []
    with FakeModel() as fake:
        fake.script(Reply({"candidate": 1, "reason": "slow"}, delay_s=0.6))
        client = ChatClient(LLMConfig(base_url=fake.base_url, model="fake-1"), api_key="sk-test")

        def asks() -> None:
            client.complete([{"role": "user", "content": "which one?"}])
            seen.append("model answered")

        def other() -> None:
            for _ in range(3):
                # two round trips to the driver that take no browser
                playwright_instance.request.new_context().dispose()
                seen.append("other walker ran")

        together.walk_together(playwright_instance, [asks, other])
    assert seen.count("other walker ran") == 3
    assert seen.index("other walker ran") < seen.index("model answered")
    # outside a walker, offload is the call itself
    assert offload(lambda: 7) == 7
