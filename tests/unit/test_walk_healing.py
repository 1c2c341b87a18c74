"""Finding an element anew, judged from recorded page reads, without a browser.

`find` (heal/find.py) scores what `Reader.candidates` reports against a target and a
fingerprint, with or without a pinned selector, and keeps a selector only when `Reader.owns`
confirms it finds that element alone (tests/recorded_page.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from flowwalk.browser.errors import PageGone, PageUnreadable
from flowwalk.heal.find import Lookup, find

from recorded_page import RecordedReader


def button(key: int, name: str, *, visible: bool = True, **kw: Any) -> dict[str, Any]:
    """A button's record as `Page.candidates` returns it."""
    return {"key": str(key), "tag": "button", "role": "button", "name": name, "text": name, "css": f"#b{key}",
            "visible": visible, "enabled": True, **kw}


def test_a_target_with_no_pinned_selector_is_found_by_the_same_read_and_rule() -> None:
    reader = RecordedReader(candidate_records=[button(1, "Save"), button(2, "Cancel")], owned={("#b1", 1)})
    outcome = find(reader, Lookup(target="the Save button"))
    assert (outcome.selector, outcome.method, outcome.score) == ("#b1", "deterministic", 1.0)
    # one page read and one check of the winner's selector, as a heal
    assert [c[0] for c in reader.calls] == ["candidates", "owns"]


def test_two_elements_the_words_fit_alike_are_ambiguous() -> None:
    reader = RecordedReader(candidate_records=[button(1, "Save"), button(2, "Save")], owned={("#b1", 1), ("#b2", 2)})
    outcome = find(reader, Lookup(target="the Save button"))
    assert outcome.selector is None and outcome.ambiguous and outcome.reason.startswith("no clear winner")


def test_a_hidden_match_is_evidence_not_a_pick() -> None:
    reader = RecordedReader(candidate_records=[button(3, "Save", visible=False)], owned={("#b3", 3)})
    outcome = find(reader, Lookup(target="the Save button"))
    assert outcome.selector is None and outcome.reason == "no visible candidates (1 hidden)"
    assert not outcome.ambiguous


def test_a_closed_page_leaves_finding_for_the_caller_to_judge() -> None:
    with pytest.raises(PageGone):
        find(RecordedReader(candidate_records=PageGone("Target page, context or browser has been closed")),
             Lookup(target="the Save button"))
    navigating = RecordedReader(candidate_records=PageUnreadable("Execution context was destroyed",
                                                                 navigating=True))
    assert find(navigating, Lookup(target="the Save button")).reason.startswith("no candidates")


def fp(**kw: Any) -> dict[str, Any]:
    base = {"tag": "button", "id": "", "name": "", "role": "button", "aname": "", "testid": "", "classes": [],
            "text": "", "type": "", "href": "", "nth": 1, "ancestors": ["form#profile"], "context": ""}
    return {**base, **kw}


def record(key: int, css: str, fingerprint: dict[str, Any], *, visible: bool = True) -> dict[str, Any]:
    """A candidate record as `Page.candidates` returns it."""
    return {"key": str(key), "tag": fingerprint["tag"], "role": fingerprint["role"], "name": fingerprint["aname"],
            "text": fingerprint["text"], "id": fingerprint["id"], "css": css, "visible": visible, "enabled": True,
            "fp": fingerprint}


def test_a_fingerprint_heals_to_the_element_it_describes_and_nothing_else() -> None:
    save, cancel = fp(id="save-btn", aname="Save", text="Save"), fp(id="cancel", aname="Cancel", text="Cancel", nth=2)
    moved = fp(id="save-button", aname="Save", text="Save")
    reader = RecordedReader(candidate_records=[record(1, "#save-button", moved), record(2, "#cancel", cancel)],
                            owned={("#save-button", 1)})
    outcome = find(reader, Lookup(fingerprint=save, pinned="#save-btn"))
    assert (outcome.selector, outcome.method) == ("#save-button", "deterministic")
    assert [c["selector"] for c in outcome.candidates] == ["#save-button", "#cancel"]
    # one page read and one check of the winner's selector: the heal's round trips
    assert [c[0] for c in reader.calls] == ["candidates", "owns"]
    # a selector that no longer finds that element alone is never used
    reader.owned.clear()
    assert find(reader, Lookup(fingerprint=save, pinned="#save-btn")).selector is None


