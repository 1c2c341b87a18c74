"""The readiness wait: poll a URL until it answers as expected, before any flow walks a preview.

A pull request's preview deployment (Vercel, Netlify, Render, a namespace per PR) is often still
building when the checks start. `wait_until_ready` asks the URL every `interval_s` seconds, for at
most `timeout_s`, until it answers with an expected status (after redirects) and, when asked, with
a text in its body; it logs what it sees as it goes and returns a `Readiness` record. A preview
that never comes up is one verdict of its own (`site_not_ready`, exit 7), not a pile of failed
flows (walk/run.py, exitcodes.py).

The run's HTTP headers and credentials (`HttpAccess`, values from secrets) go with a request only
to the base URL's origin, and redirects are followed one hop at a time so that a hop to another
origin never carries them. TLS certificates are not verified, as the browser's contexts do
not verify them (`ignore_https_errors`): a preview with a self-signed certificate is up for both.
"""

from __future__ import annotations

import base64
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping
from urllib.parse import urljoin, urlsplit

from flowwalk.errors import UsageError

__all__ = ["HttpAccess", "Readiness", "access_from", "describe_statuses", "origin_of", "parse_statuses",
           "readiness_url", "refuse_unusable", "wait_until_ready"]

#: at most this much of a body is read to look for the text
BODY_LIMIT = 5 * 1024 * 1024
#: redirects followed at most (as browsers do, give or take)
MAX_REDIRECTS = 10
#: one request waits at most this long for an answer
REQUEST_TIMEOUT_S = 10.0
#: a line in the log at least this often while the answer stays the same
HEARTBEAT_S = 30.0

_STATUS = re.compile(r"^(?:([1-5])xx|(\d{3})(?:-(\d{3}))?)$")


def parse_statuses(text: str, what: str = "--wait-status") -> tuple[tuple[int, int], ...]:
    """`2xx`, `200`, `200,204`, `200-399` as inclusive ranges; UsageError naming `what` otherwise."""
    ranges: list[tuple[int, int]] = []
    for part in re.split(r"[\s,]+", text.strip()):
        if not part:
            continue
        match = _STATUS.match(part.lower())
        low = high = 0
        if match and match.group(1):
            low, high = int(match.group(1)) * 100, int(match.group(1)) * 100 + 99
        elif match:
            low = int(match.group(2))
            high = int(match.group(3) or low)
        if not match or not 100 <= low <= high <= 599:
            raise UsageError(f"{what} '{text}': '{part}' is not an HTTP status\n"
                             f"  hint: a status (200), a class (2xx), a range (200-399), several separated by commas")
        ranges.append((low, high))
    if not ranges:
        raise UsageError(f"{what} is empty\n  hint: for example 2xx, or 200")
    return tuple(ranges)


def describe_statuses(ranges: tuple[tuple[int, int], ...]) -> str:
    parts = []
    for low, high in ranges:
        if low % 100 == 0 and high == low + 99:
            parts.append(f"{low // 100}xx")
        else:
            parts.append(str(low) if low == high else f"{low}-{high}")
    return ", ".join(parts)


@dataclass(frozen=True)
class HttpAccess:
    """The run's extra HTTP headers and HTTP credentials, and the origin they go to. The values come
    from secrets; repr shows the header names and the origin only."""

    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    #: (username, password) for HTTP authentication
    credentials: tuple[str, str] | None = field(default=None, repr=False)
    #: the one origin both are sent to: the base URL's (`https://pr-12.example.com`, scheme, host and
    #: port as a browser compares them); None sends them nowhere
    origin: str | None = None
    #: why a header or the credentials the run names cannot be sent (`access_from`)
    problems: tuple[str, ...] = field(default=(), repr=False)
    #: the run names headers or credentials (even when none of their values can be sent)
    wanted: bool = False

    def __repr__(self) -> str:
        return (f"HttpAccess(headers={[name for name, _ in self.headers]}, "
                f"credentials={'yes' if self.credentials else 'no'}, origin={self.origin!r})")

    def __bool__(self) -> bool:
        return bool(self.headers or self.credentials)

    def sends_to(self, url: str) -> bool:
        return self.origin is not None and origin_of(url) == self.origin

    def authorization(self) -> str | None:
        """The `Authorization` header of HTTP basic authentication, when there are credentials."""
        if self.credentials is None:
            return None
        token = base64.b64encode(":".join(self.credentials).encode("utf-8")).decode("ascii")
        return f"Basic {token}"

    def hidden_values(self) -> list[str]:
        """Every form a value may take in an artifact: each header value, the password, the username
        and password joined, and their base64 (an `Authorization` header a page or a log echoes)."""
        values = [value for _, value in self.headers]
        if self.credentials is not None:
            user, password = self.credentials
            joined = f"{user}:{password}"
            values += [password, joined, base64.b64encode(joined.encode("utf-8")).decode("ascii")]
        return [value for value in values if value]


