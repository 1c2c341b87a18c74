"""One Chromium per worker: launching it, noticing when it dies, and opening a context per scenario.

Chromium comes from Debian's packages (`settings.executable`, the headless shell when installed);
Playwright's own browser download is never used. With `settings.browser_endpoint` the browser is a
Playwright browser server's instead (`connect`): launched there, with the same executable and flags.
Browser stderr is never a failure: the full `/usr/bin/chromium` prints a harmless shell error on
every start. `Browser.new_session` opens a fresh context + page per scenario attempt; context
creation is on every scenario's critical path, so it carries only what a scenario needs (viewport,
HTTPS errors ignored, default timeouts, the network policy of `network.py`, listeners) and tracing
only when asked.

Opening a context and its page costs 50 to 150 ms (Chromium starts a renderer), and closing one
10 to 25 ms: a worker's scenarios would wait for both in turn. So the browser opens the next
scenario's context and page *ahead* (`prepare_spare`, and `keep_spare`, which the run loop sets
while more scenarios wait for this worker) as a task on the worker's own Playwright event loop,
which runs while the current scenario waits on Chromium, and `new_session` takes it; it closes a
finished context without waiting for the answer (the next close or `close` collects it). Isolation
is unchanged: every scenario attempt still gets a context nothing else used. A spare is made only
for the plain options (no trace, no offline proxy); any other session is opened on the spot. The
spare also carries its session's route (vendors and hosts outside the allowlist), made for the last
session's hosts before its page exists: made once the page exists, a route costs a round trip to
the renderer on the scenario's path (14 ms of every scenario at workers 1). A session for other
hosts routes anew. The
tasks go through Playwright's implementation objects (`_impl_obj`, the same calls the sync API
makes, without waiting for them); `_impl_call` passes every option the sync API would pass.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import os
import socket
import uuid
from typing import TYPE_CHECKING, Any, Callable

from playwright.sync_api import Browser as PwBrowser
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Playwright, sync_playwright

from flowwalk.browser.access import HeaderRoute, credentials_option
from flowwalk.browser.errors import BrowserCrashed, first_line, translated
from flowwalk.browser.network import host_of, is_ip, is_loopback
from flowwalk.browser.seams import private_api_allowed
from flowwalk.browser.scripts import context_script
from flowwalk.browser.session import PageSession, RouteForward
from flowwalk.errors import BrowserLaunchError
from flowwalk.settings import Settings

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

__all__ = ["Browser", "BrowserCrashed", "MARKER_SWITCH", "VIEWPORT", "browser_marker", "start_playwright"]

#: a switch Chromium does not know and ignores, carrying a value unique to one launch
MARKER_SWITCH = "--flowwalk-browser"


def browser_marker() -> str:
    """A value for MARKER_SWITCH that no other launch, in this process or another, shares."""
    return f"{os.getpid()}-{uuid.uuid4().hex[:16]}"

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
        #: the value of this browser's MARKER_SWITCH on its command line ("" when not launched here)
        self.marker = ""
        self._disconnected = False
        self._closed = False
        self._sink: socket.socket | None = None
        #: open the next context + page ahead after each new_session (set by the run loop while
        #: more scenarios wait for this worker; see the module doc)
        self.keep_spare = False
        #: kept open across runs by the one who launched it (walk/resident.py, for `--watch`): a
        #: run's workers walk on it and leave it open; its owner closes it
        self.kept = False
        self._spare: "asyncio.Task[tuple[Any, Any, RouteForward | None]] | None" = None
        #: the hosts of the last plain session: the spare's route is made for them
        self._route_key: tuple[str | None, tuple[str, ...]] | None = None
        #: the context options of the last plain session (its environment): the spare is made with
        #: them, and taken only by a session that asks for the same
        self._spare_options: dict[str, Any] = _plain_options()
        self._spare_made_with: dict[str, Any] | None = None
        self._closing: "set[asyncio.Task[Any]]" = set()
        browser.on("disconnected", lambda _b: self._on_disconnected())

    @classmethod
    def launch(cls, settings: Settings, playwright: Playwright | None = None, *,
               manager: Any | None = None) -> "Browser":
        """Start Chromium. Raises `errors.BrowserLaunchError` when it cannot be started at all.

        Pass the caller's Playwright when it has one: two sync_playwright instances cannot run
        in one thread. `manager`: the `sync_playwright()` that started it, which the browser then
        owns (its close, or a failed launch, stops the driver).
        """
        owned = manager
        try:
            executable = settings.executable
            if not settings.browser_endpoint and not os.path.exists(executable):
                raise BrowserLaunchError(
                    f"Chromium not found at '{executable}'\n"
                    "  hint: install Debian's chromium (the install script does), or point "
                    "FLOWWALK_CHROMIUM / --chromium at an installed Chromium"
                )
            if playwright is None:
                owned = sync_playwright()
                try:
                    playwright = owned.start()
                except Exception as exc:
                    owned = None
                    raise BrowserLaunchError(f"could not start Playwright's driver: {first_line(exc)}") from exc
            marker = "" if settings.browser_endpoint else browser_marker()
            try:
                if settings.browser_endpoint:
                    browser = connect(settings, playwright)
                else:
                    browser = playwright.chromium.launch(
                        executable_path=executable,
                        # the marker is a switch Chromium ignores; it lets the run's watchdog find this
                        # browser's processes and no one else's (walk/watchdog.py)
                        args=[*settings.browser_args, f"{MARKER_SWITCH}={marker}"],
                        headless=True,
                        # the full browser prints errors on stderr at start; Playwright only reads them
                        # into the message of a failed launch, and they never fail a good one
                        timeout=LAUNCH_TIMEOUT_MS,
                    )
            except PlaywrightError as exc:
                if settings.browser_endpoint:
                    raise BrowserLaunchError(connect_problem(settings, exc)) from exc
                raise BrowserLaunchError(
                    f"could not start Chromium at '{executable}': {first_line(exc)}\n"
                    "  hint: check that the executable runs (`"
                    f"{executable} --headless --no-sandbox --version`) and that the launch arguments are valid"
                ) from exc
        except BaseException:
            stop_playwright(owned)   # the launch error is the one worth raising
            raise
        launched = cls(settings, playwright, browser, owned)
        launched.marker = marker
        return launched

    @property
    def playwright(self) -> Playwright:
        """The Playwright this browser was launched with (a relaunch in the same thread needs it)."""
        return self._playwright

    def release_playwright(self) -> Any | None:
        """Hand the `sync_playwright()` manager this browser owns (if any) to the caller, which
        then stops it: the browser's close no longer does. For a thread whose Playwright outlives
        its first browser (walk/run.py's shared browser, relaunched after a crash)."""
        owned, self._owned_playwright = self._owned_playwright, None
        return owned

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
                    trace: bool = False, screencast: bool = True, offline: bool = True,
                    storage_state: dict[str, Any] | None = None,
                    context_options: dict[str, Any] | None = None) -> PageSession:
        """A fresh context + page for one scenario attempt.

        `context_options`: the scenario's environment as `new_context` options (viewport, device,
        locale, time zone, colour scheme, geolocation: environment.py), over the defaults.

        `storage_state`: the cookies and local storage it starts from (a saved session, handed to
        Chromium over Playwright's pipe as data: never a file).

        `trace` starts Playwright's tracing (DOM snapshots; the screencast too when `screencast`).

        `offline` (default on) aborts subresource requests to hosts outside loopback, the entry
        host and `allowed_hosts`, recording each in the session's evidence; analytics vendors are
        always answered locally and top-level navigations always obey the allowlist.

        The run's HTTP headers and credentials (`settings.http_access`) go to the base URL's origin
        only (browser/access.py); such a session is opened on the spot, never from the spare.
        """
        self._check_alive()
        entry_host = host_of(entry_url) if entry_url else None
        access = self.settings.http_access
        options = {**_plain_options(), **(context_options or {}), **credentials_option(access)}
        plain = not trace and not (offline and entry_host) and storage_state is None and not access
        if storage_state is not None:
            options["storage_state"] = storage_state
        if not plain and entry_host and offline:
            options["proxy"] = {"server": self._sink_address(),
                                "bypass": _bypass_list(entry_host, allowed_hosts)}
        opened = self._take_spare(options) if plain else None
        routed: RouteForward | None = None
        try:
            if opened is not None:
                context, page, routed = opened
            else:
                context = self._browser.new_context(**options)
                if trace:
                    # no screencast where a secret can reach the page: pixels cannot be scrubbed
                    context.tracing.start(screenshots=screencast, snapshots=True)
                # the run's headers, for the base URL's origin only (browser/access.py)
                HeaderRoute(access, self.settings.navigation_timeout_ms).install(context)
                page = context.new_page()
            context.set_default_timeout(self.settings.action_timeout_ms)
            context.set_default_navigation_timeout(self.settings.navigation_timeout_ms)
        except PlaywrightError as exc:
            if not self.is_alive():
                raise BrowserCrashed(f"the browser died while opening a context: {first_line(exc)}") from exc
            raise translated(exc) from exc
        session = PageSession(
            context=context,
            page=page,
            entry_url=entry_url,
            allowed_hosts=tuple(allowed_hosts),
            offline=offline,
            tracing=trace,
            browser_alive=self.is_alive,
            scripted=opened is not None,
            init_script=context_script(self.settings.test_id_attribute),
            close_context=self._close_later,
            routed=routed,
        )
        if plain:
            self._route_key = session.route_key
            self._spare_options = options
            if self.keep_spare:
                self.prepare_spare()
        return session

    # --- ahead of time: the next context, the last close (see the module doc) ---------------------

    def prepare_spare(self, *, wait: bool = False) -> None:
        """Start opening a plain context + page (with `context_script()`) for the next `new_session`.

        It progresses whenever this thread waits on Playwright. `wait`: open it now (a thread that
        will block elsewhere next, such as the prelaunched worker). A failure is never raised here:
        `new_session` then opens a context on the spot and reports what goes wrong there.
        """
        if self._spare is not None or not self.is_alive() or not private_api_allowed():
            return
        impl = self._browser._impl_obj
        key = self._route_key
        options = self._spare_options

        async def open_spare() -> tuple[Any, Any, RouteForward | None]:
            context = await _impl_call(impl.new_context, **options)
            forward = None
            try:
                await _impl_call(context.add_init_script, script=context_script(self.settings.test_id_attribute))
                if key is not None:
                    # before the page: a route then costs no round trip to a renderer
                    forward = RouteForward(key)
                    await _impl_call(context.route, url=forward.pattern,
                                     handler=_sync_api(context)._wrap_handler(forward.handle))
                page = await context.new_page()
            except BaseException:
                await _quietly(_impl_call(context.close))
                raise
            return context, page, forward

        task = self._browser._loop.create_task(open_spare())
        task.add_done_callback(_collect)
        self._spare = task
        self._spare_made_with = options
        if wait:
            try:
                self._browser._sync(task)
            except Exception:  # noqa: BLE001 - see the docstring: new_session reports it
                pass

    def _take_spare(self, options: dict[str, Any]) -> "tuple[BrowserContext, Page, RouteForward | None] | None":
        """The spare, when it was made with `options` (else it is closed, and None)."""
        task, self._spare = self._spare, None
        if task is None:
            return None
        if self._spare_made_with != options:
            task.add_done_callback(self._close_unused)
            return None
        try:
            context, page, routed = task.result() if task.done() else self._browser._sync(task)
        except Exception:  # noqa: BLE001 - open one on the spot instead, which reports the problem
            return None
        return _sync_api(context), _sync_api(page), routed

    def _close_unused(self, task: "asyncio.Task[Any]") -> None:
        """A spare made for another environment: its context is closed once it is open."""
        if task.cancelled() or task.exception() is not None or not self.is_alive():
            return
        context = task.result()[0]
        closing = self._browser._loop.create_task(_impl_call(context.close))
        closing.add_done_callback(_collect)
        self._closing.add(closing)

    def _close_later(self, context: "BrowserContext") -> None:
        """Close a finished scenario's context without waiting for Chromium's answer."""
        if not self.is_alive():
            return
        if not private_api_allowed():
            try:
                context.close()
            except Exception:  # noqa: BLE001 - the scenario is over; a context that will not close goes with the browser
                pass
            return
        task = self._browser._loop.create_task(_impl_call(context._impl_obj.close))
        task.add_done_callback(_collect)
        self._closing = {t for t in self._closing if not t.done()}
        self._closing.add(task)

    def _settle(self) -> None:
        """Let the closes and the spare in flight finish (before the browser or its loop goes)."""
        pending = [t for t in (*self._closing, *((self._spare,) if self._spare else ())) if not t.done()]
        self._closing = set()
        if pending and self.is_alive():
            try:
                self._browser._sync(asyncio.wait(pending, timeout=5))
            except Exception:  # noqa: BLE001 - closing anyway
                pass

    def close(self) -> None:
        """Close the browser (and the Playwright driver when `launch` started it). Idempotent."""
        if self._closed:
            return
        self._settle()
        self._closed = True
        try:
            self._browser.close()
        except Exception:  # noqa: BLE001 - a crashed browser cannot be closed; nothing is lost
            pass
        stop_playwright(self._owned_playwright)
        if self._sink is not None:
            self._sink.close()
            self._sink = None

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: how long a browser may take to start (or a browser server to answer and start one)
LAUNCH_TIMEOUT_MS = 60_000
#: what a spec's loopback URLs mean with a browser elsewhere: this machine's, as with a local browser
#: (Playwright tunnels them over the connection), so `--serve` and a local site work alike
EXPOSE_NETWORK = "<loopback>"


