"""Stabilized checks judged from recorded page reads, without a browser (tests/recorded_page.py).

What a check reads goes through the page API (browser/page.py); what it makes of the reads is walk/checks.py's:
the row of KINDS for each expect kind, the streak of fresh reads, the final runtime code, the
look into child frames. These tests hand the check recorded reads and count its round trips.
"""

from __future__ import annotations

from typing import Any

import pytest

from flowwalk.browser.errors import BrowserCrashed, InvalidSelector, PageGone, PageUnreadable
from flowwalk.browser.network import Beacon
from flowwalk.browser.records import ElementRead, FrameName, ItemsRead, Seq
from flowwalk.errors import Location
from flowwalk.model import EXPECT_KINDS, Expect, Stabilize
from flowwalk.walk.checks import KINDS, NEEDS_ELEMENT, run_check

from recorded_page import FakeClock, RecordedReader, RecordedSession, read

ST = Stabilize()


def expect(kind: str, **kw: Any) -> Expect:
    return Expect(loc=Location("specs/x.flow.yaml", 3, 5), text=f"expect {kind}", kind=kind, **kw)


def check(session: RecordedSession, e: Expect, timeout_ms: int = 1000, scope: str | None = None) -> Any:
    return run_check(session, e, scope=scope, timeout_ms=timeout_ms, stabilize=ST, clock=session.clock)


def test_every_expect_kind_has_one_row_and_every_row_is_a_kind() -> None:
    assert set(KINDS) == set(EXPECT_KINDS)
    assert set(NEEDS_ELEMENT) <= set(KINDS)


# (kind, expect fields, the recorded read, passes, observed)
JUDGED = [
    ("text_contains", {"value": "Saved", "selector": "#s"}, read(1, hit=True, text="Saved!"), True, "'#s' text: 'Saved!'"),
    ("text_contains", {"value": "Saved", "selector": "#s"}, read(2, text="Saving"), False,
     "'#s' text (first of 2): 'Saving'"),
    ("text_not_contains", {"value": "Error"}, read(1, text="All good"), True, "body text: 'All good'"),
    ("text_not_contains", {"value": "Error", "selector": "#gone"}, read(0), True, "no element matches '#gone'"),
    ("has_text", {"value": "  Saved  ", "selector": "#s"}, read(1, hit=True, text="Saved"), True, "'#s' text: 'Saved'"),
    ("text_matches", {"value": r"R-\d+", "selector": "#r"}, read(1, texts=("Report R-1001 ready",)), True,
     "'#r' text: 'Report R-1001 ready'"),
    ("text_matches", {"value": r"R-\d+", "selector": "#r"}, read(1, texts=("Preparing",)), False, "'#r' text: 'Preparing'"),
    ("count", {"selector": "li", "count": 3, "op": "gte"}, read(4), True, "4 element(s) match 'li'"),
    ("count", {"selector": "li", "count": 3}, read(4), False, "4 element(s) match 'li'"),
    ("selector_exists", {"selector": "#a"}, read(0), False, "no element matches '#a'"),
    ("selector_absent", {"selector": "#a"}, read(0), True, "no element matches '#a'"),
    ("visible", {"selector": "#m"}, read(1, visible=1), True, "'#m' visible"),
    ("visible", {"selector": "#m"}, read(3, visible=0), False, "'#m' 0 of 3 match(es) visible"),
    ("hidden", {"selector": "#m"}, read(2, visible=1), False, "1 of 2 match(es) of '#m' visible"),
    ("hidden", {"selector": "#m"}, read(0), True, "no element matches '#m'"),
    ("enabled", {"selector": "#b"}, read(1, disabled=True, tag="button"), False, "'#b' disabled"),
    ("disabled", {"selector": "#b"}, read(1, disabled=True, tag="button"), True, "'#b' disabled"),
    ("checked", {"selector": "#c"}, read(1, checked="checked"), True, "'#c' checked"),
    ("unchecked", {"selector": "#c"}, read(1, checked="mixed"), False, "'#c' mixed"),
    ("input_value", {"selector": "#e", "value": "ada"}, read(1, value="ada", tag="input"), True, "'#e' value: 'ada'"),
    ("input_value", {"selector": "#e", "value": "ada"}, read(1, value=None, tag="div"), False,
     "'#e' is a <div>, which has no input value"),
    ("attribute", {"selector": "#l", "attr": "href", "value": "/a", "match": "contains"}, read(1, value="/a/b"), True,
     "'#l' href='/a/b'"),
    ("attribute", {"selector": "#l", "attr": "href"}, read(1, value=None), False, "'#l' has no attribute href"),
]


