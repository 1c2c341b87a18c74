"""`flowwalk mcp`: the MCP server coding agents use to write, validate, run and fix flowwalk checks.

Built on the official MCP Python SDK (the `mcp` package, 2.x, `MCPServer`). This module owns the
protocol side only: tool registration with typed inputs, structured answers and honest annotations,
the report resources and their change notifications, progress and cancellation of a run, the
answer bounds. What each tool does is `mcp/operations.py`, over the same functions the CLI calls.

Imports of the SDK are absolute (`mcp.server...`, `mcp_types`): this package is `flowwalk.mcp`,
the SDK is the top-level `mcp`, and absolute imports never mix the two up.
"""

from __future__ import annotations

import base64
import logging
import queue
import socket
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Awaitable, Callable, Literal, TypeVar

import anyio
import anyio.to_thread
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.prompts.base import AssistantMessage, Message, UserMessage
from mcp.shared.exceptions import MCPError
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp_types import CallToolResult, INVALID_PARAMS, ImageContent, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from flowwalk import __version__
from flowwalk.app.run import RunRequest
from flowwalk.cooperative import CancelToken
from flowwalk.discover import DISCOVER_DIR, DiscoverOptions
from flowwalk.errors import FlowwalkError, UsageError
from flowwalk.events import RuleFinished, RunStarted
from flowwalk.mcp import operations, prompts
from flowwalk.mcp.ask import Asker, NeedInput
from flowwalk.mcp.answers import (
    DiscoverAnswer,
    ExplainAnswer,
    HealAnswer,
    ImportAnswer,
    ReportsAnswer,
    RunAnswer,
    SchemaAnswer,
    ValidateAnswer,
)
from flowwalk.mcp.bounds import ANSWER_LIMIT, IMAGE_LIMIT, compact, fit
from flowwalk.mcp.explain import UnknownTestError, explain
from flowwalk.mcp.operations import SchemaKind, ServerLimits, SpecKind, ToolInputError
from flowwalk.mcp.questions import ask_for_discover, ask_for_run, asked_out
from flowwalk.mcp.resources import ReportWatch, Resources
from flowwalk.mcp.workspace import OutsideRootError, Workspace
from flowwalk.settings import Overrides

logger = logging.getLogger("flowwalk.mcp")

INSTRUCTIONS = """\
flowwalk walks browser checks kept as data (flow specs *.flow.yaml/json, rule files *.rules.yaml,
aitester-bdd .robot suites) in headless Chromium. A loop that works: `schema` for the format,
write the spec, `validate` it (every problem with path:line:col and a hint), `run` it against the
site (verdict and root causes), `explain_failure` for a failed test (context, trimmed
accessibility snapshot, screenshot, a label), fix the spec, run again. Paths are relative to the
server's working directory; nothing outside it can be named. Secrets are passed by the NAME of an
environment variable of the server, never by value."""

#: how often a run's progress is forwarded to the client
PROGRESS_INTERVAL_S = 0.25
#: each answer's structured content and its text copy share the limit
STRUCTURED_BUDGET = ANSWER_LIMIT // 2

_RO = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


# --- answers -------------------------------------------------------------------------------------


def _answer(model: BaseModel, *, artifacts: str = "", secrets: list[str] | None = None,
            images: list[ImageContent] | None = None) -> CallToolResult:
    """The tool result: structured content plus its compact JSON as text, cut to the limit together."""
    data = operations.scrub(model.model_dump(mode="json", by_alias=True), secrets or [])
    data, cut = fit(data, STRUCTURED_BUDGET)
    if cut:
        data["truncated"] = True
        where = f"; the full artifacts are in {artifacts}" if artifacts else ""
        data["note"] = (str(data.get("note") or "") + f" [answer cut to {ANSWER_LIMIT} characters{where}]").strip()
        data, _ = fit(data, STRUCTURED_BUDGET)
    content: list[Any] = [TextContent(type="text", text=compact(data))]
    content.extend(images or [])
    return CallToolResult(content=content, structured_content=data)


def _refuse(error: BaseException) -> ToolError:
    """A clear is_error answer for bad input (never a traceback)."""
    return ToolError(str(error))


_EXPECTED = (ToolInputError, OutsideRootError, FlowwalkError, FileNotFoundError, UnknownTestError, ValueError)


