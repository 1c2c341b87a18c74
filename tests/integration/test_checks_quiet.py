"""RFC 010's guarantee without its wait, differentially: on pages whose state changes in each way the
second read exists for, a check gives the same verdict with the page's record of stillness
(js/prelude.js `fw.quiet`) as with two reads, run after run; and on a still page the record does
spare the second read.

The checks run on the `paced` clock (tests/integration/conftest.py), on which a read takes no time:
no read is stale however loaded the machine. A check that must end before the page changes has the
change come 10 s after the load, far past the check's end even when the machine is slow."""

from __future__ import annotations

import time
from typing import Any

import pytest

from flowwalk.browser import PageSession
from flowwalk.errors import Location
from flowwalk.model import Expect, Stabilize
from flowwalk.serve import StaticServer
from flowwalk.walk.checks import run_check

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("paced")]

RUNS = 6
TWO = Stabilize(stable_reads=2, interval_ms=100)


def expect(kind: str, **fields: Any) -> Expect:
    return Expect(loc=Location("tests/quiet.rules.yaml", 4, 5), text=f"expect {kind}", kind=kind, **fields)


#: (mode, wait after load in ms, the check, its timeout in ms, the verdict two reads give)
CASES = [
    ("flicker", 0, expect("text_contains", selector="#t", value="tick"), 2000, True),
    ("flicker", 0, expect("text_contains", selector="#t", value="done"), 600, False),
    ("counter", 0, expect("count", selector="#list li", count=5), 3000, True),
    ("counter", 0, expect("text_matches", selector="#t", value=r"count \d+"), 2000, True),
    ("counter", 0, expect("selector_exists", selector="#t"), 2000, True),
    # still visible for 10 s after the transition starts: two reads 100 ms apart both see it, even late
    ("transition&delay=10000", 0, expect("visible", selector="#box"), 400, True),
    ("transition", 0, expect("hidden", selector="#box"), 3000, True),
    ("image", 0, expect("visible", selector="#below"), 3000, True),
    ("image", 0, expect("text_contains", value="below the image"), 3000, True),
    ("pushstate&at=10000", 0, expect("url_not_contains", value="step=2"), 300, True),
    ("pushstate", 0, expect("url_contains", value="step=2"), 3000, True),
    ("setprop&at=10000", 0, expect("unchecked", selector="#c"), 300, True),
    ("setprop", 0, expect("checked", selector="#c"), 3000, True),
    ("setprop", 0, expect("input_value", selector="#v", value="late"), 3000, True),
    # never checked for two reads 100 ms apart; a read inside a blip sees a page that is not still
    ("blip", 0, expect("checked", selector="#c"), 1500, False),
    ("blip", 0, expect("input_value", selector="#v", value="late"), 1500, False),
    ("still", 200, expect("text_contains", selector="#t", value="Ready"), 2000, True),
    ("still", 200, expect("checked", selector="#c2"), 2000, True),
    ("still", 200, expect("input_value", selector="#v", value="early"), 2000, True),
    ("still", 200, expect("hidden", selector="#missing"), 2000, True),
    ("still", 200, expect("has_text", selector="#t", value="Gone"), 500, False),
    # inside a shadow root the HTML declares (<template shadowrootmode>), which no attachShadow shows
    ("dsd-flicker", 0, expect("text_contains", selector="#dt", value="tick"), 2000, True),
    ("dsd-blip", 0, expect("text_contains", selector="#dt", value="Saved"), 1500, False),
    ("still", 200, expect("text_contains", selector="#dt", value="Ready"), 2000, True),
]


def verdict(session: PageSession, site: StaticServer, mode: str, settle_ms: int, check: Expect, timeout_ms: int,
            quiet: bool) -> Any:
    session.goto(f"{site.url}/browser/quiet.html?mode={mode}", timeout_ms=10_000)
    if settle_ms:
        time.sleep(settle_ms / 1000)
    return run_check(session, check, scope=None, timeout_ms=timeout_ms, stabilize=TWO, quiet=quiet)


@pytest.mark.parametrize("mode, settle_ms, check, timeout_ms, two_reads_say", CASES,
                         ids=[f"{c[0]}-{c[2].kind}-{c[2].value or c[2].selector}" for c in CASES])