def test_a_target_heals_without_a_fingerprint_and_a_miss_says_what_each_lacked() -> None:
    save, cancel = fp(id="save-button", aname="Save", text="Save"), fp(id="cancel", aname="Cancel", text="Cancel")
    reader = RecordedReader(candidate_records=[record(1, "#save-button", save), record(2, "#cancel", cancel)],
                            owned={("#save-button", 1)})
    assert find(reader, Lookup(target="the Save button", pinned="#save-btn")).selector == "#save-button"
    missed = find(reader, Lookup(target="the Export button", pinned="#export"))
    assert missed.selector is None and not missed.ambiguous
    assert missed.missed.startswith('button "Save" #save-button 0.00 (lacked: the words \'export\')')


def test_a_hidden_lookalike_is_not_healed_to() -> None:
    save = fp(id="save-btn", aname="Save", text="Save")
    reader = RecordedReader(candidate_records=[record(1, "#x", save, visible=False)])
    outcome = find(reader, Lookup(fingerprint=save, pinned="#save-btn"))
    assert outcome.selector is None and outcome.reason == "no visible candidates (1 hidden)"


def test_a_positional_target_asks_for_positional_selectors_and_heals_to_one() -> None:
    """'the first book's checkbox': the page read is asked for positional selectors (the ordinal),
    and the heal acts on, and writes, the one free of the row's data."""
    def box(key: int, book: str, index: int) -> dict[str, Any]:
        return {"key": str(key), "tag": "input", "role": "checkbox", "type": "checkbox", "classes": ["action-select"],
                "name": f"Select this object for an action - {book}", "item": f"{book} Frank Herbert",
                "item_index": index, "item_count": 2, "near": ["action-checkbox", "", "result_list"],
                "around": ["Select book to change"],
                "css": f'input[aria-label="Select this object for an action - {book}"]',
                "css_position": f"#result_list tbody > tr:nth-of-type({index}) input.action-select", "order": index}
    positional = "#result_list tbody > tr:nth-of-type(1) input.action-select"
    reader = RecordedReader(candidate_records=[box(1, "Dune", 1), box(2, "Emma", 2)], owned={(positional, 1)})
    outcome = find(reader, Lookup(target="the first book's checkbox", action="check",
                                  pinned="#result_list tr:first-child input.select-row"))
    assert (outcome.selector, outcome.method) == (positional, "deterministic")
    assert reader.positions == [1] and ("owns", positional) in reader.calls
    # a target with no position asks for none, and keeps the unique selector
    reader = RecordedReader(candidate_records=[box(1, "Dune", 1)],
                            owned={('input[aria-label="Select this object for an action - Dune"]', 1)})
    outcome = find(reader, Lookup(target="the Dune checkbox", action="check", pinned="#x"))
    assert outcome.selector == 'input[aria-label="Select this object for an action - Dune"]'
    assert reader.positions == [None]


class _Fingerprints:
    def get(self, *_: Any, **__: Any) -> None:
        return None


class _Page:
    """A page where `#old` was renamed to `#new`: what each read asked for, in order."""

    def __init__(self) -> None:
        self.reads: list[str] = []

    def last_url(self) -> str:
        return "http://127.0.0.1:9/app/index.html#/active"

    def match(self, selector: str, scope: str | None = None, *, fingerprint: bool = False,
              gate: Any = ()) -> Any:
        from flowwalk.browser.records import Match

        self.reads.append(selector)
        return Match(used=selector, count=1 if selector.startswith("#new") else 0, tried=(selector,))


def _mender(heals: Any) -> tuple[Any, _Page]:
    from types import SimpleNamespace

    from flowwalk.errors import Location
    from flowwalk.walk.healing import Mender

    page = _Page()
    attempt = SimpleNamespace(page=page, run=SimpleNamespace(heals=heals, fingerprints=_Fingerprints()))
    step = SimpleNamespace(loc=Location("a.flow.yaml", 5, 3))
    return Mender(attempt, SimpleNamespace(scope=None), step, "#old li", "#old li",  # type: ignore[arg-type]
                  check=False, action="click"), page


def test_a_selector_the_run_already_mended_is_not_read_before_its_mended_one() -> None:
    from flowwalk.heal.cache import Accepted, HealMap
    from flowwalk.walk.waits import wait_for

    heals = HealMap()
    heals.put("http://127.0.0.1:9/app/index.html", "#old li", Accepted("#new li", {"#old": "#new"}))
    mend, page = _mender(heals)
    found = wait_for(mend.attempt, "#old li", None, 1000, visible=False, mend=mend)
    assert found is not None and found.used == "#new li" and page.reads == ["#new li"]
    assert mend.mended is not None and mend.mended.first and mend.mended.method == "run"
    # nothing known: no read is spent on the run's heals, the selector itself is read first
    mend, page = _mender(HealMap())
    assert mend.first() is None and page.reads == []
