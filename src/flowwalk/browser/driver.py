"""Playwright's driver, started before Python has imported Playwright.

A run's first result waits on the driver more than on anything else: Node.js loading Playwright's
server takes about 0.3 s before it answers, the browser cannot be launched before it does, and
Python must first import Playwright (~0.1 s) to start it the ordinary way. `flowwalk run` therefore
spawns the driver as its very first act (`spawn`, from `flowwalk.entry`, before even the command
line is parsed), with exactly the command, environment and pipes Playwright's own pipe transport
uses, and worker 1 adopts it when it starts Playwright (`adopted`): the driver loads while Python
imports, reads the settings and the specs.

Adoption goes through one private seam of Playwright for Python: the `PipeTransport` class that
`playwright._impl.out_of_process` instantiates. `install` replaces it there with a subclass whose
`connect` takes the process spawned early (when the calling thread holds one) and otherwise starts
one as Playwright would. When that seam is not there in the installed Playwright (checked at
adoption, so that `spawn` imports nothing of Playwright's client), the early driver is stopped and
the start is the ordinary one; an early driver nobody adopts is stopped at exit; one that died is
left for the ordinary start, which reports any error itself.
"""

from __future__ import annotations

import atexit
import subprocess
import sys
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

__all__ = ["adopted", "spawn", "take"]

_lock = threading.Lock()
_early: "subprocess.Popen[bytes] | None" = None
_local = threading.local()


def spawn() -> bool:
    """Start Playwright's driver now, for the run's first worker to adopt. True when it started.

    Never raises: whatever goes wrong leaves the ordinary start to do the work (and report it).
    """
    global _early
    with _lock:
        if _early is not None:
            return True
        try:
            # only the driver's location and environment: not Playwright's client (see adopted)
            from playwright._impl._driver import compute_driver_executable, get_driver_env

            node, cli = compute_driver_executable()
            _early = subprocess.Popen([node, cli, "run-driver"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=_stderr_fileno(), env=get_driver_env())
        except Exception:  # noqa: BLE001 - see the docstring
            _early = None
            return False
        atexit.register(_stop_unadopted)
        return True


def take() -> "subprocess.Popen[bytes] | None":
    """The early driver, if one runs and nobody took it yet (it is then the caller's)."""
    global _early
    with _lock:
        process, _early = _early, None
    if process is not None and process.poll() is not None:
        return None  # it died: the ordinary start reports why
    return process


class adopted:
    """`with adopted(process): sync_playwright().start()`: that start uses `process` as its driver.

    `process` None is the ordinary start. The process belongs to the Playwright started inside:
    its stop closes the pipe, and the driver exits.
    """

    def __init__(self, process: "subprocess.Popen[bytes] | None"):
        self._process = process

    def __enter__(self) -> "adopted":
        if self._process is not None:
            if install():
                _local.process = self._process
            else:
                _kill(self._process)   # the ordinary start, with a driver of its own
        return self

    def __exit__(self, *exc: object) -> None:
        process = getattr(_local, "process", None)
        _local.process = None
        if process is not None:  # not taken: the start failed before connecting
            _kill(process)


def install() -> bool:
    """Put the adopting transport where Playwright's client looks for its transport (idempotent).
    False when the installed Playwright has no such seam (see the module doc)."""
    from flowwalk.browser.seams import private_api_allowed

    with _lock:
        if not private_api_allowed() or not _seam_present():
            return False
        from playwright._impl import out_of_process

        current = getattr(out_of_process, "PipeTransport")
        if not getattr(current, "_flowwalk_adopting", False):
            setattr(out_of_process, "PipeTransport", _adopting_transport(current))
        return True


def _seam_present() -> bool:
    """Playwright's client still builds its transport from `out_of_process.PipeTransport`, whose
    `connect` sets `_proc` (stdin, stdout, communicate) and `_output`, and nothing else."""
    import inspect

    try:
        from playwright._impl import out_of_process, transport
    except ImportError:
        return False
    cls = getattr(out_of_process, "PipeTransport", None)
    if cls is None or not issubclass(cls, transport.PipeTransport):
        return False
    if getattr(cls, "_flowwalk_adopting", False):
        return True
    try:
        source = inspect.getsource(transport.PipeTransport.connect)
    except (OSError, TypeError):
        return False
    return "self._proc = " in source and "self._output = self._proc.stdin" in source


def _adopting_transport(base: Any) -> Any:
    class AdoptingPipeTransport(base):  # type: ignore[misc]
        _flowwalk_adopting = True

        async def connect(self) -> None:
            import asyncio

            process = getattr(_local, "process", None)
            if process is None:
                await super().connect()
                return
            _local.process = None
            self._stopped_future: asyncio.Future[None] = asyncio.Future()
            try:
                self._proc = await _AdoptedProcess.wrap(process)
            except Exception as exc:
                _kill(process)
                self.on_error_future.set_exception(exc)
                raise
            self._output = self._proc.stdin

    return AdoptingPipeTransport


class _AdoptedProcess:
    """What PipeTransport uses of an asyncio subprocess (stdin, stdout, communicate), over a Popen."""

    def __init__(self, process: "subprocess.Popen[bytes]", stdin: asyncio.StreamWriter,
                 stdout: asyncio.StreamReader):
        self._process = process
        self.stdin = stdin
        self.stdout = stdout

    @classmethod
    async def wrap(cls, process: "subprocess.Popen[bytes]") -> "_AdoptedProcess":
        import asyncio

        loop = asyncio.get_running_loop()
        assert process.stdin is not None and process.stdout is not None
        reader = asyncio.StreamReader(limit=32768, loop=loop)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), process.stdout)
        transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader(loop=loop), loop=loop), process.stdin)
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        return cls(process, writer, reader)

    async def communicate(self) -> tuple[None, None]:
        """Wait for the driver to exit (its stdin closed by the transport's stop)."""
        import asyncio

        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self._process.wait)
        return None, None


def _stderr_fileno() -> int | None:
    try:
        return sys.stderr.fileno() if sys.stderr is not None and not sys.stderr.closed else None
    except (AttributeError, ValueError, OSError):
        return None


def _stop_unadopted() -> None:
    process = take()
    if process is not None:
        _kill(process)


def _kill(process: "subprocess.Popen[bytes]") -> None:
    try:
        if process.stdin is not None:
            process.stdin.close()   # the driver exits when its pipe closes
        process.wait(timeout=2)
    except Exception:  # noqa: BLE001 - then by force
        try:
            process.kill()
            process.wait(timeout=2)
        except Exception:  # noqa: BLE001 - gone already
            pass
