"""The benchmark corpus, written once here and generated three ways so the three forms stay in step.

One table (`FLOWS`) holds 56 flows: ten families of four variants against the example site
(examples/site, "Acme Notes"), and four more against the lab pages of bench/site (served overlaid
on it, one origin; see bench/README.md): a large live dashboard, a consent overlay that comes late,
content fetched late with infinite scroll and paging, and analytics that beacon continuously.
The consent overlay is an interrupt every form dismisses the same way (`DISMISS`): flowwalk through
`dismiss_selectors` in bench/flowwalk.yaml, Playwright Test and the floor through a locator handler
on every page. From the table this script writes

- `bench/flows/<slug>.flow.yaml`: flowwalk flow specs (flow-spec v1, or "1.1" where a flow uses a
  v1.x expect kind or action),
- `bench/pwtest/tests/<family>.spec.ts`: the same checks as a Playwright Test suite, one test per
  flow, web-first `expect` for every check,
- `bench/floor_flows.py`: the same checks as plain Python Playwright functions (the floor);
- `bench/flowwalk.yaml` and `bench/pwtest/tests/interrupts.ts`: the `DISMISS` selectors for
  flowwalk and Playwright Test (the floor's are in floor_flows.py);
- `bench/rules/corpus.rules.yaml` and `bench/rules/lab.rules.yaml`: the same flows as rule files
  (one scenario of one rule each; the example site's and the lab's, as a rule file holds at most
  50 scenarios), whose checks keep RFC 010's two reads: what the rule-file semantics cost (issue 11);
- the failing corpus (issue 11): the same flows with the 14 checks of `BREAKS` broken (a wrong
  text, a wrong count, a missing element, a wrong URL), as `bench/failing/flows/*.flow.yaml` and
  `bench/pwtest/failing/<family>.spec.ts`, to time the verdict of a failing run.

Every step maps to exactly one Playwright call in the two code forms (see `_ts_step` and
`_py_step`), so the three forms do the same actions, the same waits and the same assertions.
Run `python bench/make_corpus.py` after editing the table, and commit what it writes;
`python bench/make_corpus.py --check` fails when the committed files differ from the table.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

BENCH = Path(__file__).resolve().parent
FLOWS_DIR = BENCH / "flows"
PW_TESTS_DIR = BENCH / "pwtest" / "tests"
FLOOR_MODULE = BENCH / "floor_flows.py"
RULES_DIR = BENCH / "rules"
#: the rule files of the corpus: the example site's flows, and the lab's (bench/site/lab)
RULE_FILES = {"corpus": "the example site", "lab": "the lab pages"}
FAILING_FLOWS_DIR = BENCH / "failing" / "flows"
FLOWWALK_CONFIG = BENCH / "flowwalk.yaml"
PW_INTERRUPTS = PW_TESTS_DIR / "interrupts.ts"

#: interrupts every form clicks away before an action when visible: the lab inbox's late consent
#: overlay (flowwalk: `dismiss_selectors`; Playwright: `addLocatorHandler` on every page)
DISMISS = ("[data-testid=consent-accept]",)
PW_FAILING_DIR = BENCH / "pwtest" / "failing"

#: variables the run supplies (the harness reads the demo password from the site's app.js);
#: everything else in `{{...}}` is a name an earlier extract step filled in
RUN_VARIABLES = ("DEMO_PASSWORD",)
#: v1.x additions (spec_version "1.1"); anything else is plain flow-spec v1
V1X_EXPECTS = {"selector_absent", "count", "visible", "checked", "unchecked", "disabled", "attribute"}
V1X_ACTIONS = {"select", "check"}

Step = dict[str, Any]


@dataclass(frozen=True)
class Flow:
    family: str
    variant: int
    name: str
    url: str
    steps: tuple[Step, ...]
    description: str = ""
    allowed_hosts: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def slug(self) -> str:
        return f"{self.family}-{self.variant}"

    @property
    def spec_version(self) -> str:
        for step in self.steps:
            if step["type"] == "expect" and step["kind"] in V1X_EXPECTS:
                return "1.1"
            if step["type"] == "act" and step["action"] in V1X_ACTIONS:
                return "1.1"
        return "1"


# --- step builders (flow-spec form) --------------------------------------------------------------


def goto(url: str) -> Step:
    return {"type": "goto", "url": url}


def act(action: str, selector: str, target: str, value: str | None = None) -> Step:
    step: Step = {"type": "act", "action": action, "target": target, "selector": selector}
    if value is not None:
        step["value"] = value
    return step


def click(selector: str, target: str) -> Step:
    return act("click", selector, target)


def fill(selector: str, value: str, target: str) -> Step:
    return act("fill", selector, target, value)


def press(selector: str, key: str, target: str) -> Step:
    return act("press", selector, target, key)


def wait_for(selector: str) -> Step:
    return {"type": "wait", "for": selector}


def extract(selector: str, into: str) -> Step:
    return {"type": "extract", "selector": selector, "into": into}


def text(value: str, selector: str | None = None) -> Step:
    step: Step = {"type": "expect", "kind": "text_contains", "value": value}
    if selector is not None:
        step["selector"] = selector
    return step


def url_contains(value: str) -> Step:
    return {"type": "expect", "kind": "url_contains", "value": value}


def url_matches(pattern: str) -> Step:
    return {"type": "expect", "kind": "url_matches", "value": pattern}


def beacon(event: str) -> Step:
    return {"type": "expect", "kind": "beacon", "vendor": "ga4", "event": event}


def element(kind: str, selector: str) -> Step:
    return {"type": "expect", "kind": kind, "selector": selector}


def count(selector: str, equals: int) -> Step:
    return {"type": "expect", "kind": "count", "selector": selector, "equals": equals}


def attribute(selector: str, name: str, contains: str) -> Step:
    return {"type": "expect", "kind": "attribute", "selector": selector, "name": name, "contains": contains}


ACCEPT = click("[data-testid=cookie-accept]", "the Accept all cookies button")
ESSENTIAL = click("[data-testid=cookie-essential]", "the Essential only button")
DASHBOARD = "[data-testid=dashboard]"
GREETING = "[data-testid=greeting]"
SUBMIT_HELP = "[data-testid=submit-help]"
NOTE_FIELD = "#new-note"
NOTES_COUNT = "[data-testid=notes-count]"
NOTE_LIST = "[data-testid=note-list]"
REPORT_READY = "[data-testid=report-ready]"
MEMBER_SUMMARY = "[data-testid=member-summary]"
MEMBER = "[data-testid=member]"


def signup_form(name: str, email: str, password: str) -> tuple[Step, ...]:
    return (
        fill("#name", name, "the Full name field"),
        fill("#email", email, "the Work email field"),
        fill("#password", password, "the Password field"),
        click("#terms", "the I agree to the Terms of Service checkbox"),
    )


def add_note(text_: str, how: str) -> tuple[Step, ...]:
    submit = (press(NOTE_FIELD, "Enter", "the New note field") if how == "enter"
              else click("[data-testid=add-note]", "the Add note button"))
    return (fill(NOTE_FIELD, text_, "the New note field"), submit)


def tick(note: str) -> Step:
    return click(f"[data-testid=note]:has-text('{note}') input[type=checkbox]", f"the {note} checkbox")


def login(email: str, password: str) -> tuple[Step, ...]:
    return (fill("#login-email", email, "the Email field"), fill("#login-password", password, "the Password field"))


LOG_IN = click("[data-testid=login-submit]", "the Log in button")
GENERATE = click("[data-testid=generate-report]", "the Generate report button")

# the lab pages (bench/site/lab)
ROW_SUMMARY = "[data-testid=row-summary]"
SHOWN_ROW = "[data-testid=service-row]:not([hidden])"
MESSAGE = "[data-testid=message]"
INBOX_SUMMARY = "[data-testid=inbox-summary]"
CONSENT_OVERLAY = "[data-testid=consent-overlay]"
CONSENT_STATE = "[data-testid=consent-state]"
INBOX_NOTICE = "[data-testid=inbox-notice]"
POST = "[data-testid=post]"
FEED_STATUS = "[data-testid=feed-status]"
SENTINEL = act("scroll", "[data-testid=feed-sentinel]", "the end of the feed")
LOAD_MORE = click("[data-testid=load-more]", "the Load more button")
LIKE = click("[data-testid=like]", "the Like button")


def inbox(consent_ms: int) -> tuple[Step, ...]:
    """Open the inbox with its consent overlay due after `consent_ms`, and wait for the messages (at
    1 s, so the overlay is up by then and the next action meets it)."""
    return (goto(f"/lab/inbox.html?consent_ms={consent_ms}"), wait_for(MESSAGE))


# --- the corpus ------------------------------------------------------------------------------------

FLOWS: tuple[Flow, ...] = (
    # sign-up end to end: four new accounts, four ways of submitting and checking
    Flow("signup", 1, "sign up Grace and land on the dashboard", "/signup.html", (
        goto("/signup.html"), ACCEPT, *signup_form("Grace Hopper", "grace@example.com", "cobol-1959"),
        text("All set", SUBMIT_HELP), click("#create-account", "the Create account button"),
        wait_for(DASHBOARD), url_contains("/dashboard.html"), text("Welcome, Grace!", GREETING),
        beacon("sign_up"))),
    Flow("signup", 2, "sign up Alan: the redirect carries welcome=1", "/signup.html", (
        goto("/signup.html"), ACCEPT, *signup_form("Alan Turing", "alan@example.com", "enigma-1936"),
        click("#create-account", "the Create account button"), wait_for(DASHBOARD),
        url_matches(r"/dashboard\.html\?welcome=1$"), text("alan@example.com", "[data-testid=account-email]"),
        text("Welcome, Alan!", GREETING))),
    Flow("signup", 3, "sign up Katherine submitting with Enter", "/signup.html", (
        goto("/signup.html"), ACCEPT, fill("#name", "Katherine Johnson", "the Full name field"),
        fill("#email", "katherine@example.com", "the Work email field"),
        click("#terms", "the I agree to the Terms of Service checkbox"),
        fill("#password", "orbit-1962", "the Password field"), press("#password", "Enter", "the Password field"),
        wait_for(DASHBOARD), text("Signed in as Katherine Johnson", "[data-testid=signed-in-as]"),
        beacon("sign_up"))),
    Flow("signup", 4, "sign up Edsger and dismiss the what's new notice", "/signup.html", (
        goto("/signup.html"), ACCEPT, *signup_form("Edsger Dijkstra", "edsger@example.com", "shortest-path-1959"),
        click("#create-account", "the Create account button"), wait_for(DASHBOARD),
        text("ACME-", "[data-testid=account-number]"), text("0", "[data-testid=open-notes]"),
        click("[data-testid=dismiss-whats-new]", "the Dismiss what's new button"),
        element("selector_absent", "[data-testid=whats-new]"))),

    # sign-up validation: each bad value gets its own inline message and nothing is submitted
    Flow("validation", 1, "a malformed email is refused inline", "/signup.html", (
        goto("/signup.html"), ACCEPT, fill("#email", "grace-at-example", "the Work email field"),
        text("Enter a valid email address", "#email-error"), url_contains("/signup.html"))),
    Flow("validation", 2, "an email that has an account is refused inline", "/signup.html", (
        goto("/signup.html"), ACCEPT, fill("#email", "ada@example.com", "the Work email field"),
        text("already exists", "#email-error"), text("Log in instead", "#email-error"))),
    Flow("validation", 3, "a short password is refused and the form lists what is missing", "/signup.html", (
        goto("/signup.html"), ACCEPT, fill("#password", "short", "the Password field"),
        text("at least 8 characters", "#password-error"),
        text("Still needed: your name, a valid email, a password, accepting the terms.", SUBMIT_HELP),
        url_contains("/signup.html"))),
    Flow("validation", 4, "a one-letter name is refused and submit stays disabled", "/signup.html", (
        goto("/signup.html"), ACCEPT, fill("#name", "G", "the Full name field"),
        text("at least 2 characters", "#name-error"), fill("#name", "Grace Hopper", "the Full name field"),
        text("Still needed: a valid email, a password, accepting the terms.", SUBMIT_HELP),
        element("disabled", "#create-account"))),

    # login: the demo account, a wrong password, an empty form, and the redirect back after login
    Flow("login", 1, "log in with the demo account", "/login.html", (
        goto("/login.html"), ACCEPT, *login("ada@example.com", "{{DEMO_PASSWORD}}"), LOG_IN,
        wait_for(DASHBOARD), url_contains("/dashboard.html"), text("Welcome back, Ada", GREETING),
        beacon("login"))),
    Flow("login", 2, "a wrong password is refused", "/login.html", (
        goto("/login.html"), ACCEPT, *login("ada@example.com", "definitely-not-the-password"), LOG_IN,
        text("Incorrect email or password", "[data-testid=login-error]"), url_contains("/login.html"))),
    Flow("login", 3, "an empty form asks for both fields", "/login.html", (
        goto("/login.html"), ACCEPT, LOG_IN, text("Enter your email and password.", "[data-testid=login-error]"),
        url_contains("/login.html"))),
    Flow("login", 4, "the dashboard sends a visitor to log in and back", "/dashboard.html", (
        goto("/dashboard.html"), url_contains("/login.html?next="), ACCEPT,
        *login("ada@example.com", "{{DEMO_PASSWORD}}"), press("#login-password", "Enter", "the Password field"),
        wait_for(DASHBOARD), url_contains("/dashboard.html"),
        text("ada@example.com", "[data-testid=account-email]"))),

    # todo list: add, complete, filter, clear
    Flow("notes", 1, "add three notes", "/notes.html", (
        goto("/notes.html"), ACCEPT, *add_note("Buy milk", "enter"), *add_note("Call Alan", "button"),
        *add_note("Ship v2", "enter"), text("3 notes left", NOTES_COUNT), text("Call Alan", NOTE_LIST))),
    Flow("notes", 2, "complete a note and the count follows", "/notes.html", (
        goto("/notes.html"), ACCEPT, *add_note("Buy milk", "enter"), *add_note("Call Alan", "enter"),
        text("2 notes left", NOTES_COUNT), tick("Buy milk"), text("1 note left", NOTES_COUNT),
        beacon("note_created"))),
    Flow("notes", 3, "the Active filter shows the open notes", "/notes.html", (
        goto("/notes.html"), ACCEPT, *add_note("Buy milk", "enter"), *add_note("Call Alan", "button"),
        *add_note("Ship v2", "enter"), tick("Call Alan"), text("2 notes left", NOTES_COUNT),
        click("[data-testid=filter-active]", "the Active filter button"), text("Ship v2", NOTE_LIST),
        count("[data-testid=note]", 2))),
    Flow("notes", 4, "the Completed filter and Clear completed", "/notes.html", (
        goto("/notes.html"), ACCEPT, *add_note("Buy milk", "enter"), *add_note("Call Alan", "enter"),
        tick("Buy milk"), click("[data-testid=filter-completed]", "the Completed filter button"),
        text("Buy milk", NOTE_LIST), click("[data-testid=clear-completed]", "the Clear completed button"),
        text("No completed notes yet.", "[data-testid=notes-empty]"), text("1 note left", NOTES_COUNT))),

    # delayed content: the report is ready 1.5 s after the click
    Flow("reports", 1, "a report shows progress, then is ready", "/reports.html", (
        goto("/reports.html"), ACCEPT, GENERATE, text("Preparing your report", "[data-testid=report-status]"),
        wait_for(REPORT_READY), text("Report ready", REPORT_READY))),
    Flow("reports", 2, "a ready report counts the notes and sends an event", "/reports.html", (
        goto("/reports.html"), ACCEPT, GENERATE, wait_for(REPORT_READY),
        text("0 notes written, 0 completed", "[data-testid=report-numbers]"), beacon("report_generated"))),
    Flow("reports", 3, "a ready report is listed under Recent reports", "/reports.html", (
        goto("/reports.html"), ACCEPT, text("No reports yet.", "[data-testid=no-reports]"), GENERATE,
        wait_for(REPORT_READY), extract("[data-testid=report-id]", "report_id"),
        text("{{report_id}} · Weekly activity", "[data-testid=recent-reports]"))),
    Flow("reports", 4, "a second report gets the next id", "/reports.html", (
        goto("/reports.html"), ACCEPT, GENERATE, text("R-1001", "[data-testid=report-id]"),
        click("[data-testid=generate-report]", "the Generate another report button"),
        text("R-1002", "[data-testid=report-id]"), text("R-1001", "[data-testid=recent-reports]"))),

    # cookie banner: it blocks until a choice, the choice is remembered and reaches Settings
    Flow("cookies", 1, "accepting cookies removes the banner and counts the page view", "/index.html", (
        goto("/index.html"), text("We value your privacy", "[data-testid=cookie-banner]"), ACCEPT,
        element("selector_absent", "[data-testid=cookie-overlay]"), beacon("page_view"))),
    Flow("cookies", 2, "essential only leaves analytics off in Settings", "/index.html", (
        goto("/index.html"), ESSENTIAL, goto("/settings.html"), element("unchecked", "#analytics"),
        element("selector_absent", "[data-testid=cookie-overlay]"))),
    Flow("cookies", 3, "the choice is remembered on the next page", "/index.html", (
        goto("/index.html"), ACCEPT, goto("/team.html"), text("Showing 5 of 5 members", MEMBER_SUMMARY),
        element("selector_absent", "[data-testid=cookie-overlay]"))),
    Flow("cookies", 4, "accepting on the Settings page ticks analytics", "/settings.html", (
        goto("/settings.html"), ACCEPT, element("checked", "#analytics"), text("Settings", "h1"))),

    # beacons: one GA4 event per page
    Flow("beacons", 1, "the team page sends page_view after consent", "/team.html", (
        goto("/team.html"), ACCEPT, beacon("page_view"), text("Team", "h1"))),
    Flow("beacons", 2, "adding a note sends note_created", "/notes.html", (
        goto("/notes.html"), ACCEPT, *add_note("Water the plants", "enter"), beacon("note_created"),
        text("1 note left", NOTES_COUNT))),
    Flow("beacons", 3, "a generated report sends report_generated", "/reports.html", (
        goto("/reports.html"), ACCEPT, GENERATE, wait_for(REPORT_READY), beacon("report_generated"))),
    Flow("beacons", 4, "logging in sends login", "/login.html", (
        goto("/login.html"), ACCEPT, *login("ada@example.com", "{{DEMO_PASSWORD}}"),
        press("#login-password", "Enter", "the Password field"), wait_for(DASHBOARD), beacon("login"))),

    # navigation: links, lazily loaded content, a second host
    Flow("navigation", 1, "the home page loads stories when scrolled and links to the demo", "/index.html", (
        goto("/index.html"), ACCEPT, text("Notes your whole team can find", "h1"),
        act("scroll", "[data-testid=stories]", "the customer stories section"), wait_for("[data-testid=story]"),
        text("3 customer stories", "[data-testid=stories-status]"),
        click("[data-testid=hero-demo]", "the Try the demo notebook link"), url_contains("/notes.html"),
        text("Jot things down"))),
    Flow("navigation", 2, "Start free leads to sign-up", "/index.html", (
        goto("/index.html"), ACCEPT, click("[data-testid=hero-signup]", "the Start free link"),
        url_contains("/signup.html"), text("Create your account", "h1"))),
    # the footer link is below the lazily loaded stories: load them first, or their arrival can move
    # the link between the click's checks and the click itself (seen once in ~80 runs)
    Flow("navigation", 3, "the help center on its own host", "/index.html", (
        goto("/index.html"), ACCEPT, act("scroll", "[data-testid=stories]", "the customer stories section"),
        wait_for("[data-testid=story]"), click("[data-testid=help-link]", "the Help center link"),
        url_matches(r"^http://localhost:\d+/help\.html$"), text("Acme Help Center", "h1"),
        text("Keyboard shortcuts")), allowed_hosts=("localhost",)),
    Flow("navigation", 4, "the main menu reaches Reports and Team", "/index.html", (
        goto("/index.html"), ACCEPT, click(".main-nav a[href='/reports.html']", "the Reports menu link"),
        url_contains("/reports.html"), text("Reports", "h1"),
        click(".main-nav a[href='/team.html']", "the Team menu link"), url_contains("/team.html"),
        text("Showing 5 of 5 members", MEMBER_SUMMARY))),

    # counts: the team list and its filter
    Flow("team", 1, "five members are listed", "/team.html", (
        goto("/team.html"), ACCEPT, text("Showing 5 of 5 members", MEMBER_SUMMARY), count(MEMBER, 5),
        text("5 of 5 seats used", "[data-testid=seats]"))),
    Flow("team", 2, "filtering by role shows the two editors", "/team.html", (
        goto("/team.html"), ACCEPT, fill("#member-filter", "Editor", "the Filter members field"),
        text("Showing 2 of 5 members", MEMBER_SUMMARY), count(MEMBER, 2),
        text("Katherine Johnson", "[data-testid=member-list]"))),
    Flow("team", 3, "a filter that matches no one says so", "/team.html", (
        goto("/team.html"), ACCEPT, fill("#member-filter", "zzz", "the Filter members field"),
        text("No one matches", "[data-testid=members-empty]"), count(MEMBER, 0))),
    Flow("team", 4, "filter by the first member's name, then Escape clears it", "/team.html", (
        goto("/team.html"), ACCEPT, extract("[data-testid=member-name] >> nth=0", "first_member"),
        fill("#member-filter", "{{first_member}}", "the Filter members field"),
        text("Showing 1 of 5 members", MEMBER_SUMMARY), text("{{first_member}}", "[data-testid=member-list]"),
        press("#member-filter", "Escape", "the Filter members field"),
        text("Showing 5 of 5 members", MEMBER_SUMMARY))),

    # settings: a form that saves to the browser
    Flow("settings", 1, "the dark theme is saved and applied", "/settings.html", (
        goto("/settings.html"), ACCEPT, act("select", "#theme", "the Theme menu", "dark"),
        text("Unsaved changes", "[data-testid=settings-status]"),
        click("[data-testid=save-settings]", "the Save settings button"),
        text("Settings saved.", "[data-testid=settings-status]"), attribute("body", "class", "theme-dark"))),
    Flow("settings", 2, "ticking the digest marks the form unsaved", "/settings.html", (
        goto("/settings.html"), ACCEPT, act("check", "#digest", "the weekly digest checkbox"),
        text("Unsaved changes", "[data-testid=settings-status]"), element("checked", "#digest"))),
    Flow("settings", 3, "hovering the digest help shows its tooltip", "/settings.html", (
        goto("/settings.html"), ACCEPT, act("hover", "[data-testid=digest-help]", "the About the weekly digest button"),
        element("visible", "#digest-tip"), text("every Monday at 9:00", "#digest-tip"))),
    Flow("settings", 4, "compact density applies on every page", "/settings.html", (
        goto("/settings.html"), ACCEPT, click("#density-compact", "the Compact option"),
        click("[data-testid=save-settings]", "the Save settings button"),
        text("Settings saved.", "[data-testid=settings-status]"), goto("/notes.html"),
        attribute("body", "class", "density-compact"))),

    # the lab pages (bench/site/lab) --------------------------------------------------------------

    # a large live dashboard: 1,500 table rows, 24 cards, three canvas charts, a clock and a ticker
    # rewritten every 250 ms; checks on counts and text of the table and filters that narrow it
    Flow("ops", 1, "1,500 services are listed beside the cards and charts", "/lab/ops.html", (
        goto("/lab/ops.html"), text("Showing 1500 of 1500 services", ROW_SUMMARY),
        count("[data-testid=service-row]", 1500), count("[data-testid=card]", 24),
        attribute("#chart-latency", "data-drawn", "bars:5"), text("UTC", "[data-testid=clock]"))),
    Flow("ops", 2, "filtering by region narrows the table to 300", "/lab/ops.html", (
        goto("/lab/ops.html"), fill("#row-filter", "eu-west", "the Filter services field"),
        text("Showing 300 of 1500 services", ROW_SUMMARY), count(SHOWN_ROW, 300),
        text("svc-0001", f"{SHOWN_ROW} >> nth=0"))),
    Flow("ops", 3, "the Down status shows the 30 services down", "/lab/ops.html", (
        goto("/lab/ops.html"), act("select", "#status-filter", "the Status menu", "down"),
        text("Showing 30 of 1500 services", ROW_SUMMARY), count(SHOWN_ROW, 30),
        text("svc-0050", f"{SHOWN_ROW} >> nth=0"), text("down", f"{SHOWN_ROW} >> nth=29"))),
    Flow("ops", 4, "one service found by name opens its details", "/lab/ops.html", (
        goto("/lab/ops.html"), fill("#row-filter", "svc-0042", "the Filter services field"),
        text("Showing 1 of 1500 services", ROW_SUMMARY),
        click(f"{SHOWN_ROW} [data-testid=open-service]", "the Details button of svc-0042"),
        text("svc-0042 in eu-north: healthy, p95 294 ms", "[data-testid=detail]"), beacon("service_opened"))),

    # a consent overlay that comes late (300 to 800 ms after load) and takes every click until it is
    # dismissed: the first action after the messages arrive meets it (DISMISS clears it in every form)
    Flow("consent", 1, "the overlay at 300 ms is dismissed and the first message opens", "/lab/inbox.html", (
        *inbox(300), click("[data-testid=open-message]:has-text('Quarterly numbers')", "the Quarterly numbers message"),
        text("Quarterly numbers from Grace Hopper", "[data-testid=reader]"),
        element("selector_absent", CONSENT_OVERLAY), text("Analytics on", CONSENT_STATE))),
    Flow("consent", 2, "the overlay at 500 ms is dismissed and a message is archived", "/lab/inbox.html", (
        *inbox(500), click("[data-testid=message]:has-text('Interview loop') [data-testid=archive]",
                           "the Archive button of Interview loop"),
        text("4 messages, 2 starred, 1 archived", INBOX_SUMMARY), count(MESSAGE, 4),
        text("Interview loop", INBOX_NOTICE), beacon("page_view"))),
    Flow("consent", 3, "the overlay at 650 ms is dismissed and a message is sent", "/lab/inbox.html", (
        *inbox(650), click("[data-testid=compose]", "the Compose button"),
        fill("#compose-to", "grace@example.com", "the To field"), fill("#compose-subject", "Numbers", "the Subject field"),
        click("[data-testid=send]", "the Send button"),
        text("Message sent to grace@example.com: Numbers", INBOX_NOTICE), beacon("send_message"))),
    Flow("consent", 4, "the overlay at 800 ms is dismissed once and remembered", "/lab/inbox.html", (
        *inbox(800), click("[data-testid=tab-starred]", "the Starred tab"), count(MESSAGE, 2),
        *inbox(300), element("selector_absent", CONSENT_OVERLAY), text("Analytics on", CONSENT_STATE),
        text("5 messages, 2 starred", INBOX_SUMMARY))),

    # content that comes late: a skeleton until fetched JSON arrives (400 to 1,200 ms), then more
    # pages by infinite scroll or a Load more button (400 ms each, a spinner meanwhile; no check on
    # the spinner: 400 ms is too short a window to assert in reliably on a loaded machine, and one
    # flaky flow invalidates a whole comparison)
    Flow("feed", 1, "a skeleton until the first 20 posts arrive", "/lab/feed.html?delay=1200", (
        goto("/lab/feed.html?delay=1200"), element("visible", "[data-testid=feed-skeleton]"), wait_for(POST),
        text("Showing 20 of 60 posts", FEED_STATUS), count(POST, 20),
        element("selector_absent", "[data-testid=feed-skeleton]"))),
    Flow("feed", 2, "scrolling to the end loads the next pages", "/lab/feed.html?delay=400", (
        goto("/lab/feed.html?delay=400"), wait_for(POST), SENTINEL, text("Showing 40 of 60 posts", FEED_STATUS),
        SENTINEL, text("Showing 60 of 60 posts", FEED_STATUS), element("visible", "[data-testid=feed-end]"),
        count(POST, 60))),
    Flow("feed", 3, "Load more pages through to the end", "/lab/feed.html?delay=800&mode=pages", (
        goto("/lab/feed.html?delay=800&mode=pages"), wait_for(POST), LOAD_MORE,
        text("Showing 40 of 60 posts", FEED_STATUS), LOAD_MORE,
        text("Showing 60 of 60 posts", FEED_STATUS), text("You're all caught up", "[data-testid=feed-end]"),
        count(POST, 60))),
    Flow("feed", 4, "the first post opens with its title", "/lab/feed.html?delay=600", (
        goto("/lab/feed.html?delay=600"), wait_for(POST), extract("[data-testid=post-name] >> nth=0", "first_post"),
        click(f"{POST} >> nth=0", "the first post"), text("{{first_post}}", "[data-testid=post-title]"),
        beacon("select_content"))),

    # analytics that never rest: a GA4 hit for every tracked click and a heartbeat every second
    Flow("pulse", 1, "a like is counted and sent", "/lab/pulse.html", (
        goto("/lab/pulse.html"), beacon("page_view"), LIKE, text("1 like", "[data-testid=likes]"), beacon("like"))),
    Flow("pulse", 2, "the heartbeat beacons while likes add up", "/lab/pulse.html", (
        goto("/lab/pulse.html"), LIKE, LIKE, text("2 likes", "[data-testid=likes]"), beacon("user_engagement"),
        beacon("like"))),
    Flow("pulse", 3, "changing the range is sent", "/lab/pulse.html", (
        goto("/lab/pulse.html"), click("[data-testid=range-week]", "the Week tab"),
        text("71 deploys this week", "[data-testid=range-summary]"), beacon("select_range"),
        click("[data-testid=range-month]", "the Month tab"), text("305 deploys this month", "[data-testid=range-summary]"),
        attribute("[data-testid=range-month]", "aria-selected", "true"))),
    Flow("pulse", 4, "subscribing to release emails sends sign_up and the click", "/lab/pulse.html", (
        goto("/lab/pulse.html"), fill("#subscribe-email", "grace@example.com", "the Release emails field"),
        click("[data-testid=subscribe]", "the Subscribe button"),
        text("Subscribed grace@example.com.", "[data-testid=subscribe-status]"), beacon("sign_up"), beacon("click"))),
)


# --- the failing corpus ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Break:
    """One check of the corpus replaced by one that cannot pass (the original must be in the flow)."""

    slug: str
    what: str          # wrong text | wrong count | missing element | wrong URL
    original: Step
    broken: Step

    @property
    def failure_class(self) -> str:
        # what flowwalk must report: a selector that matches nothing is the spec's problem, the rest the site's
        return "spec_step_unresolvable" if self.what == "missing element" else "assertion_failed"


BREAKS: tuple[Break, ...] = (
    Break("signup-1", "wrong text", text("Welcome, Grace!", GREETING), text("Welcome, Gracie!", GREETING)),
    Break("validation-3", "wrong text", text("at least 8 characters", "#password-error"),
          text("at least 12 characters", "#password-error")),
    Break("beacons-1", "wrong text", text("Team", "h1"), text("Members", "h1")),
    Break("notes-3", "wrong count", count("[data-testid=note]", 2), count("[data-testid=note]", 3)),
    Break("team-1", "wrong count", count(MEMBER, 5), count(MEMBER, 6)),
    Break("reports-4", "missing element", text("R-1002", "[data-testid=report-id]"),
          text("R-1002", "[data-testid=report-code]")),
    Break("cookies-4", "missing element", element("checked", "#analytics"), element("checked", "#analytics-consent")),
    Break("settings-3", "missing element", element("visible", "#digest-tip"), element("visible", "#digest-tooltip")),
    Break("login-2", "wrong URL", url_contains("/login.html"), url_contains("/dashboard.html")),
    Break("navigation-2", "wrong URL", url_contains("/signup.html"), url_contains("/register.html")),
    # the lab families: one each
    Break("ops-2", "wrong count", count(SHOWN_ROW, 300), count(SHOWN_ROW, 301)),
    Break("consent-2", "wrong text", text("4 messages, 2 starred, 1 archived", INBOX_SUMMARY),
          text("3 messages, 2 starred, 1 archived", INBOX_SUMMARY)),
    Break("feed-3", "missing element", text("You're all caught up", "[data-testid=feed-end]"),
          text("You're all caught up", "[data-testid=feed-footer]")),
    Break("pulse-3", "wrong text", text("71 deploys this week", "[data-testid=range-summary]"),
          text("72 deploys this week", "[data-testid=range-summary]")),
)


def broken_index(brk: Break) -> int:
    """The 1-based index of the broken step in its flow."""
    flow = next(f for f in FLOWS if f.slug == brk.slug)
    return flow.steps.index(brk.original) + 1


def failing_flows() -> tuple[Flow, ...]:
    """FLOWS with every break applied."""
    by_slug = {b.slug: b for b in BREAKS}
    out = []
    for flow in FLOWS:
        brk = by_slug.get(flow.slug)
        if brk is not None:
            at = broken_index(brk) - 1
            flow = Flow(flow.family, flow.variant, flow.name, flow.url,
                        flow.steps[:at] + (brk.broken,) + flow.steps[at + 1:], flow.description, flow.allowed_hosts,
                        flow.extra)
        out.append(flow)
    return tuple(out)


# --- flowwalk specs -----------------------------------------------------------------------------


def spec_dict(flow: Flow) -> dict[str, Any]:
    spec: dict[str, Any] = {"spec_version": flow.spec_version, "name": f"{flow.slug}: {flow.name}",
                            "url": flow.url}
    if flow.allowed_hosts:
        spec["allowed_hosts"] = list(flow.allowed_hosts)
    spec["steps"] = [dict(step) for step in flow.steps]
    spec["assertions"] = [{"kind": "no_console_errors", "severity": "warning"}]
    return spec


def spec_text(flow: Flow, failing: bool = False) -> str:
    if failing:
        header = ("# Generated by bench/make_corpus.py from its FLOWS and BREAKS tables: edit the tables, not this file.\n"
                  f"# The same checks: bench/pwtest/failing/{flow.family}.spec.ts.\n")
    else:
        header = (f"# Generated by bench/make_corpus.py from its FLOWS table: edit the table, not this file.\n"
                  f"# The same checks: bench/pwtest/tests/{flow.family}.spec.ts and bench/floor_flows.py.\n")
    return header + yaml.safe_dump(spec_dict(flow), sort_keys=False, allow_unicode=True, width=1000)


def rule_file_of(flow: Flow) -> str:
    """Which rule file (a RULE_FILES key) holds `flow`."""
    return "lab" if flow.url.startswith("/lab/") else "corpus"


def rules_text(flows: tuple[Flow, ...], where: str = "corpus") -> str:
    """Flows as one rule file: each flow a scenario with one rule of the same steps. A rule file
    has no flow assertions (no_console_errors); the corpus logs no console error anyway."""
    scenarios = []
    for flow in flows:
        scenario: dict[str, Any] = {"name": f"{flow.slug}: {flow.name}", "url": flow.url}
        if flow.allowed_hosts:
            scenario["allowed_hosts"] = list(flow.allowed_hosts)
        scenario["rules"] = [{"name": flow.slug, "steps": [dict(step) for step in flow.steps]}]
        scenarios.append(scenario)
    data = {"rules_version": "1", "verification": "the benchmark corpus as a rule file",
            "secrets": list(RUN_VARIABLES), "dismiss": list(DISMISS), "scenarios": scenarios}
    header = ("# Generated by bench/make_corpus.py from its FLOWS table: edit the table, not this file.\n"
              f"# The {len(flows)} flows of bench/flows on {RULE_FILES[where]} as rule-file scenarios: the same steps, "
              "RFC 010's two reads per check.\n")
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)


def flowwalk_config_text() -> str:
    """bench/flowwalk.yaml: what every flowwalk run of the corpus reads (`--config`): the interrupts."""
    header = ("# Generated by bench/make_corpus.py from its DISMISS: edit that, not this file.\n"
              "# Read by every flowwalk run of the corpus (bench/run.py passes --config bench/flowwalk.yaml): flow\n"
              "# specs declare no interrupts of their own, so the lab inbox's late consent overlay is dismissed\n"
              "# here, before every action, as Playwright Test and the floor do with a locator handler.\n")
    return header + yaml.safe_dump({"dismiss_selectors": list(DISMISS)}, sort_keys=False, width=1000)


def ts_interrupts() -> str:
    lines = ["// Generated by bench/make_corpus.py from its DISMISS: edit that, not this file.",
             "// Clicked away before any action when visible, on every page (fixtures.ts: page.addLocatorHandler),",
             "// as flowwalk's dismiss_selectors (bench/flowwalk.yaml) and the floor's DISMISS do.",
             f"export const DISMISS: string[] = {json.dumps(list(DISMISS))};", ""]
    return "\n".join(lines)


# --- shared code generation helpers ---------------------------------------------------------------

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def _parts(value: str) -> list[tuple[str, str]]:
    """Split a value into ("text", s) and ("var", name) pieces."""
    out: list[tuple[str, str]] = []
    pos = 0
    for match in _PLACEHOLDER.finditer(value):
        if match.start() > pos:
            out.append(("text", value[pos:match.start()]))
        out.append(("var", match.group(1)))
        pos = match.end()
    if pos < len(value):
        out.append(("text", value[pos:]))
    return out or [("text", "")]


def _ts_value(value: str) -> str:
    pieces = []
    for kind, part in _parts(value):
        if kind == "text":
            pieces.append(json.dumps(part, ensure_ascii=False))
        elif part in RUN_VARIABLES:
            pieces.append(f"runVar({json.dumps(part)})")
        else:
            pieces.append(f"vars.{part}")
    return " + ".join(pieces)


def _py_value(value: str) -> str:
    pieces = []
    for kind, part in _parts(value):
        if kind == "text":
            pieces.append(json.dumps(part, ensure_ascii=False))
        elif part in RUN_VARIABLES:
            pieces.append(f"run_vars[{part!r}]")
        else:
            pieces.append(f"extracted[{part!r}]")
    return " + ".join(pieces)


# --- Playwright Test --------------------------------------------------------------------------------

_TS_ACTIONS = {"click": "click()", "hover": "hover()", "scroll": "scrollIntoViewIfNeeded()", "check": "check()"}
_TS_ELEMENT = {"selector_absent": "toHaveCount(0)", "visible": "toBeVisible()", "checked": "toBeChecked()",
               "unchecked": "not.toBeChecked()", "disabled": "toBeDisabled()"}


def _ts_step(step: Step) -> str:
    kind = step["type"]
    if kind == "goto":
        return f"await page.goto({_ts_value(step['url'])});"
    if kind == "act":
        loc = f"page.locator({json.dumps(step['selector'])})"
        action = step["action"]
        if action in _TS_ACTIONS:
            return f"await {loc}.{_TS_ACTIONS[action]};"
        method = {"fill": "fill", "press": "press", "select": "selectOption"}[action]
        return f"await {loc}.{method}({_ts_value(step['value'])});"
    if kind == "wait":
        if "ms" in step:
            return f"await page.waitForTimeout({step['ms']});"
        return f"await page.locator({json.dumps(step['for'])}).first().waitFor();"
    if kind == "extract":
        return f"vars.{step['into']} = (await page.locator({json.dumps(step['selector'])}).innerText()).trim();"
    expect_kind = step["kind"]
    if expect_kind == "url_contains":
        return f"await expect(page).toHaveURL(containing({_ts_value(step['value'])}));"
    if expect_kind == "url_matches":
        return f"await expect(page).toHaveURL(new RegExp({json.dumps(step['value'])}));"
    if expect_kind == "beacon":
        return f"await expectBeacon(beacons, {json.dumps(step['vendor'])}, {json.dumps(step['event'])});"
    loc = f"page.locator({json.dumps(step.get('selector', 'body'))})"
    if expect_kind == "text_contains":
        return f"await expect({loc}).toContainText({_ts_value(step['value'])}, {{ ignoreCase: true }});"
    if expect_kind == "count":
        return f"await expect({loc}).toHaveCount({step['equals']});"
    if expect_kind == "attribute":
        return (f"await expect({loc}).toHaveAttribute({json.dumps(step['name'])}, "
                f"containing({_ts_value(step['contains'])}));")
    return f"await expect({loc}).{_TS_ELEMENT[expect_kind]};"


def ts_file(family: str, flows: list[Flow], failing: bool = False) -> str:
    if failing:
        lines = [
            "// Generated by bench/make_corpus.py from its FLOWS and BREAKS tables: edit the tables, not this file.",
            f"// The same checks as bench/failing/flows/{family}-*.flow.yaml.",
            "import { test, expect, expectBeacon, containing, runVar } from '../tests/fixtures';",
            "",
        ]
    else:
        lines = [
            f"// Generated by bench/make_corpus.py from its FLOWS table: edit the table, not this file.",
            f"// The same checks as bench/flows/{family}-*.flow.yaml and bench/floor_flows.py.",
            "import { test, expect, expectBeacon, containing, runVar } from './fixtures';",
            "",
        ]
    for flow in flows:
        uses_vars = any(step["type"] == "extract" for step in flow.steps)
        lines.append(f"test({json.dumps(flow.slug + ': ' + flow.name)}, async ({{ page, beacons, consoleErrors }}) => {{")
        if uses_vars:
            lines.append("  const vars: Record<string, string> = {};")
        lines.extend(f"  {_ts_step(step)}" for step in flow.steps)
        lines.append("  expect(consoleErrors).toEqual([]);")
        lines.append("});")
        lines.append("")
    return "\n".join(lines)


# --- the floor (plain Python Playwright) ----------------------------------------------------------------

_PY_ACTIONS = {"click": "click()", "hover": "hover()", "scroll": "scroll_into_view_if_needed()", "check": "check()"}
_PY_ELEMENT = {"selector_absent": "to_have_count(0)", "visible": "to_be_visible()", "checked": "to_be_checked()",
               "unchecked": "not_to_be_checked()", "disabled": "to_be_disabled()"}


def _py_step(step: Step) -> str:
    kind = step["type"]
    if kind == "goto":
        return f"page.goto({_py_value(step['url'])})"
    if kind == "act":
        loc = f"page.locator({step['selector']!r})"
        action = step["action"]
        if action in _PY_ACTIONS:
            return f"{loc}.{_PY_ACTIONS[action]}"
        method = {"fill": "fill", "press": "press", "select": "select_option"}[action]
        return f"{loc}.{method}({_py_value(step['value'])})"
    if kind == "wait":
        if "ms" in step:
            return f"page.wait_for_timeout({step['ms']})"
        return f"page.locator({step['for']!r}).first.wait_for()"
    if kind == "extract":
        return f"extracted[{step['into']!r}] = page.locator({step['selector']!r}).inner_text().strip()"
    expect_kind = step["kind"]
    if expect_kind == "url_contains":
        return f"expect(page).to_have_url(re.compile(re.escape({_py_value(step['value'])})))"
    if expect_kind == "url_matches":
        return f"expect(page).to_have_url(re.compile({step['value']!r}))"
    if expect_kind == "beacon":
        return f"expect_beacon(page, beacons, {step['vendor']!r}, {step['event']!r})"
    loc = f"page.locator({step.get('selector', 'body')!r})"
    if expect_kind == "text_contains":
        return f"expect({loc}).to_contain_text({_py_value(step['value'])}, ignore_case=True)"
    if expect_kind == "count":
        return f"expect({loc}).to_have_count({step['equals']})"
    if expect_kind == "attribute":
        return f"expect({loc}).to_have_attribute({step['name']!r}, re.compile(re.escape({_py_value(step['contains'])})))"
    return f"expect({loc}).{_PY_ELEMENT[expect_kind]}"


def py_module(flows: tuple[Flow, ...]) -> str:
    lines = [
        '"""The benchmark flows as plain Python Playwright (the floor). Generated by bench/make_corpus.py.',
        "",
        "Edit the FLOWS table there, not this file. Each function takes a fresh page, the GA4 hits its",
        "context captured so far, and the run's variables; it raises on the first failed check.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import re",
        "from typing import Callable, Mapping",
        "",
        "from playwright.sync_api import Page, expect",
        "",
        "Beacons = list[dict[str, str]]",
        "",
        "#: clicked away before any action when visible, on every page (floor.py: add_locator_handler), as",
        "#: flowwalk's dismiss_selectors (bench/flowwalk.yaml) and Playwright Test's interrupts.ts",
        f"DISMISS: tuple[str, ...] = {DISMISS!r}",
        "",
        "",
        "def expect_beacon(page: Page, beacons: Beacons, vendor: str, event: str, timeout_ms: float = 5_000) -> None:",
        '    """Wait until a captured hit of `vendor` names `event` (case-insensitive); route handlers run while waiting.',
        "",
        "    5 s, as Playwright's expect and flowwalk's expect_timeout_ms.",
        '    """',
        "    waited = 0.0",
        "    while not any(hit['vendor'] == vendor and hit.get('en', '').lower() == event.lower() for hit in beacons):",
        "        if waited >= timeout_ms:",
        "            raise AssertionError(f'no {vendor} {event!r} beacon within {timeout_ms:.0f} ms: {beacons}')",
        "        page.wait_for_timeout(50)",
        "        waited += 50",
        "",
    ]
    table = []
    for flow in flows:
        func = "flow_" + flow.slug.replace("-", "_")
        table.append(f"    ({flow.slug + ': ' + flow.name!r}, {func}),")
        lines.append("")
        lines.append(f"def {func}(page: Page, beacons: Beacons, run_vars: Mapping[str, str]) -> None:")
        if any(step["type"] == "extract" for step in flow.steps):
            lines.append("    extracted: dict[str, str] = {}")
        lines.extend(f"    {_py_step(step)}" for step in flow.steps)
        lines.append("")
    lines.append("")
    lines.append("#: (name, function) in corpus order; names match the flow specs' and the Playwright tests'")
    lines.append("FLOWS: list[tuple[str, Callable[[Page, Beacons, Mapping[str, str]], None]]] = [")
    lines.extend(table)
    lines.append("]")
    lines.append("")
    return "\n".join(lines)


