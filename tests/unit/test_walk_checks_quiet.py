"""RFC 010's stability shown without the second read: a matching read of a page that had been still
for the interval before it passes at once (walk/checks.py `Kind.settles`), judged from recorded reads.
The browser side, that the page's record agrees with two reads, is tests/integration/test_checks_quiet.py."""

from __future__ import annotations

from typing import Any

import pytest

from flowwalk.browser.probe import Quiet
from flowwalk.errors import Location
from flowwalk.model import Expect, Stabilize
from flowwalk.walk.checks import KINDS, quiet_ms_of, run_check

from recorded_page import RecordedReader, RecordedSession, read

TWO = Stabilize(stable_reads=2, interval_ms=100)


def expect(kind: str, **kw: Any) -> Expect:
    return Expect(loc=Location("specs/x.rules.yaml", 3, 5), text=f"expect {kind}", kind=kind, **kw)


def run(reader: RecordedReader, e: Expect, stabilize: Stabilize = TWO) -> Any:
    session = RecordedSession(reader)
    return run_check(session, e, scope=None, timeout_ms=1000, stabilize=stabilize, clock=session.clock), session


def test_a_matching_read_of_a_page_still_for_the_interval_passes_at_once() -> None:
    reader = RecordedReader(elements_of={"#s": read(1, hit=True, text="Saved", quiet=Quiet(ms=140, url_ms=900))})
    result, session = run(reader, expect("text_contains", selector="#s", value="Saved"))
    assert result.passed and result.reads == 1 and result.stability == "quiet" and result.quiet_ms == 140
    assert session.waited_ms == [] and [q.quiet for q in reader.queries] == ["layout"]


def test_a_page_that_changed_within_the_interval_takes_the_second_read() -> None:
    reader = RecordedReader(elements_of={"li": read(3, quiet=Quiet(ms=60, url_ms=900))})
    result, session = run(reader, expect("count", selector="li", count=3))
    assert result.passed and result.reads == 2 and result.stability == "reads"
    assert session.waited_ms and [q.quiet for q in reader.queries] == ["dom", "dom"]


def test_a_mismatch_is_never_shortened() -> None:
    reader = RecordedReader(elements_of={"li": read(2, quiet=Quiet(ms=5000, url_ms=5000))})
    result, _ = run(reader, expect("count", selector="li", count=3))
    assert not result.passed and result.reads > 2


@pytest.mark.parametrize("kind, fields, recorded", [
    # what a script sets without a mutation: only a second read shows it held
    ("checked", {"selector": "#c"}, read(1, checked="checked", quiet=Quiet(ms=900, url_ms=900))),
    ("input_value", {"selector": "#i", "value": "a"}, read(1, value="a", tag="input", quiet=Quiet(ms=900, url_ms=900))),
    # rendered text while an animation runs
    ("text_contains", {"selector": "#s", "value": "ok"},
     read(1, hit=True, text="ok", quiet=Quiet(ms=900, url_ms=900, animating=True))),
    # visibility while an image or a font is still loading
    ("visible", {"selector": "#m"}, read(1, visible=1, quiet=Quiet(ms=900, url_ms=900, settled=False))),
])
def test_kinds_the_record_cannot_vouch_for_read_twice(kind: str, fields: dict[str, Any], recorded: Any) -> None:
    reader = RecordedReader(elements_of={fields["selector"]: recorded})
    result, _ = run(reader, expect(kind, **fields))
    assert result.passed and result.reads == 2 and result.stability == "reads"


def test_a_url_check_uses_the_age_of_the_url_alone() -> None:
    reader = RecordedReader(url_now="http://127.0.0.1:1/done", url_quiet=Quiet(ms=10, url_ms=400))
    result, _ = run(reader, expect("url_contains", value="/done"))
    assert result.passed and result.reads == 1 and reader.calls == [("url_state",)]
    fresh = RecordedReader(url_now="http://127.0.0.1:1/done", url_quiet=Quiet(ms=10, url_ms=30))
    assert run(fresh, expect("url_contains", value="/done"))[0].reads == 2


def test_three_reads_need_two_intervals_of_quiet() -> None:
    three = Stabilize(stable_reads=3, interval_ms=100)
    short = RecordedReader(elements_of={"#a": read(1, quiet=Quiet(ms=150, url_ms=900))})
    assert run(short, expect("selector_exists", selector="#a"), three)[0].reads == 2  # 2nd read: 250 ms still
    long = RecordedReader(elements_of={"#a": read(1, quiet=Quiet(ms=250, url_ms=900))})
    assert run(long, expect("selector_exists", selector="#a"), three)[0].reads == 1


def test_one_read_checks_do_not_ask_for_the_record() -> None:
    reader = RecordedReader(elements_of={"#a": read(1)})
    result, _ = run(reader, expect("selector_exists", selector="#a"), Stabilize(stable_reads=1))
    assert result.passed and result.reads == 1 and result.stability == "reads"
    assert [q.quiet for q in reader.queries] == [""]


def test_what_each_settles_level_needs() -> None:
    still = Quiet(ms=300, url_ms=50)
    assert quiet_ms_of("dom", still) == 300 and quiet_ms_of("url", still) == 50 and quiet_ms_of("", still) is None
    assert quiet_ms_of("render", Quiet(ms=300, url_ms=300, animating=True)) is None
    assert quiet_ms_of("render", Quiet(ms=300, url_ms=300, settled=False)) == 300
    assert quiet_ms_of("layout", Quiet(ms=300, url_ms=300, settled=False)) is None
    assert quiet_ms_of("dom", None) is None
    assert {k.settles for k in KINDS.values()} <= {"", "dom", "render", "layout", "url"}