async def _questions_first(questions: Awaitable[tuple[Any, ...]], secrets: list[str]
                           ) -> tuple[tuple[Any, ...], CallToolResult | InputRequiredResult | None]:
    """A tool's questions to the person before its work (`ask_for_run`, `ask_for_discover`): (what
    they answered, less the stop; what the tool answers at once instead of working, else None).
    Answered at once: the question itself, to a client that takes it back as a result
    (`NeedInput`), and the answer of a person who stopped; bad answers are refused clearly."""
    try:
        request, stop, *rest = await questions
    except NeedInput as need:
        return (), need.result
    except _EXPECTED as error:
        raise _refuse(error) from None
    if stop is not None:
        return (), _answer(stop, secrets=secrets)
    return (request, *rest), None


# --- change notifications ------------------------------------------------------------------------


# --- the server ----------------------------------------------------------------------------------


# `run`'s arguments that `flowwalk run` has as options beside the common ones: the preview's
# (docs/preview.md), the screenshots, the trace and the fingerprints
_WaitFor = Annotated[str | None, Field(description="before walking, wait until this URL (absolute, or relative to "
                                                   "base_url) answers as expected; a site that never does is the "
                                                   "outcome site_not_ready")]
_WaitStatus = Annotated[str | None, Field(description="the status wait_for expects: 200, 2xx, 200-399, several "
                                                      "separated by commas [2xx]")]
_WaitText = Annotated[str | None, Field(description="a text wait_for's page must hold")]
_WaitTimeout = Annotated[float | None, Field(description="seconds wait_for waits at most (at most the server's run "
                                                         "limit) [180]", gt=0)]
_WaitInterval = Annotated[float | None, Field(description="seconds between wait_for's tries [5]", gt=0)]
_HttpHeaders = Annotated[dict[str, str], Field(description="extra HTTP headers for the base URL's origin only: header "
                                                           "name -> the NAME of the server's environment variable "
                                                           "holding its value (never the value)")]
_HttpCredentials = Annotated[str | None, Field(description="the NAME of the server's environment variable holding "
                                                           "HTTP credentials as username:password, for the base "
                                                           "URL's origin only")]
_Screenshots = Annotated[Literal["off", "on-failure", "on"] | None, Field(description="when to take screenshots "
                                                                                      "[on-failure]")]
_Trace = Annotated[Literal["off", "on-failure", "retain-on-failure", "on"] | None, Field(
    description="keep a Playwright trace in the report folder, secrets scrubbed [retain-on-failure on a CI, else off]")]
_Fingerprints = Annotated[str | None, Field(description="an earlier report folder or emit.jsonl whose element "
                                                        "fingerprints help heal broken selectors")]
_TestIdAttribute = Annotated[list[str], Field(description="the attributes that hold elements' test ids, first "
                                                          "found first; empty: flowwalk.yaml's, else data-testid, "
                                                          "data-test-id, data-test, data-qa, data-cy")]


