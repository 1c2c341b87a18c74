"""report.html: self-contained, safe with hostile page text, fast at 1,000 scenarios, and working
in a real Chromium (overview, filters, a failure's screenshot and context).

The tests marked `browser` open the page in the session's Chromium, served from the report folder
on 127.0.0.1 (as from an unzipped artifact: the page, screenshots/ beside it, nothing else).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from playwright.sync_api import expect

from flowwalk.events import Heal
from flowwalk.plan.shard import plan_run
from flowwalk.report.build import build_reports
from flowwalk.report.html import render_html, safe_relative
from flowwalk.report.merge import merge_reports
from flowwalk.report.records import read_run
from sample_run import healed_events, sample_events, sample_suites, typed, write_sample_run
from flowwalk.report.verdict import build_verdict
from flowwalk.report.verdict_json import verdict_data
from flowwalk.serve import StaticServer
from flowwalk.settings import Settings

CHECKOUT = "examples/flows/checkout.flow.yaml#Checkout saves the order"


def write(folder: Path, k: int = 1, n: int = 1, extra: int = 0, **kw: Any) -> Path:
    suites = sample_suites(extra=extra)
    plan = plan_run(suites, Settings(shard_index=k, shard_total=n))
    write_sample_run(folder, sample_events(suites, plan.record(), **kw))
    build_reports(folder, warn=False)
    return folder


def blob(folder: Path) -> dict[str, Any]:
    text = (folder / "report.html").read_text()
    found = re.search(r'<script type="application/json" id="fw-data">(.*?)</script>', text, re.S)
    assert found
    return json.loads(found.group(1))


def _verdict_and_records(folder: Path) -> tuple[dict[str, Any], Any]:
    suites = sample_suites()
    write_sample_run(folder, sample_events(suites, plan_run(suites, Settings()).record()))
    records = read_run(folder)
    return verdict_data(build_verdict(records)), records


def test_the_page_loads_nothing_from_the_network(tmp_path: Path) -> None:
    verdict, records = _verdict_and_records(tmp_path)
    page = render_html(typed(verdict), records)
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "default-src 'none'" in page  # and the browser is told so
    assert "<link" not in page and "@import" not in page


def test_page_text_cannot_close_the_data_script_or_become_markup(tmp_path: Path) -> None:
    verdict, records = _verdict_and_records(tmp_path)
    evil = "</script><script>alert(1)</script><!-- <img src=x onerror=alert(2)>"
    emit = tmp_path / "emit.jsonl"
    emit.write_text(emit.read_text().replace("Saving failed, try again", evil.replace('"', '\\"')))
    records = read_run(tmp_path)
    verdict = verdict_data(build_verdict(records))
    page = render_html(typed(verdict), records)
    assert "<script>alert(1)" not in page and "<img src=x" not in page
    assert page.count("</script>") == 3  # the data blob's, the left-out defaults' and the code's, nothing else
    data = json.loads(re.search(r'id="fw-data">(.*?)</script>', page, re.S).group(1))  # type: ignore[union-attr]
    checkout = next(t for t in data["tests"] if t["id"] == CHECKOUT)
    assert evil in checkout["failure"]["observed"]  # the value survives intact, as text


@pytest.mark.parametrize("path, safe", [("screenshots/a.png", "screenshots/a.png"), ("javascript:alert(1)", None),
                                        ("/etc/passwd", None), ("screenshots/../../x.png", None),
                                        ("https://evil.example/x.png", None), (None, None)])
def test_only_paths_inside_the_report_folder_become_links(path: str | None, safe: str | None) -> None:
    assert safe_relative(path) == safe


def test_a_merged_report_equals_the_unsharded_report(tmp_path: Path) -> None:
    whole = write(tmp_path / "whole", arrival="reversed")
    shards = [write(tmp_path / f"s{k}", k, 2) for k in (1, 2)]
    merge_reports(shards, tmp_path / "merged")
    one, both = blob(whole), blob(tmp_path / "merged")

    def tests(data: dict[str, Any]) -> list[dict[str, Any]]:  # which shard ran a test is not a result
        return [{k: v for k, v in t.items() if k != "shard"} for t in data["tests"]]

    assert tests(one) == tests(both)
    assert {k: v for k, v in one.items() if k not in ("run", "tests")} == \
        {k: v for k, v in both.items() if k not in ("run", "tests")}
    assert both["run"]["shards"]["reported"] == [1, 2]


def test_a_thousand_scenarios_build_into_a_modest_file(tmp_path: Path) -> None:
    # the build time is printed, not asserted: bench/report_scale.py measures it (a shared CI
    # machine under load is no place for a time limit)
    folder = write(tmp_path, extra=1000)
    records = read_run(folder)
    verdict = verdict_data(build_verdict(records))
    began = time.perf_counter()
    page = render_html(typed(verdict), records)
    elapsed = time.perf_counter() - began
    size = len(page.encode("utf-8"))
    print(f"\nreport.html for {len(records.scenarios)} scenarios / {len(records.tests)} tests: "
          f"{size / 1024:.0f} KiB, built in {elapsed * 1000:.0f} ms")
    assert size < 3 * 1024 * 1024


# --- in a real browser ------------------------------------------------------------------------


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[StaticServer, Path]]:
    folder = write(tmp_path / "report")
    with StaticServer(folder) as server:
        yield server, folder


def open_report(page: Any, server: StaticServer) -> list[str]:
    """Open report.html; returns a list that collects every problem the page has."""
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("console", lambda msg: problems.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None)
    page.on("request", lambda req: None if req.url.startswith(server.url) else problems.append(f"request: {req.url}"))
    page.goto(f"{server.url}/report.html")
    page.wait_for_selector("#list li")
    return problems


def visible_ids(page: Any) -> list[str]:
    return page.eval_on_selector_all("#list > li > details", "els => els.map(e => e.dataset.id)")


@pytest.mark.browser
def test_overview_and_each_failure_with_screenshot_and_context(page: Any, served: tuple[StaticServer, Path]) -> None:
    server, _folder = served
    problems = open_report(page, server)
    assert "the site misbehaved: 3 of 14 tests failed" in page.inner_text("header.verdict h1")
    assert page.inner_text(".count.failed b") == "3" and page.inner_text(".count.flaky b") == "1"
    assert "examples/rules/shop.rules.yaml#shop/login" in page.inner_text(".causes")
    assert "+3 skipped because of it" in page.inner_text(".causes")
    # failures are open on arrival, with what the browser saw
    checkout = page.locator(f'details[data-id="{CHECKOUT}"]')
    assert checkout.get_attribute("open") is not None
    text = checkout.inner_text()
    assert "'#status' contains 'Saved' (case-insensitive)" in text  # expected
    assert "'#status' reads 'Saving failed, try again'" in text  # observed
    assert "examples/flows/checkout.flow.yaml:12:7" in text  # the spec line
    assert "POST /api/orders 500 (Internal Server Error)" in text  # console
    assert "http://127.0.0.1:8000/api/orders" in text  # network
    assert 'status: Saving failed, try again' in text  # accessibility snapshot
    assert "interrupts dismissed: #cookie-banner .accept" in text  # the step timeline
    image = checkout.locator(".body > .failure > a.shot img")
    image.scroll_into_view_if_needed()
    expect(image).to_have_js_property("complete", True)
    assert image.evaluate("img => img.naturalWidth") == 320  # the real screenshot file, beside the page
    login = page.locator('details[data-id="examples/rules/shop.rules.yaml#shop/login"]').inner_text()
    assert '"text": "Sign in with SSO"' in login  # candidates seen
    assert problems == []


@pytest.mark.browser
def test_filters_and_search(page: Any, served: tuple[StaticServer, Path]) -> None:
    server, _folder = served
    problems = open_report(page, server)
    assert len(visible_ids(page)) == 14
    for status in ("passed", "skipped", "flaky"):
        page.uncheck(f"#status-{status}")
    assert visible_ids(page) == ["examples/flows/account.flow.yaml#Account settings", CHECKOUT,
                                 "examples/rules/shop.rules.yaml#shop/login"]
    page.select_option("#class-filter", "credential_rejected")
    assert visible_ids(page) == ["examples/flows/account.flow.yaml#Account settings"]
    page.select_option("#class-filter", "")
    for status in ("passed", "skipped", "flaky"):
        page.check(f"#status-{status}")
    page.fill("#search", "parent_failed login")
    expect(page.locator("#list > li > details")).to_have_count(2)
    assert visible_ids(page) == ["examples/rules/shop.rules.yaml#shop/cart", "examples/rules/shop.rules.yaml#shop/profile"]
    assert page.inner_text("#shown") == "2 of 14 tests"
    # the filter state is in the address, so a link shows the same view
    assert "q=parent_failed%20login" in page.evaluate("location.hash")
    page.fill("#search", "")
    page.click(".side a[data-test$='/results']")  # a flaky test from the overview
    results = page.locator('details[data-id="examples/suites/search.robot#Search finds products/results"]')
    assert results.get_attribute("open") is not None
    assert "attempt 1: failed" in results.inner_text()
    assert problems == []


@pytest.mark.browser
def test_a_thousand_scenarios_render_a_page_at_a_time(page: Any, tmp_path: Path) -> None:
    folder = write(tmp_path / "big", extra=1000)
    with StaticServer(folder) as server:
        began = time.perf_counter()
        problems = open_report(page, server)
        ready = time.perf_counter() - began
        total = len(blob(folder)["tests"])
        assert len(visible_ids(page)) == 100
        assert page.inner_text("#shown") == f"{total} of {total} tests"
        page.locator("#more").scroll_into_view_if_needed()
        expect(page.locator("#list > li > details")).to_have_count(200)
        page.fill("#search", "generated flow 0999")
        expect(page.locator("#list > li > details")).to_have_count(1)
        print(f"\n1,000-scenario report ready in the browser in {ready * 1000:.0f} ms")
        assert ready < 5.0
        assert problems == []


def test_heals_show_old_and_new_selector_and_the_screenshot(tmp_path: Path) -> None:
    heals = [("a.flow.yaml#a", Heal(old_selector="#old", new_selector='text="<b>Go</b>"', method="deterministic",
                                    score=0.9, target="the Go button", step_index=2, path="a.flow.yaml", line=7,
                                    screenshot="screenshots/a.png")),
             ("a.flow.yaml#a", Heal(old_selector="#x", new_selector="#y", method="model", score=0.7, target="",
                                    step_index=3, path="a.flow.yaml", line=9, screenshot="javascript:alert(1)"))]
    write_sample_run(tmp_path, healed_events(heals))
    records = read_run(tmp_path)
    page = render_html(build_verdict(records), records)
    section = page[page.index('<section class="heals">'):page.index("</section>", page.index('<section class="heals">'))]
    assert "2 steps passed only because flowwalk found the element again" in section
    assert "<del><code>#old</code></del><br><ins><code>text=&quot;&lt;b&gt;Go&lt;/b&gt;&quot;</code></ins>" in section
    assert '<a href="screenshots/a.png"><img class="thumb" src="screenshots/a.png"' in section
    assert "javascript:" not in section  # a screenshot path from the log is never a link elsewhere
    assert '<td class="num">0.70</td><td>—</td>' in section


def _write_with_traces(folder: Path) -> Path:
    """The sample run with a trace kept for every attempt that failed and for every flaky pass."""
    import dataclasses

    from flowwalk.events import ScenarioFinished

    suites = sample_suites()
    events = []
    for event in sample_events(suites, plan_run(suites, Settings()).record()):
        if isinstance(event, ScenarioFinished) and event.status in ("failed", "flaky"):
            event = dataclasses.replace(event, trace=f"traces/{event.scenario_id.replace('/', '-')}-a{event.attempt}.zip")
        events.append(event)
    write_sample_run(folder, events)
    build_reports(folder, warn=False)
    return folder


def test_each_failure_names_the_trace_of_its_own_attempt(tmp_path: Path) -> None:
    data = blob(_write_with_traces(tmp_path))
    failed = [t for t in data["tests"] if t["status"] == "failed"]
    assert failed and all(t["trace"] and t["trace"].endswith(".zip") for t in failed)
    flaky = [t for t in data["tests"] if t["status"] == "flaky"]
    assert flaky and all(a["trace"] and a["trace"].endswith(f"-a{a['attempt']}.zip")
                         for t in flaky for a in t["earlier"] if a["status"] == "failed")


@pytest.mark.browser
def test_a_failure_links_to_its_trace(page: Any, tmp_path: Path) -> None:
    folder = _write_with_traces(tmp_path / "report")
    with StaticServer(folder) as server:
        problems = open_report(page, server)
        checkout = page.locator(f'details[data-id="{CHECKOUT}"] .body > .failure')
        link = checkout.locator(".trace a")
        assert link.get_attribute("href", timeout=5000).startswith("traces/")
        assert "npx playwright show-trace traces/" in checkout.locator(".trace").inner_text()
    assert problems == []
