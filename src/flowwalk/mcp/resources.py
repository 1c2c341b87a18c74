"""The MCP server's resources: every report folder's and crawl's files, as templates and as a
concrete list, with subscriptions and `list_changed` (`ReportWatch` notices new and changed files).
"""

from __future__ import annotations

import logging
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import unquote

import anyio
import anyio.to_thread
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourcesListChanged, ResourceUpdated
from mcp_types import (EmptyResult, ListResourcesResult, PaginatedRequestParams, Resource, SubscribeRequestParams,
                       UnsubscribeRequestParams)

from flowwalk.discover import DISCOVER_DIR
from flowwalk.mcp import operations
from flowwalk.mcp.ask import is_modern
from flowwalk.mcp.operations import ToolInputError
from flowwalk.mcp.workspace import OutsideRootError, Workspace, crawl_spec_paths, folder_uri, resource_leaves
from flowwalk.reportfolder import ReportFolder

__all__ = ["ReportWatch", "Resources"]

logger = logging.getLogger("flowwalk.mcp")

#: how often the report folders the server knows are checked for changes (for subscribers)
WATCH_INTERVAL_S = 1.0


def _signature(folder: Path) -> dict[str, tuple[int, int]]:
    """(mtime, size) of each file a resource of the folder reads, by its name under the folder."""
    found: dict[str, tuple[int, int]] = {}
    for name in resource_leaves(folder):
        try:
            stat = (folder / name).stat()
        except OSError:
            continue
        found[name] = (stat.st_mtime_ns, stat.st_size)
    return found


@dataclass
class ReportWatch:
    """Tells subscribers when a report folder changes: a run of this server, or a `flowwalk run`
    in a terminal. Both subscription styles are served: `subscriptions/listen` streams (2026-07-28)
    through the SDK's bus, and `resources/subscribe` (earlier protocol versions) per session. Only
    the URIs whose file was written, replaced or removed are announced."""

    ws: Workspace
    bus: InMemorySubscriptionBus
    folders: dict[Path, dict[str, tuple[int, int]]] = field(default_factory=dict)
    legacy: dict[str, set[ServerSession]] = field(default_factory=dict)
    sessions: weakref.WeakSet[ServerSession] = field(default_factory=weakref.WeakSet)

    def track(self, folder: Path) -> None:
        if folder not in self.folders:
            self.folders[folder] = _signature(folder)

    def track_uri(self, uri: str) -> None:
        for prefix, sub in (("flowwalk://reports/", ""), ("flowwalk://discover/", DISCOVER_DIR)):
            if uri.startswith(prefix):
                name = unquote(uri[len(prefix):].split("/", 1)[0])
                try:
                    self.track(self.ws.confine(Path(name) / sub if sub else name, "folder"))
                except OutsideRootError:
                    pass

    async def check(self) -> None:
        for folder, before in list(self.folders.items()):
            now = _signature(folder)
            if now == before:
                continue
            self.folders[folder] = now
            name = self.ws.relative(folder)
            changed = sorted(leaf for leaf in set(before) | set(now) if before.get(leaf) != now.get(leaf))
            for leaf in changed:
                uri = folder_uri(folder, name, leaf)
                await self.bus.publish(ResourceUpdated(uri=uri))
                for session in list(self.legacy.get(uri, ())):
                    try:
                        await session.send_resource_updated(uri)
                    except Exception:  # noqa: BLE001 - a gone client must not stop the others
                        self.legacy[uri].discard(session)
            if set(now) != set(before):
                await self.list_changed()

    async def list_changed(self) -> None:
        """`notifications/resources/list_changed`: to `subscriptions/listen` streams through the bus,
        and to every session of an earlier protocol version that has talked to the server."""
        await self.bus.publish(ResourcesListChanged())
        for session in list(self.sessions):
            try:
                await session.send_resource_list_changed()
            except Exception:  # noqa: BLE001 - a gone client must not stop the others
                self.sessions.discard(session)

    def hello(self, ctx: Any) -> None:
        """Remember a session of an earlier protocol version (they hear list changes directly)."""
        try:
            session = ctx.session
            version = ctx.protocol_version
        except (AttributeError, ValueError):
            return
        if session is not None and not is_modern(version):
            self.sessions.add(session)

    async def loop(self) -> None:
        while True:
            await anyio.sleep(WATCH_INTERVAL_S)
            try:
                await self.check()
            except Exception:  # noqa: BLE001 - the watcher never takes the server down
                logger.exception("checking the report folders failed")


