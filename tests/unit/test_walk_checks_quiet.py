"""RFC 010's stability shown without the second read: a matching read of a page that had been still
for the interval before it passes at once (walk/checks.py `Kind.settles`), judged from recorded reads.
The browser side, that the page's record agrees with two reads, is tests/integration/test_checks_quiet.py."""

from __future__ import annotations

from typing import Any

import pytest

from flowwalk.browser.network import Beacon
from flowwalk.browser.records import Quiet
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


def test_a_page_that_changed_within_the_interval_is_read_again_once_the_record_can_vouch() -> None:
    # changed 60 ms before the first read: the second read comes when the record can show the
    # whole interval if the page stays still (41 ms later), not a whole interval later
    reader = RecordedReader(elements_of={"li": [read(3, quiet=Quiet(ms=60, url_ms=900)),
                                                read(3, quiet=Quiet(ms=106, url_ms=900))]})
    result, session = run(reader, expect("count", selector="li", count=3))
    assert result.passed and result.reads == 2 and result.stability == "quiet" and result.quiet_ms == 106
    assert session.waited_ms == [pytest.approx(41)] and [q.quiet for q in reader.queries] == ["dom", "dom"]


def test_a_page_that_keeps_changing_passes_on_reads_one_interval_apart() -> None:
    # still only 60 ms at every read: the early read does not count, the pass rests on two reads
    # that started one interval apart
    reader = RecordedReader(elements_of={"li": read(3, quiet=Quiet(ms=60, url_ms=900))})
    starts: list[float] = []
    session = RecordedSession(reader)
    elements = reader.elements

    def timed(selector: str, query: Any) -> Any:
        starts.append(session.clock.now)
        return elements(selector, query)
    reader.elements = timed  # type: ignore[method-assign]
    result = run_check(session, expect("count", selector="li", count=3), scope=None, timeout_ms=1000,
                       stabilize=TWO, clock=session.clock)
    assert result.passed and result.stability == "reads" and result.reads == 3
    assert starts[-1] - starts[0] >= 0.1 and starts[1] - starts[0] < 0.1


def test_a_mismatch_between_the_counted_reads_starts_the_streak_again() -> None:
    # the early read mismatches: the match one interval after the first does not pair with it (it
    # would pass on reads at the third read), and the pass rests on the record after it
    reader = RecordedReader(elements_of={"li": [read(3, quiet=Quiet(ms=60, url_ms=900)),
                                                read(2, quiet=Quiet(ms=10, url_ms=900)),
                                                read(3, quiet=Quiet(ms=70, url_ms=900)),
                                                read(3, quiet=Quiet(ms=101, url_ms=900))]})
    result, _ = run(reader, expect("count", selector="li", count=3))
    assert result.passed and result.reads == 4 and result.stability == "quiet"


def test_a_captured_beacon_is_final() -> None:
    # the captured beacons only grow: a matching read stays matching, and no second read is taken
    hit = Beacon("ga4", "sign_up", "https://www.google-analytics.com/g/collect?en=sign_up", 0.4)
    session = RecordedSession(RecordedReader(), beacons=[hit])
    result = run_check(session, expect("beacon", vendor="ga4", event="sign_up"), scope=None, timeout_ms=1000,
                       stabilize=TWO, clock=session.clock)
    assert result.passed and result.reads == 1 and result.stability == "recorded" and session.waited_ms == []
    missing = RecordedSession(RecordedReader(), beacons=[hit])
    failed = run_check(missing, expect("beacon", vendor="ga4", event="purchase"), scope=None, timeout_ms=300,
                       stabilize=TWO, clock=missing.clock)
    assert not failed.passed and failed.reads > 2


def test_a_controls_state_passes_at_once_on_a_still_page() -> None:
    # the page's record notes a script setting `checked` or `value` (browser/js/quiet.js)
    for kind, fields, recorded in [
        ("checked", {"selector": "#c"}, read(1, checked="checked", quiet=Quiet(ms=900, url_ms=900))),
        ("input_value", {"selector": "#i", "value": "a"}, read(1, value="a", tag="input", quiet=Quiet(ms=900, url_ms=900))),
    ]:
        result, _ = run(RecordedReader(elements_of={fields["selector"]: recorded}), expect(kind, **fields))
        assert result.passed and result.reads == 1 and result.stability == "quiet", kind


def test_a_mismatch_is_never_shortened() -> None:
    reader = RecordedReader(elements_of={"li": read(2, quiet=Quiet(ms=5000, url_ms=5000))})
    result, _ = run(reader, expect("count", selector="li", count=3))
    assert not result.passed and result.reads > 2


@pytest.mark.parametrize("kind, fields, recorded", [
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
    # a record that stays at 30 ms is a URL that keeps changing: the early read finds it changed
    # again, and the pass rests on two reads one interval apart
    fresh = RecordedReader(url_now="http://127.0.0.1:1/done", url_quiet=Quiet(ms=10, url_ms=30))
    again = run(fresh, expect("url_contains", value="/done"))[0]
    assert again.reads == 3 and again.stability == "reads"


def test_three_reads_need_two_intervals_of_quiet() -> None:
    three = Stabilize(stable_reads=3, interval_ms=100)
    # still 150 ms at the first read, 201 ms at the one the record asked for, 51 ms later
    short = RecordedReader(elements_of={"#a": [read(1, quiet=Quiet(ms=150, url_ms=900)),
                                               read(1, quiet=Quiet(ms=201, url_ms=900))]})
    assert run(short, expect("selector_exists", selector="#a"), three)[0].reads == 2
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
    assert quiet_ms_of("log", still) is None  # the beacons' record is judged by the read itself
    assert {k.settles for k in KINDS.values()} <= {"", "dom", "render", "layout", "url", "log"}
