"""Acts whose target the page will not let them reach, against real Chromium, and what the failure
says: an element another one covers names the cover (Playwright only says it timed out), and a
frame block's iframe that Chromium refused to show (X-Frame-Options, CSP frame-ancestors) says so,
not "no element matches"."""

from __future__ import annotations

import socket
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Iterator

import pytest

from flowwalk import events as ev
from flowwalk.serve import LoopbackServer, StaticServer

from test_walker import click, flow, make_settings, rules_of, steps_of, walk  # the walker's builders

pytestmark = pytest.mark.browser

COVER = '<div id="consent" class="modal backdrop">'


def test_a_click_on_a_covered_element_names_what_covers_it(flowwalk_browser: Any, tmp_path: Path,
                                                           site: StaticServer) -> None:
    sc = flow("covered", [click("#buy")], f"{site.url}/walker/overlay.html")
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report", action_timeout_ms=1500))
    failure = rules_of(events)["covered"].failure
    assert failure is not None and failure.runtime_code == "TIMEOUT", failure
    assert failure.message.startswith("click raised: TimeoutError: Locator.click: Timeout 1500ms exceeded. "
                                      f"{COVER}"), failure.message
    assert " covers the element and takes its pointer events; hint: close what covers it first" in failure.message
    assert failure.observed.startswith(COVER) and failure.observed.endswith("</div> intercepts pointer events")


def test_the_cover_closed_first_lets_the_click_through(flowwalk_browser: Any, tmp_path: Path,
                                                       site: StaticServer) -> None:
    sc = flow("uncovered", [click("#accept"), click("#buy")], f"{site.url}/walker/overlay.html")
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report", action_timeout_ms=1500))
    assert rules_of(events)["uncovered"].status == "passed", rules_of(events)["uncovered"].failure


#: path -> (body, headers): a shop page framing a payment form that forbids framing, two ways
PAGES = {
    "/shop": ('<iframe id="pay" src="/pay-xfo"></iframe><iframe id="pay-csp" src="/pay-csp"></iframe>'
              '<iframe id="pay-ok" src="/pay-ok"></iframe>', {}),
    "/pay-xfo": ('<button id="pay">Pay</button>', {"X-Frame-Options": "DENY"}),
    "/pay-csp": ('<button id="pay">Pay</button>', {"Content-Security-Policy": "frame-ancestors 'none'"}),
    "/pay-ok": ('<button id="pay">Pay</button>', {}),
}


class _Framed(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        framing = self.path.startswith("/shop-of?frame=")   # a page framing the URL it is given
        body, headers = ((f'<iframe id="gone" src="{self.path.split("=", 1)[1]}"></iframe>', {}) if framing
                         else PAGES.get(self.path, ("not found", {})))
        data = body.encode()
        self.send_response(200 if framing or self.path in PAGES else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def framed() -> Iterator[LoopbackServer]:
    with LoopbackServer(_Framed) as server:
        yield server


def in_frame(selector: str, step: Any) -> Any:
    block = ev.StepFrame(id=1, kind="frame", title=f"frame '{selector}'", path="specs/frames.flow.yaml", line=4,
                         selector=selector)
    return type(step)(**{**step.__dict__, "frames": (block,)})


@pytest.mark.parametrize(("frame", "why"), [
    ("#pay", "X-Frame-Options: DENY"),
    ("#pay-csp", "Content-Security-Policy: frame-ancestors 'none'"),
], ids=["x-frame-options", "csp-frame-ancestors"])
def test_a_frame_chromium_refused_to_show_says_so(flowwalk_browser: Any, tmp_path: Path, framed: LoopbackServer,
                                                  frame: str, why: str) -> None:
    src = f"{framed.url}/{'pay-xfo' if frame == '#pay' else 'pay-csp'}"
    sc = flow("framed", [in_frame(frame, click("#pay"))], f"{framed.url}/shop")
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report"))
    failure = rules_of(events)["framed"].failure
    assert failure is not None and failure.runtime_code == "ACTION_REJECTED", failure
    assert failure.message.startswith(f"the frame '{frame}' is empty: Chromium refused to show '{src}' in a frame "
                                      f"({why}); "), failure.message
    assert failure.message.endswith("hint: the framed page's X-Frame-Options or Content-Security-Policy "
                                    "frame-ancestors forbids this page to frame it: allow this page's origin there, "
                                    "or goto the framed page and check it on its own")
    assert failure.observed == f"Chromium's error page ({why})"
    assert steps_of(events)[-1].status == "failed"


def test_a_frame_that_may_be_framed_is_entered(flowwalk_browser: Any, tmp_path: Path, framed: LoopbackServer) -> None:
    sc = flow("framed-ok", [in_frame("#pay-ok", click("#pay"))], f"{framed.url}/shop")
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report"))
    assert rules_of(events)["framed-ok"].status == "passed", rules_of(events)["framed-ok"].failure


def test_a_frame_whose_page_did_not_load_says_so(flowwalk_browser: Any, tmp_path: Path, framed: LoopbackServer) -> None:
    with socket.socket() as free:   # a loopback port nothing listens on
        free.bind(("127.0.0.1", 0))
        gone = f"http://127.0.0.1:{free.getsockname()[1]}/pay"
    sc = flow("framed-gone", [in_frame("#gone", click("#pay"))], f"{framed.url}/shop-of?frame={gone}")
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report"))
    failure = rules_of(events)["framed-gone"].failure
    assert failure is not None and failure.runtime_code == "ACTION_REJECTED", failure
    assert failure.message == (f"the frame '#gone' is empty: '{gone}' did not load (net::ERR_CONNECTION_REFUSED); "
                               "hint: check that the framed page answers from where the run is")
