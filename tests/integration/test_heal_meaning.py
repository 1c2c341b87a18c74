"""Healing targets written the way people write them, on realistic pages: a Django-admin-shaped
index and change list (tests/site/pages/heal/admin/) and the real TodoMVC Backbone app
(`scripts/fetch_thirdparty.sh`, served from .cache/thirdparty).

Each variant breaks one pinned selector and keeps the step's `target`, as an outside check did:
POSITIVE variants must heal to the element the target means (a JS predicate over `el`), NEGATIVE
ones must not heal at all (what the target names is not on the page). FINGERPRINTED variants
take the pinned selector's fingerprint on the page it was written for, then heal on a page where
the element was renamed or moved. `test_meaning_figures` prints the figures docs/healing.md
reports. The model half runs against tests/fake_model.py: always right, always wrong, off-list.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest

from fake_model import FakeModel, Reply
from flowwalk.agent import Agent, LLMConfig
from flowwalk.browser import PageSession
from flowwalk.browser.locate import locate
from flowwalk.heal.fingerprint import bound
from flowwalk.heal.meaning import parse_target
from flowwalk.heal.score import MARGIN
from flowwalk.serve import StaticServer
from flowwalk.heal.find import Asking, HealOutcome, Lookup, find, judge, read_candidates

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
TODOMVC = ROOT / ".cache" / "thirdparty" / "todomvc" / "package" / "examples" / "backbone"
INDEX, CHANGES = "admin/index.html", "admin/changelist.html"
TODO = "todomvc"
FIRST_TODO = "document.querySelector('#todo-list li')"

#: name -> (page, broken pinned selector, target, action, the element it means: JS over `el`)
POSITIVE: dict[str, tuple[str, str, str, str, str]] = {
    "books-link": (INDEX, "tr.model-books > th > a", "Books link in the Catalog module", "click",
                   "el.dataset.act === 'Books'"),
    "add-author": (INDEX, "tr.model-authors a.add", "Add link for Authors", "click",
                   "el.dataset.act === 'Add author'"),
    "log-out": (INDEX, "#logout-form input[type=submit]", "Log out button", "click",
                "el.dataset.act === 'Logged out'"),
    "search-box": (CHANGES, "#searchbar-input", "changelist search box", "fill", "el.id === 'searchbar'"),
    "search-button": (CHANGES, "#changelist-search button", "Search button", "click",
                      "el.dataset.act === 'Searched'"),
    "action-dropdown": (CHANGES, "select[name=actions]", "Action dropdown", "select", "el.name === 'action'"),
    "available-filter": (CHANGES, "#changelist-filter a[href='?status=free']", "Available filter", "click",
                         "el.dataset.act === 'Only available'"),
    "second-book": (CHANGES, "#result_list tbody tr:nth-child(2) input.select", "checkbox of the second book",
                    "check", "el.value === '2'"),
    "active-filter": (TODO, "#filters a[href='#/actives']", "Active filter", "click",
                      "el.getAttribute('href') === '#/active'"),
    "first-todo-row": (TODO, "#todo-list > li.item:first-child", "first todo row", "hover",
                       f"el === {FIRST_TODO}"),
    "delete-first-todo": (TODO, "#todo-list li:first-child .remove", "delete (x) button of the first todo", "click",
                          f"el.classList.contains('destroy') && el.closest('li') === {FIRST_TODO}"),
    "new-todo": (TODO, "#new-todo-input", "new todo field", "fill", "el.id === 'new-todo'"),
}

#: name -> (page, broken pinned selector, target, action): nothing on the page is what the target means
NEGATIVE: dict[str, tuple[str, str, str, str]] = {
    "publishers-link": (INDEX, "tr.model-publisher th a", "Publishers link in the Catalog module", "click"),
    "loans-in-catalog": (INDEX, "#catalog-loans", "Loans link in the Catalog module", "click"),
    "export-button": (CHANGES, "#export", "Export button", "click"),
    "ninth-book": (CHANGES, "#result_list tr:nth-child(9) input", "checkbox of the ninth book", "check"),
    "archive-first-todo": (TODO, "#todo-list li:first-child .archive", "Archive button of the first todo", "click"),
    "delete-fourth-todo": (TODO, "#todo-list li:nth-child(4) .destroy-btn", "delete (x) button of the fourth todo",
                           "click"),
}

#: name -> (page written for, page now, pinned selector that works on the first, target, the element: JS)
FINGERPRINTED: dict[str, tuple[str, str, str, str, str]] = {
    "books-moved": (INDEX, "admin/index-v2.html", "tr.model-book th a", "Books link in the Catalog module",
                      "el.dataset.act === 'Books'"),
    "logout-moved": (INDEX, "admin/index-v2.html", "#logout-form button", "Log out button",
                     "el.dataset.act === 'Logged out'"),
    "search-renamed": (CHANGES, "admin/changelist-v2.html", "#searchbar", "changelist search box",
                       "el.id === 'admin-search'"),
    "go-renamed": (CHANGES, "admin/changelist-v2.html", ".actions button.button", "Go button of the actions bar",
                   "el.dataset.act === 'Ran action'"),
}

TODOS = ("Buy milk", "Write report", "Call mom")


@pytest.fixture(scope="module")
def todomvc() -> Iterator[StaticServer]:
    if not (TODOMVC / "index.html").is_file():
        pytest.skip("TodoMVC is not fetched: run scripts/fetch_thirdparty.sh (scripts/install.sh --with-tests does)")
    with StaticServer(TODOMVC) as server:
        yield server


def open_page(session: PageSession, site: StaticServer, todomvc: StaticServer, page: str, *,
              hover_first: bool = False) -> None:
    if page == TODO:
        session.goto(f"{todomvc.url}/index.html", timeout_ms=10_000)
        session.playwright_page.evaluate("() => localStorage.clear()")
        session.goto(f"{todomvc.url}/index.html", timeout_ms=10_000)
        for title in TODOS:
            session.playwright_page.fill("#new-todo", title)
            session.playwright_page.press("#new-todo", "Enter")
        if hover_first:
            # the delete button shows on hover, as a person's mouse over the row shows it
            session.playwright_page.hover("#todo-list li >> nth=0")
    else:
        session.goto(f"{site.url}/heal/{page}", timeout_ms=10_000)


def is_it(session: PageSession, outcome: HealOutcome, predicate: str) -> bool | None:
    if not outcome.selector:
        return None
    found = locate(session.playwright_page, outcome.selector)
    assert found.count == 1, outcome
    return bool(found.locator.evaluate(f"(el) => {predicate}"))


def ranked_for(session: PageSession, lookup: Lookup) -> tuple[Any, ...]:
    return judge(lookup, read_candidates(session.page, lookup)).ranked


def heal_positive(session: PageSession, site: StaticServer, todomvc: StaticServer, name: str,
                  agent: Agent | None = None) -> tuple[HealOutcome, bool | None]:
    page, pinned, target, action, predicate = POSITIVE[name]
    open_page(session, site, todomvc, page, hover_first=name == "delete-first-todo")
    assert locate(session.playwright_page, pinned).count == 0, f"{pinned} still matches"
    outcome = find(session.page, Lookup(target=target, action=action, pinned=pinned),
                   asking=Asking(agent) if agent else None)
    return outcome, is_it(session, outcome, predicate)


def heal_negative(session: PageSession, site: StaticServer, todomvc: StaticServer, name: str,
                  agent: Agent | None = None) -> HealOutcome:
    page, pinned, target, action = NEGATIVE[name]
    open_page(session, site, todomvc, page, hover_first=True)
    assert locate(session.playwright_page, pinned).count == 0, f"{pinned} still matches"
    return find(session.page, Lookup(target=target, action=action, pinned=pinned),
                asking=Asking(agent) if agent else None)


@pytest.mark.parametrize("name", list(POSITIVE))
def test_a_target_as_people_write_it_heals_without_an_earlier_report(session: PageSession, site: StaticServer,
                                                                     todomvc: StaticServer, name: str) -> None:
    outcome, right = heal_positive(session, site, todomvc, name)
    assert outcome.selector is not None, (outcome.reason, outcome.missed)
    assert right, f"false heal: {outcome}"
    assert outcome.method == "deterministic"


@pytest.mark.parametrize("name", list(POSITIVE))
def test_the_same_target_with_no_pinned_selector_finds_the_same_element(session: PageSession, site: StaticServer,
                                                                         todomvc: StaticServer, name: str) -> None:
    """One meaning of a target: what heals a broken selector is what a step with the target alone
    finds (walk/resolve.py, the ranking such steps had, found none of these but `Log out button`,
    `Search button` and `Action dropdown`)."""
    page, _, target, action, predicate = POSITIVE[name]
    open_page(session, site, todomvc, page, hover_first=name == "delete-first-todo")
    outcome = find(session.page, Lookup(target=target, action=action))
    assert outcome.selector is not None, (outcome.reason, outcome.missed)
    assert is_it(session, outcome, predicate), outcome


@pytest.mark.parametrize("name", list(NEGATIVE))
def test_what_the_page_does_not_have_is_never_healed_to(session: PageSession, site: StaticServer,
                                                        todomvc: StaticServer, name: str) -> None:
    outcome = heal_negative(session, site, todomvc, name)
    assert outcome.selector is None, f"healed where it must not: {outcome}"
    # the miss names the three best candidates, their scores and what each lacked
    assert outcome.missed.count("lacked") >= 1 and re.search(r"\d\.\d\d", outcome.missed), outcome.missed


@pytest.mark.parametrize("name", list(FINGERPRINTED))
def test_a_renamed_or_moved_element_heals_from_its_fingerprint(session: PageSession, site: StaticServer,
                                                               name: str) -> None:
    before, after, pinned, target, predicate = FINGERPRINTED[name]
    session.goto(f"{site.url}/heal/{before}", timeout_ms=10_000)
    fp = bound(session.page.match(pinned, fingerprint=True).fingerprint)
    assert fp is not None
    session.goto(f"{site.url}/heal/{after}", timeout_ms=10_000)
    assert locate(session.playwright_page, pinned).count == 0
    outcome = find(session.page, Lookup(target=target, fingerprint=fp, pinned=pinned))
    assert outcome.selector is not None, (outcome.reason, outcome.missed)
    assert is_it(session, outcome, predicate), outcome


def test_a_miss_says_what_each_candidate_lacked(session: PageSession, site: StaticServer,
                                                todomvc: StaticServer) -> None:
    outcome = heal_negative(session, site, todomvc, "loans-in-catalog")
    assert outcome.selector is None
    assert 'link "Loans"' in outcome.missed and "the context 'catalog'" in outcome.missed, outcome.missed
    assert outcome.candidates[0]["lacked"] and "score" in outcome.candidates[0]


def test_a_destructive_control_is_healed_to_only_when_the_target_names_that_action(
        session: PageSession, site: StaticServer, todomvc: StaticServer) -> None:
    open_page(session, site, todomvc, TODO, hover_first=True)
    ranked = ranked_for(session, Lookup(target="button of the first todo"))
    destroy = [r for r in ranked if "destroy" in r.element.classes]
    assert destroy and all(r.barred and "destructive" in r.barred for r in destroy)
    ranked = ranked_for(session, Lookup(target="remove button of the first todo"))
    assert all(r.barred is None for r in ranked if "destroy" in r.element.classes)


# --- a position, not the row's data -------------------------------------------------------------

#: a new book becomes the first row, as a list ordered newest first shows one added after the heal
NEW_FIRST_BOOK = """() => {
  const body = document.querySelector('#result_list tbody');
  const row = body.rows[0].cloneNode(true);
  const box = row.querySelector('input');
  box.value = '6'; box.checked = false;
  box.setAttribute('aria-label', 'Select this object for an action - Beloved');
  row.querySelector('th a').textContent = 'Beloved';
  row.querySelector('.field-author').textContent = 'Toni Morrison';
  body.prepend(row);
}"""


@pytest.mark.parametrize("name", ["second-book", "first-todo-row", "delete-first-todo"])
def test_a_positional_target_heals_to_a_selector_free_of_the_rows_data(session: PageSession, site: StaticServer,
                                                                      todomvc: StaticServer, name: str) -> None:
    """'checkbox of the second book' is the second row's checkbox whatever book is second: the
    selector written holds the row's position, not its book (Django admin's checkbox is unique
    by an aria-label that names the book)."""
    outcome, right = heal_positive(session, site, todomvc, name)
    assert outcome.selector is not None and right, (outcome.reason, outcome.missed)
    shown = "Emma Jane Austen" if name == "second-book" else TODOS[0]
    assert not any(w.lower() in outcome.selector.lower() for w in shown.split()), outcome.selector
    assert re.search(r":(first|nth)-of-type", outcome.selector), outcome.selector


def test_a_healed_positional_selector_still_picks_the_position_after_the_data_changes(
        session: PageSession, site: StaticServer, todomvc: StaticServer) -> None:
    outcome, right = heal_positive(session, site, todomvc, "second-book")
    assert outcome.selector is not None and right, (outcome.reason, outcome.missed)
    session.playwright_page.evaluate(NEW_FIRST_BOOK)
    # the second row is Dune's now: the healed selector picks its checkbox, not Emma's
    assert is_it(session, outcome, "el.value === '1' && el.closest('tr') === "
                                   "document.querySelectorAll('#result_list tbody tr')[1]"), outcome.selector


def test_the_last_row_is_counted_from_the_end(session: PageSession, site: StaticServer,
                                              todomvc: StaticServer) -> None:
    open_page(session, site, todomvc, CHANGES)
    outcome = find(session.page, Lookup(target="checkbox of the last book", action="check",
                                          pinned="#result_list tr:last-child input.select"))
    assert outcome.selector is not None and ":last-of-type" in outcome.selector, (outcome.reason, outcome.missed)
    session.playwright_page.evaluate("() => document.querySelector('#result_list tbody').append("
                          "document.querySelector('#result_list tbody tr').cloneNode(true))")
    last = "document.querySelector('#result_list tbody tr:last-child input')"
    assert is_it(session, outcome, f"el === {last}"), outcome.selector


# --- the model ---------------------------------------------------------------------------------

def _items(body: dict[str, Any]) -> list[tuple[int, str]]:
    user = body["messages"][1]["content"]
    return [(int(n), line) for n, line in re.findall(r"^\[(\d+)\] (.*)$", user, re.M)]


def _agent(fake: FakeModel) -> Agent:
    return Agent(LLMConfig(base_url=fake.base_url, model="fake-1", timeout_s=5, max_calls=100,
                             max_calls_per_step=1))


@pytest.fixture()
def fake() -> Iterator[FakeModel]:
    with FakeModel() as server:
        yield server


#: how the always-right fake recognises the right item in the list it is shown
RIGHT_ITEM = {
    "books-link": 'link "Books"', "add-author": '(item 1 of 3: "Authors', "log-out": 'button "Log out"',
    "search-box": "#searchbar", "search-button": 'button "Search"', "action-dropdown": "name=action",
    "available-filter": 'link "Available"', "second-book": '"Select this object for an action - Emma"',
    "active-filter": 'link "Active"', "first-todo-row": 'listitem "Buy milk',
    "delete-first-todo": '.destroy', "new-todo": "#new-todo",
}


@pytest.mark.parametrize("name", list(POSITIVE))
def test_a_model_that_always_picks_right_heals_every_variant(session: PageSession, site: StaticServer,
                                                             todomvc: StaticServer, fake: FakeModel,
                                                             name: str) -> None:
    needle = RIGHT_ITEM[name]

    def right(body: dict[str, Any]) -> Reply:
        hits = [n for n, line in _items(body) if needle in line]
        return Reply({"candidate": hits[0] if hits else "none", "reason": "that one"})

    fake.default = right
    outcome, ok = heal_positive(session, site, todomvc, name, agent=_agent(fake))
    assert outcome.selector is not None and ok, (outcome.reason, outcome.missed)


@pytest.mark.parametrize("mode", ["wrong", "off-list"])
@pytest.mark.parametrize("name", list(NEGATIVE))
def test_a_wrong_or_off_list_model_never_passes_a_negative(session: PageSession, site: StaticServer,
                                                           todomvc: StaticServer, fake: FakeModel,
                                                           name: str, mode: str) -> None:
    shown: list[list[tuple[int, str]]] = []

    def answer(body: dict[str, Any]) -> Reply:
        items = _items(body)
        shown.append(items)
        if mode == "wrong":
            return Reply({"candidate": items[-1][0] if items else "none"})
        return Reply({"candidate": len(items) + 7, "selector": "#delete-account"})

    fake.default = answer
    outcome = heal_negative(session, site, todomvc, name, agent=_agent(fake))
    if mode == "off-list":
        assert outcome.selector is None and outcome.model_error is not None
        return
    if outcome.selector is not None:
        # the model's pick: always one of the listed candidates, never a destructive control the
        # target does not name; the step's next check would then fail HEAL_CONTRADICTED
        assert outcome.method == "model"
        listed = [line for _, line in shown[0]]
        picked = outcome.reason.split("the model picked ", 1)[1].rsplit(" (candidate ", 1)[0]
        assert picked in listed
        want = parse_target(NEGATIVE[name][2])
        assert not ("destroy" in picked and not want.names_action)


def test_meaning_figures(session: PageSession, site: StaticServer, todomvc: StaticServer,
                         capsys: pytest.CaptureFixture[str]) -> None:
    """Healed / false heals over the corpus, target only; printed for docs/healing.md."""
    healed = false = 0
    lines = []
    for name in POSITIVE:
        outcome, right = heal_positive(session, site, todomvc, name)
        healed += bool(right)
        false += right is False
        lines.append(f"  {name}: {'healed' if right else 'MISSED' if right is None else 'FALSE'} "
                     f"{outcome.score:.2f} {outcome.reason if not right else ''}")
    refused = 0
    for name in NEGATIVE:
        outcome = heal_negative(session, site, todomvc, name)
        refused += outcome.selector is None
        false += outcome.selector is not None
        lines.append(f"  {name}: {'refused' if outcome.selector is None else 'FALSE PASS'} ({outcome.missed[:160]})")
    with capsys.disabled():
        print(f"\ntarget only: healed {healed}/{len(POSITIVE)}, refused {refused}/{len(NEGATIVE)}, "
              f"false heals {false}\n" + "\n".join(lines))
    assert false == 0


def test_same_origin_frames_are_read_and_their_elements_named_never_healed_to(session: PageSession,
                                                                             site: StaticServer) -> None:
    session.goto(f"{site.url}/hostile/frames.html", timeout_ms=10_000)
    session.playwright_page.frame_locator("#pay-frame").locator("#card").wait_for(timeout=5000)
    ranked = ranked_for(session, Lookup(target="the card number field", action="fill"))
    card = ranked[0]
    assert card.element.frame == 1 and card.element.label == "Card number" and card.score == 1.0
    assert card.barred is not None and "acts do not cross into frames" in card.barred
    outcome = find(session.page, Lookup(target="the card number field", action="fill", pinned="#card-number"))
    assert outcome.selector is None and "frame" in outcome.reason


def test_a_candidate_that_cannot_take_the_action_is_no_rival_to_one_that_can(session: PageSession,
                                                                             site: StaticServer) -> None:
    # Radicale's login: the field's placeholder says "Username", the validator's span beside it
    # says "Username is empty" and scores close to it, but a span cannot be filled
    session.goto(f"{site.url}/heal/login-error.html", timeout_ms=10_000)
    lookup = Lookup(target="Username", action="fill", pinned="#loginscene input[data-name=user]")
    ranked = [r for r in ranked_for(session, lookup) if r.element.visible]
    field, span = ranked[0], next(r for r in ranked if r.element.tag == "span")
    assert field.element.tag == "input" and field.score - span.score < MARGIN, ranked[:3]
    assert span.barred == "cannot take 'fill'"
    outcome = find(session.page, lookup)
    assert outcome.selector is not None, outcome.reason
    assert session.playwright_page.locator(outcome.selector).get_attribute("data-name") == "login"