def connect(settings: Settings, playwright: Playwright) -> PwBrowser:
    """A Chromium of the Playwright browser server at `settings.browser_endpoint`, launched there
    with flowwalk's own launch options: the executable (Debian's, on the server; the server must
    run with `--unsafe` to take it, else it would look for a browser Playwright downloaded) and the
    launch flags of a local launch (`settings.browser_args`). One browser per connection."""
    import json

    options = {"executablePath": settings.executable, "args": list(settings.browser_args), "headless": True,
               "timeout": LAUNCH_TIMEOUT_MS}
    return playwright.chromium.connect(str(settings.browser_endpoint), timeout=LAUNCH_TIMEOUT_MS,
                                       headers={"x-playwright-launch-options": json.dumps(options)},
                                       expose_network=EXPOSE_NETWORK)


def connect_problem(settings: Settings, exc: BaseException) -> str:
    """Why no browser came from the server, and what to do (the endpoint shown without its query,
    which may carry a service's token)."""
    endpoint = str(settings.browser_endpoint).split("?")[0]
    said = first_line(exc)
    if "Executable doesn't exist" in str(exc) or "executable" in said.lower():
        hint = (f"the server did not launch {settings.executable}: start it with `playwright run-server --unsafe` "
                "(without --unsafe it ignores the executable flowwalk names and looks for a browser Playwright "
                "downloaded), and set FLOWWALK_CHROMIUM to where Chromium is on the server")
    else:
        hint = (f"check that a Playwright {_playwright_version()} browser server (`playwright run-server --unsafe`) "
                f"listens at {endpoint} and that this job can reach it")
    return f"could not get a browser from the browser server at {endpoint}: {said}\n  hint: {hint}"


