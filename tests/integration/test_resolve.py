"""Target re-resolution: reading descriptions (pure), then picking elements on a real page."""

from __future__ import annotations

import pytest

from flowwalk.browser import PageSession
from flowwalk.browser.locate import locate
from flowwalk.serve import StaticServer
from flowwalk.walk.resolve import TargetResolution, describe, resolve_target


@pytest.mark.parametrize(("text", "name", "roles"), [
    ("the sign-up button", "sign-up", ("button",)),
    ("The Email field", "email", ("textbox", "searchbox", "combobox")),
    ('the "Save draft" button', "Save draft", ("button",)),
    ("'Sign up'", "Sign up", ()),
    ("Remember me checkbox", "remember me", ("checkbox",)),
    ("the Log in link", "log in", ("link",)),
    ("the country dropdown", "country", ("combobox",)),
    ("the terms radio button", "terms", ("radio",)),
    ("the user's profile link", "user's profile", ("link",)),
    ("the button", "", ("button",)),
    ("Submit", "submit", ()),
])
def test_describe(text: str, name: str, roles: tuple[str, ...]) -> None:
    desc = describe(text)
    assert desc.name == name
    assert desc.roles == roles


@pytest.fixture()
def resolve_page(session: PageSession, site: StaticServer) -> PageSession:
    session.goto(f"{site.url}/browser/resolve.html", timeout_ms=10_000)
    return session


def picked_id(session: PageSession, resolution: TargetResolution) -> str | None:
    assert resolution.selector is not None, resolution.reason
    found = locate(session.playwright_page, resolution.selector)   # the walker uses the selector this way
    assert found.count == 1
    return found.locator.get_attribute("id") or found.locator.get_attribute("name") or found.locator.inner_text()


@pytest.mark.browser
@pytest.mark.parametrize(("target", "expected", "strategy"), [
    ("the sign-up button", "signup-btn", "role"),
    ("Sign Up", "signup-btn", "role"),
    ("Email address", "email", "role"),           # the label gives the textbox its accessible name
    ("the email field", "email", "role_substring"),
    ("Company name", "company", "role"),          # placeholder as accessible name
    ("the terms checkbox", "terms", "role_substring"),
    ("Country", "country", "role"),
    ("the Docs link", "docs-link", "role"),
    ("the Docs button", "docs-button", "role"),
    ("Open menu", "Open menu", "role"),           # the hidden mobile copy is not a candidate
    ("help center", "?", "title"),
    ("the company logo", None, "alt"),
    ("promo banner", "Free for 30 days", "test_id"),
])
def test_a_unique_candidate_is_picked(resolve_page: PageSession, target: str, expected: str | None,
                                      strategy: str) -> None:
    resolution = resolve_target(resolve_page.page, target)
    assert resolution.selector is not None, (resolution.reason, resolution.candidates)
    assert resolution.candidates[0]["strategy"].split("+")[0] == strategy
    assert resolution.candidates[0]["count"] == 1 and resolution.candidates[0]["visible"]
    assert resolution.reason.startswith("unique ")
    if expected is not None:
        assert picked_id(resolve_page, resolution) == expected


@pytest.mark.browser
def test_equal_scores_on_different_elements_are_ambiguous(resolve_page: PageSession) -> None:
    resolution = resolve_target(resolve_page.page, "Docs")
    assert resolution.selector is None
    assert resolution.reason == "ambiguous: 2 candidates with the same score (100)"
    top = resolution.candidates[:2]
    assert {c["role"] for c in top} == {"link", "button"}
    assert all(c["score"] == 100 and c["count"] == 1 for c in top)


@pytest.mark.browser
def test_a_best_candidate_matching_two_elements_is_ambiguous(resolve_page: PageSession) -> None:
    resolution = resolve_target(resolve_page.page, "the Choose plan button")
    assert resolution.selector is None
    assert resolution.reason.startswith("ambiguous: 2 elements match the best candidate")
    assert resolution.candidates[0]["count"] == 2


@pytest.mark.browser
def test_scope_makes_an_ambiguous_target_unique(resolve_page: PageSession) -> None:
    resolution = resolve_target(resolve_page.page, "the Choose plan button", scope="#pro")
    assert resolution.selector is not None and resolution.selector.startswith("#pro >> ")
    found = locate(resolve_page.playwright_page, resolution.selector)
    assert found.locator.evaluate("b => b.closest('section').id") == "pro"
    missing_scope = resolve_target(resolve_page.page, "Choose plan", scope="#enterprise")
    assert missing_scope.selector is None and "matches nothing" in missing_scope.reason


@pytest.mark.browser
def test_nothing_to_find(resolve_page: PageSession) -> None:
    resolution = resolve_target(resolve_page.page, "the unicorn launcher")
    assert resolution == TargetResolution(None, (), "no candidates")


@pytest.mark.browser
def test_hidden_elements_are_never_picked(resolve_page: PageSession) -> None:
    resolution = resolve_target(resolve_page.page, "Hidden action")
    assert resolution.selector is None
    assert resolution.reason == "no visible candidates (1 hidden)"
    assert resolution.candidates[0]["visible"] is False


@pytest.mark.browser
def test_disabled_elements_rank_below_enabled_ones(resolve_page: PageSession) -> None:
    later = resolve_target(resolve_page.page, "Sign up later")
    assert later.selector is not None
    assert later.candidates[0]["enabled"] is False
    assert later.candidates[0]["score"] == 95


@pytest.mark.browser
def test_candidates_are_kept_as_evidence_and_bounded(resolve_page: PageSession) -> None:
    resolution = resolve_target(resolve_page.page, "Start trial")   # a div and a paragraph, same text
    assert resolution.selector is None
    assert resolution.reason.startswith("ambiguous")
    assert 1 <= len(resolution.candidates) <= 10
    for candidate in resolution.candidates:
        assert set(candidate) >= {"selector", "strategy", "score", "count", "visible"}
    scores = [c["score"] for c in resolution.candidates]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.browser
def test_resolution_is_deterministic(resolve_page: PageSession) -> None:
    first = resolve_target(resolve_page.page, "the email field")
    assert resolve_target(resolve_page.page, "the email field") == first


@pytest.mark.browser
def test_the_sole_element_of_a_hinted_role(session: PageSession, site: StaticServer) -> None:
    session.goto(f"{site.url}/browser/checks.html", timeout_ms=10_000)
    only_link = resolve_target(session.page, "the link")
    assert only_link.selector == "internal:role=link"
    many = resolve_target(session.page, "the button")
    assert many.selector is None and many.reason.startswith("ambiguous")