class FlowwalkServer:
    """`FlowwalkServer(root, max_run_timeout_s)`; `.mcp` is the SDK server to run or connect to."""

    def __init__(self, root: str | Path = ".", *, max_run_timeout_s: float = 300.0):
        self.ws = Workspace.at(root)
        self.limits = operations.ServerLimits(max_run_timeout_s=max_run_timeout_s)
        self.bus = InMemorySubscriptionBus()
        self.watch = ReportWatch(self.ws, self.bus)
        self.mcp: MCPServer[None] = MCPServer(
            "flowwalk", title="flowwalk", version=__version__, instructions=INSTRUCTIONS,
            subscriptions=self.bus, lifespan=self._lifespan, log_level="WARNING")
        self._register_tools()
        #: the report and crawl resources: the templates, the concrete list, subscriptions
        self.resources = Resources(self.ws, self.watch)
        self.resources.register(self.mcp)
        _register_prompts(self.mcp, self.ws)

    @asynccontextmanager
    async def _lifespan(self, _server: MCPServer[None]) -> AsyncIterator[None]:
        for folder in await anyio.to_thread.run_sync(self.ws.reports):
            self.watch.track(folder)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self.watch.loop)
            try:
                yield None
            finally:
                tasks.cancel_scope.cancel()


    # --- tools -----------------------------------------------------------------------------------

    def _register_tools(self) -> None:
        add = self.mcp.add_tool
        add(self.validate, name="validate", title="Validate flow specs, rule files or .robot suites",
            annotations=_RO)
        add(self.run, name="run", title="Run flowwalk checks in headless Chromium",
            annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                                        open_world_hint=True))
        add(self.explain_failure, name="explain_failure", title="Explain why a test failed", annotations=_RO)
        add(self.schema, name="schema", title="JSON Schema of flow specs, rule files or flowwalk.yaml",
            annotations=_RO)
        add(self.list_reports, name="list_reports", title="List the report folders", annotations=_RO)
        add(self.discover, name="discover", title="Crawl a site and write starter flow specs",
            annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                                        open_world_hint=True))
        add(self.propose_heal, name="propose_heal", title="Propose the healed selectors as a diff",
            annotations=_RO)
        add(self.import_suite, name="import", title="Import a Playwright Test or Cypress suite into flow specs",
            annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True,
                                        open_world_hint=False))

    async def validate(
        self,
        paths: Annotated[list[str], Field(description="spec files or folders, relative to the server's "
                                                      "working directory")] = [],  # noqa: B006 - pydantic copies
        text: Annotated[str | None, Field(description="an inline spec to check instead of paths")] = None,
        kind: Annotated[SpecKind | None, Field(description="the inline spec's format")] = None,
        name: Annotated[str, Field(description="the inline spec's file name stem, for messages")] = "inline",
        variables: Annotated[dict[str, str], Field(description="run variables NAME: value")] = {},  # noqa: B006
        secret_names: Annotated[list[str], Field(description="names of environment variables holding "
                                                             "secrets (never values)")] = [],  # noqa: B006
        base_url: Annotated[str | None, Field(description="base URL relative urls resolve against")] = None,
        quarantine: Annotated[str | None, Field(description="the quarantine file to check too "
                                                            "[flowwalk-quarantine.yaml when present]")] = None,
    ) -> Annotated[CallToolResult, ValidateAnswer]:
        """Check flow specs, rule files and .robot suites without a browser, as `flowwalk validate`
        does: every problem at path:line:col with a hint to fix it, found in one pass."""
        try:
            answer = await anyio.to_thread.run_sync(lambda: operations.validate(
                self.ws, paths=list(paths), text=text, kind=kind, name=name, variables=dict(variables),
                secret_names=list(secret_names), base_url=base_url, quarantine=quarantine))
        except _EXPECTED as error:
            raise _refuse(error) from None
        return _answer(answer)

    async def run(
        self,
        ctx: Context[None, Any],
        paths: Annotated[list[str], Field(description="spec files or folders, relative to the server's "
                                                      "working directory")],
        base_url: Annotated[str | None, Field(description="base URL relative urls resolve against")] = None,
        variables: Annotated[dict[str, str], Field(description="run variables NAME: value")] = {},  # noqa: B006
        secret_names: Annotated[list[str], Field(description="names of the server's environment variables "
                                                             "that hold secrets; never the values")] = [],  # noqa: B006
        out_dir: Annotated[str, Field(description="the report folder to write")] = "flowwalk-report",
        serve: Annotated[str | None, Field(description="a folder to serve on 127.0.0.1 for the run (its URL "
                                                       "is the base URL unless base_url is given)")] = None,
        run_timeout_s: Annotated[float | None, Field(description="seconds for the whole run (at most the "
                                                                 "server's limit)", gt=0)] = None,
        workers: Annotated[int, Field(description="scenarios at once, up to 4 on one browser", ge=1, le=8)] = 1,
        retries: Annotated[int, Field(description="reruns of a failed scenario", ge=0, le=3)] = 0,
        offline: Annotated[bool | None, Field(description="abort requests to hosts other than loopback, the "
                                                          "entry host and allowed_hosts")] = None,
        grep: Annotated[str | None, Field(description="run only scenarios with a test id matching this "
                                                      "regular expression")] = None,
        grep_invert: Annotated[str | None, Field(description="leave out scenarios whose test ids all match "
                                                             "this regular expression")] = None,
        tag: Annotated[str | None, Field(description="run only scenarios with a test whose tags satisfy this "
                                                     "expression, e.g. 'smoke and not slow'")] = None,
        last_failed: Annotated[str | None, Field(description="an earlier report folder: run only the scenarios "
                                                             "with a test that did not pass there")] = None,
        max_failures: Annotated[int | None, Field(description="stop starting scenarios after this many failed",
                                                  ge=1)] = None,
        projects: Annotated[list[str], Field(description="only these projects (environment profiles) of "
                                                         "flowwalk.yaml; empty: all of them")] = [],  # noqa: B006
        base_report: Annotated[str | None, Field(description="the base branch's last report folder: each failure "
                                                             "is marked new or still failing")] = None,
        fail_on: Annotated[Literal["any", "new"] | None, Field(description="which failures fail the run: any, or "
                                                                           "only new ones against base_report")] = None,
        quarantine: Annotated[str | None, Field(description="the quarantine file [flowwalk-quarantine.yaml when "
                                                            "present]")] = None,
        update_snapshots: Annotated[bool, Field(description="write missing and changed aria_snapshot and "
                                                            "screenshot baselines beside the specs instead of "
                                                            "failing (each is a baseline_written warning)")] = False,
        wait_for: _WaitFor = None,
        wait_status: _WaitStatus = None,
        wait_text: _WaitText = None,
        wait_timeout_s: _WaitTimeout = None,
        wait_interval_s: _WaitInterval = None,
        http_headers: _HttpHeaders = {},  # noqa: B006
        http_credentials: _HttpCredentials = None,
        screenshots: _Screenshots = None,
        trace: _Trace = None,
        fingerprints: _Fingerprints = None,
        test_id_attribute: _TestIdAttribute = [],  # noqa: B006
    ) -> Annotated[CallToolResult, RunAnswer] | InputRequiredResult:
        """Walk the specs in headless Chromium as `flowwalk run` does and write the report folder.
        Answers with the verdict and each root cause (class, label, step, expected, observed);
        sends progress notifications as tests finish; cancelling the call stops the run, whose
        report still covers what ran. When the client can ask the person (elicitation) and the
        specs use variables nobody gave, it asks for their values first (never for a secret)."""
        request = RunRequest(Overrides(
            paths=tuple(paths), base_url=base_url, variables=dict(variables), secret_names=tuple(secret_names),
            out_dir=out_dir, run_timeout_s=run_timeout_s, workers=workers, retries=retries, offline=offline,
            grep=grep, grep_invert=grep_invert, tag=tag, last_failed=last_failed, max_failures=max_failures,
            projects=tuple(projects), base_report=base_report, fail_on=fail_on, quarantine_file=quarantine,
            update_snapshots=update_snapshots, wait_for=wait_for, wait_status=wait_status, wait_text=wait_text,
            wait_timeout_s=wait_timeout_s, wait_interval_s=wait_interval_s, http_headers=dict(http_headers),
            http_credentials=http_credentials, screenshots=screenshots, trace=trace,
            fingerprints_file=fingerprints, test_id_attribute=tuple(test_id_attribute)), serve_dir=serve)
        secrets = operations.secret_values(operations.run_secret_names(request.overrides))
        asker = Asker.of(ctx, hidden=secrets)
        note = ""
        if asker.can:
            asked, early = await _questions_first(ask_for_run(self.ws, asker, request), secrets)
            if early is not None:
                return early
            request, note = asked
        job = _Job()
        tracker = _ProgressTracker(job.updates)
        result = await self._in_thread(ctx, job, lambda: operations.run(
            self.ws, self.limits, request, cancel=job.cancel, on_event=tracker, on_start=job.folders.append))
        result.asked = [asked_out(a) for a in asker.asked]
        result.note = " ".join(part for part in (result.note, note) if part)
        return _answer(result, artifacts=f"{result.report_dir}/ (summary.md, verdict.json, report.html)",
                       secrets=operations.secret_values(operations.run_secret_names(request.overrides)))


    async def _in_thread(self, ctx: Context[None, Any], job: _Job, work: Callable[[], _T]) -> _T:
        """`work()` on a worker thread, its progress forwarded to the client; when the call is
        cancelled, `job.cancel` is set and the work (a run, a crawl) stops and finishes its files."""
        outcome: list[_T | BaseException] = []
        self.watch.hello(ctx.request_context)

        def guarded() -> None:
            try:
                outcome.append(work())
            except BaseException as error:  # noqa: BLE001 - handed to the async side
                outcome.append(error)

        done = anyio.Event()

        async def walk() -> None:
            try:
                await anyio.to_thread.run_sync(guarded)
            finally:
                done.set()

        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(walk)
                try:
                    while not done.is_set():
                        with anyio.move_on_after(PROGRESS_INTERVAL_S):
                            await done.wait()
                        await self._forward(ctx, job)
                except anyio.get_cancelled_exc_class():
                    # the work stops and finishes what it writes; leaving the task group waits for that
                    job.cancel.cancel()
                    raise
        finally:
            if job.cancel.is_set():
                with anyio.CancelScope(shield=True):
                    for folder in job.folders:
                        self.watch.track(folder)
                    await self.watch.check()
        await self._forward(ctx, job)
        await self.watch.check()
        result = outcome[0]
        if isinstance(result, _EXPECTED):
            raise _refuse(result)
        if isinstance(result, BaseException):
            raise result
        return result

    async def _forward(self, ctx: Context[None, Any], job: _Job) -> None:
        for folder in job.folders:
            self.watch.track(folder)
        while True:
            try:
                progress, total, message = job.updates.get_nowait()
            except queue.Empty:
                return
            try:
                await ctx.report_progress(progress, total, message)
            except Exception:  # noqa: BLE001 - a client that went away does not stop the run
                logger.debug("progress not delivered", exc_info=True)

    async def discover(
        self,
        ctx: Context[None, Any],
        url: Annotated[str, Field(description="where the crawl starts (http or https)")],
        out_dir: Annotated[str, Field(description="where the specs go, relative to the working directory")] = "checks",
        allow_hosts: Annotated[list[str], Field(description="hosts besides the start URL's that links may lead "
                                                            "to")] = [],  # noqa: B006
        max_pages: Annotated[int, Field(ge=1, le=500)] = 50,
        max_depth: Annotated[int, Field(ge=0, le=20)] = 4,
        max_actions: Annotated[int, Field(description="clicks, fills and submits together", ge=0, le=2000)] = 200,
        budget_s: Annotated[float | None, Field(description="seconds for the whole crawl (at most the server's "
                                                            "limit)", gt=0)] = None,
        submit_forms: Annotated[bool, Field(description="fill and submit forms (never destructive ones)")] = False,
        login: Annotated[str | None, Field(description="a flow spec that logs in first")] = None,
        goal: Annotated[str, Field(description="what the crawl should reach first, in a person's words "
                                               "(\"create a book\")", max_length=200)] = "",
        resume: Annotated[bool, Field(description="continue the crawl an earlier call left in out_dir (its "
                                                  "discover.state.json) instead of starting over")] = False,
        variables: Annotated[dict[str, str], Field(description="run variables NAME: value")] = {},  # noqa: B006
        secret_names: Annotated[list[str], Field(description="names of the server's environment variables "
                                                             "that hold secrets; never the values")] = [],  # noqa: B006
        destructive_add: Annotated[list[str], Field(description="more words that make a control "
                                                                "destructive (never touched)")] = [],  # noqa: B006
        destructive_remove: Annotated[list[str], Field(description="default destructive words to "
                                                                   "drop")] = [],  # noqa: B006
        verify: Annotated[bool, Field(description="run each spec twice before writing it")] = True,
        use_model: Annotated[bool, Field(description="ask the model configured in flowwalk.yaml (if any) for "
                                                     "names and descriptions")] = True,
        advice: Annotated[dict[str, Any] | None, Field(
            description="your answer to model_question of an earlier crawl of the same site (no model "
                        "configured): checked and applied as a model's answer would be")] = None,
        test_id_attribute: _TestIdAttribute = [],  # noqa: B006
    ) -> Annotated[CallToolResult, DiscoverAnswer] | InputRequiredResult:
        """Crawl a site breadth first within its limits (pages, depth, actions, time; destructive
        controls are never touched) and write starter flow specs that pass, as `flowwalk discover`
        does. Replaces the specs an earlier crawl wrote into out_dir. Sends a progress line per step
        of the crawl; cancelling stops it. When the client can ask the person (elicitation): a site
        behind a login asks for the user name and the NAME of the environment variable holding the
        password (never the password), and submit_forms asks before any form is submitted."""
        request = DiscoverOptions(
            url=url, out_dir=Path(out_dir), allow_hosts=tuple(allow_hosts), max_pages=max_pages, max_depth=max_depth,
            max_actions=max_actions, budget_s=self.limits.max_run_timeout_s if budget_s is None else budget_s,
            submit_forms=submit_forms, login=Path(login) if login else None, goal=goal, resume=resume,
            variables=tuple(variables.items()),
            secret_names=tuple(secret_names), destructive_add=tuple(destructive_add),
            destructive_remove=tuple(destructive_remove), verify=verify, use_model=use_model, advice=advice,
            test_id_attribute=tuple(test_id_attribute))
        job = _Job()
        try:
            job.folders.append(self.ws.confine(out_dir, "out_dir") / DISCOVER_DIR)
        except OutsideRootError as error:
            raise _refuse(error) from None
        secrets = operations.secret_values(list(secret_names))
        asker = Asker.of(ctx, hidden=secrets)
        if asker.can:
            asked, early = await _questions_first(ask_for_discover(self.ws, asker, request), secrets)
            if early is not None:
                return early
            (request,) = asked
        final = request
        result = await self._in_thread(ctx, job, lambda: operations.discover(
            self.ws, self.limits, final, cancel=job.cancel, progress=job.say))
        result.asked = [asked_out(a) for a in asker.asked]
        if final.login and str(final.login) != login:
            result.note = " ".join(part for part in (result.note, (
                f"logged in with {final.login} (written from the answers); run the specs with variables "
                f"{{\"{operations.LOGIN_USER}\": ...}} and secret_names {list(final.secret_names)}")) if part)
        return _answer(result, artifacts=f"{result.index} and {result.crawl}",
                       secrets=operations.secret_values(list(final.secret_names)))


    async def import_suite(
        self,
        ctx: Context[None, Any],
        sources: Annotated[list[str], Field(description="the suite's test files or folders, relative to the "
                                                        "working directory")],
        out_dir: Annotated[str, Field(description="where the specs go, relative to the working directory; "
                                                  "import/ inside it gets the ledger")] = "checks",
        base_url: Annotated[str, Field(description="the address the suite's URLs start with; they are written "
                                                   "as paths against it (run walks against it)")] = "",
        test_id_attribute: Annotated[str, Field(description="the attribute getByTestId reads (the suite's "
                                                            "testIdAttribute)")] = "data-testid",
        run: Annotated[bool, Field(description="walk each spec written whole once against base_url; those that "
                                               "fail go to needs-review/ with the failure")] = False,
    ) -> Annotated[CallToolResult, ImportAnswer]:
        """Import Playwright Test or Cypress files into flow specs as `flowwalk import` does: every
        call of the suite gets a ledger row (converted, approximated with how, or not converted with
        why), and a test with a call not converted goes to needs-review/, never written as whole. Replaces the
        specs an earlier import wrote into out_dir's needs-review/."""
        job = _Job()
        if run:
            try:
                job.folders.append(self.ws.confine(out_dir, "out_dir") / "import" / "run")
            except OutsideRootError as error:
                raise _refuse(error) from None
        result = await self._in_thread(ctx, job, lambda: operations.import_suite(
            self.ws, self.limits, sources=list(sources), out_dir=out_dir, base_url=base_url,
            test_id_attribute=test_id_attribute, run=run, cancel=job.cancel))
        return _answer(result, artifacts=result.ledger)

    async def explain_failure(
        self,
        report_dir: Annotated[str, Field(description="the report folder, as list_reports names it")],
        test_id: Annotated[str, Field(description="the test id, e.g. checks/login.flow.yaml#log in")],
    ) -> Annotated[CallToolResult, ExplainAnswer]:
        """Why a test failed: message, expected and observed, console, network, the accessibility
        snapshot trimmed around the failure, the screenshot (as an image), and a label:
        not_found | ambiguous(n) | timeout | assertion_mismatch | off_allowlist (null otherwise)."""
        def read() -> tuple[ExplainAnswer, list[ImageContent]]:
            folder = self.ws.report_dir(report_dir)
            self.watch.track(folder)
            answer = explain(folder, self.ws.relative(folder), test_id)
            images: list[ImageContent] = []
            if answer.screenshot:
                shot = self.ws.confine(answer.screenshot, "screenshot")
                if shot.is_file() and shot.stat().st_size <= IMAGE_LIMIT:
                    images.append(ImageContent(type="image", mime_type="image/png",
                                               data=base64.b64encode(shot.read_bytes()).decode("ascii")))
                elif shot.is_file():
                    answer.note = f"the screenshot is over {IMAGE_LIMIT} bytes: read it at {answer.screenshot}"
            return answer, images

        try:
            answer, images = await anyio.to_thread.run_sync(read)
        except _EXPECTED as error:
            raise _refuse(error) from None
        return _answer(answer, artifacts=f"{answer.report_dir}/verdict.json (tests[].failure.context)",
                       images=images)

    async def schema(
        self,
        kind: Annotated[SchemaKind, Field(description="flow_spec (*.flow.yaml/json), rules (*.rules.yaml), "
                                                      "config (flowwalk.yaml) or quarantine "
                                                      "(flowwalk-quarantine.yaml)")],
        definitions: Annotated[list[str], Field(description="$defs to include when the schema is too large "
                                                            "to send whole")] = [],  # noqa: B006
    ) -> Annotated[CallToolResult, SchemaAnswer]:
        """The JSON Schema (Draft 2020-12) of an input format, as `flowwalk schema` writes it. A large
        schema comes without its $defs (ask for the ones you need); the resource has it whole."""
        try:
            answer = await anyio.to_thread.run_sync(
                lambda: operations.schema(kind, list(definitions), STRUCTURED_BUDGET - 2_000))
        except _EXPECTED as error:
            raise _refuse(error) from None
        return _answer(answer, artifacts=answer.schema_uri)

    async def list_reports(self) -> Annotated[CallToolResult, ReportsAnswer]:
        """The report folders under the working directory, with their outcome, counts and resource URIs."""
        answer = await anyio.to_thread.run_sync(lambda: operations.list_reports(self.ws))
        for report in answer.reports:
            self.watch.track(self.ws.root / report.dir)
        return _answer(answer)

    async def propose_heal(
        self,
        report_dir: Annotated[str, Field(description="the report folder, as list_reports names it")],
        answers: Annotated[dict[str, dict[str, Any]], Field(
            description="your answers to `questions`, by question id: the JSON object the model would have "
                        "replied, {\"candidate\": <a listed number> or null, \"reason\": \"...\"}")] = {},  # noqa: B006
    ) -> Annotated[CallToolResult, HealAnswer]:
        """The selectors a run healed (a pinned selector failed and another element was chosen), as
        a unified diff of the spec files, the same as `flowwalk heal --report DIR`. Never writes:
        apply the diff yourself (git apply) or run `flowwalk heal --report DIR --apply`. A step that
        did not heal comes with the question a configured model would have been asked (the
        candidates, fenced page text); answer it through `answers` and the chosen candidate joins
        the diff. An answer is checked exactly as a model's is: a listed number, or null."""
        try:
            answer = await anyio.to_thread.run_sync(lambda: operations.propose_heal(self.ws, report_dir,
                                                                                    dict(answers)))
        except _EXPECTED as error:
            raise _refuse(error) from None
        return _answer(answer, artifacts=f"the output of `flowwalk heal --report {report_dir}`")