@dataclass(frozen=True)
class Readiness:
    """What the wait saw: the record `run_started.readiness` keeps (never a secret: no header, no
    credential, only what the site answered)."""

    url: str
    expected: str
    ready: bool
    attempts: int
    waited_s: float
    #: the last answer, in words: `404 Not Found`, `200 OK without 'v2.3'`, `connection refused`
    last: str
    timeout_s: float
    cancelled: bool = False

    def record(self) -> dict[str, Any]:
        return {"url": self.url, "expected": self.expected, "ready": self.ready, "attempts": self.attempts,
                "waited_s": self.waited_s, "last": self.last, "timeout_s": self.timeout_s,
                "cancelled": self.cancelled}

    def message(self) -> str:
        """Why nothing was walked, for the verdict and every report."""
        return (f"the site never came up: {self.url} answered {self.last} for {self.waited_s:g} s "
                f"({self.attempts} tr{'ies' if self.attempts != 1 else 'y'}; expected {self.expected})")


@dataclass(frozen=True)
class _Answer:
    ok: bool
    words: str


def _expected_words(ranges: tuple[tuple[int, int], ...], text: str | None) -> str:
    words = describe_statuses(ranges)
    return f"{words} containing '{text}'" if text else words


def _ask(session: Any, url: str, ranges: tuple[tuple[int, int], ...], text: str | None, access: HttpAccess,
         timeout_s: float) -> _Answer:
    """One try: GET, redirects followed hop by hop (headers and credentials only to their origin)."""
    import requests

    for _ in range(MAX_REDIRECTS + 1):
        headers = {"Accept": "text/html,*/*;q=0.8"}
        if access.sends_to(url):
            headers.update(dict(access.headers))
            authorization = access.authorization()
            if authorization:
                headers["Authorization"] = authorization
        try:
            response = session.get(url, headers=headers, allow_redirects=False, stream=True, timeout=timeout_s,
                                   verify=False)
        except requests.exceptions.ConnectionError as error:
            refused = "refused" in str(error).lower()
            return _Answer(False, "connection refused" if refused else "no connection")
        except requests.exceptions.Timeout:
            return _Answer(False, f"no answer within {timeout_s:g} s")
        except requests.exceptions.RequestException as error:
            return _Answer(False, f"a request error ({type(error).__name__})")
        with response:
            status = f"{response.status_code} {response.reason or ''}".strip()
            location = response.headers.get("location")
            if response.is_redirect and location:
                url = urljoin(url, location)
                continue
            if not any(low <= response.status_code <= high for low, high in ranges):
                return _Answer(False, status)
            if not text:
                return _Answer(True, status)
            body = b""
            for chunk in response.iter_content(64 * 1024):
                body += chunk
                if len(body) >= BODY_LIMIT:
                    break
            found = text in body.decode(response.encoding or "utf-8", errors="replace")
            return _Answer(found, status if found else f"{status} without '{text}'")
    return _Answer(False, f"more than {MAX_REDIRECTS} redirects")


def wait_until_ready(url: str, *, statuses: tuple[tuple[int, int], ...], text: str | None, timeout_s: float,
                     interval_s: float, access: HttpAccess = HttpAccess(), log: Callable[[str], None] = print,
                     cancel: threading.Event | None = None,
                     clock: Callable[[], float] = time.monotonic) -> Readiness:
    """Ask `url` until it answers as expected or `timeout_s` has passed; the first try at once, then
    every `interval_s`. `cancel` (a SIGTERM) stops the wait. Logs the start, each change of answer
    (and the same answer every HEARTBEAT_S), and the end."""
    import requests
    import urllib3

    urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
    cancel = cancel if cancel is not None else threading.Event()
    expected = _expected_words(statuses, text)
    log(f"flowwalk: waiting for {url} to answer {expected} (up to {timeout_s:g} s, every {interval_s:g} s)")
    start = clock()
    attempts, last, last_logged = 0, "", start
    with requests.Session() as session:
        session.trust_env = True
        while True:
            attempts += 1
            elapsed = clock() - start
            answer = _ask(session, url, statuses, text, access, min(REQUEST_TIMEOUT_S, max(1.0, timeout_s - elapsed)))
            waited = round(clock() - start, 1)
            if answer.ok:
                log(f"flowwalk: {url} is up after {waited:g} s ({answer.words}, try {attempts})")
                return Readiness(url, expected, True, attempts, waited, answer.words, timeout_s)
            if answer.words != last or clock() - last_logged >= HEARTBEAT_S:
                log(f"  {waited:g} s: {answer.words}")
                last, last_logged = answer.words, clock()
            left = timeout_s - (clock() - start)
            if left <= 0 or cancel.wait(min(interval_s, left)):
                waited = round(clock() - start, 1)
                result = Readiness(url, expected, False, attempts, waited, answer.words, timeout_s,
                                   cancelled=cancel.is_set())
                if not result.cancelled:
                    log(f"flowwalk: {result.message()}")
                return result


