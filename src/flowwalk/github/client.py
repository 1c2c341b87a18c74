"""The one HTTP client flowwalk uses for GitHub's REST API (the only `requests` user for GitHub).

What it guarantees, from GitHub's own rules (../shared/github-api/contract.md sections 1 and 3):

- the base URL comes from settings (`GITHUB_API_URL`, so GitHub Enterprise works unchanged), every
  request carries the token, `Accept: application/vnd.github+json`, `X-GitHub-Api-Version:
  2022-11-28` and a User-Agent;
- requests go one at a time, and mutating ones at least `mutation_gap_s` apart;
- 5xx answers and connection failures are retried with jittered exponential backoff; rate limits
  (403/429 with `retry-after`, `x-ratelimit-remaining: 0` + `x-ratelimit-reset`, or a "secondary
  rate limit" message) are waited out; all waiting shares one total budget, so a publish step can
  never hang a CI job for an hour;
- pages are followed through the `Link: rel="next"` header, never built by hand;
- redirects are followed with the same method and body (requests would turn a POST into a GET);
- anything else becomes a typed `GitHubError` that says what happened and what to do, including the
  read-only token GitHub gives to workflows of pull requests from forks.

The clock (time + sleep) and the jitter source are injectable so that tests can run the real
retry paths against a real local server without waiting.
"""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Protocol, TypeVar
from urllib.parse import quote, urlsplit

import requests

from flowwalk import __version__
from flowwalk.errors import PublishError

API_VERSION = "2022-11-28"
ACCEPT = "application/vnd.github+json"
USER_AGENT = f"flowwalk/{__version__} (+https://github.com/flowwalk/flowwalk)"
MUTATING = frozenset({"POST", "PATCH", "PUT", "DELETE"})
READ_ONLY_MESSAGE = "Resource not accessible by integration"
FORK_HINT = (
    "on a pull request from a fork (and on Dependabot PRs) GitHub gives the workflow a read-only token; "
    "the job summary, annotations and outputs still work. To comment on such PRs, upload the report "
    "folder (it carries pr.json) and publish it from a second workflow triggered by workflow_run: "
    "see docs/publishing.md#fork-pull-requests and examples/workflows/fork-safe.yml. On a PR from "
    "the same repository, grant the job `permissions: pull-requests: write` (and `checks: write` for "
    "--check-run, `statuses: write` for --commit-status)."
)


