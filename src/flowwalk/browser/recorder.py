"""The recorder's browser: a Chromium whose pages report what a person does (`js/recorder.js`).

`Recording` starts Chromium (headed for a person, headless for the tests that drive it with
Playwright's own mouse and keyboard), opens one context with the recorder's init script and the
binding its pages call, and keeps every report as a `Recorded`: the page's record, which page it
came from (0 the first, popups numbered as they open), the iframes it is inside (each as the
selector and fingerprint of its `<iframe>` element, outermost first) and when it arrived.
Beside the page's records it adds its own: `popup` (a page opened by another), `closed`,
`navigated` (a top document's new URL) and `dialog` (an alert, confirm or prompt, with how it
was answered: `answer_dialog` decides, the console asks the person, a test answers itself).

Nothing here turns records into steps (record/transcript.py does); nothing is written to a file.
A secret's value never reaches Python: the page sends a secret field's fill without it.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from flowwalk.browser.launch import Browser
from flowwalk.browser.scripts import context_script, script
from flowwalk.browser.session import PageSession
from flowwalk.errors import BrowserLaunchError
from flowwalk.settings import Settings

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Dialog, Frame, Page, Playwright

__all__ = ["BINDING", "DialogAnswer", "LentBrowser", "Recorded", "Recording"]

BINDING = "__flowwalk_record"
#: Playwright's own default wait for an act and a navigation, which a person's recording keeps
PLAYWRIGHT_TIMEOUT_MS = 30_000
#: (accepted, the prompt's answer or None)
DialogAnswer = tuple[bool, "str | None"]


@dataclass(frozen=True)
class Recorded:
    """One report: `record` as the page (or the recorder) gave it, on page `page`, inside `frames`."""

    record: dict[str, Any]
    page: int = 0
    frames: tuple[dict[str, Any], ...] = ()
    at: float = field(default_factory=time.monotonic)


def _dismiss(kind: str, message: str, default: str) -> DialogAnswer:
    return (kind in ("alert", "beforeunload"), None)


class Recording:
    """One recording's browser, context and reports (see the module docstring)."""

    def __init__(self, *, executable: str, headless: bool, args: tuple[str, ...] = (),
                 context_options: dict[str, Any] | None = None, storage_state: dict[str, Any] | None = None,
                 test_ids: tuple[str, ...] = (), answer_dialog: Callable[[str, str, str], DialogAnswer] = _dismiss,
                 playwright: Playwright | None = None):
        """`playwright`: the caller's, when it has one (two sync Playwrights cannot share a thread)."""
        self.records: list[Recorded] = []
        self.stopped = False
        #: while set, nothing is recorded and dialogs are left to whoever acts (`quiet`)
        self._quiet = False
        self._answer = answer_dialog
        self._pages: list[Page] = []
        self._frames: dict[int, tuple[dict[str, Any], ...]] = {}
        self._manager = sync_playwright() if playwright is None else None
        if self._manager is not None:
            try:
                playwright = self._manager.start()
            except Exception as exc:
                raise BrowserLaunchError(f"could not start Playwright's driver: {exc}") from exc
        assert playwright is not None
        self.playwright = playwright
        try:
            self._browser = playwright.chromium.launch(executable_path=executable, headless=headless, args=list(args))
            options = dict(context_options or {})
            if storage_state is not None:
                options["storage_state"] = storage_state
            self.context: BrowserContext = self._browser.new_context(**options)
            self.context.add_init_script(context_script(test_ids) if test_ids else context_script())
            self.context.add_init_script(script("recorder"))
            self.context.expose_binding(BINDING, self._on_record)
            self.context.on("page", self._on_page)
        except PlaywrightError as exc:
            self._stop()
            raise BrowserLaunchError(f"could not start Chromium at '{executable}': {str(exc).splitlines()[0]}") from exc

    # --- the pages ---------------------------------------------------------------------------------

    def open(self, url: str | None) -> Page:
        """The first page, at `url` (its load is no step: it is the spec's `url`); blank with None."""
        page = self.context.new_page()
        if url is not None:
            page.goto(url)
        return page

    def goto(self, url: str) -> None:
        """The first page to `url`."""
        self._pages[0].goto(url)

    @property
    def browser(self) -> Any:
        """The Chromium of the recording (Playwright's `Browser`)."""
        return self._browser

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """While inside, what happens on the pages is not recorded and dialogs are answered by
        whoever acts (a spec walked before the person records: record/walked.py). At the end the
        reports still on their way are let in and dropped, and each open page's address is taken
        as where it is, so the first step recorded after is not its load."""
        self._quiet = True
        try:
            yield
        finally:
            try:
                self.settle()
            finally:
                self._quiet = False
            for index, page in enumerate(self._pages):
                if not page.is_closed():
                    self._add({"kind": "navigated", "url": page.url, "start": True}, index)

    @property
    def pages(self) -> list[Page]:
        return list(self._pages)

    def _on_page(self, page: Page) -> None:
        index = len(self._pages)
        self._pages.append(page)
        opener = page.opener() if index else None
        if opener is not None and opener in self._pages:
            self._add({"kind": "popup", "opener": self._pages.index(opener)}, index)
        page.on("dialog", lambda dialog: self._on_dialog(index, dialog))
        page.on("framenavigated", lambda frame: self._on_navigated(index, page, frame))
        page.on("close", lambda _: self._add({"kind": "closed"}, index))

    def _on_navigated(self, index: int, page: Page, frame: Frame) -> None:
        if frame == page.main_frame:
            self._add({"kind": "navigated", "url": frame.url}, index)

    def _on_dialog(self, index: int, dialog: Dialog) -> None:
        if self._quiet:
            return
        kind, message, default = dialog.type, dialog.message, dialog.default_value
        accept, answer = self._answer(kind, message, default)
        try:
            if accept:
                dialog.accept(answer if kind == "prompt" and answer is not None else "")
            else:
                dialog.dismiss()
        except PlaywrightError:
            pass   # the page went away with its dialog: what the person answered is still recorded
        self._add({"kind": "dialog", "type": kind, "message": message, "accept": accept,
                   "answer": answer if kind == "prompt" and accept else None}, index)

    def _on_record(self, source: dict[str, Any], record: Any) -> None:
        if not isinstance(record, dict) or not isinstance(record.get("kind"), str):
            return
        page, frame = source.get("page"), source.get("frame")
        index = self._pages.index(page) if page in self._pages else 0
        if record["kind"] == "stop":
            self.stopped = True
        self._add(record, index, self._frames_of(frame) if frame is not None else ())

    def _frames_of(self, frame: Frame) -> tuple[dict[str, Any], ...]:
        """The iframes `frame` is inside, outermost first, each named by the selector writer."""
        if frame.parent_frame is None:
            return ()
        key = id(frame)
        if key not in self._frames:
            try:
                element = frame.frame_element()
                named = element.evaluate(script("recorded_element"))
            except PlaywrightError:
                named = {"selector": "iframe", "fp": None}
            self._frames[key] = (*self._frames_of(frame.parent_frame), dict(named))
        return self._frames[key]

    def _add(self, record: dict[str, Any], page: int, frames: tuple[dict[str, Any], ...] = ()) -> None:
        if self._quiet:
            return
        self.records.append(Recorded(record, page, frames))

    # --- waiting and ending ------------------------------------------------------------------------

    def settle(self, ms: int = 150) -> None:
        """Let the pages' reports arrive: Playwright hands events over only inside one of its calls."""
        open_pages = [p for p in self._pages if not p.is_closed()]
        if open_pages:
            open_pages[0].wait_for_timeout(ms)

    def wait_until_done(self, poll_ms: int = 200) -> None:
        """Until the person presses Stop, closes every page or the browser."""
        while not self.stopped and self._browser.is_connected():
            open_pages = [p for p in self._pages if not p.is_closed()]
            if not open_pages:
                return
            try:
                open_pages[0].wait_for_timeout(poll_ms)
            except PlaywrightError:
                return

    def close(self) -> None:
        try:
            self._browser.close()
        except PlaywrightError:
            pass
        self._stop()

    def _stop(self) -> None:
        if self._manager is not None:
            self._manager.__exit__(None, None, None)
            self._manager = None


