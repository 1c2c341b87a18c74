"""Every expect kind against a real page: passing, failing, the runtime code, and the words people read.

The checks run on the `paced` clock (tests/integration/conftest.py): their reads and durations are
what the stabilizer decided, however loaded the machine."""

from __future__ import annotations

import re
from typing import Any

import pytest

from flowwalk.browser import PageSession
from flowwalk.errors import Location
from flowwalk.model import EXPECT_KINDS, Expect, Stabilize
from flowwalk.serve import StaticServer
from flowwalk.walk.checks import KINDS, CheckResult, run_check

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("paced")]

LOC = Location("tests/checks.rules.yaml", 4, 7)
FAST = Stabilize(interval_ms=100)


def expect(kind: str, **fields: Any) -> Expect:
    return Expect(loc=LOC, text=f"expect {kind}", kind=kind, **fields)


def check(session: PageSession, e: Expect, timeout_ms: int = 0, scope: str | None = None) -> CheckResult:
    return run_check(session, e, scope=scope, timeout_ms=timeout_ms, stabilize=FAST)


@pytest.fixture()
def checks_page(session: PageSession, site: StaticServer) -> PageSession:
    session.goto(f"{site.url}/browser/checks.html", timeout_ms=10_000)
    return session


PASSING = [
    ("url_contains", dict(value="/browser/checks")),
    ("url_not_contains", dict(value="/admin")),
    ("url_matches", dict(value=r"/browser/checks\.html$", pattern=re.compile(r"/browser/checks\.html$"))),
    ("text_contains", dict(value="welcome BACK, ada")),
    ("text_contains", dict(value="saved SUCCESSFULLY", selector=".status")),
    ("text_not_contains", dict(value="Goodbye")),
    ("text_not_contains", dict(value="anything", selector="#missing")),
    ("text_matches", dict(selector="#code", pattern=re.compile(r"#A-\d{4}"), value=r"#A-\d{4}")),
    ("has_text", dict(selector=".status", value="Saved successfully")),
    ("selector_exists", dict(selector=".items li")),
    ("selector_absent", dict(selector=".nothing")),
    ("count", dict(selector=".items li", count=3, op="eq")),
    ("count", dict(selector=".items li", count=2, op="gte")),
    ("count", dict(selector=".items li", count=3, op="lte")),
    ("count", dict(selector=".nothing", count=0, op="eq")),
    ("visible", dict(selector="#title")),
    ("hidden", dict(selector="#hidden-box")),
    ("hidden", dict(selector="#ghost")),
    ("hidden", dict(selector="#missing")),
    ("enabled", dict(selector="#save")),
    ("disabled", dict(selector="#locked")),
    ("disabled", dict(selector="#in-fieldset")),
    ("disabled", dict(selector="#aria-locked")),
    ("checked", dict(selector="#agree")),
    ("checked", dict(selector="#aria-check")),
    ("unchecked", dict(selector="#news")),
    ("attribute", dict(selector="#docs", attr="href", value="/docs/start?ref=nav")),
    ("attribute", dict(selector="#docs", attr="href", value="ref=nav", match="contains")),
    ("attribute", dict(selector="#docs", attr="data-state")),
    ("input_value", dict(selector="#name", value="Ada Lovelace")),
    ("input_value", dict(selector="#bio", value="Mathematician")),
    ("input_value", dict(selector="#lang", value="fr")),
    ("texts", dict(selector=".items li", items=("one", "two", "three"))),
    ("texts", dict(selector=".items li", items=("ne", "hre"), match="contains")),
    ("texts", dict(selector=".nothing", items=())),
    ("classes", dict(selector=".items li", items=("done first", "", ""))),
    ("classes", dict(selector=".items li", items=("done", "", ""), match="contains")),
    ("has_class", dict(selector=".items li", value="done")),
    ("lacks_class", dict(selector=".items li:nth-child(2)", value="done first")),
    ("text_contains", dict(selector=".status", value="Saved successfully", match_case=True)),
    ("text_not_contains", dict(selector=".status", value="saved", match_case=True)),
    ("has_text", dict(selector=".status", value="  Saved\n     successfully  ", keep_whitespace=True)),
]

