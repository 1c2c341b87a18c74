"""The reads walk/verifiers.py takes through the page API (browser/page.py): an element's text, the
act's field (value, checked state, selected options) and the page's title, on a real page, with
Playwright's errors leaving translated."""

from __future__ import annotations

import pytest

from flowwalk.browser import InvalidSelector, PageSession, PageUnreadable, TimedOut
from flowwalk.browser.records import Element
from flowwalk.serve import StaticServer


@pytest.fixture()
def verify_page(session: PageSession, site: StaticServer) -> PageSession:
    session.goto(f"{site.url}/walker/verify.html", timeout_ms=10_000)
    return session


@pytest.mark.browser
def test_text_title_and_the_acts_field_read_through_the_reader(verify_page: PageSession) -> None:
    page = verify_page.page
    assert page.document_title() == "Verify"
    assert page.first_text("#missing | h1", None, 1_000) == "Verify"
    assert page.first_text("h1", "#nowhere", 1_000) is None
    email, agree, plan = Element("#email"), Element("#agree"), Element("#plan")
    page.act(email, "fill", "ann@example.com", 1_000)
    page.act(agree, "check", None, 1_000)
    page.act(plan, "select", "pro", 1_000)
    assert page.field_value(email, 1_000) == "ann@example.com"
    assert page.checked(agree, 1_000) is True
    assert page.selected_options(plan) == [("pro", "Professional")]


@pytest.mark.browser
def test_a_read_that_fails_leaves_as_flowwalks_error(verify_page: PageSession) -> None:
    page = verify_page.page
    with pytest.raises(TimedOut):
        page.field_value(Element("#nothing-here"), 200)
    with pytest.raises(PageUnreadable):
        page.checked(Element("h1"), 1_000)   # not a checkbox
    with pytest.raises(TimedOut):
        page.act(Element("#nothing-here"), "click", None, 200)
    with pytest.raises(InvalidSelector):
        page.first_text("div[", None, 1_000)


_INTERRUPTS = """<!doctype html><body>
<div id="shown" style="width:50px;height:20px">shown</div>
<div id="gone" style="display:none">gone</div>
<div id="empty" style="width:0;height:0;overflow:hidden"></div>
<div id="hidden" style="visibility:hidden;width:50px;height:20px">hidden box</div>
<div id="contents" style="display:contents"><span>inside contents</span></div>
<div id="host"></div>
<script>
  const root = document.getElementById('host').attachShadow({ mode: 'open' });
  root.innerHTML = '<button id="in-shadow" style="width:40px;height:20px">accept</button>';
</script>
</body>"""


@pytest.mark.browser
def test_the_interrupt_gate_never_says_no_where_playwright_sees_a_visible_match(session: PageSession) -> None:
    # Page.dismiss skips a selector the gate says False for: that must mean no
    # match is visible to Playwright; True is only a maybe; Playwright's own syntax is None
    session.playwright_page.set_content(_INTERRUPTS)
    css = ["#shown", "#gone", "#empty", "#hidden", "#contents", "#in-shadow", "#nowhere", "body > #shown"]
    gate = session.page.may_show(css + ["text=accept", "div:has-text('shown')", "#a >> #b"])
    assert gate[:len(css)] == [True, False, False, True, True, True, False, True]
    assert gate[len(css):] == [None, None, None]
    for selector, maybe in zip(css, gate):
        located = session.playwright_page.locator(selector)
        visible = any(located.nth(i).is_visible() for i in range(located.count()))
        assert maybe or not visible, selector


@pytest.mark.browser
def test_a_match_says_shown_only_where_playwright_sees_the_first_match_visible(session: PageSession) -> None:
    # a wait for a visible element trusts a yes without asking Playwright: it must be Playwright's yes
    session.playwright_page.set_content(_INTERRUPTS)
    shown = {s: session.page.match(s, shown=True).shown
             for s in ("#shown", "#gone", "#empty", "#hidden", "#contents", "#in-shadow", "#nowhere")}
    assert shown == {"#shown": True, "#gone": False, "#empty": False, "#hidden": False, "#contents": True,
                     "#in-shadow": True, "#nowhere": False}
    for selector, yes in shown.items():
        if yes:
            assert session.playwright_page.locator(selector).first.is_visible(), selector
    assert not session.page.match("#shown").shown   # not asked


_ITEMS = """<!doctype html><body><ul id="list">
<li class="completed">  buy   some cheese </li>
<li class="">feed <b>the</b> cat</li>
<li>  book a doctors appointment  </li>
<li class=" completed   editing " style="display:none">hidden  one</li>
</ul><p id="none"></p></body>"""


@pytest.mark.browser
def test_the_items_read_gives_each_matchs_text_and_class_in_document_order(session: PageSession) -> None:
    session.playwright_page.set_content(_ITEMS)
    read = session.page.items("#list li")
    assert read.n == 4
    # rendered and normalised (a hidden element's innerText is its textContent), one per match
    assert read.texts == ("buy some cheese", "feed the cat", "book a doctors appointment", "hidden one")
    # the class attribute as written; an element without one reads as ''
    assert read.classes == ("completed", "", "", " completed   editing ")
    raw = session.page.items("#list li", raw_text=True)
    assert raw.texts[0] == "  buy   some cheese " and raw.texts[2] == "  book a doctors appointment  "
    assert session.page.items("#nothing li").n == 0
    with pytest.raises(InvalidSelector):
        session.page.items("li[")


@pytest.mark.browser
def test_a_text_read_can_match_case_and_an_exact_one_can_keep_whitespace(session: PageSession) -> None:
    from flowwalk.browser.records import ElementQuery

    session.playwright_page.set_content(_ITEMS)
    reader = session.page
    assert reader.elements("#list li", ElementQuery("text", "CHEESE")).hit
    assert not reader.elements("#list li", ElementQuery("text", "CHEESE", match_case=True)).hit
    assert reader.elements("#list li", ElementQuery("text", "the cat", match_case=True)).hit
    assert reader.elements("#list li", ElementQuery("exact_text", "book a doctors appointment")).hit
    kept = ElementQuery("exact_text", "book a doctors appointment", raw=True)
    assert not reader.elements("#list li", kept).hit
    assert reader.elements("#list li", ElementQuery("exact_text", "  book a doctors appointment  ", raw=True)).hit


@pytest.mark.browser
def test_a_read_asked_for_a_fingerprint_gives_the_one_a_match_would(session: PageSession) -> None:
    from flowwalk.browser.records import ElementQuery

    session.playwright_page.set_content(_ITEMS)
    reader = session.page
    # what a passing check keeps for healing is what `Page.match` takes of the same first element
    taken = reader.match("#list li", fingerprint=True).fingerprint
    assert taken is not None and taken["tag"] == "li" and taken["text"] == "buy some cheese"
    assert reader.elements("#list li", ElementQuery("text", "cat", fingerprint=True)).fingerprint == taken
    assert reader.items("#list li", fingerprint=True).fingerprint == taken
    # asked for none, or nothing matched: none
    assert reader.elements("#list li", ElementQuery("text", "cat")).fingerprint is None
    assert reader.items("#nothing li", fingerprint=True).fingerprint is None