class Resources:
    """The resources of one server's workspace (see the module docstring)."""

    def __init__(self, ws: Workspace, watch: ReportWatch):
        self.ws = ws
        self.watch = watch

    def register(self, mcp: MCPServer[None]) -> None:
        """The templates, and the low-level handlers the SDK's high-level server does not offer."""
        self._register_templates(mcp)
        low = mcp._lowlevel_server  # resources/subscribe is served by the low-level server only
        low.add_request_handler("resources/subscribe", SubscribeRequestParams, self.subscribe)
        low.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, self.unsubscribe)
        # the concrete resources of every report and crawl, not only the templates
        low.add_request_handler("resources/list", PaginatedRequestParams, self.list_resources)

    async def subscribe(self, ctx: ServerRequestContext[Any], params: SubscribeRequestParams) -> EmptyResult:
        uri = str(params.uri)
        self.watch.track_uri(uri)
        self.watch.legacy.setdefault(uri, set()).add(ctx.session)
        return EmptyResult()

    async def list_resources(self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
                              ) -> ListResourcesResult:
        self.watch.hello(ctx)
        found = await anyio.to_thread.run_sync(self.concrete)
        return ListResourcesResult(resources=found)

    def concrete(self) -> list[Resource]:
        """Every report's summary, verdict and screenshots, every crawl's index, crawl.json and
        specs, and the whole schemas: what a client can read right now."""
        out: list[Resource] = []
        for folder in self.ws.reports():
            self.watch.track(folder)
            name = self.ws.relative(folder)
            for leaf in resource_leaves(folder):
                if not (folder / leaf).is_file():
                    continue
                mime = ("text/markdown" if leaf.endswith(".md") else "application/json" if leaf.endswith(".json")
                        else "image/png")
                out.append(Resource(uri=folder_uri(folder, name, leaf), name=f"{name}/{leaf}", mime_type=mime,
                                    description=f"{leaf} of the report folder {name}"))
        for folder in self.ws.crawls():
            self.watch.track(folder)
            name = self.ws.relative(folder)
            out_dir = self.ws.relative(folder.parent)
            for leaf in resource_leaves(folder):
                path = folder / leaf
                if not path.is_file():
                    continue
                shown = leaf[3:] if leaf.startswith("../") else leaf
                mime = ("text/markdown" if leaf.endswith(".md") else "application/json" if leaf.endswith(".json")
                        else "application/yaml")
                what = (f"a spec the crawl wrote into {out_dir}" if leaf.startswith("../")
                        else f"{leaf} of the crawl written into {out_dir}")
                out.append(Resource(uri=folder_uri(folder, name, leaf), name=f"{out_dir}/{shown}"
                                    if leaf.startswith("../") else f"{name}/{leaf}", mime_type=mime, description=what))
        for schema_name in sorted(operations.schema_names()):
            out.append(Resource(uri=f"flowwalk://schemas/{schema_name}", name=schema_name,
                                mime_type="application/schema+json", description="a whole JSON Schema"))
        return out

    async def unsubscribe(self, ctx: ServerRequestContext[Any], params: UnsubscribeRequestParams) -> EmptyResult:
        self.watch.legacy.get(str(params.uri), set()).discard(ctx.session)
        return EmptyResult()

    def _register_templates(self, mcp: MCPServer[None]) -> None:
        resource = mcp.resource

        @resource("flowwalk://reports/{dir}/summary.md", name="summary", mime_type="text/markdown",
                  description="a report folder's summary.md")
        def summary(dir: str) -> str:
            return self.read_report(dir, ReportFolder.SUMMARY).decode("utf-8")

        @resource("flowwalk://reports/{dir}/verdict.json", name="verdict", mime_type="application/json",
                  description="a report folder's verdict.json")
        def verdict(dir: str) -> str:
            return self.read_report(dir, ReportFolder.VERDICT).decode("utf-8")

        @resource("flowwalk://reports/{dir}/screenshots/{name}", name="screenshot", mime_type="image/png",
                  description="a screenshot of a report folder")
        def screenshot(dir: str, name: str) -> bytes:
            return self.read_report(dir, f"screenshots/{name}")

        @resource("flowwalk://discover/{dir}/index.md", name="crawl-index", mime_type="text/markdown",
                  description="what a crawl found, page by page (the index.md discover writes under {dir})")
        def crawl_index(dir: str) -> str:
            return self.read_crawl(dir, "index.md").decode("utf-8")

        @resource("flowwalk://discover/{dir}/crawl.json", name="crawl", mime_type="application/json",
                  description="a crawl as data: pages, features, the specs written (crawl.json)")
        def crawl_record(dir: str) -> str:
            return self.read_crawl(dir, "crawl.json").decode("utf-8")

        @resource("flowwalk://discover/{dir}/spec/{path}", name="crawl-spec", mime_type="application/yaml",
                  description="a spec (a journey) a crawl wrote; {path} is relative to {dir}, in one segment")
        def crawl_spec(dir: str, path: str) -> str:
            if path not in crawl_spec_paths(self.crawl_folder(dir)):
                raise ResourceError(f"the crawl in '{dir}' wrote no spec '{path}'\n  hint: read "
                                    f"flowwalk://discover/{dir}/crawl.json for the specs it wrote")
            return self.read_crawl(dir, f"../{path}").decode("utf-8")

        @resource("flowwalk://schemas/{name}", name="schema", mime_type="application/schema+json",
                  description="a whole JSON Schema, as `flowwalk schema` writes it")
        def whole_schema(name: str) -> str:
            try:
                return operations.schema_text(name)
            except ToolInputError as error:
                raise ResourceError(str(error)) from None

    def crawl_folder(self, out_dir: str) -> Path:
        try:
            folder = self.ws.confine(Path(out_dir) / DISCOVER_DIR, "crawl folder")
        except OutsideRootError as error:
            raise ResourceError(str(error)) from None
        if not (folder / "crawl.json").is_file():
            raise ResourceError(f"'{out_dir}' holds no crawl (no {DISCOVER_DIR}/crawl.json)\n  hint: call discover "
                                f"with out_dir: \"{out_dir}\" first")
        return folder

    def read_crawl(self, out_dir: str, leaf: str) -> bytes:
        return self._read_in(lambda: self.crawl_folder(out_dir), leaf, "crawl file")

    def read_report(self, name: str, leaf: str) -> bytes:
        return self._read_in(lambda: self.ws.report_dir(name), leaf, "report file")

    def _read_in(self, folder_of: Callable[[], Path], leaf: str, what: str) -> bytes:
        """The bytes of `leaf` in the folder `folder_of()` finds (a report's, a crawl's), which is
        watched from then on; a folder or file outside the root or missing is a clear ResourceError."""
        try:
            folder = folder_of()
            path = self.ws.confine(folder / leaf, what)
            self.watch.track(folder)
            return path.read_bytes()
        except (OutsideRootError, OSError) as error:
            raise ResourceError(str(error)) from None
