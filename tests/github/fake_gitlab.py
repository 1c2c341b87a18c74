"""A fake GitLab REST API (v4) over real HTTP on 127.0.0.1, strict about what flowwalk sends.

It serves the merge request notes API as GitLab documents it (`GET`/`POST
/projects/:id/merge_requests/:iid/notes`, `PUT`/`DELETE .../notes/:note_id`) and, for every request:

- checks the token in `PRIVATE-TOKEN`: unknown or missing is 401 `{"message": "401 Unauthorized"}`;
  a token without the `api` scope (`read_api`) may read but a write is 403 `insufficient_scope`, as
  GitLab answers; a `JOB-TOKEN` is refused for notes (403), as CI_JOB_TOKEN is;
- checks the project (a numeric id or the URL-encoded `group/project` path) and the merge request
  (404 `{"message": "404 Project Not Found"}` / `"404 Not found"`);
- checks the query (`per_page` 1 to 100, `page`, `sort` asc|desc, `order_by` created_at|updated_at;
  anything else is 400) and the body (JSON, `body` a non-empty text of at most 1,000,000 characters;
  an unknown field is 400);
- records it (`requests`) with whatever was wrong (`problems`).

Notes page like GitLab's: `X-Page`, `X-Per-Page`, `X-Next-Page` (empty on the last page), `X-Total`,
`X-Total-Pages` and a `Link` header with absolute URLs. System notes ("added 1 commit") are among
them. Faults are scripted with `fail(status, ...)` for the next matching requests.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

TOKEN = "glpat-fakeApiScopeToken0123456"
READ_ONLY_TOKEN = "glpat-fakeReadApiToken0123456"
PROJECT_ID = "4242"
PROJECT_PATH = "acme/shop"
NOTE_LIMIT = 1_000_000
_QUERY = {"per_page", "page", "sort", "order_by"}
_BODY = {"body", "internal", "created_at", "merge_request_diff_head_sha"}


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    status: int = 0
    problems: list[str] = field(default_factory=list)


@dataclass
class Fault:
    status: int
    method: str | None
    times: int
    headers: dict[str, str]


class FakeGitLab:
    """`with FakeGitLab() as gitlab: ...`; `gitlab.api_url` is what CI_API_V4_URL would be."""

    def __init__(self) -> None:
        self.tokens = {TOKEN: "api", READ_ONLY_TOKEN: "read_api"}
        self.merge_requests: dict[int, list[dict[str, Any]]] = {}
        self.requests: list[Recorded] = []
        self._faults: deque[Fault] = deque()
        self._next_id = 1000
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                status, payload, extra = fake.handle(self.command, self.path, dict(self.headers.items()), raw)
                data = b"" if payload is None else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _serve

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True

    # --- life ------------------------------------------------------------------------------------

    def __enter__(self) -> "FakeGitLab":
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/api/v4"

    # --- arranging -------------------------------------------------------------------------------

    def add_merge_request(self, iid: int) -> None:
        self.merge_requests.setdefault(iid, [])

    def add_note(self, iid: int, body: str, *, system: bool = False, author: str = "someone") -> dict[str, Any]:
        note = self._note(body, author, system)
        self.merge_requests[iid].append(note)
        return note

    def fail(self, status: int, *, method: str | None = None, times: int = 1,
             headers: dict[str, str] | None = None) -> None:
        self._faults.append(Fault(status, method, times, dict(headers or {})))

    # --- reading ---------------------------------------------------------------------------------

    @property
    def problems(self) -> list[str]:
        return [f"{r.method} {r.path}: {p}" for r in self.requests for p in r.problems]

    def flowwalk_notes(self, iid: int) -> list[dict[str, Any]]:
        return [n for n in self.merge_requests[iid] if n["body"].startswith("<!-- flowwalk:verdict")]

    # --- serving ---------------------------------------------------------------------------------

    def _note(self, body: str, author: str, system: bool) -> dict[str, Any]:
        self._next_id += 1
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        return {"id": self._next_id, "type": None, "body": body, "author": {"username": author},
                "created_at": now, "updated_at": now, "system": system, "noteable_type": "MergeRequest",
                "resolvable": False, "confidential": False, "internal": False}

    def handle(self, method: str, raw_path: str, headers: dict[str, str], raw: bytes) -> tuple[int, Any, dict[str, str]]:
        parts = urlsplit(raw_path)
        query = parse_qs(parts.query, keep_blank_values=True)
        record = Recorded(method, parts.path, query, headers, None)
        with self._lock:
            self.requests.append(record)
            status, payload, extra = self._answer(record, raw)
        record.status = status
        return status, payload, extra

    def _answer(self, record: Recorded, raw: bytes) -> tuple[int, Any, dict[str, str]]:
        for fault in list(self._faults):
            if fault.method in (None, record.method):
                fault.times -= 1
                if fault.times <= 0:
                    self._faults.remove(fault)
                return fault.status, {"message": f"{fault.status} scripted"}, fault.headers
        if "Job-Token" in record.headers or "JOB-TOKEN" in record.headers:
            return 403, {"message": "403 Forbidden"}, {}
        token = record.headers.get("Private-Token") or record.headers.get("PRIVATE-TOKEN")
        scope = self.tokens.get(token or "")
        if scope is None:
            return 401, {"message": "401 Unauthorized"}, {}
        segments = [unquote(s) for s in record.path.split("/")]
        # ['', 'api', 'v4', 'projects', ID, 'merge_requests', IID, 'notes'(, NOTE_ID)]
        if len(segments) not in (8, 9) or segments[1:4] != ["api", "v4", "projects"] \
                or segments[5] != "merge_requests" or segments[7] != "notes":
            record.problems.append("not a merge request notes endpoint")
            return 404, {"error": "404 Not Found"}, {}
        if segments[4] not in (PROJECT_ID, PROJECT_PATH):
            return 404, {"message": "404 Project Not Found"}, {}
        if not segments[6].isdigit() or int(segments[6]) not in self.merge_requests:
            return 404, {"message": "404 Not found"}, {}
        iid = int(segments[6])
        unknown = set(record.query) - _QUERY
        if unknown:
            record.problems.append(f"unknown query parameters {sorted(unknown)}")
            return 400, {"error": f"{sorted(unknown)[0]} does not have a valid value"}, {}
        if record.method in ("POST", "PUT"):
            if scope != "api":
                return 403, {"error": "insufficient_scope", "scope": "api",
                             "error_description": "The request requires higher privileges than provided by the "
                                                  "access token."}, {}
            if "application/json" not in (record.headers.get("Content-Type") or ""):
                record.problems.append("a body that is not JSON")
                return 400, {"error": "body is missing"}, {}
            body = json.loads(raw or b"null")
            record.body = body
            if not isinstance(body, dict) or set(body) - _BODY:
                record.problems.append(f"unknown body fields {sorted(set(body or {}) - _BODY)}")
                return 400, {"error": "body does not have a valid value"}, {}
            if not isinstance(body.get("body"), str) or not body["body"].strip():
                return 400, {"error": "body is missing"}, {}
            if len(body["body"]) > NOTE_LIMIT:
                return 400, {"message": {"note": [f"is too long (maximum is {NOTE_LIMIT} characters)"]}}, {}
        notes = self.merge_requests[iid]
        if len(segments) == 8 and record.method == "GET":
            return self._page(record, notes)
        if len(segments) == 8 and record.method == "POST":
            note = self._note(record.body["body"], "project_4242_bot", False)
            notes.append(note)
            return 201, note, {}
        if len(segments) == 9 and segments[8].isdigit():
            found = next((n for n in notes if n["id"] == int(segments[8])), None)
            if found is None:
                return 404, {"message": "404 Note Not Found"}, {}
            if record.method == "PUT":
                found["body"] = record.body["body"]
                found["updated_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
                return 200, found, {}
            if record.method == "DELETE":
                if scope != "api":
                    return 403, {"error": "insufficient_scope"}, {}
                notes.remove(found)
                return 204, None, {}
        record.problems.append(f"{record.method} is not allowed here")
        return 405, {"message": "405 Method Not Allowed"}, {}

    def _page(self, record: Recorded, notes: list[dict[str, Any]]) -> tuple[int, Any, dict[str, str]]:
        try:
            per_page = int(record.query.get("per_page", ["20"])[0])
            page = int(record.query.get("page", ["1"])[0])
        except ValueError:
            return 400, {"error": "per_page is invalid"}, {}
        if not 1 <= per_page <= 100:
            record.problems.append(f"per_page {per_page} outside 1..100")
            return 400, {"error": "per_page does not have a valid value"}, {}
        if record.query.get("sort", ["desc"])[0] not in ("asc", "desc") or \
                record.query.get("order_by", ["created_at"])[0] not in ("created_at", "updated_at"):
            return 400, {"error": "sort, order_by does not have a valid value"}, {}
        ordered = sorted(notes, key=lambda n: n["id"], reverse=record.query.get("sort", ["desc"])[0] == "desc")
        pages = max(1, -(-len(ordered) // per_page))
        items = ordered[(page - 1) * per_page: page * per_page]
        base = {k: v[0] for k, v in record.query.items()}
        url = f"{self.api_url.rsplit('/api/v4', 1)[0]}{record.path}"

        def at(number: int) -> str:
            return f"{url}?{urlencode({**base, 'page': number, 'per_page': per_page})}"

        links = [f'<{at(page + 1)}>; rel="next"'] if page < pages else []
        links += [f'<{at(1)}>; rel="first"', f'<{at(pages)}>; rel="last"']
        return 200, items, {"X-Page": str(page), "X-Per-Page": str(per_page), "X-Total": str(len(ordered)),
                            "X-Total-Pages": str(pages), "X-Next-Page": str(page + 1) if page < pages else "",
                            "Link": ", ".join(links)}


def merge_request_env(api_url: str, *, iid: int | None = 12, token: str | None = TOKEN) -> dict[str, str]:
    """The predefined variables of a GitLab CI job in a merge request pipeline, pointed at `api_url`."""
    server = api_url.rsplit("/api/v4", 1)[0]
    env = {"GITLAB_CI": "true", "CI": "true", "CI_API_V4_URL": api_url, "CI_SERVER_URL": server,
           "CI_PROJECT_ID": PROJECT_ID, "CI_PROJECT_PATH": PROJECT_PATH, "CI_COMMIT_SHA": "a1b2c3d4" * 5,
           "CI_PIPELINE_URL": f"{server}/{PROJECT_PATH}/-/pipelines/77",
           "CI_JOB_URL": f"{server}/{PROJECT_PATH}/-/jobs/991", "CI_JOB_TOKEN": "job-token-cannot-write-notes"}
    if iid is not None:
        env.update({"CI_MERGE_REQUEST_IID": str(iid), "CI_PIPELINE_SOURCE": "merge_request_event"})
    if token is not None:
        env["GITLAB_TOKEN"] = token
    return env