FAILING = [
    ("url_contains", dict(value="/nope"), "EXPECT_STATE_MISMATCH"),
    ("url_not_contains", dict(value="/browser/"), "EXPECT_STATE_MISMATCH"),
    ("url_matches", dict(value="/other$", pattern=re.compile("/other$")), "EXPECT_STATE_MISMATCH"),
    ("text_contains", dict(value="Goodbye"), "EXPECT_STATE_MISMATCH"),
    ("text_contains", dict(value="Saved", selector="#missing"), "ELEMENT_NOT_FOUND"),
    ("text_not_contains", dict(value="welcome back"), "EXPECT_STATE_MISMATCH"),
    ("text_matches", dict(selector="#code", pattern=re.compile(r"#B-\d+"), value=r"#B-\d+"), "EXPECT_STATE_MISMATCH"),
    ("text_matches", dict(selector="#missing", pattern=re.compile("x"), value="x"), "ELEMENT_NOT_FOUND"),
    ("has_text", dict(selector=".status", value="Saved"), "EXPECT_STATE_MISMATCH"),
    ("has_text", dict(selector=".status", value="saved successfully"), "EXPECT_STATE_MISMATCH"),
    ("selector_exists", dict(selector=".nothing"), "EXPECT_STATE_MISMATCH"),
    ("selector_absent", dict(selector=".items"), "EXPECT_STATE_MISMATCH"),
    ("count", dict(selector=".items li", count=2, op="eq"), "EXPECT_STATE_MISMATCH"),
    ("count", dict(selector=".items li", count=4, op="gte"), "EXPECT_STATE_MISMATCH"),
    ("count", dict(selector=".items li", count=2, op="lte"), "EXPECT_STATE_MISMATCH"),
    ("visible", dict(selector="#hidden-box"), "EXPECT_STATE_MISMATCH"),
    ("visible", dict(selector="#ghost"), "EXPECT_STATE_MISMATCH"),
    ("visible", dict(selector="#missing"), "ELEMENT_NOT_FOUND"),
    ("hidden", dict(selector="#title"), "EXPECT_STATE_MISMATCH"),
    ("enabled", dict(selector="#locked"), "EXPECT_STATE_MISMATCH"),
    ("enabled", dict(selector="#in-fieldset"), "EXPECT_STATE_MISMATCH"),
    ("enabled", dict(selector="#missing"), "ELEMENT_NOT_FOUND"),
    ("disabled", dict(selector="#save"), "EXPECT_STATE_MISMATCH"),
    ("checked", dict(selector="#news"), "EXPECT_STATE_MISMATCH"),
    ("checked", dict(selector="#title"), "EXPECT_STATE_MISMATCH"),
    ("unchecked", dict(selector="#agree"), "EXPECT_STATE_MISMATCH"),
    ("unchecked", dict(selector="#missing"), "ELEMENT_NOT_FOUND"),
    ("attribute", dict(selector="#docs", attr="href", value="/docs"), "EXPECT_STATE_MISMATCH"),
    ("attribute", dict(selector="#docs", attr="href", value="ref=footer", match="contains"), "EXPECT_STATE_MISMATCH"),
    ("attribute", dict(selector="#docs", attr="title", value="x"), "EXPECT_STATE_MISMATCH"),
    ("attribute", dict(selector="#missing", attr="href", value="x"), "ELEMENT_NOT_FOUND"),
    ("input_value", dict(selector="#name", value="Ada"), "EXPECT_STATE_MISMATCH"),
    ("input_value", dict(selector="#title", value="x"), "EXPECT_STATE_MISMATCH"),
    ("input_value", dict(selector="#missing", value="x"), "ELEMENT_NOT_FOUND"),
    ("texts", dict(selector=".items li", items=("one", "three")), "EXPECT_STATE_MISMATCH"),
    ("texts", dict(selector=".items li", items=("One", "two", "three")), "EXPECT_STATE_MISMATCH"),
    ("texts", dict(selector=".items li", items=("three", "one"), match="contains"), "EXPECT_STATE_MISMATCH"),
    ("texts", dict(selector=".nothing", items=("one",)), "EXPECT_STATE_MISMATCH"),
    ("classes", dict(selector=".items li", items=("", "", "")), "EXPECT_STATE_MISMATCH"),
    ("classes", dict(selector=".items li", items=("done",), match="contains"), "EXPECT_STATE_MISMATCH"),
    ("has_class", dict(selector=".items li:nth-child(2)", value="done"), "EXPECT_STATE_MISMATCH"),
    ("has_class", dict(selector="#missing", value="done"), "ELEMENT_NOT_FOUND"),
    ("lacks_class", dict(selector=".items li", value="done"), "EXPECT_STATE_MISMATCH"),
    ("text_contains", dict(selector=".status", value="saved successfully", match_case=True), "EXPECT_STATE_MISMATCH"),
    ("text_not_contains", dict(selector=".status", value="Saved", match_case=True), "EXPECT_STATE_MISMATCH"),
    ("has_text", dict(selector=".status", value="Saved successfully", keep_whitespace=True), "EXPECT_STATE_MISMATCH"),
]


def test_the_tables_cover_every_expect_kind() -> None:
    # beacons have their own file; the page kinds (aria_snapshot, screenshot, accessible) compare
    # against baselines and axe: tests/e2e/test_snapshot_examples.py and tests/unit/test_snapshots.py;
    # the state kinds (storage, cookie, js, request) against a shop: tests/e2e/test_state_shop.py
    elsewhere = {"beacon"} | {kind for kind, row in KINDS.items() if row.reads in ("page", "state")}
    assert {kind for kind, _ in PASSING} | elsewhere == set(EXPECT_KINDS)
    assert {kind for kind, _, _ in FAILING} | elsewhere == set(EXPECT_KINDS)