def _playwright_version() -> str:
    from importlib.metadata import version

    return version("playwright")


def start_playwright() -> tuple[Any, Playwright]:
    """This thread's sync Playwright and the `sync_playwright()` manager that stops it; the driver
    spawned at the start of `flowwalk run` when there is one (browser/driver.py), else a new one.
    Raises what Playwright raises when the driver cannot start."""
    from flowwalk.browser import driver

    manager = sync_playwright()
    with driver.adopted(driver.take()):
        return manager, manager.start()


def stop_playwright(manager: Any | None) -> None:
    """Stop a `sync_playwright()` manager (and its driver), quietly: a driver that is gone already
    has nothing left to stop, and whatever failed before is the error worth reporting. None: no-op."""
    if manager is None:
        return
    try:
        manager.__exit__(None, None, None)
    except Exception:  # noqa: BLE001 - see the docstring
        pass


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


def _plain_options() -> dict[str, Any]:
    """The context options of every session; a spare is made with exactly these."""
    return {
        "viewport": dict(VIEWPORT),
        "ignore_https_errors": True,
        # a service worker's requests bypass routing; beacons and the allowlist need them all
        "service_workers": "block",
    }


def _impl_call(method: Callable[..., Any], **given: Any) -> Any:
    """The coroutine of a Playwright implementation method with every parameter not given set to
    None, as the sync API's wrappers pass them (the implementation's parameters have no defaults)."""
    names = _parameters(getattr(method, "__func__", method))
    unknown = set(given) - set(names)
    if unknown:
        raise TypeError(f"{getattr(method, '__qualname__', method)} takes no {', '.join(sorted(unknown))}")
    return method(**{name: given.get(name) for name in names})


@functools.lru_cache(maxsize=64)
def _parameters(function: Callable[..., Any]) -> tuple[str, ...]:
    """The parameter names of a (bound method's) function, but `self`: read once per function."""
    names = tuple(inspect.signature(function).parameters)
    return names[1:] if names and names[0] == "self" else names


def _sync_api(impl: Any) -> Any:
    """The sync API object of an implementation object (the one the sync API itself would return)."""
    from playwright._impl._sync_base import mapping

    return mapping.from_impl(impl)


def _collect(task: "asyncio.Task[Any]") -> None:
    """Retrieve a background task's exception: nothing waits for it, and none is worth a warning."""
    if not task.cancelled():
        task.exception()


async def _quietly(awaitable: Any) -> None:
    try:
        await awaitable
    except Exception:  # noqa: BLE001 - cleaning up after a failure already being raised
        pass
