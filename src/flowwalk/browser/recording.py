"""What a session records from its page's events: beacons, console, page errors, network, dialogs, popups.

`Recorder` is the part of `PageSession` that listens: every handler runs inside Playwright's
dispatcher, so none may raise, and none asks the page anything (no round trip). The walker reads
what was recorded (`beacons`, `console_errors`, `network`, ...) and decides; nothing here judges.
Dialogs are answered at once, each recorded: as `dialog_plan` says when the walker armed one for
the act that opens it (accepted or dismissed, a prompt answered; a dialog whose message is not the
plan's is dismissed), else alert, confirm and prompt dismissed (Playwright's default) and
`beforeunload` accepted. Popups are closed, each recorded, but for the one an act is armed for
(browser/windows.py).
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Any

from playwright.sync_api import Error as PlaywrightError

from flowwalk.browser.network import Beacon, parse_beacons, vendor_for_host
from flowwalk.model import DialogAnswer

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage, Dialog, Page, Request, Response

__all__ = ["CONSOLE_KEPT", "MAX_RECORDS", "MAX_URL", "Recorder", "clip"]

MAX_CONSOLE_ERRORS = 200
MAX_RECORDS = 100          # blocked requests, dialogs, popups
MAX_MESSAGE = 2000         # characters kept of one console message or page error
MAX_URL = 500
NETWORK_KEPT = 30
CONSOLE_KEPT = 20
# Chromium logs a failed subresource; when it failed on flowwalk's own offline sink it is noise.
_OWN_BLOCK_MARKERS = ("net::ERR_PROXY_CONNECTION_FAILED", "net::ERR_BLOCKED_BY_CLIENT")


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, the last one an ellipsis when it was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Recorder:
    """The records of one session (see the module docstring); `PageSession` wires the handlers."""

    beacons: list[Beacon]
    console_errors: list[str]

    if TYPE_CHECKING:
        def _hold_popup(self, popup: "Page") -> bool:
            """Is `popup` the one an act is armed for (browser/windows.py)? Then it stays open."""

    def _init_records(self) -> None:
        self.beacons = []
        self.console_errors = []
        #: how many console errors and page errors happened (the list keeps the last ones only)
        self.console_error_count = 0
        self.page_errors: deque[str] = deque(maxlen=CONSOLE_KEPT)
        self.console: deque[str] = deque(maxlen=CONSOLE_KEPT)
        self.network: deque[dict[str, Any]] = deque(maxlen=NETWORK_KEPT)
        #: the last documents whose answers said who may frame them: (URL, what they said)
        self.framing: deque[tuple[str, str]] = deque(maxlen=CONSOLE_KEPT)
        self.dialogs: list[dict[str, Any]] = []
        #: how the next alert, confirm or prompt is answered (placeholders resolved), armed by the
        #: walker for one act and spent by the first dialog
        self.dialog_plan: DialogAnswer | None = None
        #: every dialog seen, also past the MAX_RECORDS kept
        self.dialog_count = 0
        self.popups: list[dict[str, Any]] = []
        #: top-level URLs the page committed, in order (last 20)
        self.navigations: deque[str] = deque(maxlen=CONSOLE_KEPT)
        self._t0 = time.monotonic()
        self._pending: dict["Request", tuple[dict[str, Any], float]] = {}

    def t(self) -> float:
        """Seconds since the session opened."""
        return time.monotonic() - self._t0

    def in_flight(self) -> int:
        """How many of the page's requests have no answer yet (discover waits for none)."""
        return len(self._pending)

    def _record_request(self, request: "Request", url: str, host: str) -> None:
        """A request went out: its beacons (a vendor's host) and its network entry."""
        if vendor_for_host(host) is not None:
            try:
                body = request.post_data
            except (UnicodeDecodeError, PlaywrightError):
                buffer = request.post_data_buffer
                body = buffer.decode("utf-8", "replace") if buffer else None
            self.beacons.extend(parse_beacons(url, request.method, body, self.t()))
        entry = {"method": request.method, "url": clip(url, MAX_URL), "resource_type": request.resource_type,
                 "status": None, "duration_ms": None}
        self.network.append(entry)
        self._pending[request] = (entry, time.monotonic())
        if len(self._pending) > 500:   # long polls that never finish must not grow without bound
            self._pending.pop(next(iter(self._pending)))

    def _record_finished(self, request: "Request", status: int | None, failure: str | None) -> None:
        """A request was answered (`status`) or failed (`failure`): its network entry's outcome and time."""
        pending = self._pending.pop(request, None)
        if pending is None:
            return
        entry, started = pending
        entry["status"] = status
        if failure:
            entry["failure"] = failure
        timing = request.timing
        if status is not None and timing and timing.get("responseStart", -1) >= 0:
            entry["duration_ms"] = round(float(timing["responseStart"]), 1)
        else:
            entry["duration_ms"] = round((time.monotonic() - started) * 1000, 1)

    def load_failure(self, url: str) -> tuple[str | None, str | None]:
        """Why the document `url` did not show, as recorded: the net error of its last request that
        failed (`net::ERR_CONNECTION_REFUSED`), and what its answer said against being framed
        (`X-Frame-Options: DENY`); None for what has no record."""
        clipped = clip(url, MAX_URL)
        failure = next((str(e["failure"]) for e in reversed(self.network)
                        if e["url"] == clipped and e.get("failure")), None)
        refusal = next((said for where, said in reversed(self.framing) if where == clipped), None)
        return failure, refusal

    def _record_framing(self, response: "Response") -> None:
        """A document's answer that says who may frame it (X-Frame-Options, CSP frame-ancestors):
        kept for `load_failure`. Reads only what the event carries (no round trip)."""
        try:
            if response.request.resource_type != "document":
                return
            headers = response.headers
            said = [f"X-Frame-Options: {headers['x-frame-options']}"] if "x-frame-options" in headers else []
            policy = headers.get("content-security-policy", "").replace("\n", ";").replace(",", ";")
            said += [f"Content-Security-Policy: {d.strip()}" for d in policy.split(";")
                     if d.strip().lower().startswith("frame-ancestors")]
            if said:
                self.framing.append((clip(response.url, MAX_URL), clip(", ".join(said), MAX_MESSAGE)))
        except Exception:  # noqa: BLE001 - a listener never raises
            pass

    def _on_console(self, message: "ConsoleMessage") -> None:
        kind = message.type
        text = clip(message.text, MAX_MESSAGE)
        self.console.append(f"{kind}: {text}")
        if kind == "error" and not any(marker in text for marker in _OWN_BLOCK_MARKERS):
            self._add_error(text)

    def _on_page_error(self, error: Any) -> None:
        name = getattr(error, "name", "") or "Error"
        message = getattr(error, "message", "") or str(error)
        text = clip(f"{name}: {message}" if not message.startswith(name) else message, MAX_MESSAGE)
        self.page_errors.append(text)
        self._add_error(text)

    def _add_error(self, text: str) -> None:
        self.console_error_count += 1
        self.console_errors.append(text)
        if len(self.console_errors) > MAX_CONSOLE_ERRORS:
            del self.console_errors[0]

    def _on_dialog(self, dialog: "Dialog") -> None:
        kind, message = dialog.type, dialog.message
        plan = None if kind == "beforeunload" else self.dialog_plan
        if plan is not None:
            self.dialog_plan = None
            accept = plan.accept and (plan.message is None or message == plan.message)
        else:
            accept = kind == "beforeunload"
        self.dialog_count += 1
        if len(self.dialogs) < MAX_RECORDS:
            self.dialogs.append({"type": kind, "message": clip(message, MAX_MESSAGE),
                                 "action": "accepted" if accept else "dismissed", "planned": plan is not None,
                                 "t": round(self.t(), 3)})
        try:
            if accept:
                # a prompt accepted without an answer returns its default text, as OK in a browser does
                answer = plan.answer if plan is not None else None
                dialog.accept(answer if answer is not None else dialog.default_value)
            else:
                dialog.dismiss()
        except PlaywrightError:
            pass

    def _on_popup(self, popup: "Page") -> None:
        kept = self._hold_popup(popup)
        if len(self.popups) < MAX_RECORDS:
            self.popups.append({"url": clip(popup.url, MAX_URL), "t": round(self.t(), 3),
                                "action": "kept" if kept else "closed"})
        if kept:
            return
        try:
            popup.close()
        except PlaywrightError:
            pass
