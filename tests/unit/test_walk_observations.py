"""The expect step, end to end through the step envelope, on recorded page reads (no browser).

walk/observations.expect runs its check through walk/checks.run_check on a RecordedSession
(tests/recorded_page.py); the envelope (walk/step.py) emits the step's record. What is tested:
the record a passing and a failing expect leave, and batched stabilization (the expect after an
expect has its first read taken during the first one's interval, so the pair costs three reads).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from flowwalk import events as ev
from flowwalk.errors import Location
from flowwalk.model import Expect, Rule, Scenario
from flowwalk.settings import Settings
from flowwalk.walk.attempt import Attempt, RuleState
from flowwalk.walk.context import RunContext
from flowwalk.walk.step import run_step

from recorded_page import RecordedReader, RecordedSession, read

SPEC = "specs/notes.rules.yaml"   # rule files take two reads per check (RFC 010; flow specs one)


def expect(line: int, **kw: Any) -> Expect:
    return Expect(loc=Location(SPEC, line, 5), text=f"expect {kw.get('kind')}", **kw)


class Walk:
    def __init__(self, tmp_path: Path, reader: RecordedReader, *steps: Expect):
        self.rule = Rule(name="notes", loc=Location(SPEC, 3, 1), steps=steps)
        scenario = Scenario(id=SPEC, name="notes", source=SPEC, kind="rules", loc=Location(SPEC, 1, 1),
                            entry_url=None, rules=(self.rule,))
        settings = Settings(out_dir=str(tmp_path), screenshots="off")
        self.events: list[ev.Event] = []
        self.attempt = Attempt(scenario, cast(Any, None), settings, RunContext.create(settings), 1, self.events.append)
        self.session = RecordedSession(reader)
        self.attempt.session = cast(Any, self.session)
        self.state = RuleState(rule=self.rule, scope=None, budget=self.attempt.budget.for_rule(None),
                               observe_ms=1000, guard_ms=200, dismiss=())

    def body(self) -> list[ev.StepFinished]:
        numbered = list(enumerate(self.rule.steps, 1))
        for pos, (index, step) in enumerate(numbered):
            self.state.ahead.plan(numbered, pos)
            run_step(self.attempt, self.state, index, step, role="body")
            self.state.ahead.done()
        return [e for e in self.events if isinstance(e, ev.StepFinished)]


FP = {"tag": "span", "id": "count", "role": "", "text": "3 notes left", "classes": [], "ancestors": ["footer"]}


def test_a_passing_expect_leaves_its_reads_in_the_record(tmp_path: Path) -> None:
    reader = RecordedReader(elements_of={"#count": read(1, hit=True, text="3 notes left", fingerprint=FP)})
    walk = Walk(tmp_path, reader, expect(7, kind="text_contains", selector="#count", value="3 notes"))
    [record] = walk.body()
    assert (record.status, record.reads, record.failure) == ("passed", 2, None)
    # two reads, each also asking for the element's fingerprint (none carried from an earlier run
    # yet): the passing read's is kept, with no read of its own
    assert reader.calls == [("elements", "#count", "text")] * 2
    assert all(q.fingerprint for q in reader.queries)
    kept = walk.attempt.run.fingerprints.get(SPEC, 7, "#count", exact=True)
    assert kept is not None and (kept["id"], kept["text"], kept["age"]) == ("count", "3 notes left", 0)


def test_an_absence_claim_takes_no_fingerprint(tmp_path: Path) -> None:
    reader = RecordedReader(elements_of={"#count": read(0)})
    [record] = Walk(tmp_path, reader, expect(7, kind="selector_absent", selector="#count")).body()
    assert record.status == "passed"
    assert reader.queries and not any(q.fingerprint for q in reader.queries)


def test_a_failing_expect_says_what_it_expected_and_saw(tmp_path: Path) -> None:
    reader = RecordedReader(elements_of={"#count": read(1, text="2 notes left")})
    [record] = Walk(tmp_path, reader, expect(7, kind="has_text", selector="#count", value="3 notes left",
                                             timeout_ms=100)).body()
    assert record.status == "failed" and record.failure is not None
    failure = record.failure
    assert (failure.failure_class, failure.runtime_code) == ("assertion_failed", "EXPECT_STATE_MISMATCH")
    assert failure.expected == "text exactly '3 notes left' in '#count'"
    assert failure.observed == "'#count' text: '2 notes left'"
    assert (failure.path, failure.line) == (SPEC, 7)


def test_consecutive_expects_share_one_interval(tmp_path: Path) -> None:
    reader = RecordedReader(elements_of={"#a": read(1, visible=1), "#b": read(1, visible=1)})
    walk = Walk(tmp_path, reader, expect(7, kind="visible", selector="#a"), expect(8, kind="visible", selector="#b"))
    first, second = walk.body()
    assert first.status == second.status == "passed"
    # #b's first read was taken during #a's interval and counts as its first fresh read
    assert [c[1] for c in reader.calls if c[0] != "match"] == ["#a", "#b", "#a", "#b"]
    assert (first.reads, second.reads) == (2, 2)