def readiness_url(wait_for: str, base_url: str | None) -> str:
    """The URL to wait for: as given when absolute, else resolved against the base URL as the
    walker resolves a spec's relative URLs (the URL standard's way: `/x` is host-absolute)."""
    if urlsplit(wait_for).scheme:   # settings.py refused any but http(s) with a host
        return wait_for
    if not base_url:
        raise UsageError(f"--wait-for '{wait_for}' is relative and there is no base URL\n"
                         f"  hint: pass an absolute URL, or --base-url to resolve it against")
    return urljoin(base_url, wait_for)


def access_from(headers: Mapping[str, str], credentials: str | None, secrets: Mapping[str, str | None],
                base_url: str | None, *, strict: bool = True) -> HttpAccess:
    """The run's HttpAccess from header name -> secret name, the credentials' secret name and the
    secrets' values (None: the variable is not set). What keeps a value from being sent (not set,
    empty, not one line of ASCII, credentials that are not username:password) is kept in
    `problems`; `strict` (a run): UsageError for those or for no base URL to send them to (see
    `refuse_unusable`); else (validate, plan) what is there."""
    if not headers and not credentials:
        return HttpAccess()
    problems: list[str] = []
    values: list[tuple[str, str]] = []
    for name, secret in headers.items():
        value = secrets.get(secret)
        problem = _value_problem(value, secret, header=True)
        if problem:
            problems.append(f"--http-header {name}={secret}: {problem}")
        else:
            values.append((name, str(value)))
    pair: tuple[str, str] | None = None
    if credentials:
        value = secrets.get(credentials)
        problem = _value_problem(value, credentials, header=False)
        if problem:
            problems.append(f"--http-credentials {credentials}: {problem}")
        elif ":" not in str(value):
            problems.append(f"--http-credentials {credentials}: ${credentials} is not username:password")
        else:
            user, _, password = str(value).partition(":")
            pair = (user, password)
    access = HttpAccess(headers=tuple(values), credentials=pair, origin=origin_of(base_url) if base_url else None,
                        problems=tuple(problems), wanted=True)
    if strict:
        refuse_unusable(access)
    return access


def refuse_unusable(access: HttpAccess) -> None:
    """UsageError when the run's HTTP headers or credentials cannot all be sent: a value missing or
    unusable (`HttpAccess.problems`), or no base URL whose origin they would go to."""
    if access.problems:
        raise UsageError("; ".join(access.problems) + "\n  hint: put each secret's value in the environment "
                         "variable it names (in GitHub Actions, the step's env:): a header value as one line of "
                         "ASCII text without a trailing newline, credentials as username:password")
    if access.wanted and not access.origin:
        raise UsageError("HTTP headers and credentials go only to the base URL's origin, and there is no base URL\n"
                         "  hint: pass --base-url (the preview's URL)")


def _value_problem(value: str | None, secret: str, *, header: bool) -> str | None:
    """Why a secret's value cannot be sent (never quoting it): Chromium fails every request whose
    header holds a control character or, in a header, a character outside ASCII. Credentials may
    hold any other character: the browser and the readiness wait both send them as UTF-8."""
    if value is None:
        return f"${secret} is not set"
    if value == "":
        return f"${secret} is set but empty"
    for index, char in enumerate(value, 1):
        if char in "\r\n":
            return f"${secret} holds a line break (character {index} of {len(value)})"
        if (ord(char) < 0x20 and char != "\t") or ord(char) == 0x7F:
            return f"${secret} holds a control character (character {index} of {len(value)})"
        if header and ord(char) > 0x7E:
            return f"${secret} holds a character that is not ASCII (character {index} of {len(value)})"
    return None


def origin_of(url: str) -> str | None:
    """`scheme://host[:port]` as browsers compare origins (lower case, the scheme's default port left
    out); None for a URL without a host."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not host or parts.scheme.lower() not in ("http", "https"):
        return None
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        return None
    shown = f"[{host}]" if ":" in host else host
    if port is None or port == {"http": 80, "https": 443}[scheme]:
        return f"{scheme}://{shown}"
    return f"{scheme}://{shown}:{port}"
