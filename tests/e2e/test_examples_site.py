"""The bundled example site (examples/site, "Acme Notes") behaves as the example flows expect.

Raw Playwright against the site served on 127.0.0.1: if one of these fails, the example flows
would fail for a reason that is the site's, not flowwalk's. GA4 beacons are answered here with
204 by a route, the way flowwalk answers them, so nothing leaves the machine.
"""

from __future__ import annotations

import re
import time
from typing import Callable
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Route, expect

from flowwalk.serve import StaticServer

pytestmark = pytest.mark.browser

#: the demo account built into the site (examples/README.md documents it)
DEMO_EMAIL = "ada@example.com"
DEMO_PASSWORD = "correct-horse-battery"

PAGES = ("index", "signup", "login", "notes", "reports", "team", "settings", "help")


@pytest.fixture()
def beacons(page: Page) -> list[dict[str, str]]:
    """Every GA4 hit the page sends, as its query parameters; each is answered locally with 204."""
    hits: list[dict[str, str]] = []

    def answer(route: Route) -> None:
        query = parse_qs(urlsplit(route.request.url).query)
        hits.append({name: values[0] for name, values in query.items()})
        route.fulfill(status=204)

    page.route("**/g/collect*", answer)
    return hits


def events(hits: list[dict[str, str]]) -> list[str]:
    return [hit.get("en", "") for hit in hits]


