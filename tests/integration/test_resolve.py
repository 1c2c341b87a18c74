"""Finding a target with no pinned selector: one parser, then one ranking over one page read.

Resolving a target with no selector is healing without a fingerprint (heal/find.py `find`): these
are the targets walk/resolve.py's own strategies were tested on
(tests/site/pages/browser/resolve.html), now read by heal/meaning.py and ranked by heal/decide.py.
"""

from __future__ import annotations

import pytest

from flowwalk.browser import PageSession
from flowwalk.browser.locate import locate
from flowwalk.heal.find import HealOutcome, Lookup, find
from flowwalk.heal.meaning import parse_target
from flowwalk.serve import StaticServer


@pytest.mark.parametrize(("text", "name", "roles"), [
    ("the sign-up button", ["sign", "up"], ["button"]),
    ("The Email field", ["email"], ["textbox", "searchbox", "combobox"]),
    ('the "Save draft" button', ["save", "draft"], ["button"]),
    ("'Sign up'", ["sign", "up"], []),
    ("Remember me checkbox", ["remember", "me"], ["checkbox"]),
    ("the Log in link", ["log", "in"], ["link"]),
    ("the country dropdown", ["country"], ["combobox"]),
    ("the terms radio button", ["term"], ["radio"]),
    ("the button", [], ["button"]),
    ("Submit", ["submit"], []),
    ("the toggle all checkbox", ["all"], ["checkbox"]),
])
def test_a_target_is_read_into_name_words_and_roles(text: str, name: list[str], roles: list[str]) -> None:
    want = parse_target(text)
    assert list(want.name_words) == name
    assert all(r in want.roles for r in roles) and bool(want.roles) == bool(roles)


@pytest.fixture()
def resolve_page(session: PageSession, site: StaticServer) -> PageSession:
    session.goto(f"{site.url}/browser/resolve.html", timeout_ms=10_000)
    return session


def picked(session: PageSession, outcome: HealOutcome) -> str | None:
    assert outcome.selector is not None, (outcome.reason, outcome.missed)
    found = locate(session.playwright_page, outcome.selector)   # the walker acts on the selector this way
    assert found.count == 1
    return found.locator.evaluate("(el) => el.id || el.getAttribute('name') || el.getAttribute('alt') "
                                  "|| el.getAttribute('data-testid') || el.innerText")


@pytest.mark.browser
@pytest.mark.parametrize(("target", "expected"), [
    ("the sign-up button", "signup-btn"),      # not "Sign up later": the exact name leads by the margin
    ("Sign Up", "signup-btn"),
    ("Email address", "email"),                # the label names the field
    ("the email field", "email"),
    ("Company name", "company"),               # the placeholder
    ("the terms checkbox", "terms"),           # inside its label
    ("Country", "country"),                    # aria-label
    ("the country dropdown", "country"),
    ("the Docs link", "docs-link"),
    ("the Docs button", "docs-button"),
    ("the Log in link", "Log in"),
    ("Open menu", "Open menu"),                # the hidden mobile copy is not a candidate
    ("help center", "?"),                      # a title
    ("the company logo", "Company logo"),      # an image's alt text
    ("promo banner", "promo-banner"),          # a test id
    ("Sign up later", "Sign up later"),        # disabled, and what the words say
])
def test_the_element_a_person_means_is_found(resolve_page: PageSession, target: str, expected: str) -> None:
    outcome = find(resolve_page.page, Lookup(target=target))
    assert outcome.method == "deterministic" and outcome.score >= 0.65
    assert picked(resolve_page, outcome) == expected
    assert outcome.candidates and outcome.candidates[0]["selector"] == outcome.selector
    assert outcome.candidates[0]["visible"] and "target" in outcome.candidates[0]["strategy"]