# --- prompts -----------------------------------------------------------------------------------------


def _register_prompts(mcp: MCPServer[None], ws: Workspace) -> None:
    prompt = mcp.prompt

    async def render(make: Callable[[], prompts.PromptText]) -> list[Message]:
        try:
            text = await anyio.to_thread.run_sync(make)
        except _EXPECTED as error:
            # a protocol error with the message itself: the SDK would hide a plain exception's text
            raise MCPError(code=INVALID_PARAMS, message=str(error)) from None
        return [UserMessage(body) if role == "user" else AssistantMessage(body) for role, body in text.messages]

    @prompt("check-my-app", title="Check my app", description=prompts.PROMPTS["check-my-app"])
    async def check_my_app(
        url: Annotated[str, Field(description="the site to check, e.g. https://staging.example.com")],
    ) -> list[Message]:
        return await render(lambda: prompts.check_my_app(url))

    @prompt("fix-failing-check", title="Fix a failing check", description=prompts.PROMPTS["fix-failing-check"])
    async def fix_failing_check(
        report_dir: Annotated[str, Field(description="the report folder, as list_reports names it")],
        test_id: Annotated[str, Field(description="the failed test, e.g. checks/login.flow.yaml#log in")],
    ) -> list[Message]:
        return await render(lambda: prompts.fix_failing_check(ws, report_dir, test_id))

    @prompt("review-heals", title="Review the heals of a run", description=prompts.PROMPTS["review-heals"])
    async def review_heals(
        report_dir: Annotated[str, Field(description="the report folder, as list_reports names it")],
    ) -> list[Message]:
        return await render(lambda: prompts.review_heals(ws, report_dir))

    @prompt("write-a-check", title="Write a check", description=prompts.PROMPTS["write-a-check"])
    async def write_a_check(
        what: Annotated[str, Field(description="what the site should do, e.g. 'a visitor can sign up'")],
        url: Annotated[str, Field(description="the site, e.g. http://127.0.0.1:8000")],
    ) -> list[Message]:
        return await render(lambda: prompts.write_a_check(ws, what, url))


