"""`routes:` of a flow spec into `model.Route`s: files found beside the spec, hosts the spec allows.

Checked at load, each problem at its line: a `file` or `har` that does not exist (paths are
relative to the spec's folder), a HAR file that is not one, and an absolute route URL whose host
is neither the entry URL's (or a subdomain of it) nor one of `allowed_hosts`: a spec answers only
requests it may make.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence
from urllib.parse import urlsplit

from flowwalk import model as m
from flowwalk.errors import Problem
from flowwalk.spec import models as sm
from flowwalk.spec.source import Source, quote

__all__ = ["build_routes"]


def build_routes(items: Sequence[sm.RouteModel | None], source: Source, entry_url: str | None,
                 allowed_hosts: Sequence[str], root: str | Path = ".") -> tuple[tuple[m.Route, ...], list[Problem]]:
    """The routes of a flow, and the problems found with them; `root`: the project root the spec's
    path is relative to (each route's file is kept as the path to open). An entry that is None (it
    did not validate) is skipped; with `entry_url` None (it did not validate), hosts are not checked."""
    routes: list[m.Route] = []
    problems: list[Problem] = []
    folder = Path(source.path).parent
    entry = entry_url or ""
    entry_host = (urlsplit(entry).hostname or "").lower() if entry.lower().startswith("http") else ""
    for i, item in enumerate(items):
        if item is None:
            continue
        path = ("routes", i)
        host = (urlsplit(item.url).hostname or "").lower() if item.url.lower().startswith("http") else ""
        if host and entry_url is not None and not _allowed(host, entry_host, allowed_hosts):
            problems.append(Problem(source.loc(path + ("url",)),
                                    f"route url {quote(item.url)} is on {quote(host)}, a host this flow may not reach",
                                    f"add '{host}' to allowed_hosts, or route a path of the site ('/api/...')"))
        files: dict[str, str] = {}
        for key in ("file", "har"):
            written = getattr(item, key)
            if written is None:
                continue
            found = Path(root, folder, written)
            if not found.is_file():
                problems.append(Problem(source.loc(path + (key,)), f"{key} {quote(written)} of route {i + 1} does "
                                        f"not exist", f"write the path relative to the spec's folder "
                                        f"({folder.as_posix() or '.'})"))
            elif key == "har" and not _is_har(found):
                problems.append(Problem(source.loc(path + (key,)), f"{quote(written)} is not a HAR file "
                                        "(JSON with log.entries)", "record one with Playwright's recordHar or "
                                        "the browser's developer tools (Save all as HAR)"))
            files[key] = found.as_posix()   # to open, not to show: never in a report
        given = item.model_fields_set
        routes.append(m.Route(
            loc=source.loc(path), url=item.url, method=item.method,
            status=item.status if item.status is not None else 200,
            body=json.dumps(item.json_) if "json_" in given else item.body, json="json_" in given,
            file=files.get("file"), har=files.get("har"),
            headers=tuple((item.headers or {}).items()), delay_ms=item.delay_ms or 0, abort=bool(item.abort)))
    return tuple(routes), problems


def _allowed(host: str, entry_host: str, allowed_hosts: Sequence[str]) -> bool:
    return host in ("127.0.0.1", "localhost", "::1") or any(
        host == h or host.endswith("." + h) for h in (entry_host, *allowed_hosts) if h)


def _is_har(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and isinstance(data.get("log"), dict) and isinstance(data["log"].get("entries"), list)
