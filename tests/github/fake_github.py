"""A fake GitHub REST API over real HTTP on 127.0.0.1, strict about what flowwalk sends.

It serves the operations of `data/rest-subset.json` (GitHub's own OpenAPI description) and, for
every request:

- checks the headers GitHub needs (`Authorization` with the expected token, `Accept:
  application/vnd.github+json`, `X-GitHub-Api-Version: 2022-11-28`, a `User-Agent`);
- finds the operation by method and path template, checks the path and query parameters against
  its parameter schemas (and `per_page <= 100`, which the description only says in prose);
- validates the JSON body against the operation's request-body schema with jsonschema's
  Draft7Validator (OpenAPI `nullable` turned into a "null" type, `discriminator` dropped, the
  document's `components` attached so every `$ref` resolves), as the data README describes;
- records it (`requests`), with whatever was wrong (`problems`); a bad request is answered the
  way GitHub would (401, 400, 404, 422) so the client's error paths are real too.

State is real enough to test a sticky comment: comments per issue with ascending ids and real
paging (`per_page`, `page`, a `Link` header with absolute URLs), pulls, check runs whose updates
append annotations, commit statuses. Review comments are kept per pull request, paged the same
way; one is refused with 422, as GitHub does, unless its lines are part of the pull request's diff
(`add_pull(..., diff={path: lines})`) and it is made on the head commit. GitHub's unwritten limits are enforced: a comment body over
65,536 characters and a status description over 140 get 422 with GitHub's observed message.

Faults are scripted: `fail(status, ...)` queues an answer (with `Retry-After` / `x-ratelimit-*`
headers and a message) for the next matching request; `drop=True` closes the connection without
an answer. `read_only=True` answers every write like a fork PR's token does.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

from jsonschema import Draft7Validator, FormatChecker

REST_SUBSET = Path(__file__).parent / "data" / "rest-subset.json"
TOKEN = "ghs_fakeTokenForTests0123456789"
REPOSITORY = "octo-org/shop"
HEAD_SHA = "0123456789abcdef0123456789abcdef01234567"


def pull_request_env(tmp_path: Path, api_url: str, *, token: str = TOKEN, repository: str = REPOSITORY,
                     head_sha: str = HEAD_SHA, pr: int = 7) -> dict[str, str]:
    """The environment GitHub Actions gives a step of a pull_request job, pointed at `api_url`:
    this process's environment without GITHUB_*, INPUT_* and FLOWWALK_* variables, plus an event
    file, the job summary (`step_summary.md`) and the outputs file (`output`) under `tmp_path`."""
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": pr, "pull_request": {
        "number": pr, "head": {"sha": head_sha, "repo": {"full_name": repository}},
        "base": {"repo": {"full_name": repository}}}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "FLOWWALK_"))}
    env.update({"GITHUB_ACTIONS": "true", "GITHUB_API_URL": api_url, "GITHUB_SERVER_URL": "https://github.example",
                "GITHUB_REPOSITORY": repository, "GITHUB_EVENT_NAME": "pull_request",
                "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": "9" * 40, "GITHUB_RUN_ID": "31",
                "GITHUB_STEP_SUMMARY": str(tmp_path / "step_summary.md"), "GITHUB_OUTPUT": str(tmp_path / "output"),
                "GITHUB_TOKEN": token})
    return env
BODY_LIMIT = 65_536


# --- OpenAPI -> JSON Schema draft 7 ---------------------------------------------------------------


def draft7(node: Any) -> Any:
    """OpenAPI 3.0 schema -> draft 7: `nullable: true` adds "null", `discriminator` goes."""
    if isinstance(node, list):
        return [draft7(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("discriminator", "nullable"):
            continue
        if key in ("properties", "patternProperties", "schemas"):
            # a map of names to schemas: the names are data, never keywords
            out[key] = {name: draft7(schema) for name, schema in value.items()}
        else:
            out[key] = draft7(value)
    if node.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        elif isinstance(kind, list):
            out["type"] = [*kind, "null"] if "null" not in kind else kind
        else:
            out = {"anyOf": [out, {"type": "null"}]}
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    return out


_FORMATS = FormatChecker()


@_FORMATS.checks("date-time", raises=ValueError)
def _is_datetime(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if "T" not in value:
        raise ValueError(f"{value!r} is not an ISO 8601 date-time")
    datetime.fromisoformat(value)
    return True


@dataclass(frozen=True)
class Operation:
    operation_id: str
    method: str
    template: str
    pattern: re.Pattern[str]
    path_params: dict[str, dict[str, Any]]
    query_params: dict[str, dict[str, Any]]
    body_validator: Draft7Validator | None


def load_operations(path: Path = REST_SUBSET) -> list[Operation]:
    document = json.loads(path.read_text(encoding="utf-8"))
    components = draft7(document["components"])
    operations: list[Operation] = []
    for template, item in document["paths"].items():
        for method, op in item.items():
            params: list[dict[str, Any]] = []
            for param in op.get("parameters", []):
                if "$ref" in param:
                    name = param["$ref"].rsplit("/", 1)[1]
                    param = document["components"]["parameters"][name]
                params.append(param)
            path_params = {p["name"]: draft7(p.get("schema", {})) for p in params if p["in"] == "path"}
            query_params = {p["name"]: draft7(p.get("schema", {})) for p in params if p["in"] == "query"}
            regex = "^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template)) + "$"
            validator = None
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body is not None:
                schema = {**draft7(body), "components": components}
                Draft7Validator.check_schema(schema)
                validator = Draft7Validator(schema, format_checker=_FORMATS)
            operations.append(Operation(op["operationId"], method.upper(), template, re.compile(regex),
                                        path_params, query_params, validator))
    return operations


# --- records and faults ----------------------------------------------------------------------


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str                       # without the API prefix
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    operation: str | None
    problems: tuple[str, ...]
    status: int


@dataclass
class Fault:
    status: int
    method: str | None = None
    path: str | None = None         # a regex searched in the path
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    times: int = 1
    drop: bool = False

    def matches(self, method: str, path: str) -> bool:
        return (self.method is None or self.method == method) and (
            self.path is None or re.search(self.path, path) is not None)


# --- the server ---------------------------------------------------------------------------------


class FakeGitHub:
    """Start with `with FakeGitHub() as gh:`; point GITHUB_API_URL at `gh.url`."""

    def __init__(self, *, token: str = TOKEN, repository: str = REPOSITORY, prefix: str = "",
                 body_limit: int = BODY_LIMIT, read_only: bool = False):
        self.token = token
        self.repository = repository
        self.prefix = prefix.rstrip("/")
        self.body_limit = body_limit
        self.read_only = read_only
        #: a test that sends a bad request on purpose sets this, so the fixture does not fail it
        self.expect_problems = False
        self.operations = load_operations()
        self.requests: list[Recorded] = []
        self.comments: dict[int, list[dict[str, Any]]] = {}
        self.pulls: dict[int, dict[str, Any]] = {}
        self.check_runs: dict[int, dict[str, Any]] = {}
        self.annotations: dict[int, list[dict[str, Any]]] = {}
        self.statuses: dict[str, list[dict[str, Any]]] = {}
        self.review_comments: dict[int, list[dict[str, Any]]] = {}
        #: per pull request: path -> the lines of the head commit's file that its diff shows
        self.diffs: dict[int, dict[str, set[int]]] = {}
        self._faults: deque[Fault] = deque()
        self._next_id = 1_000_000_001  # int64-sized ids, like GitHub's
        self._lock = threading.RLock()  # _operate holds it while new_id() takes it again
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> "FakeGitHub":
        fake = self

        class Handler(_Handler):
            github = fake

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="fake-github", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "FakeGitHub":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def origin(self) -> str:
        assert self._server is not None, "start() the fake first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def url(self) -> str:
        """What GITHUB_API_URL would be."""
        return self.origin + self.prefix

    # --- arranging ------------------------------------------------------------------------

    def new_id(self) -> int:
        with self._lock:
            self._next_id += 1
            return self._next_id

    def add_pull(self, number: int, head_sha: str = HEAD_SHA, *, fork: bool = False,
                 diff: dict[str, Any] | None = None) -> dict[str, Any]:
        head_repo = "someone/shop" if fork else self.repository
        pull = {
            "number": number, "state": "open", "draft": False, "merged": False,
            "html_url": f"https://github.example/{self.repository}/pull/{number}",
            "head": {"sha": head_sha, "ref": "feature", "repo": {"full_name": head_repo, "fork": fork}},
            "base": {"sha": "f" * 40, "ref": "main", "repo": {"full_name": self.repository, "fork": False}},
        }
        self.pulls[number] = pull
        self.comments.setdefault(number, [])
        self.review_comments.setdefault(number, [])
        self.diffs[number] = {path: set(lines) for path, lines in (diff or {}).items()}
        return pull

    def add_review_comment(self, pull: int, body: str, path: str = "README.md", line: int = 1) -> dict[str, Any]:
        comment = self._review_comment(pull, {"body": body, "path": path, "line": line, "side": "RIGHT",
                                              "commit_id": self.pulls[pull]["head"]["sha"]},
                                       login="someone", kind="User")
        self.review_comments[pull].append(comment)
        return comment

    def add_comment(self, issue: int, body: str, *, login: str = "someone", kind: str = "User") -> dict[str, Any]:
        comment = self._comment(issue, body, login=login, kind=kind)
        self.comments.setdefault(issue, []).append(comment)
        return comment

    def fail(self, status: int, *, method: str | None = None, path: str | None = None, times: int = 1,
             headers: dict[str, str] | None = None, message: str | None = None, body: Any = None,
             drop: bool = False) -> None:
        """Queue a scripted answer for the next `times` requests matching method/path."""
        if body is None and not drop:
            body = {"message": message or f"scripted {status}",
                    "documentation_url": "https://docs.github.com/rest"}
        self._faults.append(Fault(status, method, path, dict(headers or {}), body, times, drop))

    # --- reading ---------------------------------------------------------------------------

    @property
    def problems(self) -> list[str]:
        return [f"{r.method} {r.path}: {p}" for r in self.requests for p in r.problems]

    def calls(self, operation: str) -> list[Recorded]:
        return [r for r in self.requests if r.operation == operation]

    def flowwalk_comments(self, issue: int) -> list[dict[str, Any]]:
        return [c for c in self.comments.get(issue, []) if c["body"].startswith("<!-- flowwalk:verdict")]

    # --- handling --------------------------------------------------------------------------

    def _comment(self, issue: int, body: str, *, login: str = "github-actions[bot]",
                 kind: str = "Bot") -> dict[str, Any]:
        cid = self.new_id()
        now = datetime.now().astimezone().isoformat(timespec="seconds")
        return {
            "id": cid, "node_id": f"IC_{cid}", "body": body,
            "url": f"{self.url}/repos/{self.repository}/issues/comments/{cid}",
            "html_url": f"https://github.example/{self.repository}/pull/{issue}#issuecomment-{cid}",
            "issue_url": f"{self.url}/repos/{self.repository}/issues/{issue}",
            "user": {"login": login, "id": 41898282, "type": kind},
            "author_association": "NONE", "performed_via_github_app": None,
            "created_at": now, "updated_at": now,
        }

    def _review_comment(self, pull: int, body: dict[str, Any], *, login: str = "github-actions[bot]",
                        kind: str = "Bot") -> dict[str, Any]:
        cid = self.new_id()
        now = datetime.now().astimezone().isoformat(timespec="seconds")
        return {
            "id": cid, "node_id": f"PRRC_{cid}", "pull_request_review_id": self.new_id(), "body": body["body"],
            "path": body["path"], "line": body["line"], "start_line": body.get("start_line"),
            "side": body.get("side", "RIGHT"), "start_side": body.get("start_side"),
            "commit_id": body["commit_id"], "original_commit_id": body["commit_id"], "diff_hunk": "@@ -1 +1 @@",
            "url": f"{self.url}/repos/{self.repository}/pulls/comments/{cid}",
            "html_url": f"https://github.example/{self.repository}/pull/{pull}#discussion_r{cid}",
            "pull_request_url": f"{self.url}/repos/{self.repository}/pulls/{pull}",
            "user": {"login": login, "id": 41898282, "type": kind}, "author_association": "NONE",
            "created_at": now, "updated_at": now,
        }

    def _page(self, items: list[dict[str, Any]], query: dict[str, list[str]],
              base: str) -> tuple[int, Any, dict[str, str]]:
        """One page of a list, with GitHub's `Link` header (absolute URLs)."""
        per_page = min(int(query.get("per_page", ["30"])[-1]), 100) or 30
        page = max(int(query.get("page", ["1"])[-1]), 1)
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page: page * per_page]
        links = []
        if page < last:
            links.append(f'<{base}?{urlencode({"per_page": per_page, "page": page + 1})}>; rel="next"')
            links.append(f'<{base}?{urlencode({"per_page": per_page, "page": last})}>; rel="last"')
        if page > 1:
            links.append(f'<{base}?{urlencode({"per_page": per_page, "page": page - 1})}>; rel="prev"')
            links.append(f'<{base}?{urlencode({"per_page": per_page, "page": 1})}>; rel="first"')
        return 200, copy.deepcopy(chunk), ({"Link": ", ".join(links)} if links else {})

    def _next_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.matches(method, path):
                    fault.times -= 1
                    if fault.times <= 0:
                        self._faults.remove(fault)
                    return fault
        return None

    def handle(self, method: str, raw_path: str, headers: dict[str, str], raw_body: bytes,
               host: str) -> tuple[int, dict[str, str], Any, bool]:
        """One request -> (status, headers, JSON body, drop connection). Records it."""
        parts = urlsplit(raw_path)
        path = parts.path
        query = parse_qs(parts.query, keep_blank_values=True)
        problems: list[str] = []
        operation: Operation | None = None
        body: Any = None

        def done(status: int, payload: Any, extra: dict[str, str] | None = None,
                 drop: bool = False) -> tuple[int, dict[str, str], Any, bool]:
            self.requests.append(Recorded(method, path, query, headers, body,
                                          operation.operation_id if operation else None, tuple(problems), status))
            return status, dict(extra or {}), payload, drop

        if self.prefix:
            if not path.startswith(self.prefix + "/"):
                problems.append(f"path does not start with the API prefix {self.prefix!r}")
                return done(404, {"message": "Not Found"})
            path = path[len(self.prefix):]

        # headers GitHub requires or flowwalk promises
        auth = headers.get("authorization", "")
        if auth not in (f"Bearer {self.token}", f"token {self.token}"):
            problems.append(f"Authorization is {auth[:12]!r}..., expected the test token")
            return done(401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
        if headers.get("accept") != "application/vnd.github+json":
            problems.append(f"Accept is {headers.get('accept')!r}")
        if headers.get("x-github-api-version") != "2022-11-28":
            problems.append(f"X-GitHub-Api-Version is {headers.get('x-github-api-version')!r}")
            return done(400, {"message": f"{headers.get('x-github-api-version')!r} is not a supported version"})
        if not headers.get("user-agent"):
            problems.append("no User-Agent")
            return done(403, {"message": "Request forbidden by administrative rules. Please make sure your "
                                         "request has a User-Agent header"})

        params: dict[str, str] = {}
        for candidate in self.operations:
            match = candidate.pattern.match(path)
            if match and candidate.method == method:
                operation, params = candidate, match.groupdict()
                break
        if operation is None:
            problems.append("no operation of rest-subset.json has this method and path")
            return done(404, {"message": "Not Found"})

        # parameters
        for name, value in params.items():
            schema = operation.path_params.get(name, {})
            if schema.get("type") == "integer" and not value.isdigit():
                problems.append(f"path parameter {name}={value!r} is not an integer")
        for name, values in query.items():
            if name not in operation.query_params:
                problems.append(f"unknown query parameter {name!r}")
                continue
            schema = operation.query_params[name]
            value = values[-1]
            if schema.get("type") == "integer":
                if not value.isdigit():
                    problems.append(f"query parameter {name}={value!r} is not an integer")
                elif name == "per_page" and int(value) > 100:
                    problems.append(f"per_page={value} is over GitHub's maximum of 100")
        owner_repo = f"{params.get('owner', '')}/{params.get('repo', '')}"
        if owner_repo.lower() != self.repository.lower():
            return done(404, {"message": "Not Found"})

        # the body
        if raw_body:
            if operation.body_validator is None:
                problems.append("a body was sent to an operation that takes none")
            if not headers.get("content-type", "").startswith("application/json"):
                problems.append(f"Content-Type is {headers.get('content-type')!r}")
            try:
                body = json.loads(raw_body)
            except ValueError:
                problems.append("the body is not JSON")
                return done(400, {"message": "Problems parsing JSON"})
        elif operation.body_validator is not None:
            problems.append("no body sent to an operation that needs one")
        if operation.body_validator is not None and body is not None:
            errors = sorted(operation.body_validator.iter_errors(body), key=lambda e: list(e.absolute_path))
            if errors:
                for error in errors:
                    where = "/".join(str(p) for p in error.absolute_path) or "(body)"
                    problems.append(f"body invalid for {operation.operation_id} at {where}: {error.message}")
                return done(422, {"message": "Invalid request.",
                                  "errors": [e.message for e in errors],
                                  "documentation_url": "https://docs.github.com/rest"})

        fault = self._next_fault(method, path)
        if fault is not None:
            return done(fault.status, fault.body, fault.headers, fault.drop)
        if self.read_only and method in ("POST", "PATCH", "PUT", "DELETE"):
            return done(403, {"message": "Resource not accessible by integration",
                              "documentation_url": "https://docs.github.com/rest"})

        status, payload, extra = self._operate(operation.operation_id, params, query, body, host)
        return done(status, payload, extra)

    def _operate(self, op: str, params: dict[str, str], query: dict[str, list[str]], body: Any,
                 host: str) -> tuple[int, Any, dict[str, str]]:
        with self._lock:
            if op == "issues/list-comments":
                issue = int(params["issue_number"])
                if issue not in self.comments:
                    return 404, {"message": "Not Found"}, {}
                return self._page(self.comments[issue], query,
                                  f"http://{host}{self.prefix}/repos/{self.repository}/issues/{issue}/comments")
            if op == "pulls/list-review-comments":
                number = int(params["pull_number"])
                if number not in self.pulls:
                    return 404, {"message": "Not Found"}, {}
                return self._page(self.review_comments[number], query,
                                  f"http://{host}{self.prefix}/repos/{self.repository}/pulls/{number}/comments")
            if op == "pulls/create-review-comment":
                number = int(params["pull_number"])
                if number not in self.pulls:
                    return 404, {"message": "Not Found"}, {}
                if body.get("commit_id") != self.pulls[number]["head"]["sha"]:
                    return 422, _unresolved("commit_id", "commit_id is not part of the pull request"), {}
                if "line" not in body or body.get("side", "RIGHT") != "RIGHT":
                    return 422, _unresolved("pull_request_review_thread.line", "could not be resolved"), {}
                first = int(body.get("start_line") or body["line"])
                shown = self.diffs.get(number, {}).get(body["path"], set())
                if first > body["line"] or any(n not in shown for n in range(first, body["line"] + 1)):
                    return 422, _unresolved("pull_request_review_thread.line", "could not be resolved"), {}
                if len(body["body"]) > self.body_limit:
                    return 422, _too_long("PullRequestReviewComment", "body", self.body_limit), {}
                comment = self._review_comment(number, body)
                self.review_comments[number].append(comment)
                return 201, copy.deepcopy(comment), {"Location": comment["url"]}
            if op == "issues/create-comment":
                issue = int(params["issue_number"])
                if issue not in self.comments:
                    return 404, {"message": "Not Found"}, {}
                if len(body["body"]) > self.body_limit:
                    return 422, _too_long("IssueComment", "body", self.body_limit), {}
                comment = self._comment(issue, body["body"])
                self.comments[issue].append(comment)
                return 201, copy.deepcopy(comment), {"Location": comment["url"]}
            if op in ("issues/update-comment", "issues/delete-comment"):
                cid = int(params["comment_id"])
                for issue, items in self.comments.items():
                    for index, comment in enumerate(items):
                        if comment["id"] != cid:
                            continue
                        if op == "issues/delete-comment":
                            del items[index]
                            return 204, None, {}
                        if len(body["body"]) > self.body_limit:
                            return 422, _too_long("IssueComment", "body", self.body_limit), {}
                        comment["body"] = body["body"]
                        comment["updated_at"] = datetime.now().astimezone().isoformat(timespec="seconds")
                        return 200, copy.deepcopy(comment), {}
                return 404, {"message": "Not Found"}, {}
            if op == "repos/list-pull-requests-associated-with-commit":
                # the pull requests whose commits hold it: here, those whose head it is (closed ones too)
                sha = params["commit_sha"]
                found = [copy.deepcopy(pull) for _, pull in sorted(self.pulls.items()) if pull["head"]["sha"] == sha]
                return self._page(found, query,
                                  f"http://{host}{self.prefix}/repos/{self.repository}/commits/{sha}/pulls")
            if op == "pulls/get":
                number = int(params["pull_number"])
                if number not in self.pulls:
                    return 404, {"message": "Not Found"}, {}
                return 200, copy.deepcopy(self.pulls[number]), {}
            if op == "checks/create":
                rid = self.new_id()
                run = {"id": rid, "name": body["name"], "head_sha": body["head_sha"],
                       "status": "completed" if body.get("conclusion") else body.get("status", "queued"),
                       "conclusion": body.get("conclusion"), "details_url": body.get("details_url"),
                       "html_url": f"https://github.example/{self.repository}/runs/{rid}",
                       "output": {"title": None, "summary": None, "annotations_count": 0},
                       "check_suite": {"id": 7}}
                self.check_runs[rid] = run
                self.annotations[rid] = []
                self._apply_output(rid, body.get("output"))
                return 201, copy.deepcopy(run), {}
            if op == "checks/update":
                rid = int(params["check_run_id"])
                if rid not in self.check_runs:
                    return 404, {"message": "Not Found"}, {}
                run = self.check_runs[rid]
                for key in ("name", "status", "conclusion", "details_url"):
                    if key in body:
                        run[key] = body[key]
                if body.get("conclusion"):
                    run["status"] = "completed"
                self._apply_output(rid, body.get("output"))
                return 200, copy.deepcopy(run), {}
            if op == "repos/create-commit-status":
                description = body.get("description") or ""
                if len(description) > 140:
                    return 422, _too_long("Status", "description", 140), {}
                status = {"id": self.new_id(), "state": body["state"],
                          "context": body.get("context", "default"), "description": body.get("description"),
                          "target_url": body.get("target_url")}
                self.statuses.setdefault(params["sha"], []).append(status)
                return 201, status, {}
        return 404, {"message": "Not Found"}, {}  # pragma: no cover - every operation is handled

    def _apply_output(self, rid: int, output: dict[str, Any] | None) -> None:
        if not output:
            return
        run = self.check_runs[rid]
        for key in ("title", "summary", "text"):
            if key in output:
                run["output"][key] = output[key]
        # GitHub appends the annotations of every update to those already on the run
        self.annotations[rid].extend(output.get("annotations", []))
        run["output"]["annotations_count"] = len(self.annotations[rid])


def _unresolved(name: str, message: str) -> dict[str, Any]:
    """GitHub's answer to a review comment on lines outside the pull request's diff."""
    return {"message": "Validation Failed",
            "errors": [{"resource": "PullRequestReviewComment", "code": "custom", "field": name, "message": message}],
            "documentation_url": "https://docs.github.com/rest/pulls/comments#create-a-review-comment-for-a-pull-request"}


def _too_long(resource: str, name: str, limit: int) -> dict[str, Any]:
    return {"message": "Validation Failed",
            "errors": [{"resource": resource, "code": "custom", "field": name,
                        "message": f"{name} is too long (maximum is {limit} characters)"}],
            "documentation_url": "https://docs.github.com/rest"}


class _Handler(BaseHTTPRequestHandler):
    github: FakeGitHub
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        return

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        status, extra, payload, drop = self.github.handle(
            self.command, self.path, headers, raw, self.headers.get("Host", ""))
        if drop:
            self.close_connection = True
            self.connection.shutdown(2)  # no answer at all: the client sees a dropped connection
            return
        data = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-GitHub-Api-Version-Selected", "2022-11-28")
        for key, value in extra.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _serve  # noqa: N815


@contextlib.contextmanager
def refused_url() -> Iterator[str]:
    """A loopback URL whose connections are refused, for "connection refused" tests: a port bound
    and held, never listened on, for the test's duration. (A port bound and released could be taken
    by another test's server meanwhile, when the suite runs on several workers: the request then
    reached that server.)"""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