class LentBrowser(Browser):
    """The recording's Chromium as a run's browser (record/walked.py walks specs on it before the
    person records): every session is over the recording's context and first page, and nothing a
    run closes is closed; `release` gives both back to the recording."""

    def __init__(self, settings: Settings, recording: Recording):
        super().__init__(settings, recording.playwright, recording.browser, None)
        self.kept = True
        self._recording = recording
        self._sessions: list[PageSession] = []

    def new_session(self, *, entry_url: str | None, allowed_hosts: tuple[str, ...], trace: bool = False,
                    screencast: bool = True, offline: bool = True, storage_state: dict[str, Any] | None = None,
                    context_options: dict[str, Any] | None = None) -> PageSession:
        # the context is the recording's: a dependant's session is already in it, from its setup
        self.release()
        context = self._recording.context
        context.set_default_timeout(self.settings.action_timeout_ms)
        context.set_default_navigation_timeout(self.settings.navigation_timeout_ms)
        session = PageSession(context=context, page=self._recording.pages[0], entry_url=entry_url,
                              allowed_hosts=tuple(allowed_hosts), offline=False, browser_alive=self.is_alive,
                              scripted=True, close_context=lambda _context: None)
        self._sessions.append(session)
        return session

    def release(self) -> None:
        """Give the context back to the recording: no session listens to it or routes it."""
        for session in self._sessions:
            session.release()
        self._sessions.clear()
        self._recording.context.set_default_timeout(PLAYWRIGHT_TIMEOUT_MS)
        self._recording.context.set_default_navigation_timeout(PLAYWRIGHT_TIMEOUT_MS)

    def prepare_spare(self, *, wait: bool = False) -> None:
        return None

    def close(self) -> None:
        return None