# --- writing ----------------------------------------------------------------------------------------


def outputs() -> dict[Path, str]:
    files: dict[Path, str] = {}
    for flow in FLOWS:
        files[FLOWS_DIR / f"{flow.slug}.flow.yaml"] = spec_text(flow)
    families: dict[str, list[Flow]] = {}
    for flow in FLOWS:
        families.setdefault(flow.family, []).append(flow)
    for family, flows in families.items():
        files[PW_TESTS_DIR / f"{family}.spec.ts"] = ts_file(family, flows)
    files[FLOOR_MODULE] = py_module(FLOWS)
    for where in RULE_FILES:
        files[RULES_DIR / f"{where}.rules.yaml"] = rules_text(
            tuple(flow for flow in FLOWS if rule_file_of(flow) == where), where)
    files[FLOWWALK_CONFIG] = flowwalk_config_text()
    files[PW_INTERRUPTS] = ts_interrupts()
    failing = failing_flows()
    for flow in failing:
        files[FAILING_FLOWS_DIR / f"{flow.slug}.flow.yaml"] = spec_text(flow, failing=True)
    failing_families: dict[str, list[Flow]] = {}
    for flow in failing:
        failing_families.setdefault(flow.family, []).append(flow)
    for family, flows in failing_families.items():
        files[PW_FAILING_DIR / f"{family}.spec.ts"] = ts_file(family, flows, failing=True)
    return files