@pytest.mark.parametrize("kind, fields, recorded, passes, observed", JUDGED)
def test_each_kind_judges_a_recorded_read(kind: str, fields: dict[str, Any], recorded: ElementRead, passes: bool,
                                          observed: str) -> None:
    target = fields.get("selector") or "body"
    session = RecordedSession(RecordedReader(elements_of={target: recorded}))
    result = check(session, expect(kind, **fields), timeout_ms=300)
    assert result.passed is passes
    assert result.observed.startswith(observed)


def test_a_passing_check_costs_two_reads_one_interval_apart() -> None:
    reader = RecordedReader(elements_of={"#s": read(1, hit=True, text="Saved")})
    session = RecordedSession(reader)
    result = check(session, expect("text_contains", selector="#s", value="Saved"))
    assert result.passed and result.reads == 2
    assert reader.calls == [("elements", "#s", "text")] * 2   # one round trip per read
    assert len(session.waited_ms) == 1 and 90 <= session.waited_ms[0] <= 100


def test_content_that_arrives_late_passes_once_two_fresh_reads_see_it() -> None:
    reader = RecordedReader(elements_of={"#s": [read(1, text="Saving")] * 3 + [read(1, hit=True, text="Saved")]})
    result = check(RecordedSession(reader), expect("has_text", selector="#s", value="Saved"))
    assert result.passed and result.reads == 5


def test_the_final_read_chooses_the_runtime_code() -> None:
    nothing = check(RecordedSession(RecordedReader()), expect("visible", selector="#m"), timeout_ms=300)
    assert (nothing.passed, nothing.runtime_code) == (False, "ELEMENT_NOT_FOUND")
    assert nothing.observed == "no element matches '#m'"
    wrong = check(RecordedSession(RecordedReader(elements_of={"#b": read(1, disabled=True)})),
                  expect("enabled", selector="#b"), timeout_ms=300)
    assert wrong.runtime_code == "EXPECT_STATE_MISMATCH"
    flapping = [read(1, hit=True, text="ok"), read(1, text="no")] * 30
    unsettled = check(RecordedSession(RecordedReader(elements_of={"#f": flapping})),
                      expect("has_text", selector="#f", value="ok"), timeout_ms=300)
    assert unsettled.runtime_code in ("TIMEOUT", "EXPECT_STATE_MISMATCH")


def test_a_page_that_keeps_navigating_gives_no_evidence_and_times_out() -> None:
    navigating = PageUnreadable("Execution context was destroyed, most likely because of a navigation",
                                navigating=True)
    reader = RecordedReader(elements_of={"#s": navigating})
    result = check(RecordedSession(reader), expect("text_contains", selector="#s", value="x"), timeout_ms=300)
    assert (result.passed, result.runtime_code) == (False, "TIMEOUT")
    assert result.observed == "no fresh read: the page was navigating"


def test_a_selector_that_does_not_parse_fails_at_once() -> None:
    reader = RecordedReader(elements_of={"a[": InvalidSelector("a[", "Unexpected token")})
    result = check(RecordedSession(reader), expect("selector_exists", selector="a["), timeout_ms=5000)
    assert (result.reads, result.runtime_code) == (1, "ELEMENT_NOT_FOUND")
    assert result.observed == "invalid selector 'a[': Unexpected token"


def test_a_crash_ends_the_check_and_a_page_the_site_closed_gives_no_evidence() -> None:
    crashed = BrowserCrashed("the browser or page crashed: Target page, context or browser has been closed")
    with pytest.raises(BrowserCrashed):
        check(RecordedSession(RecordedReader(url_now=crashed)), expect("url_contains", value="/x"))
    gone = PageGone("Target page, context or browser has been closed")
    result = check(RecordedSession(RecordedReader(url_now=gone)), expect("url_contains", value="/x"), timeout_ms=300)
    assert result.runtime_code == "TIMEOUT" and result.observed.startswith("no fresh read: Target page")