def test_the_record_and_two_reads_agree_run_after_run(session: PageSession, site: StaticServer, mode: str,
                                                      settle_ms: int, check: Expect, timeout_ms: int,
                                                      two_reads_say: bool) -> None:
    seen = []
    for _ in range(RUNS):
        reads = verdict(session, site, mode, settle_ms, check, timeout_ms, quiet=False)
        record = verdict(session, site, mode, settle_ms, check, timeout_ms, quiet=True)
        seen.append((reads.passed, record.passed, reads.runtime_code, record.runtime_code, record.stability))
        assert reads.stability == "reads"
    assert all(r == two_reads_say and q == two_reads_say and rc == qc for r, q, rc, qc, _ in seen), seen
    if mode == "still" and two_reads_say:
        # the page had been still: the record spared the second read every time
        assert all(how == "quiet" for *_, how in seen), seen
    if mode in ("flicker", "dsd-flicker"):
        # the page never stood still for an interval: every pass rested on two reads (the counter
        # ticks every 100 ms, and a late tick can leave it still for just over one)
        assert all(how == "reads" for *_, how in seen), seen


def test_a_still_page_passes_on_one_read_without_waiting_an_interval(session: PageSession, site: StaticServer) -> None:
    result = verdict(session, site, "still", 200, expect("selector_exists", selector="#t"), 2000, quiet=True)
    # one read, and so no interval waited (the loop returns before its first wait)
    assert result.passed and result.reads == 1 and result.stability == "quiet" and result.quiet_ms >= 100


def test_a_page_that_changed_just_before_passes_once_the_record_covers_the_interval(
        session: PageSession, site: StaticServer) -> None:
    # changed 30 ms before the check: the second read comes when the record can show the whole
    # interval, and passes on it (two reads one interval apart would say "reads")
    for _ in range(3):
        session.goto(f"{site.url}/browser/quiet.html?mode=still", timeout_ms=10_000)
        time.sleep(0.2)
        session.playwright_page.evaluate("() => { document.getElementById('t').textContent = 'Saved'; }")
        time.sleep(0.03)
        result = run_check(session, expect("text_contains", selector="#t", value="Saved"), scope=None,
                           timeout_ms=2000, stabilize=TWO)
        assert result.passed and result.stability == "quiet", result
        # on a loaded machine the first read can come a whole interval after the change: the record
        # then shows the interval at once (a fresh clone's CI run saw it, 100.3 ms still)
        assert result.reads == 2 or (result.reads == 1 and result.quiet_ms >= 100), result


def test_a_script_setting_a_controls_state_resets_the_record(session: PageSession, site: StaticServer) -> None:
    session.goto(f"{site.url}/browser/quiet.html?mode=still", timeout_ms=10_000)
    time.sleep(0.3)
    ages = session.playwright_page.evaluate("""() => {
      const q = window[Symbol.for('flowwalk.quiet')];
      const age = () => { q.flush(); return performance.now() - q.dom; };
      const out = { before: age() };
      document.getElementById('c').checked = true;
      out.checked = age();
      return new Promise((done) => setTimeout(() => {
        out.later = age();
        document.getElementById('v').value = 'x';
        out.value = age();
        done(out);
      }, 150));
    }""")
    assert ages["before"] >= 250 and ages["checked"] < 50 and ages["later"] >= 100 and ages["value"] < 50, ages
    # the page still sees its own values
    assert session.playwright_page.evaluate("() => [document.getElementById('c').checked, document.getElementById('v').value]") \
        == [True, "x"]


@pytest.mark.parametrize("how", ["attachShadow", "parsed", "setHTMLUnsafe"])
def test_a_mutation_inside_a_shadow_root_resets_the_record(session: PageSession, site: StaticServer,
                                                           how: str) -> None:
    # a root a script attaches (a closed one too: attachShadow is wrapped), and one the HTML
    # declares, which the parser attaches with no attachShadow call: the page's record finds it
    # once the document is parsed, or after setHTMLUnsafe put it there
    session.goto(f"{site.url}/browser/quiet.html?mode=still", timeout_ms=10_000)
    session.playwright_page.evaluate("""(how) => {
      if (how === 'attachShadow') {
        const host = document.body.appendChild(document.createElement('div'));
        window.__span = host.attachShadow({ mode: 'closed' }).appendChild(document.createElement('span'));
      } else if (how === 'parsed') {
        window.__span = document.getElementById('dsd').shadowRoot.getElementById('dt');
      } else {
        const host = document.body.appendChild(document.createElement('section'));
        host.setHTMLUnsafe('<div><template shadowrootmode="open"><span>a</span></template></div>');
        window.__span = host.firstElementChild.shadowRoot.firstElementChild;
      }
    }""", how)
    time.sleep(0.3)
    ages = session.playwright_page.evaluate("""() => {
      const q = window[Symbol.for('flowwalk.quiet')];
      q.flush();
      const before = performance.now() - q.dom;
      window.__span.textContent = 'changed';
      q.flush();
      return { before, after: performance.now() - q.dom };
    }""")
    assert ages["before"] >= 250 and ages["after"] < 50, ages
