"""The one HTTP client flowwalk uses for GitLab's REST API (the only `requests` user for GitLab).

What it guarantees:

- the base URL is the job's `CI_API_V4_URL` (GitLab.com or a self-managed instance alike), every
  request carries the token in `PRIVATE-TOKEN` (a project, group or personal access token) and a
  User-Agent, and JSON;
- requests go one at a time; 5xx answers and connection failures are retried with jittered
  exponential backoff, 429 is waited out as `Retry-After` says, all waiting within one budget;
- pages are followed through the `Link: rel="next"` header (or `X-Next-Page`, which GitLab sends
  where it leaves `Link` out);
- a redirect never takes the token to another host;
- anything else becomes a `GitLabError` with the status, GitLab's own message and what to do.

The clock and the jitter are injectable, as for the GitHub client, so tests run the real retry
paths against a fake GitLab over HTTP without waiting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping
from urllib.parse import quote, urlsplit

import requests

from flowwalk import __version__
from flowwalk.errors import PublishError
from flowwalk.github.client import Clock, PacedClient, RetryPolicy

USER_AGENT = f"flowwalk/{__version__} (+https://github.com/flowwalk/flowwalk)"
_MUTATING = frozenset({"POST", "PUT", "DELETE"})


class GitLabError(PublishError):
    """A request to GitLab failed for good. `str()` is the message and the hint, for people."""

    def __init__(self, message: str, *, hint: str = "", status: int | None = None):
        self.message = message
        self.hint = hint
        self.status = status
        super().__init__(message + (f"\n  hint: {hint}" if hint else ""))


@dataclass(frozen=True)
class GitLabResponse:
    status: int
    data: Any
    next_url: str | None = None


def project_path(project: str) -> str:
    """`/projects/{id}`: a numeric id as it is, a `group/project` path URL-quoted whole."""
    return f"/projects/{quote(project, safe='') if not project.isdigit() else project}"


class GitLabClient(PacedClient):
    """Requests to one GitLab API base URL with one token (see the module docstring)."""

    def __init__(self, api_url: str, token: str | None, *, policy: RetryPolicy | None = None,
                 clock: Clock | None = None, jitter: Callable[[], float] | None = None):
        super().__init__(policy=policy or RetryPolicy(mutation_gap_s=0.0), clock=clock, jitter=jitter)
        self.api_url = api_url.rstrip("/")
        self._token = token

    def paginate(self, path: str, params: Mapping[str, Any] | None = None, *, max_pages: int = 100) -> Iterator[Any]:
        """Every item of a list endpoint, 100 a page."""
        response = self.request("GET", path, params={"per_page": 100, **(params or {})})
        for _ in range(max_pages):
            if not isinstance(response.data, list):
                raise GitLabError(f"GET {path} answered {type(response.data).__name__}, expected a list",
                                  status=response.status)
            yield from response.data
            if not response.next_url:
                return
            response = self.request("GET", response.next_url)

    def request(self, method: str, path: str, *, body: Mapping[str, Any] | None = None,
                params: Mapping[str, Any] | None = None) -> GitLabResponse:
        method = method.upper()
        url = path if path.startswith(("http://", "https://")) else self.api_url + path
        for tries in range(1, self.policy.attempts + self.policy.rate_limit_attempts + 1):
            try:
                raw = self._send(method, url, body, params)
            except requests.RequestException as error:
                if tries < self.policy.attempts and self._wait(self._backoff(tries), f"{method} {url}: {error}"):
                    continue
                raise GitLabError(f"cannot reach GitLab at {self.api_url} ({method} {_short(url)}): "
                                  f"{type(error).__name__}",
                                  hint="check CI_API_V4_URL and the runner's network or proxy; a private CA goes "
                                       "in REQUESTS_CA_BUNDLE") from None
            if raw.status_code < 300:
                return GitLabResponse(raw.status_code, _json(raw), _next_url(raw, url))
            if raw.status_code == 429 or raw.status_code >= 500:
                delay = _retry_after(raw) if raw.status_code == 429 else None
                if self._wait(delay if delay is not None else self._backoff(tries),
                              f"{method} {_short(url)}: {raw.status_code}") and tries < self.policy.attempts:
                    continue
            raise _error(raw, method, url)
        raise GitLabError(f"{method} {_short(url)}: gave up after {self.policy.attempts} tries")  # pragma: no cover

    token_header = "PRIVATE-TOKEN"

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if self._token:
            headers[self.token_header] = self._token
        return headers


def _short(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _json(raw: requests.Response) -> Any:
    try:
        return raw.json() if raw.content else None
    except ValueError:
        return None


def _next_url(raw: requests.Response, url: str) -> str | None:
    link = raw.links.get("next", {}).get("url")
    if link:
        return str(link)
    page = raw.headers.get("x-next-page", "").strip()
    if not page:
        return None
    parts = urlsplit(url)
    query = [kv for kv in parts.query.split("&") if kv and not kv.startswith("page=")]
    return parts._replace(query="&".join([*query, f"page={page}"])).geturl()


def _retry_after(raw: requests.Response) -> float | None:
    try:
        return max(0.0, float(raw.headers.get("retry-after", "")))
    except ValueError:
        return None


def _error(raw: requests.Response, method: str, url: str) -> GitLabError:
    data = _json(raw)
    said = ""
    if isinstance(data, dict):
        said = str(data.get("message") or data.get("error_description") or data.get("error") or "")
    status = raw.status_code
    what = f"GitLab answered {status} to {method} {_short(url)}" + (f": {said}" if said else "")
    hints = {
        401: "the token is missing, wrong or expired: set GITLAB_TOKEN to a project access token with the api scope",
        403: "the token may not do this: a note needs a token with the api scope and at least the Reporter role "
             "(CI_JOB_TOKEN cannot write notes)",
        404: "check CI_PROJECT_ID and the merge request's iid, and that the token's project can see them",
        429: "GitLab's rate limit: the verdict is unaffected, publish from one job (the merge job), not one per shard",
    }
    hint = hints.get(status, "GitLab is having trouble; the verdict is unaffected" if status >= 500 else "")
    return GitLabError(what, hint=hint, status=status)


__all__ = ["GitLabClient", "GitLabError", "GitLabResponse", "project_path"]