_Update = tuple[float, float | None, str]
_T = TypeVar("_T")


@dataclass
class _Job:
    """What a long tool call shares with its worker thread: the cancel, progress, folders it writes."""

    cancel: CancelToken = field(default_factory=CancelToken)
    updates: queue.SimpleQueue[_Update] = field(default_factory=queue.SimpleQueue)
    folders: list[Path] = field(default_factory=list)
    said: int = 0

    def say(self, line: str) -> None:
        """A progress line without a total (discover's crawl does not know how far it will go)."""
        self.said += 1
        self.updates.put((float(self.said), None, line))


class _ProgressTracker:
    """An event handler (it runs on the walker's threads): one progress update per finished test."""

    def __init__(self, updates: queue.SimpleQueue[_Update]):
        self._updates = updates
        self._total: float | None = None
        self._finished: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, event: Any) -> None:
        with self._lock:
            if isinstance(event, RunStarted):
                assigned = set(event.plan.get("assigned") or ())
                self._total = float(sum(len(s.get("test_ids") or ()) for s in event.plan.get("scenarios") or ()
                                        if s.get("id") in assigned))
                self._updates.put((0.0, self._total, f"walking {int(self._total)} test(s)"))
            elif isinstance(event, RuleFinished) and event.test_id not in self._finished:
                self._finished.add(event.test_id)
                self._updates.put((float(len(self._finished)), self._total, f"{event.status}: {event.test_id}"))