class Clock(Protocol):
    def time(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """Wall-clock time and real sleeping."""

    def time(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


@dataclass(frozen=True)
class RetryPolicy:
    #: tries per request for 5xx answers and connection failures, the first one included
    attempts: int = 4
    #: rate-limit waits per request (each also bounded by the shared budget)
    rate_limit_attempts: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    #: everything one client may sleep in total, rate limits included; past it, give up and say so
    total_wait_s: float = 180.0
    #: a secondary rate limit without retry-after: GitHub asks for at least a minute
    secondary_wait_s: float = 60.0
    #: GitHub asks integrators to leave a second between content-creating requests
    mutation_gap_s: float = 1.0
    timeout_s: tuple[float, float] = (10.0, 30.0)  # connect, read
    max_redirects: int = 3


# --- errors -----------------------------------------------------------------------------------


class GitHubError(PublishError):
    """A request to GitHub failed for good. `str()` is the message and the hint, for people."""

    def __init__(self, message: str, *, hint: str = "", status: int | None = None, method: str = "",
                 url: str = "", github_message: str = "", errors: tuple[Any, ...] = ()):
        self.message = message
        self.hint = hint
        self.status = status
        self.method = method
        self.url = url
        self.github_message = github_message
        self.errors = errors
        super().__init__(message + (f"\n  hint: {hint}" if hint else ""))


class AuthenticationError(GitHubError):
    """401: the token is missing, wrong or expired."""


class PermissionDeniedError(GitHubError):
    """403 that is not a rate limit: the token may not do this."""


class ReadOnlyTokenError(PermissionDeniedError):
    """403 "Resource not accessible by integration": typically a fork PR's read-only GITHUB_TOKEN."""


class NotFoundError(GitHubError):
    """404: wrong repository / PR / id, or no access to a private repository."""


class UnprocessableError(GitHubError):
    """422: GitHub refused the request body."""

    @property
    def too_long(self) -> bool:
        text = " ".join([self.github_message, *(str(e) for e in self.errors)]).lower()
        return "too long" in text or "too large" in text


class RateLimitedError(GitHubError):
    """Rate limited, and waiting it out would exceed the wait budget."""


class ServerError(GitHubError):
    """GitHub kept answering 5xx."""


class ConnectionFailedError(GitHubError):
    """GitHub could not be reached at all."""


class UnexpectedResponseError(GitHubError):
    """Any other answer flowwalk does not expect (400, 410, a non-JSON body ...)."""


# --- responses ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Response:
    status: int
    data: Any
    headers: Mapping[str, str]
    url: str
    next_url: str | None = None


@dataclass
class _Budget:
    waited_s: float = 0.0
    log: list[str] = field(default_factory=list)


def repo_path(repository: str) -> str:
    """`/repos/{owner}/{repo}` with both parts URL-quoted."""
    owner, _, name = repository.partition("/")
    return f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}"


def _short(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


_Self = TypeVar("_Self", bound="PacedClient")


class PacedClient:
    """What the GitHub and GitLab clients share: one requests session (the job's proxies and CA bundle
    honoured), the retry policy, and one budget of waiting (backoff and rate limits) per publish."""

    def __init__(self, *, policy: RetryPolicy | None = None, clock: Clock | None = None,
                 jitter: Callable[[], float] | None = None, session: requests.Session | None = None):
        self.policy = policy or RetryPolicy()
        self.clock: Clock = clock or SystemClock()
        self._jitter = jitter or random.Random().random
        self._session = session or requests.Session()
        self._session.trust_env = True  # REQUESTS_CA_BUNDLE / proxies on GitHub Enterprise runners
        self._budget = _Budget()

    # what happened along the way (retries, waits), for the publish report
    @property
    def log(self) -> list[str]:
        return list(self._budget.log)

    @property
    def waited_s(self) -> float:
        return self._budget.waited_s

    def close(self) -> None:
        self._session.close()

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    #: the request header that carries the token: never sent on to another host
    token_header = "Authorization"

    def _headers(self) -> dict[str, str]:
        """Every request's headers, the token's among them."""
        return {}

    def _send(self, method: str, url: str, body: Mapping[str, Any] | None,
              params: Mapping[str, Any] | None) -> requests.Response:
        headers = self._headers()
        origin = urlsplit(url).netloc
        for _hop in range(self.policy.max_redirects + 1):
            raw = self._session.request(method, url, json=body, params=params, headers=headers,
                                        timeout=self.policy.timeout_s, allow_redirects=False)
            if raw.status_code not in (301, 302, 307, 308) or "Location" not in raw.headers:
                return raw
            # same method, same body (requests would turn a redirected POST into a GET)
            url = requests.compat.urljoin(url, raw.headers["Location"])
            params = None
            if urlsplit(url).netloc != origin:
                headers.pop(self.token_header, None)  # never hand the token to another host
        return raw

    def _backoff(self, tries: int) -> float:
        delay = min(self.policy.max_delay_s, self.policy.base_delay_s * 2.0 ** (tries - 1))
        return float(delay * (0.5 + self._jitter() / 2))  # "equal jitter": never less than half

    def _wait(self, seconds: float, why: str) -> bool:
        """Sleep `seconds` if the shared budget allows; False (no sleep) when it does not."""
        seconds = max(0.0, seconds)
        if self._budget.waited_s + seconds > self.policy.total_wait_s:
            return False
        self._budget.log.append(f"{why}; retrying in {seconds:.1f} s")
        self.clock.sleep(seconds)
        self._budget.waited_s += seconds
        return True


class GitHubClient(PacedClient):
    """A small synchronous REST client. One instance per publish; not thread-safe (on purpose)."""

    def __init__(self, api_url: str, token: str | None, *, policy: RetryPolicy | None = None,
                 clock: Clock | None = None, jitter: Callable[[], float] | None = None,
                 session: requests.Session | None = None):
        super().__init__(policy=policy, clock=clock, jitter=jitter, session=session)
        self.api_url = api_url.rstrip("/")
        self._token = token
        self._last_mutation: float | None = None

    # --- public verbs -------------------------------------------------------------------------

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Response:
        return self.request("GET", path, params=params)

    def post(self, path: str, body: Mapping[str, Any]) -> Response:
        return self.request("POST", path, body=body)

    def patch(self, path: str, body: Mapping[str, Any]) -> Response:
        return self.request("PATCH", path, body=body)

    def delete(self, path: str) -> Response:
        return self.request("DELETE", path)

    def paginate(self, path: str, params: Mapping[str, Any] | None = None, *,
                 max_pages: int = 200) -> Iterator[Any]:
        """Every item of a list endpoint, following `Link: rel="next"` (100 per page)."""
        query = {"per_page": 100, **(params or {})}
        response = self.request("GET", path, params=query)
        seen = {response.url}
        pages = 1
        while True:
            if not isinstance(response.data, list):
                raise UnexpectedResponseError(
                    f"GET {_short(response.url)} answered {type(response.data).__name__}, expected a list",
                    status=response.status, method="GET", url=response.url)
            yield from response.data
            if not response.next_url or response.next_url in seen or pages >= max_pages:
                return
            seen.add(response.next_url)
            # the next URL already carries the query: sending params again would duplicate them
            response = self.request("GET", response.next_url)
            pages += 1

    def request(self, method: str, path: str, *, body: Mapping[str, Any] | None = None,
                params: Mapping[str, Any] | None = None) -> Response:
        method = method.upper()
        url = path if path.startswith(("http://", "https://")) else self.api_url + path
        tries = 0
        rate_waits = 0
        while True:
            tries += 1
            if method in MUTATING:
                self._space_mutations()
            try:
                raw = self._send(method, url, body, params)
            except requests.RequestException as error:
                reason = _connection_reason(error)
                delay = self._backoff(tries)
                if tries < self.policy.attempts and self._wait(delay, f"{method} {_short(url)}: {reason}"):
                    continue
                raise ConnectionFailedError(
                    f"cannot reach GitHub at {self.api_url} ({method} {_short(url)}): {reason}"
                    f" (after {tries} tries)",
                    hint="check GITHUB_API_URL (GitHub Enterprise Server: https://HOST/api/v3) and the "
                         "runner's network or proxy; a private CA goes in REQUESTS_CA_BUNDLE",
                    method=method, url=url) from None
            if raw.status_code < 300 or raw.status_code == 304:
                return _response(raw, method)

            rate_wait = self._rate_limit_wait(raw)
            if rate_wait is not None:
                rate_waits += 1
                what = f"{method} {_short(url)}: rate limited ({raw.status_code})"
                if rate_waits <= self.policy.rate_limit_attempts and self._wait(rate_wait, what):
                    tries -= 1  # a rate-limit wait is not a failed try
                    continue
                raise RateLimitedError(
                    f"GitHub rate limit hit on {method} {_short(url)} and waiting {rate_wait:.0f} s more "
                    f"would exceed the {self.policy.total_wait_s:.0f} s budget"
                    f" (already waited {self._budget.waited_s:.0f} s)",
                    hint="the verdict and reports are unaffected; rerun the publish step later, or publish "
                         "from one job instead of one per shard (GitHub allows ~80 content-creating "
                         "requests a minute)",
                    status=raw.status_code, method=method, url=url, github_message=_message(raw))
            if raw.status_code >= 500:
                delay = self._backoff(tries)
                if tries < self.policy.attempts and self._wait(
                        delay, f"{method} {_short(url)}: {raw.status_code} {raw.reason}"):
                    continue
                raise ServerError(
                    f"GitHub answered {raw.status_code} {raw.reason} to {method} {_short(url)} "
                    f"{tries} times",
                    hint="GitHub is having trouble (https://www.githubstatus.com); the verdict is unaffected, "
                         "rerun the publish step later",
                    status=raw.status_code, method=method, url=url, github_message=_message(raw))
            raise _client_error(raw, method, url)

    # --- internals ---------------------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": ACCEPT, "X-GitHub-Api-Version": API_VERSION, "User-Agent": USER_AGENT}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        return headers

    def _space_mutations(self) -> None:
        now = self.clock.time()
        if self._last_mutation is not None:
            gap = self.policy.mutation_gap_s - (now - self._last_mutation)
            if gap > 0:
                self.clock.sleep(gap)
                now = self.clock.time()
        self._last_mutation = now

    def _rate_limit_wait(self, raw: requests.Response) -> float | None:
        """Seconds to wait when the answer is a rate limit, else None (contract.md section 3)."""
        if raw.status_code not in (403, 429):
            return None
        retry_after = raw.headers.get("retry-after")
        if retry_after:
            seconds = _retry_after_seconds(retry_after, self.clock.time())
            if seconds is not None:
                return seconds
        if raw.headers.get("x-ratelimit-remaining") == "0" and raw.headers.get("x-ratelimit-reset"):
            try:
                reset = float(raw.headers["x-ratelimit-reset"])
            except ValueError:
                reset = self.clock.time() + self.policy.secondary_wait_s
            return max(1.0, reset - self.clock.time() + 1.0)
        message = _message(raw).lower()
        if "secondary rate limit" in message or "abuse" in message:
            return self.policy.secondary_wait_s
        if raw.status_code == 429:
            return self._backoff(2)
        return None


def _retry_after_seconds(value: str, now: float) -> float | None:
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now)


def _connection_reason(error: requests.RequestException) -> str:
    if isinstance(error, requests.Timeout):
        return "timed out"
    text = str(error)
    for marker in ("Connection refused", "Name or service not known", "certificate verify failed",
                   "Temporary failure in name resolution", "Connection reset"):
        if marker in text:
            return marker.lower()
    return type(error).__name__


def _json(raw: requests.Response) -> Any:
    if not raw.content:
        return None
    try:
        return raw.json()
    except ValueError:
        return None


def _message(raw: requests.Response) -> str:
    data = _json(raw)
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return str(data["message"])
    return raw.text[:200] if raw.text else ""


def _response(raw: requests.Response, method: str) -> Response:
    data = _json(raw)
    if raw.content and data is None and raw.status_code != 304:
        raise UnexpectedResponseError(
            f"{method} {_short(raw.url)} answered {raw.status_code} with a body that is not JSON",
            hint="is GITHUB_API_URL the API (https://api.github.com, or https://HOST/api/v3 on GitHub "
                 "Enterprise Server) and not the web UI?",
            status=raw.status_code, method=method, url=raw.url)
    next_url = raw.links.get("next", {}).get("url")
    return Response(status=raw.status_code, data=data, headers=dict(raw.headers), url=raw.url, next_url=next_url)


def _client_error(raw: requests.Response, method: str, url: str) -> GitHubError:
    status = raw.status_code
    message = _message(raw)
    data = _json(raw)
    errors = tuple(data.get("errors") or ()) if isinstance(data, dict) else ()
    what = f"{method} {_short(url)}"
    common: dict[str, Any] = {"status": status, "method": method, "url": url, "github_message": message, "errors": errors}
    if status == 401:
        return AuthenticationError(
            f"GitHub refused the token ({status} {message or 'Unauthorized'}) on {what}",
            hint="give the Action `token: ${{ github.token }}` (its default), or pass --token / set "
                 "GITHUB_TOKEN; a personal access token may have expired or been revoked", **common)
    if status == 403:
        if READ_ONLY_MESSAGE.lower() in message.lower():
            return ReadOnlyTokenError(
                f"the token may only read this repository ({status} \"{message}\") on {what}",
                hint=FORK_HINT, **common)
        return PermissionDeniedError(
            f"the token may not do {what} ({status} {message or 'Forbidden'})",
            hint="grant the job the permission it needs: `pull-requests: write` for the comment, "
                 "`checks: write` for --check-run, `statuses: write` for --commit-status", **common)
    if status == 404:
        return NotFoundError(
            f"GitHub found nothing at {what} (404 {message or 'Not Found'})",
            hint="check GITHUB_REPOSITORY and the PR number; on a private repository GitHub also answers "
                 "404 when the token cannot see it; on GitHub Enterprise Server GITHUB_API_URL must end "
                 "in /api/v3", **common)
    if status == 422:
        details = "; ".join(_error_text(e) for e in errors)
        return UnprocessableError(
            f"GitHub refused the request body of {what} (422 {message or 'Unprocessable Entity'}"
            f"{': ' + details if details else ''})",
            hint="this is a flowwalk bug unless the text says a field is too long; please report it", **common)
    return UnexpectedResponseError(
        f"GitHub answered {status} {raw.reason} to {what}{': ' + message if message else ''}",
        hint="410 means the resource is gone (e.g. issues disabled); 400 'not a supported version' means "
             "the server does not know API version " + API_VERSION, **common)


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        if error.get("message"):
            return str(error["message"])
        return " ".join(f"{k}={v}" for k, v in error.items())
    return str(error)