@pytest.mark.browser
@pytest.mark.parametrize(("target", "why"), [
    ("Docs", "no clear winner"),               # a link and a button say it alike
    ("the Choose plan button", "no clear winner"),   # two plans, two buttons
    ("Start trial", "no clear winner"),        # a call-to-action div and a paragraph say it alike
    ("the unicorn launcher", "no candidate reaches the threshold"),
    ("Hidden action", "no candidate reaches the threshold"),   # only a hidden button says it
])
def test_no_clear_winner_and_nothing_good_enough_are_refused(resolve_page: PageSession, target: str,
                                                             why: str) -> None:
    outcome = find(resolve_page.page, Lookup(target=target))
    assert outcome.selector is None and outcome.reason.startswith(why), outcome.reason
    assert outcome.ambiguous == (why == "no clear winner")
    assert 0 < len(outcome.candidates) <= 5
    scores = [c["score"] for c in outcome.candidates]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.browser
def test_a_hidden_element_is_never_picked(resolve_page: PageSession) -> None:
    outcome = find(resolve_page.page, Lookup(target="Hidden action"))
    assert outcome.selector is None
    assert "Hidden action" not in outcome.missed   # what is shown as the best are visible ones


@pytest.mark.browser
def test_scope_makes_an_ambiguous_target_unique(resolve_page: PageSession) -> None:
    outcome = find(resolve_page.page, Lookup(target="the Choose plan button", scope="#pro"))
    assert outcome.selector is not None, outcome.reason
    found = locate(resolve_page.playwright_page, outcome.selector, "#pro")   # the walker acts within the scope
    assert found.count == 1 and found.locator.evaluate("b => b.closest('section').id") == "pro"
    missing_scope = find(resolve_page.page, Lookup(target="Choose plan", scope="#enterprise"))
    assert missing_scope.selector is None and missing_scope.reason.startswith("no candidates")


@pytest.mark.browser
def test_finding_is_deterministic(resolve_page: PageSession) -> None:
    first = find(resolve_page.page, Lookup(target="the email field"))
    assert find(resolve_page.page, Lookup(target="the email field")) == first


@pytest.mark.browser
def test_the_sole_element_of_a_named_role(session: PageSession, site: StaticServer) -> None:
    session.goto(f"{site.url}/browser/checks.html", timeout_ms=10_000)
    only_link = find(session.page, Lookup(target="the link"))
    assert only_link.selector is not None and locate(session.playwright_page, only_link.selector).locator.get_attribute(
        "id") == "docs"
    many = find(session.page, Lookup(target="the button"))
    assert many.selector is None and many.ambiguous


@pytest.mark.browser
@pytest.mark.parametrize(("words", "found"), [
    (["company", "logo"], "img"),                      # an image named by its alt text
    (["help", "center"], "span"),                      # an element named by its title
    (["start", "trial"], "p"),                         # an element that only shows text (and no candidate holds it)
])
def test_the_page_read_has_what_a_person_names_on_an_element_without_a_role(
        resolve_page: PageSession, words: list[str], found: str) -> None:
    read = resolve_page.page.candidates(words)
    assert read is not None
    tags = {item["tag"] for item in read.items if set(words) <= set(str(item.get("text", "") + " " +
                                                                       item.get("title", "") + " " +
                                                                       item.get("alt", "")).lower().split())}
    assert found in tags, [(i["tag"], i.get("text"), i.get("title")) for i in read.items]
    # the label of a field and the text inside a candidate are that candidate's words, not candidates
    labels = resolve_page.page.candidates(["email", "address"])
    assert labels is not None and "label" not in {i["tag"] for i in labels.items}


@pytest.mark.browser
def test_a_candidate_read_within_a_scope_has_selectors_that_find_it_within_the_scope(
        resolve_page: PageSession) -> None:
    """Playwright's `scope >> selector` matches only what lies wholly inside the scope: `#pro >>
    #pro > button` finds nothing, so a selector read within a scope is the scope's own."""
    read = resolve_page.page.candidates(["choose", "plan"], scope="#pro", position=1)
    assert read is not None
    (button,) = [i for i in read.items if i["tag"] == "button"]
    for selector in (button["css"], button["css_position"]):
        found = locate(resolve_page.playwright_page, selector, "#pro")
        assert found.count == 1 and found.locator.evaluate("b => b.closest('section').id") == "pro", selector
    # without a scope, the selectors are the document's, as always
    whole = resolve_page.page.candidates(["choose", "plan"])
    assert whole is not None
    assert all(locate(resolve_page.playwright_page, i["css"]).count == 1 for i in whole.items if i["css"])
