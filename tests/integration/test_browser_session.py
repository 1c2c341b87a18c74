"""A PageSession against real pages: the allowlist, offline routing, dialogs, popups and evidence."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from flowwalk.browser import Browser, NavigationBlocked, PageSession
from flowwalk.errors import BrowserLaunchError
from flowwalk.serve import StaticServer
from flowwalk.settings import FULL_CHROMIUM, Settings

pytestmark = pytest.mark.browser


def open_nav(session: PageSession, site: StaticServer) -> PageSession:
    session.goto(f"{site.url}/browser/nav.html", timeout_ms=10_000)
    return session


def on_page(session: PageSession, site: StaticServer, path: str) -> bool:
    return session.playwright_page.url == f"{site.url}{path}"


# --- launching ----------------------------------------------------------------------------------


def test_launch_with_a_missing_executable_says_how_to_fix_it(playwright_instance) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(BrowserLaunchError) as info:
        Browser.launch(Settings(executable="/nonexistent/chromium"), playwright=playwright_instance)
    assert "Chromium not found at '/nonexistent/chromium'" in str(info.value)
    assert "hint:" in str(info.value)


@pytest.mark.skipif(not os.path.exists(FULL_CHROMIUM), reason="the full Chromium is not installed")
def test_the_full_browser_works_despite_its_stderr_noise(playwright_instance, site: StaticServer) -> None:  # type: ignore[no-untyped-def]
    browser = Browser.launch(Settings(executable=FULL_CHROMIUM), playwright=playwright_instance)
    try:
        session = browser.new_session(entry_url=f"{site.url}/", allowed_hosts=())
        session.goto(f"{site.url}/browser/checks.html", timeout_ms=30_000)
        assert session.playwright_page.title() == "checks"
        session.close()
    finally:
        browser.close()
    assert not browser.is_alive()


def test_launch_starts_and_stops_its_own_playwright(site: StaticServer) -> None:
    # a second sync_playwright cannot run in this thread: run the standalone path in a child process
    script = (
        "from flowwalk.browser import Browser\n"
        "from flowwalk.settings import Settings, default_executable\n"
        "b = Browser.launch(Settings(executable=default_executable()))\n"
        f"s = b.new_session(entry_url='{site.url}/', allowed_hosts=())\n"
        f"s.goto('{site.url}/browser/checks.html', timeout_ms=10000)\n"
        "print(s.playwright_page.title())\n"
        "s.close(); b.close(); print('alive', b.is_alive())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["checks", "alive", "False"]


def test_sessions_are_fresh_contexts_with_a_fixed_viewport(flowwalk_browser: Browser, site: StaticServer) -> None:
    first = flowwalk_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=())
    try:
        first.goto(f"{site.url}/browser/checks.html", timeout_ms=10_000)
        first.playwright_page.evaluate("localStorage.setItem('seen', 'yes'); document.cookie = 'c=1'")
        assert first.playwright_page.viewport_size == {"width": 1280, "height": 720}
    finally:
        first.close()
    second = flowwalk_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=())
    try:
        second.goto(f"{site.url}/browser/checks.html", timeout_ms=10_000)
        assert second.playwright_page.evaluate("localStorage.getItem('seen')") is None
        assert second.playwright_page.evaluate("document.cookie") == ""
    finally:
        second.close()
    assert flowwalk_browser.is_alive()


# --- the allowlist ------------------------------------------------------------------------------


def test_goto_outside_the_allowlist_is_refused_before_navigating(session: PageSession) -> None:
    with pytest.raises(NavigationBlocked) as info:
        session.goto("http://outside.invalid/start", timeout_ms=5_000)
    assert info.value.host == "outside.invalid"
    assert info.value.url == "http://outside.invalid/start"
    assert session.playwright_page.url == "about:blank"
    assert session.blocked[-1]["url"] == "http://outside.invalid/start"


def test_goto_to_another_scheme_is_refused(session: PageSession) -> None:
    with pytest.raises(NavigationBlocked):
        session.goto("file:///etc/passwd", timeout_ms=5_000)


def test_a_loopback_entry_host_admits_exactly_itself(flowwalk_browser: Browser, session: PageSession,
                                                     site: StaticServer) -> None:
    other = site.url.replace("127.0.0.1", "localhost")
    with pytest.raises(NavigationBlocked):
        session.goto(f"{other}/browser/checks.html", timeout_ms=5_000)
    widened = flowwalk_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=("localhost",))
    try:
        widened.goto(f"{other}/browser/checks.html", timeout_ms=10_000)
        assert widened.playwright_page.title() == "checks"
    finally:
        widened.close()


def test_a_link_that_leaves_is_stopped_and_reported(session: PageSession, site: StaticServer) -> None:
    open_nav(session, site)
    session.playwright_page.click("#outside")
    with pytest.raises(NavigationBlocked) as info:
        session.check_navigation()
    assert info.value.host == "outside.invalid" and info.value.how == "navigation"
    assert on_page(session, site, "/browser/nav.html")   # stopped: the page stayed
    session.check_navigation()                            # reported once


def test_a_script_redirect_is_stopped(session: PageSession, site: StaticServer) -> None:
    open_nav(session, site)
    session.playwright_page.click("#js-redirect")
    with pytest.raises(NavigationBlocked) as info:
        session.check_navigation()
    assert info.value.url == "http://outside.invalid/js"
    assert on_page(session, site, "/browser/nav.html")


def test_a_late_script_redirect_is_caught_on_a_later_check(session: PageSession, site: StaticServer) -> None:
    open_nav(session, site)
    session.playwright_page.click("#late-redirect")
    session.wait(300)
    with pytest.raises(NavigationBlocked) as info:
        session.check_navigation()
    assert info.value.url == "http://outside.invalid/late"
    assert on_page(session, site, "/browser/nav.html")


def test_a_server_redirect_away_is_stopped_without_a_dns_lookup(session: PageSession, site: StaticServer) -> None:
    open_nav(session, site)
    session.playwright_page.click("#redirect")
    session.wait(200)
    with pytest.raises(NavigationBlocked) as info:
        session.check_navigation()
    assert info.value.how == "redirect" and info.value.host == "outside.invalid"
    failures = [n.get("failure") for n in session.evidence()["network"] if "outside.invalid" in n["url"]]
    assert failures and all(f != "net::ERR_NAME_NOT_RESOLVED" for f in failures), failures


def test_goto_that_redirects_away_raises(session: PageSession, site: StaticServer) -> None:
    with pytest.raises(NavigationBlocked) as info:
        session.goto(f"{site.url}/__redirect?to=http://outside.invalid/away", timeout_ms=10_000)
    assert info.value.how == "redirect"


def test_staying_on_the_site_is_fine(session: PageSession, site: StaticServer) -> None:
    open_nav(session, site)
    session.playwright_page.click("#inside")
    session.playwright_page.wait_for_url("**/browser/checks.html")
    session.check_navigation()
    assert list(session.navigations)[-2:] == [f"{site.url}/browser/nav.html", f"{site.url}/browser/checks.html"]


def test_without_an_entry_url_the_first_goto_sets_the_entry_host(flowwalk_browser: Browser,
                                                                 site: StaticServer) -> None:
    session = flowwalk_browser.new_session(entry_url=None, allowed_hosts=())
    try:
        session.goto(f"{site.url}/browser/nav.html", timeout_ms=10_000)
        assert session.entry_host == "127.0.0.1"
        session.playwright_page.click("#outside")
        with pytest.raises(NavigationBlocked):
            session.check_navigation()
    finally:
        session.close()


# --- offline routing ------------------------------------------------------------------------------


def test_third_party_subresources_are_blocked_and_recorded_quietly(session: PageSession, site: StaticServer) -> None:
    open_nav(session, site)
    session.pump()
    blocked = {b["url"]: b for b in session.blocked}
    for url in ("https://cdn.outside.invalid/site.css", "https://cdn.outside.invalid/lib.js",
                "http://cdn.outside.invalid/pixel.png"):
        assert blocked[url]["kind"] == "subresource"
        assert blocked[url]["reason"] == "offline: third-party host"
    assert session.console_errors == []   # flowwalk's own blocking is not the site's error
    assert session.evidence()["blocked"] == session.blocked


# --- dialogs, popups, errors ----------------------------------------------------------------------


def test_dialogs_are_dismissed_and_recorded(session: PageSession, site: StaticServer) -> None:
    open_nav(session, site)
    session.playwright_page.click("#alert")
    assert session.playwright_page.text_content("#after-alert") == "closed"
    session.playwright_page.click("#confirm")
    assert session.playwright_page.text_content("#confirm-result") == "false"
    session.playwright_page.click("#prompt")
    assert session.playwright_page.text_content("#prompt-result") == "null"
    assert [(d["type"], d["message"], d["action"]) for d in session.dialogs] == [
        ("alert", "Hello", "dismissed"), ("confirm", "Delete everything?", "dismissed"),
        ("prompt", "Your name?", "dismissed")]


def test_beforeunload_does_not_trap_the_walk(session: PageSession, site: StaticServer) -> None:
    open_nav(session, site)
    session.playwright_page.click("#guard")
    session.playwright_page.click("#inside")
    session.playwright_page.wait_for_url("**/browser/checks.html")
    assert [(d["type"], d["action"]) for d in session.dialogs] == [("beforeunload", "accepted")]


def test_popups_are_recorded_and_closed(session: PageSession, site: StaticServer) -> None:
    open_nav(session, site)
    session.playwright_page.click("#popup")
    session.wait(300)
    assert [p["url"] for p in session.popups] == [f"{site.url}/browser/checks.html?popup=1"]
    assert session.playwright_context.pages == [session.playwright_page]
    assert on_page(session, site, "/browser/nav.html")


def test_console_errors_and_page_errors_are_kept_in_order(session: PageSession, site: StaticServer) -> None:
    open_nav(session, site)
    session.playwright_page.click("#console-error")
    session.playwright_page.click("#throw")
    session.wait(100)
    assert session.console_errors == ["something broke: 42", "TypeError: bad thing happened"]
    evidence = session.evidence()
    assert evidence["page_errors"] == ["TypeError: bad thing happened"]
    assert "error: something broke: 42" in evidence["console"]
    assert evidence["console_error_count"] == 2


def test_console_errors_are_bounded(session: PageSession, site: StaticServer) -> None:
    open_nav(session, site)
    session.playwright_page.evaluate("for (let i = 0; i < 250; i++) console.error('e' + i)")
    session.wait(200)
    assert len(session.console_errors) == 200
    assert session.console_errors[-1] == "e249" and session.console_errors[0] == "e50"
    assert session.console_error_count == 250
    assert len(session.evidence()["console"]) == 20


# --- evidence -------------------------------------------------------------------------------------


def test_evidence_lists_the_page_and_its_last_requests(session: PageSession, site: StaticServer) -> None:
    open_nav(session, site)
    session.playwright_page.evaluate("""async () => { for (let i = 0; i < 35; i++) await fetch('/__echo?i=' + i); }""")
    session.pump()
    evidence = session.evidence()
    assert evidence["url"] == f"{site.url}/browser/nav.html"
    assert evidence["title"] == "navigation"
    network = evidence["network"]
    assert len(network) == 30
    last = network[-1]
    assert last["method"] == "GET" and last["url"] == f"{site.url}/__echo?i=34"
    assert last["status"] == 200 and isinstance(last["duration_ms"], float)
    assert set(evidence) >= {"url", "title", "console", "page_errors", "network", "blocked", "dialogs", "popups"}


def test_screenshot_and_aria_snapshot(session: PageSession, site: StaticServer, tmp_path: Path) -> None:
    open_nav(session, site)
    shot = tmp_path / "shots" / "nav.png"
    assert session.screenshot(shot) is True
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    snapshot = session.a11y_snapshot()
    assert '- heading "Navigation"' in snapshot
    assert '- button "Open popup"' in snapshot
    assert session.a11y_snapshot("#confirm") == '- button "Confirm"'
    assert session.a11y_snapshot("#nothing-here") == ""


def test_aria_snapshot_is_bounded(session: PageSession, site: StaticServer) -> None:
    open_nav(session, site)
    session.playwright_page.evaluate("""() => { for (let i = 0; i < 3000; i++) {
        const b = document.createElement('button'); b.textContent = 'Button number ' + i; document.body.append(b); } }""")
    snapshot = session.a11y_snapshot()
    assert len(snapshot) < 20_100
    assert "truncated" in snapshot.splitlines()[-1]


def test_trace_is_saved_on_close_when_asked(flowwalk_browser: Browser, site: StaticServer, tmp_path: Path) -> None:
    session = flowwalk_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=(), trace=True)
    session.goto(f"{site.url}/browser/checks.html", timeout_ms=10_000)
    trace = tmp_path / "traces" / "scenario.zip"
    session.close(trace)
    assert zipfile.is_zipfile(trace)
    session.close(trace)   # idempotent


def test_a_closed_session_gives_evidence_without_raising(session: PageSession, site: StaticServer,
                                                         tmp_path: Path) -> None:
    open_nav(session, site)
    session.close()
    assert session.screenshot(tmp_path / "x.png") is False
    assert session.a11y_snapshot() == ""
    assert session.evidence()["title"] == ""


def test_a_page_closed_by_the_site_is_not_a_crash(flowwalk_browser: Browser, session: PageSession,
                                                   site: StaticServer) -> None:
    from flowwalk.browser import PageGone

    # a tab with a single history entry may close itself
    with session.playwright_page.expect_event("close"):
        session.playwright_page.evaluate("window.close()")
    with pytest.raises(PageGone):   # not BrowserCrashed: the context still answers
        session.page.document_title()
    assert not session.crashed and flowwalk_browser.is_alive()