def test_pipe_alternatives_are_read_in_order_until_one_matches() -> None:
    reader = RecordedReader(elements_of={"#new": read(1, visible=1)})
    result = check(RecordedSession(reader), expect("visible", selector="#old | #new"))
    assert result.passed and result.selector == "#new"
    assert [c[1] for c in reader.calls] == ["#old", "#new", "#old", "#new"]


def test_beacons_and_urls_are_judged_without_reading_elements() -> None:
    beacon = Beacon(vendor="ga4", event="sign_up", url="https://www.google-analytics.com/g/collect", t=1.5)
    session = RecordedSession(RecordedReader(), beacons=[beacon])
    assert check(session, expect("beacon", vendor="ga4", event="sign_up")).passed
    reader = RecordedReader(url_now="http://127.0.0.1:1/dashboard.html?welcome=1")
    assert check(RecordedSession(reader), expect("url_matches", value=r"dashboard\.html")).passed
    assert reader.calls == [("url_state",)] * 2   # no record of the URL's age: two reads


def test_a_failed_check_names_the_child_frame_that_has_what_it_looks_for() -> None:
    frame = RecordedReader(elements_of={"body": read(1, hit=True, text="Pay now")},
                           name=FrameName("checkout", "https://pay.example/frame"))
    page = RecordedReader(elements_of={"body": read(1, text="Shop")}, frames=[frame])
    result = check(RecordedSession(page), expect("text_contains", value="Pay now"), timeout_ms=300)
    assert (result.passed, result.runtime_code) == (False, "ELEMENT_NOT_FOUND")
    assert result.frame == "'checkout' (https://pay.example/frame)"


def test_a_flow_check_waits_for_a_change_even_after_a_read_slower_than_the_interval() -> None:
    # a single read check (flows) of a still page: after a mismatch it waits for the page to change
    # (at most 500 ms), not for the clock. A read that took 150 ms (a loaded CI machine) left no
    # time of the 100 ms interval: the wait for a change is still asked, or the slow read would be
    # followed by another at once (a fresh clone's CI run counted 5 reads in 1.5 s where 4 are due)
    clock = FakeClock()
    clock.read_s = 0.15
    reader = RecordedReader(elements_of={"#s": read(1, text="Nothing saved yet", seq=Seq(n=3, at=10.0))})
    session = RecordedSession(reader, clock)
    one = Stabilize(stable_reads=1, interval_ms=100)
    result = run_check(session, expect("text_contains", selector="#s", value="Saved Bob"), scope=None,
                       timeout_ms=2000, stabilize=one, clock=session.clock)
    assert not result.passed and result.reads == 4
    assert [c[0] for c in reader.calls] == ["elements", "changed"] * 3 + ["elements"]
    assert session.waited_ms == []


TODOS = ("buy some cheese", "feed the cat", "book a doctors appointment")

# (kind, expect fields, the recorded items read, passes, observed)
JUDGED_ITEMS = [
    ("texts", {"items": TODOS}, ItemsRead(3, texts=TODOS), True, "3 item(s) match 'li'"),
    ("texts", {"items": ("buy  some cheese ", "feed the cat", "book a doctors appointment")},
     ItemsRead(3, texts=TODOS), True, "3 item(s)"),
    ("texts", {"items": TODOS[:2]}, ItemsRead(3, texts=TODOS), False, "3 item(s) match 'li': ['buy some cheese'"),
    ("texts", {"items": ("Buy some cheese",)}, ItemsRead(1, texts=TODOS[:1]), False, "1 item(s)"),   # case counts
    ("texts", {"items": ("cheese", "appointment"), "match": "contains"}, ItemsRead(3, texts=TODOS), True, "3 item(s)"),
    ("texts", {"items": ("appointment", "cheese"), "match": "contains"}, ItemsRead(3, texts=TODOS), False, "3 item(s)"),
    ("texts", {"items": ()}, ItemsRead(0), True, "0 item(s)"),
    ("texts", {"items": ("a",)}, ItemsRead(1001, texts=("a",) * 1000), False, "1001 item(s) match 'li' (the first 1000"),
    ("texts", {"items": (" sausages ",), "keep_whitespace": True}, ItemsRead(1, texts=(" sausages ",)), True, "1 item"),
    ("texts", {"items": ("sausages",), "keep_whitespace": True}, ItemsRead(1, texts=(" sausages ",)), False, "1 item"),
    ("classes", {"items": ("completed", "")}, ItemsRead(2, classes=(" completed ", "")), True, "2 item(s)"),
    ("classes", {"items": ("completed", "")}, ItemsRead(2, classes=("completed", "completed")), False, "2 item(s)"),
    ("classes", {"items": ("", "")}, ItemsRead(2, classes=("", "hidden")), False, "2 item(s)"),
    ("classes", {"items": ("completed", ""), "match": "contains"}, ItemsRead(2, classes=("completed hidden", "x")),
     True, "2 item(s)"),
    ("classes", {"items": ("completed",), "match": "contains"}, ItemsRead(2, classes=("completed", "completed")),
     False, "2 item(s)"),
    ("has_class", {"value": "completed"}, ItemsRead(2, classes=("editing completed", "")), True,
     "'li' (first of 2) has class 'editing completed'"),
    ("has_class", {"value": "completed"}, ItemsRead(1, classes=("",)), False, "'li' has no class"),
    ("has_class", {"value": "completed"}, ItemsRead(0), False, "no element matches 'li'"),
    ("lacks_class", {"value": "completed"}, ItemsRead(1, classes=("",)), True, "'li' has no class"),
    ("lacks_class", {"value": "completed editing"}, ItemsRead(1, classes=("editing",)), False, "'li' has class 'editing'"),
]


