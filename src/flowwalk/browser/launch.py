"""One Chromium per worker: launching it, noticing when it dies, and opening a context per scenario.

Chromium comes from Debian's packages (`settings.executable`, the headless shell when installed);
Playwright's own browser download is never used. Browser stderr is never a failure: the full
`/usr/bin/chromium` prints a harmless shell error on every start. `Browser.new_session` opens a
fresh context + page per scenario attempt; context creation is on every scenario's critical path,
so it carries only what a scenario needs (viewport, HTTPS errors ignored, default timeouts, the
network policy of `network.py`, listeners) and tracing only when asked.
"""

from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING, Any

from playwright.sync_api import Browser as PwBrowser
from playwright.sync_api import Playwright, sync_playwright

from flowwalk.browser.errors import BrowserCrashed, PlaywrightError, first_line
from flowwalk.browser.network import host_of, is_ip, is_loopback
from flowwalk.browser.session import PageSession
from flowwalk.errors import BrowserLaunchError
from flowwalk.settings import Settings

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

__all__ = ["Browser", "BrowserCrashed", "VIEWPORT"]

#: fixed so that screenshots and layout-dependent checks are the same on every machine
VIEWPORT = {"width": 1280, "height": 720}


class Browser:
    """One launched Chromium. `launch`, then `new_session` per scenario attempt, then `close`."""

    def __init__(self, settings: Settings, playwright: Playwright, browser: PwBrowser,
                 owned_playwright: Any | None):
        self.settings = settings
        self._playwright = playwright
        self._browser = browser
        self._owned_playwright = owned_playwright   # the sync_playwright() manager we started, if any
        self._disconnected = False
        self._closed = False
        self._sink: socket.socket | None = None
        browser.on("disconnected", lambda _b: self._on_disconnected())

    @classmethod
    def launch(cls, settings: Settings, playwright: Playwright | None = None) -> "Browser":
        """Start Chromium. Raises `errors.BrowserLaunchError` when it cannot be started at all.

        Pass the caller's Playwright when it has one: two sync_playwright instances cannot run
        in one thread.
        """
        executable = settings.executable
        if not os.path.exists(executable):
            raise BrowserLaunchError(
                f"Chromium not found at '{executable}'\n"
                "  hint: install Debian's chromium (the install script does), or point "
                "FLOWWALK_CHROMIUM / --chromium at an installed Chromium"
            )
        owned = None
        if playwright is None:
            owned = sync_playwright()
            try:
                playwright = owned.start()
            except Exception as exc:
                raise BrowserLaunchError(f"could not start Playwright's driver: {first_line(exc)}") from exc
        try:
            browser = playwright.chromium.launch(
                executable_path=executable,
                args=list(settings.browser_args),
                headless=True,
                # the full browser prints errors on stderr at start; Playwright only reads them
                # into the message of a failed launch, and they never fail a good one
                timeout=60_000,
            )
        except PlaywrightError as exc:
            if owned is not None:
                owned.__exit__(None, None, None)
            raise BrowserLaunchError(
                f"could not start Chromium at '{executable}': {first_line(exc)}\n"
                "  hint: check that the executable runs (`"
                f"{executable} --headless --no-sandbox --version`) and that the launch arguments are valid"
            ) from exc
        return cls(settings, playwright, browser, owned)

    # --- liveness ---------------------------------------------------------------------------------

    def _on_disconnected(self) -> None:
        self._disconnected = True

    def is_alive(self) -> bool:
        """False once the browser process died or disconnected (or was closed)."""
        return not self._closed and not self._disconnected and self._browser.is_connected()

    def _check_alive(self) -> None:
        if not self.is_alive():
            raise BrowserCrashed("the browser is not running (it crashed or was closed)")

    # --- sessions ---------------------------------------------------------------------------------

    def _sink_address(self) -> str:
        """A loopback port that refuses every connection: the proxy of blocked hosts.

        Routing cannot see the hops of an HTTP redirect, so offline sessions also send every
        non-allowlisted host to this proxy: the request fails at once with
        ERR_PROXY_CONNECTION_FAILED, and no DNS lookup of an outside host ever happens. The
        socket is bound but never listens, so the port stays ours and refuses connections.
        """
        if self._sink is None:
            sink = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sink.bind(("127.0.0.1", 0))
            self._sink = sink
        host, port = self._sink.getsockname()[:2]
        return f"http://{host}:{port}"

    def new_session(self, *, entry_url: str | None, allowed_hosts: tuple[str, ...],
                    trace: bool = False, offline: bool = True) -> PageSession:
        """A fresh context + page for one scenario attempt.

        `offline` (default on) aborts subresource requests to hosts outside loopback, the entry
        host and `allowed_hosts`, recording each in the session's evidence; analytics vendors are
        always answered locally and top-level navigations always obey the allowlist.
        """
        self._check_alive()
        entry_host = host_of(entry_url) if entry_url else None
        options: dict[str, Any] = {
            "viewport": VIEWPORT,
            "ignore_https_errors": True,
            # a service worker's requests bypass routing; beacons and the allowlist need them all
            "service_workers": "block",
        }
        if offline and entry_host:
            options["proxy"] = {"server": self._sink_address(),
                                "bypass": _bypass_list(entry_host, allowed_hosts)}
        try:
            context: BrowserContext = self._browser.new_context(**options)
            context.set_default_timeout(self.settings.action_timeout_ms)
            context.set_default_navigation_timeout(self.settings.navigation_timeout_ms)
            if trace:
                context.tracing.start(screenshots=True, snapshots=True)
            page = context.new_page()
        except PlaywrightError as exc:
            if not self.is_alive():
                raise BrowserCrashed(f"the browser died while opening a context: {first_line(exc)}") from exc
            raise
        return PageSession(
            context=context,
            page=page,
            entry_url=entry_url,
            allowed_hosts=tuple(allowed_hosts),
            offline=offline,
            tracing=trace,
            browser_alive=self.is_alive,
        )

    def close(self) -> None:
        """Close the browser (and the Playwright driver when `launch` started it). Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            self._browser.close()
        except Exception:  # noqa: BLE001 - a crashed browser cannot be closed; nothing is lost
            pass
        if self._owned_playwright is not None:
            try:
                self._owned_playwright.__exit__(None, None, None)
            except Exception:  # noqa: BLE001
                pass
        if self._sink is not None:
            self._sink.close()
            self._sink = None

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _bypass_list(entry_host: str, allowed_hosts: tuple[str, ...]) -> str:
    """Chromium's proxy bypass rules for the hosts an offline session may reach directly."""
    rules = ["localhost", "*.localhost", "127.0.0.1", "[::1]"]
    for host in (entry_host, *allowed_hosts):
        host = host.lower().rstrip(".")
        if not host:
            continue
        rules.append(f"[{host}]" if ":" in host else host)
        if not (is_ip(host) or is_loopback(host)):
            rules.append(f"*.{host}")
    return ",".join(rules)