def wait_until(page: Page, condition: Callable[[], bool], timeout_s: float = 5.0) -> bool:
    """Poll `condition` while letting Playwright deliver events (route handlers run in between)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        page.wait_for_timeout(50)
    return True


def open_page(page: Page, site: StaticServer, path: str, accept: bool = True) -> None:
    page.goto(site.url + path)
    if accept:
        page.get_by_role("button", name="Accept all cookies").click()
        expect(page.get_by_test_id("cookie-overlay")).to_have_count(0)


def test_every_page_loads_without_console_errors_or_outside_requests(page: Page, example_site: StaticServer,
                                                                      beacons: list[dict[str, str]]) -> None:
    errors: list[str] = []
    outside: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda req: outside.append(req.url)
            if urlsplit(req.url).hostname not in ("127.0.0.1", "www.google-analytics.com") else None)
    open_page(page, example_site, "/index.html")
    for name in PAGES:
        response = page.goto(f"{example_site.url}/{name}.html")
        assert response is not None and response.status == 200, name
        expect(page.locator("h1")).not_to_be_empty()
        assert "Acme Notes" in page.title()
    assert errors == []
    assert outside == []


def test_cookie_overlay_blocks_clicks_until_accepted_and_is_remembered(page: Page, example_site: StaticServer,
                                                                       beacons: list[dict[str, str]]) -> None:
    page.goto(example_site.url + "/index.html")
    dialog = page.get_by_role("dialog", name="We value your privacy")
    expect(dialog).to_be_visible()
    # the overlay sits above the page: a click on a link under it cannot land
    with pytest.raises(PlaywrightError, match="intercepts pointer events"):
        page.get_by_test_id("hero-signup").click(timeout=1500)
    assert page.url.endswith("/index.html")
    assert beacons == []  # no analytics before consent

    page.get_by_role("button", name="Accept all cookies").click()
    expect(dialog).to_have_count(0)
    page.get_by_test_id("hero-signup").click()
    expect(page).to_have_url(f"{example_site.url}/signup.html")
    expect(page.get_by_test_id("cookie-overlay")).to_have_count(0)
    page.reload()
    expect(page.get_by_role("heading", name="Create your account")).to_be_visible()
    expect(page.get_by_test_id("cookie-overlay")).to_have_count(0)


def test_essential_only_sends_no_analytics(page: Page, example_site: StaticServer,
                                           beacons: list[dict[str, str]]) -> None:
    page.goto(example_site.url + "/index.html")
    page.get_by_role("button", name="Essential only").click()
    page.goto(example_site.url + "/notes.html")
    page.get_by_label("New note").fill("private thought")
    page.get_by_label("New note").press("Enter")
    expect(page.get_by_test_id("note")).to_have_count(1)
    page.wait_for_timeout(300)
    assert beacons == []


def test_page_view_beacon_fires_on_accept_and_on_each_later_page(page: Page, example_site: StaticServer,
                                                                 beacons: list[dict[str, str]]) -> None:
    open_page(page, example_site, "/team.html")
    page.goto(example_site.url + "/reports.html")
    assert wait_until(page, lambda: len(beacons) >= 2), events(beacons)
    assert events(beacons) == ["page_view", "page_view"]
    assert {hit["v"] for hit in beacons} == {"2"}
    assert {hit["tid"] for hit in beacons} == {"G-DEMO"}
    assert beacons[0]["dl"].endswith("/team.html") and beacons[1]["dl"].endswith("/reports.html")
    assert beacons[0]["cid"] == beacons[1]["cid"]


def test_signup_validates_inline_and_enables_submit_only_when_valid(page: Page, example_site: StaticServer,
                                                                     beacons: list[dict[str, str]]) -> None:
    open_page(page, example_site, "/signup.html")
    submit = page.get_by_role("button", name="Create account")
    expect(submit).to_be_disabled()
    expect(page.get_by_test_id("email-error")).to_be_empty()  # nothing shouted at a fresh form

    page.get_by_label("Full name").fill("G")
    expect(page.get_by_test_id("name-error")).to_have_text("Your name needs at least 2 characters.")
    page.get_by_label("Full name").fill("Grace Hopper")
    expect(page.get_by_test_id("name-error")).to_be_empty()

    page.get_by_label("Work email").fill("grace-at-example")
    expect(page.get_by_test_id("email-error")).to_have_text("Enter a valid email address, like name@company.com.")
    expect(page.get_by_label("Work email")).to_have_attribute("aria-invalid", "true")
    page.get_by_label("Work email").fill(DEMO_EMAIL)
    expect(page.get_by_test_id("email-error")).to_contain_text("already exists")
    page.get_by_label("Work email").fill("grace@example.com")
    expect(page.get_by_test_id("email-error")).to_be_empty()

    page.get_by_label("Password").fill("short")
    expect(page.get_by_test_id("password-error")).to_contain_text("at least 8 characters")
    page.get_by_label("Password").fill("cobol-1959")
    expect(submit).to_be_disabled()
    expect(page.get_by_test_id("submit-help")).to_have_text("Still needed: accepting the terms.")
    page.get_by_label("I agree to the Terms of Service").check()
    expect(submit).to_be_enabled()


def test_signup_redirects_to_the_dashboard_and_fires_sign_up(page: Page, example_site: StaticServer,
                                                               beacons: list[dict[str, str]]) -> None:
    open_page(page, example_site, "/signup.html")
    page.get_by_label("Full name").fill("Grace Hopper")
    page.get_by_label("Work email").fill("grace@example.com")
    page.get_by_label("Password").fill("cobol-1959")
    page.get_by_label("I agree to the Terms of Service").check()
    page.get_by_role("button", name="Create account").click()

    # a real server redirect (POST -> 303) lands on the dashboard
    expect(page).to_have_url(f"{example_site.url}/dashboard.html?welcome=1")
    expect(page.get_by_test_id("greeting")).to_have_text("Welcome, Grace!")
    expect(page.get_by_test_id("account-email")).to_have_text("grace@example.com")
    expect(page.get_by_test_id("account-number")).to_have_text(re.compile(r"^ACME-\d{4}$"))
    expect(page.get_by_test_id("signed-in-as")).to_have_text("Signed in as Grace Hopper")
    assert wait_until(page, lambda: "sign_up" in events(beacons)), events(beacons)
    sign_up = next(hit for hit in beacons if hit["en"] == "sign_up")
    assert sign_up["ep.method"] == "email"
    assert sign_up["dl"].endswith("/signup.html")

    # the new account can log in afterwards
    page.get_by_role("button", name="Log out").click()
    page.goto(example_site.url + "/login.html")
    page.get_by_label("Email").fill("grace@example.com")
    page.get_by_label("Password").fill("cobol-1959")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_test_id("greeting")).to_have_text("Welcome back, Grace")


def test_login_rejects_a_wrong_password_and_accepts_the_demo_account(page: Page, example_site: StaticServer,
                                                                     beacons: list[dict[str, str]]) -> None:
    open_page(page, example_site, "/login.html")
    page.get_by_label("Email").fill(DEMO_EMAIL)
    page.get_by_label("Password").fill("not-the-password")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_have_text("Incorrect email or password. Check both and try again.")
    expect(page).to_have_url(f"{example_site.url}/login.html")
    expect(page.get_by_label("Password")).to_have_value("")

    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{example_site.url}/dashboard.html")
    expect(page.get_by_test_id("greeting")).to_have_text("Welcome back, Ada")
    expect(page.get_by_test_id("whats-new")).to_be_visible()
    page.get_by_role("button", name="Dismiss what's new").click()
    expect(page.get_by_test_id("whats-new")).to_have_count(0)
    assert wait_until(page, lambda: "login" in events(beacons)), events(beacons)


def test_dashboard_sends_signed_out_visitors_to_login_and_back(page: Page, example_site: StaticServer,
                                                               beacons: list[dict[str, str]]) -> None:
    open_page(page, example_site, "/index.html")
    page.goto(example_site.url + "/dashboard.html")
    expect(page).to_have_url(f"{example_site.url}/login.html?next=%2Fdashboard.html")
    page.get_by_label("Email").fill(DEMO_EMAIL)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{example_site.url}/dashboard.html")


def test_notes_add_complete_filter_count_and_persist(page: Page, example_site: StaticServer,
                                                     beacons: list[dict[str, str]]) -> None:
    open_page(page, example_site, "/notes.html")
    count = page.get_by_test_id("notes-count")
    expect(count).to_have_text("0 notes left")
    expect(page.get_by_test_id("notes-empty")).to_be_visible()
    expect(page.get_by_role("button", name="Clear completed")).to_be_hidden()

    page.get_by_role("button", name="Add note").click()
    expect(page.get_by_test_id("note-error")).to_have_text("Write something first.")

    new_note = page.get_by_label("New note")
    new_note.fill("Buy milk")
    new_note.press("Enter")
    new_note.fill("Call Alan about the report")
    page.get_by_role("button", name="Add note").click()
    new_note.fill("Ship v2")
    new_note.press("Enter")
    expect(page.get_by_test_id("note")).to_have_count(3)
    expect(count).to_have_text("3 notes left")
    expect(new_note).to_have_value("")

    expect(page.get_by_test_id("notes-empty")).to_be_hidden()
    page.get_by_role("checkbox", name="Call Alan about the report").check()
    expect(count).to_have_text("2 notes left")
    expect(page.get_by_role("button", name="Clear completed")).to_be_visible()
    page.get_by_role("button", name="Active").click()
    expect(page.get_by_role("button", name="Active")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_test_id("note")).to_have_text(["Buy milk Delete", "Ship v2 Delete"], use_inner_text=True)
    page.get_by_role("button", name="Completed", exact=True).click()
    expect(page.get_by_test_id("note")).to_have_count(1)
    expect(page.get_by_test_id("note")).to_contain_text("Call Alan about the report")

    page.reload()
    expect(page.get_by_test_id("note")).to_have_count(3)
    expect(count).to_have_text("2 notes left")
    page.get_by_role("button", name="Delete note: Buy milk").click()
    expect(count).to_have_text("1 note left")
    page.get_by_role("button", name="Clear completed").click()
    expect(page.get_by_test_id("note")).to_have_count(1)
    assert events(beacons).count("note_created") == 3


def test_report_appears_only_after_its_delay(page: Page, example_site: StaticServer,
                                              beacons: list[dict[str, str]]) -> None:
    open_page(page, example_site, "/reports.html")
    expect(page.get_by_test_id("no-reports")).to_be_visible()
    started = time.monotonic()
    page.get_by_role("button", name="Generate report").click()
    expect(page.get_by_test_id("report-progress")).to_contain_text("Preparing your report")
    expect(page.get_by_test_id("report-ready")).to_have_count(0)
    expect(page.get_by_test_id("report-ready")).to_be_visible(timeout=5000)
    assert time.monotonic() - started >= 1.4
    expect(page.get_by_test_id("report-ready")).to_contain_text("Report ready")
    expect(page.get_by_test_id("report-id")).to_have_text("R-1001")
    expect(page.get_by_test_id("recent-report")).to_contain_text("R-1001")
    expect(page.get_by_test_id("download-report")).to_have_attribute("download", "R-1001.csv")

    page.get_by_role("button", name="Generate another report").click()
    expect(page.get_by_test_id("report-id")).to_have_text("R-1002", timeout=5000)
    expect(page.get_by_test_id("recent-report")).to_have_count(2)


def test_team_list_counts_and_filters(page: Page, example_site: StaticServer,
                                      beacons: list[dict[str, str]]) -> None:
    open_page(page, example_site, "/team.html")
    members = page.get_by_test_id("member")
    expect(members).to_have_count(5)
    expect(page.get_by_test_id("member-summary")).to_have_text("Showing 5 of 5 members")
    expect(page.get_by_test_id("member-name").first).to_have_text("Ada Lovelace")

    page.get_by_label("Filter members").fill("editor")
    expect(members).to_have_count(2)
    expect(page.get_by_test_id("member-summary")).to_have_text("Showing 2 of 5 members")
    page.get_by_label("Filter members").fill("Grace Hopper")
    expect(members).to_have_count(1)
    page.get_by_label("Filter members").fill("nobody")
    expect(members).to_have_count(0)
    expect(page.get_by_test_id("members-empty")).to_have_text("No one matches \u201cnobody\u201d.")
    page.get_by_label("Filter members").press("Escape")
    expect(members).to_have_count(5)


def test_settings_select_check_radio_save_and_apply(page: Page, example_site: StaticServer,
                                                    beacons: list[dict[str, str]]) -> None:
    open_page(page, example_site, "/settings.html")
    # accepting cookies on this very page shows up in the privacy checkbox
    expect(page.get_by_label("Allow analytics cookies")).to_be_checked()
    tip = page.get_by_role("tooltip")
    expect(tip).to_be_hidden()
    page.get_by_role("button", name="About the weekly digest").hover()
    expect(tip).to_have_text("The digest arrives every Monday at 9:00 with last week's notes and reports.")

    page.get_by_label("Theme").select_option("dark")
    page.get_by_label("Send me the weekly digest").check()
    page.get_by_label("Product announcements").uncheck()
    page.get_by_label("Compact").check()
    expect(page.get_by_role("status")).to_have_text("Unsaved changes")
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_role("status")).to_have_text("Settings saved.")
    expect(page.locator("body")).to_have_class("theme-dark density-compact")

    page.goto(example_site.url + "/notes.html")
    expect(page.locator("body")).to_have_class("theme-dark density-compact")
    page.goto(example_site.url + "/settings.html")
    expect(page.get_by_label("Theme")).to_have_value("dark")
    expect(page.get_by_label("Send me the weekly digest")).to_be_checked()
    expect(page.get_by_label("Product announcements")).not_to_be_checked()
    expect(page.get_by_label("Compact")).to_be_checked()
    expect(page.get_by_label("Comfortable")).not_to_be_checked()


def test_home_stories_load_only_when_scrolled_into_view(page: Page, example_site: StaticServer,
                                                        beacons: list[dict[str, str]]) -> None:
    open_page(page, example_site, "/index.html")
    page.wait_for_timeout(300)
    expect(page.get_by_test_id("story")).to_have_count(0)
    page.get_by_test_id("stories").scroll_into_view_if_needed()
    expect(page.get_by_test_id("story")).to_have_count(3)
    expect(page.get_by_test_id("stories-status")).to_have_text("3 customer stories")


def test_loading_the_stories_moves_nothing_below_them(page: Page, example_site: StaticServer,
                                                     beacons: list[dict[str, str]]) -> None:
    # a click on the footer's link scrolls the stories into view; if their arrival moved the footer,
    # the click's mouse-up could land on a story card instead (seen once in CI: no navigation at all)
    open_page(page, example_site, "/index.html")
    link = page.get_by_test_id("help-link")
    before = link.bounding_box()
    page.get_by_test_id("stories").scroll_into_view_if_needed()
    expect(page.get_by_test_id("story")).to_have_count(3)
    page.evaluate("() => window.scrollTo(0, 0)")
    assert link.bounding_box() == before
    expect(page.locator("[data-testid=story-list] > .placeholder")).to_have_count(0)


def test_help_center_lives_on_a_second_host(page: Page, example_site: StaticServer,
                                            beacons: list[dict[str, str]]) -> None:
    open_page(page, example_site, "/index.html")
    port = urlsplit(example_site.url).port
    link = page.get_by_role("link", name="Help center")
    expect(link).to_have_attribute("href", f"http://localhost:{port}/help.html")
    link.click()
    expect(page).to_have_url(f"http://localhost:{port}/help.html")
    expect(page.get_by_role("heading", name="Acme Help Center")).to_be_visible()
    # a different host keeps its own consent: the banner asks again
    page.get_by_role("button", name="Accept all cookies").click()
    page.get_by_role("link", name="Back to Acme Notes").click()
    expect(page).to_have_url(f"{example_site.url}/index.html")