def build_server(root: str | Path = ".", *, max_run_timeout_s: float = 300.0) -> MCPServer[None]:
    """The SDK server for the folder `root` (the in-process client of the tests connects to it)."""
    return FlowwalkServer(root, max_run_timeout_s=max_run_timeout_s).mcp


def serve(*, http_port: int | None = None, max_run_timeout_s: float = 300.0) -> None:
    """Serve the working directory over stdio, or over streamable HTTP on 127.0.0.1:`http_port`
    (0: a free port). Over HTTP the address it serves is the first line on stderr."""
    listener = None if http_port is None else _listen(http_port)
    server = build_server(".", max_run_timeout_s=max_run_timeout_s)
    if listener is None:
        server.run("stdio")
        return
    # loopback only: the server walks browsers and reads the working directory. The socket is
    # bound here, not by uvicorn, so a port in use is refused with a hint, port 0 can be asked for,
    # and the address is known before the first request
    app = server.streamable_http_app(host="127.0.0.1")
    port = listener.getsockname()[1]
    print(f"flowwalk mcp: streamable HTTP at http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    http = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                         log_level=server.settings.log_level.lower()))
    try:
        anyio.run(lambda: http.serve(sockets=[listener]))
    finally:
        listener.close()


def _listen(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1:`port` (0: a free one), or a UsageError with a hint when
    something already listens there (uvicorn would only log it). A client that connects before
    the server has started waits in the backlog."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(("127.0.0.1", port))
        listener.listen(128)
    except OSError as error:
        listener.close()
        raise UsageError(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}\n  hint: choose "
                         f"another port with --http (0 picks a free one), or stop what listens there") from None
    return listener

