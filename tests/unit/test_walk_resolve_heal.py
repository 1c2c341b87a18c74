"""Target re-resolution and healing judged from recorded page reads, without a browser.

resolve.py ranks what `Reader.inspect` reports for each strategy's query; healer.py scores what
`Reader.candidates` reports against a target and a fingerprint and keeps a selector only when
`Reader.owns` confirms it finds that element alone (tests/recorded_page.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from flowwalk.browser.errors import PageGone, PageUnreadable
from flowwalk.browser.records import Inspection
from flowwalk.walk.healer import heal_selector
from flowwalk.walk.resolve import resolve_target

from recorded_page import RecordedReader, items


def answering(**by_fragment: Inspection) -> Any:
    """An inspect handler: the first fragment found in the query's selector picks the answer."""
    def inspect(selector: str) -> Inspection | None:
        for fragment, answer in by_fragment.items():
            if fragment.replace("_", "=") in selector:
                return answer
        return None
    return inspect


def test_a_unique_visible_match_of_the_hinted_role_is_picked() -> None:
    reader = RecordedReader(inspect_with=answering(role_button=Inspection(1, items({"id": 7, "role": "button"}))))
    resolution = resolve_target(reader, "the Save button")
    assert resolution.selector is not None and resolution.selector.startswith("internal:role=button[name=")
    assert resolution.reason.startswith("unique role match for 'the Save button'")
    # a clear winner skips every strategy that could not reach its score
    assert len(reader.calls) < 10


def test_two_elements_with_the_same_score_are_ambiguous() -> None:
    reader = RecordedReader(inspect_with=answering(
        role_button=Inspection(2, items({"id": 1, "role": "button"}, {"id": 2, "role": "button"}))))
    resolution = resolve_target(reader, "the Save button")
    assert resolution.selector is None and resolution.reason.startswith("ambiguous: 2 elements match")


def test_a_hidden_match_is_evidence_not_a_pick() -> None:
    reader = RecordedReader(inspect_with=answering(
        role_button=Inspection(1, items({"id": 3, "role": "button", "visible": False}))))
    resolution = resolve_target(reader, "the Save button")
    assert resolution.selector is None and resolution.reason == "no visible candidates (1 hidden)"
    assert resolution.candidates[0]["visible"] is False


def test_a_closed_page_leaves_resolution_for_the_caller_to_judge() -> None:
    def closed(selector: str) -> Inspection:
        raise PageGone("Target page, context or browser has been closed")
    with pytest.raises(PageGone):
        resolve_target(RecordedReader(inspect_with=closed), "the Save button")

    def navigating(selector: str) -> Inspection:
        raise PageUnreadable("Execution context was destroyed", navigating=True)
    assert resolve_target(RecordedReader(inspect_with=navigating), "the Save button").reason == "no candidates"


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
    outcome = heal_selector(reader, pinned="#save-btn", target=None, fingerprint=save)
    assert (outcome.selector, outcome.method) == ("#save-button", "deterministic")
    assert [c["selector"] for c in outcome.candidates] == ["#save-button", "#cancel"]
    # one page read and one check of the winner's selector: the heal's round trips
    assert [c[0] for c in reader.calls] == ["candidates", "owns"]
    # a selector that no longer finds that element alone is never used
    reader.owned.clear()
    assert heal_selector(reader, pinned="#save-btn", target=None, fingerprint=save).selector is None


def test_a_target_heals_without_a_fingerprint_and_a_miss_says_what_each_lacked() -> None:
    save, cancel = fp(id="save-button", aname="Save", text="Save"), fp(id="cancel", aname="Cancel", text="Cancel")
    reader = RecordedReader(candidate_records=[record(1, "#save-button", save), record(2, "#cancel", cancel)],
                            owned={("#save-button", 1)})
    assert heal_selector(reader, pinned="#save-btn", target="the Save button", fingerprint=None).selector \
        == "#save-button"
    missed = heal_selector(reader, pinned="#export", target="the Export button", fingerprint=None)
    assert missed.selector is None and not missed.ambiguous
    assert missed.missed.startswith('button "Save" #save-button 0.00 (lacked: the words \'export\')')


def test_a_hidden_lookalike_is_not_healed_to() -> None:
    save = fp(id="save-btn", aname="Save", text="Save")
    reader = RecordedReader(candidate_records=[record(1, "#x", save, visible=False)])
    outcome = heal_selector(reader, pinned="#save-btn", target=None, fingerprint=save)
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
    outcome = heal_selector(reader, pinned="#result_list tr:first-child input.select-row",
                            target="the first book's checkbox", fingerprint=None, action="check")
    assert (outcome.selector, outcome.method) == (positional, "deterministic")
    assert reader.positions == [1] and ("owns", positional) in reader.calls
    # a target with no position asks for none, and keeps the unique selector
    reader = RecordedReader(candidate_records=[box(1, "Dune", 1)],
                            owned={('input[aria-label="Select this object for an action - Dune"]', 1)})
    outcome = heal_selector(reader, pinned="#x", target="the Dune checkbox", fingerprint=None, action="check")
    assert outcome.selector == 'input[aria-label="Select this object for an action - Dune"]'
    assert reader.positions == [None]