def _check_table() -> None:
    slugs = [flow.slug for flow in FLOWS]
    if len(set(slugs)) != len(slugs):
        raise SystemExit("make_corpus: duplicate flow slugs in FLOWS")
    for flow in FLOWS:
        for step in flow.steps:
            for value in (step.get("value"), step.get("url")):
                for kind, name in _parts(value or ""):
                    if kind == "var" and name not in RUN_VARIABLES and not any(
                            s["type"] == "extract" and s["into"] == name for s in flow.steps):
                        raise SystemExit(f"make_corpus: {flow.slug} uses {{{{{name}}}}} that nothing supplies")
    slugs_broken = [b.slug for b in BREAKS]
    if len(set(slugs_broken)) != len(slugs_broken):
        raise SystemExit("make_corpus: a flow is broken twice in BREAKS")
    for brk in BREAKS:
        flow = next((f for f in FLOWS if f.slug == brk.slug), None)
        if flow is None or brk.original not in flow.steps:
            raise SystemExit(f"make_corpus: BREAKS: {brk.slug} has no step {brk.original}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the committed files differ from the table")
    args = parser.parse_args(argv)
    _check_table()
    files = outputs()
    stale = [path for path, content in files.items() if not path.is_file() or path.read_text() != content]
    known = set(files)
    extra = [p for folder in (FLOWS_DIR, FAILING_FLOWS_DIR) if folder.is_dir()
             for p in folder.glob("*.flow.yaml") if p not in known]
    if args.check:
        for path in stale + extra:
            print(f"make_corpus: {path.relative_to(BENCH.parent)} is out of date", file=sys.stderr)
        return 1 if stale or extra else 0
    for path, content in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    for path in extra:
        path.unlink()
    print(f"make_corpus: {len(FLOWS)} flows -> {len(files)} files ({len(stale)} changed, {len(extra)} removed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
