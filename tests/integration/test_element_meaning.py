"""One meaning of an element in the page (browser/js/prelude.js): the role, accessible name, label
and test id that discover's survey, healing's candidates and fingerprints all read, and the run's
`test_id_attribute` setting reaching every page of its contexts."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

import pytest

from flowwalk.browser import PageSession
from flowwalk.browser.launch import Browser
from flowwalk.serve import StaticServer
from flowwalk.settings import Settings

_FORM = """<!doctype html><body>
<nav aria-label="Main"><a href="/home">Home</a><a href="/find"><img src="data:," alt="Search"></a></nav>
<main><h2>Sign in</h2>
<form aria-label="Sign in">
  <label>Email <input id="email" type="email" placeholder="you@example.com"></label>
  <label for="pw">Password</label><input id="pw" type="password">
  <input id="age" type="number" title="Your age" placeholder="42">
  <input id="remember" type="checkbox" aria-labelledby="remember-text"><span id="remember-text">Keep me in</span>
  <button id="go" type="submit" title="Sign in now" data-qa="sign-in" data-cy="go">Go</button>
</form>
<table><tr><th>Name</th></tr><tr><td>Ada</td></tr></table>
</main></body>"""


def _roles_and_names(session: PageSession) -> list[tuple[str, str, str]]:
    read = session.page.candidates([], limit=50)
    assert read is not None
    return [(r["id"], r["role"], r["name"]) for r in read.items]


@pytest.mark.browser
def test_the_healers_read_has_the_role_and_accessible_name_playwright_would_give(session: PageSession,
                                                                                site: StaticServer) -> None:
    session.goto(f"{site.url}/", timeout_ms=10_000)
    session.playwright_page.set_content(_FORM)
    found = _roles_and_names(session)
    by_id = {key: (role, name) for key, role, name in found if key}
    assert by_id["email"] == ("textbox", "Email")          # its wrapping label, not its placeholder
    assert by_id["pw"] == ("textbox", "Password")          # its label for=
    assert by_id["age"] == ("spinbutton", "Your age")      # a number field: its title, no placeholder
    assert by_id["remember"] == ("checkbox", "Keep me in")  # aria-labelledby first
    assert by_id["go"] == ("button", "Go")                 # its content before its title
    assert {("", "link", "Home"), ("", "link", "Search"), ("", "img", "Search"), ("", "row", "Ada")} <= set(found)
    # Playwright agrees on each
    page = session.playwright_page
    for key, (role, name) in by_id.items():
        assert page.get_by_role(role, name=name, exact=True).evaluate("e => e.id") == key  # type: ignore[arg-type]


@pytest.fixture()
def e2e_session(playwright_instance, flowwalk_settings: Settings,  # type: ignore[no-untyped-def]
                site: StaticServer) -> Iterator[PageSession]:
    """A session of a run whose elements keep their test ids in `data-cy`, then `data-e2e`."""
    browser = Browser.launch(replace(flowwalk_settings, test_id_attribute=("data-cy", "data-e2e")),
                             playwright=playwright_instance)
    try:
        session = browser.new_session(entry_url=f"{site.url}/", allowed_hosts=())
        yield session
        session.close()
    finally:
        browser.close()


@pytest.mark.browser
def test_the_runs_test_id_attributes_are_the_ones_every_read_takes(session: PageSession, e2e_session: PageSession,
                                                                   site: StaticServer) -> None:
    for each in (session, e2e_session):
        each.goto(f"{site.url}/", timeout_ms=10_000)
        each.playwright_page.set_content(_FORM + '<p data-e2e="note">a note</p>')
    default = next(r for r in session.page.candidates(["go"]).items if r["id"] == "go")  # type: ignore[union-attr]
    told = next(r for r in e2e_session.page.candidates(["go"]).items if r["id"] == "go")  # type: ignore[union-attr]
    assert (default["testid"], told["testid"]) == ("sign-in", "go")     # data-qa comes before data-cy by default
    fingerprint = e2e_session.page.match("#go", fingerprint=True).fingerprint
    assert fingerprint is not None and fingerprint["testid"] == "go"
    # discover's survey writes the test id it finds first
    button = next(b for b in e2e_session.page.survey().buttons if b.id == "go")
    assert button.candidates[0].selector == '[data-cy="go"]'
    button = next(b for b in session.page.survey().buttons if b.id == "go")
    assert button.candidates[0].selector == '[data-qa="sign-in"]'