@pytest.mark.parametrize(("kind", "fields"), PASSING, ids=[f"{k}-{i}" for i, (k, _) in enumerate(PASSING)])
def test_kind_passes(checks_page: PageSession, kind: str, fields: dict[str, Any]) -> None:
    result = check(checks_page, expect(kind, **fields), timeout_ms=1_000)
    assert result.passed, (result.expected, result.observed)
    assert result.runtime_code is None
    # RFC 010's reads; or one read of a page whose record shows it still for the interval before it,
    # or a second, early one when the page had changed just before the first; or a captured beacon
    assert (result.stability, result.reads) in (("reads", FAST.stable_reads), ("quiet", 1), ("quiet", 2),
                                                 ("recorded", 1)), result


@pytest.mark.parametrize(("kind", "fields", "code"), FAILING, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(FAILING)])
def test_kind_fails_with_its_code(checks_page: PageSession, kind: str, fields: dict[str, Any], code: str) -> None:
    result = check(checks_page, expect(kind, **fields))
    assert not result.passed
    assert result.runtime_code == code, result.observed
    # timeout 0: no waiting, but never a failure before `stable_reads` fresh reads (RFC 010 §8.1)
    assert result.reads == FAST.stable_reads
    assert result.expected and result.observed


def test_expected_and_observed_read_like_sentences(checks_page: PageSession) -> None:
    missing_text = check(checks_page, expect("text_contains", value="Goodbye"))
    assert missing_text.expected == "text containing 'Goodbye'"
    assert missing_text.observed.startswith("body text: 'Welcome back, Ada Saved successfully one two three")
    assert len(missing_text.observed) <= 210

    count = check(checks_page, expect("count", selector=".items li", count=4, op="gte"))
    assert count.expected == "at least 4 element(s) matching '.items li'"
    assert count.observed == "3 element(s) match '.items li'"

    gone = check(checks_page, expect("visible", selector="#missing"))
    assert gone.observed == "no element matches '#missing'"

    attr = check(checks_page, expect("attribute", selector="#docs", attr="href", value="/docs"))
    assert attr.expected == "'#docs' attribute href='/docs'"
    assert attr.observed == "'#docs' href='/docs/start?ref=nav'"

    url = check(checks_page, expect("url_contains", value="/nope"))
    assert url.expected == "URL containing '/nope'"
    assert re.fullmatch(r"URL: 'http://127\.0\.0\.1:\d+/browser/checks\.html'", url.observed)


def test_passing_text_check_shows_where_it_matched(checks_page: PageSession) -> None:
    result = check(checks_page, expect("text_contains", value="#a-1234"), timeout_ms=500)
    assert result.passed
    assert "Order #A-1234 confirmed" in result.observed


def test_scope_prefixes_the_selector_and_replaces_the_body_default(checks_page: PageSession) -> None:
    in_second = check(checks_page, expect("text_contains", value="Panel two"), scope="#p2", timeout_ms=500)
    assert in_second.passed
    assert check(checks_page, expect("text_contains", value="Panel one"), scope="#p2").runtime_code == \
        "EXPECT_STATE_MISMATCH"
    scoped_label = check(checks_page, expect("has_text", selector=".label", value="Panel one"), scope="#p1",
                         timeout_ms=500)
    assert scoped_label.passed
    assert scoped_label.selector == "#p1 >> .label"
    # the scope itself missing: the element the check reads is not there
    assert check(checks_page, expect("text_contains", value="x"), scope="#nope").runtime_code == "ELEMENT_NOT_FOUND"


def test_pipe_fallback_reads_the_first_alternative_that_matches(checks_page: PageSession) -> None:
    result = check(checks_page, expect("text_contains", selector="#missing | .status | #title", value="saved"),
                   timeout_ms=500)
    assert result.passed
    assert result.selector == ".status"
    none = check(checks_page, expect("visible", selector="#missing | #gone"))
    assert none.runtime_code == "ELEMENT_NOT_FOUND"
    assert "tried '#missing', '#gone'" in none.observed


def test_selector_that_does_not_parse_fails_at_once(checks_page: PageSession) -> None:
    result = check(checks_page, expect("visible", selector="div[[["), timeout_ms=5_000)
    assert not result.passed
    assert result.runtime_code == "ELEMENT_NOT_FOUND"
    assert result.reads == 1
    assert result.duration_ms == 0   # no wait: retrying cannot help
    assert result.observed.startswith("invalid selector 'div[[['")


def test_state_changed_by_the_page_is_seen_on_a_later_read(checks_page: PageSession) -> None:
    # the box is checked by a script right after the check's first read, which sees it unchecked
    checks_page.playwright_page.evaluate("""() => {
        const box = document.querySelector('#news');
        Object.defineProperty(box, 'checked', { configurable: true, get() {
            setTimeout(() => { delete box.checked; box.checked = true; });
            return false;
        } });
    }""")
    result = check(checks_page, expect("checked", selector="#news"), timeout_ms=3_000)
    assert result.passed
    assert result.reads >= 2
    assert result.duration_ms >= FAST.interval_ms