@pytest.mark.parametrize("kind, fields, recorded, passes, observed", JUDGED_ITEMS)
def test_each_list_and_class_kind_judges_a_recorded_items_read(kind: str, fields: dict[str, Any], recorded: ItemsRead,
                                                               passes: bool, observed: str) -> None:
    session = RecordedSession(RecordedReader(items_of={"li": recorded}))
    result = check(session, expect(kind, selector="li", **fields), timeout_ms=300)
    assert result.passed is passes
    assert result.observed.startswith(observed), result.observed
    assert ("items", "li", "raw" if fields.get("keep_whitespace") else "text") in session.recorded.calls
    # a list that did not match says how, item by item; nothing else has a diff
    assert bool(result.diff) is (not passes and kind in ("texts", "classes"))


def test_a_failed_list_check_diffs_the_expected_items_against_the_observed_ones() -> None:
    read_ = ItemsRead(3, texts=("buy some cheese", "feed the dog", "book a doctors appointment"))
    session = RecordedSession(RecordedReader(items_of={"#todo-list li": read_}))
    result = check(session, expect("texts", selector="#todo-list li", items=TODOS), timeout_ms=300)
    assert not result.passed and result.runtime_code == "EXPECT_STATE_MISMATCH"
    assert result.expected == ("texts of '#todo-list li' exactly ['buy some cheese', 'feed the cat', "
                               "'book a doctors appointment']")
    assert result.diff.splitlines() == ["- expected (3 items)", "+ observed (3 items)", "  'buy some cheese'",
                                        "- 'feed the cat'", "+ 'feed the dog'", "  'book a doctors appointment'"]


def test_an_empty_list_is_observed_not_missing_but_a_class_check_needs_its_element() -> None:
    session = RecordedSession(RecordedReader(items_of={}))
    listed = check(session, expect("texts", selector="li", items=("a",)), timeout_ms=300)
    assert listed.runtime_code == "EXPECT_STATE_MISMATCH" and listed.observed.startswith("0 item(s)")
    classed = check(session, expect("has_class", selector="li", value="done"), timeout_ms=300)
    assert classed.runtime_code == "ELEMENT_NOT_FOUND"


@pytest.mark.parametrize("kind, query, flag", [("text_contains", "text", "match_case"),
                                               ("text_not_contains", "text", "match_case"),
                                               ("has_text", "exact_text", "keep_whitespace")])
def test_case_and_whitespace_flags_reach_the_read(kind: str, query: str, flag: str) -> None:
    reader = RecordedReader(elements_of={"#s": read(1, hit=True, text="x")})
    check(RecordedSession(reader), expect(kind, selector="#s", value="x", **{flag: True}), timeout_ms=300)
    asked = reader.queries[0]
    assert asked.kind == query
    assert (asked.match_case, asked.raw) == ((True, False) if flag == "match_case" else (False, True))
