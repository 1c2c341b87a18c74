"""Network policy of a browser context: analytics beacons, the host allowlist and offline routing.

Three things live here, all pure functions over URLs so they are testable without a browser:

* `VENDORS`, the ONE table of analytics vendors flowwalk understands (GA4, Segment, Plausible,
  the Meta pixel): which hosts belong to each vendor (answered locally, never sent), which paths
  carry events, and where the event name sits. `parse_beacons` turns one request (URL, method,
  body; `navigator.sendBeacon`, fetch, XHR and image requests all look the same here) into
  `Beacon`s; a GA4 batch (one event per body line) gives one Beacon per event.
* The allowlist of top-level navigations (flow-spec v1 `allowed_hosts`): the entry URL's host and
  its subdomains plus every allowed host and its subdomains. A loopback or IP entry host admits
  exactly itself. Ports never matter.
* Offline routing of third-party subresources (documented behaviour, on by default): a request
  to a host that is not loopback, not the entry host or one of its subdomains and not an allowed
  host is aborted in the browser and recorded as evidence (`PageSession.blocked`). CI machines
  and the test suite need no internet and no outside DNS lookup; a flow checks the site under
  test, not its CDNs' uptime. `Browser.new_session(offline=False)` turns it off.
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True)
class Beacon:
    """One analytics event seen on the wire. `t` is seconds since the session started."""

    vendor: str
    event: str | None
    url: str
    t: float


@dataclass(frozen=True)
class Vendor:
    """One analytics vendor: where its requests go and how to read the event name from them."""

    name: str
    #: the names a spec may use for it (case-insensitive)
    aliases: tuple[str, ...]
    #: hosts that belong only to analytics: every request to them (or a subdomain) is answered
    #: locally with 204, whatever the path
    hosts: tuple[str, ...]
    #: hosts shared with other products (facebook.com): only requests whose path matches
    #: `paths` are answered locally
    shared_hosts: tuple[str, ...]
    #: request paths that carry events (regular expression, matched against the whole path)
    paths: str
    #: how the event is encoded: ga4 | segment | plausible | meta
    encoding: str


VENDORS: tuple[Vendor, ...] = (
    Vendor(
        name="ga4",
        aliases=("ga4", "ga", "google-analytics", "google_analytics", "gtag"),
        hosts=("google-analytics.com", "analytics.google.com", "googletagmanager.com",
               "stats.g.doubleclick.net"),
        shared_hosts=(),
        paths=r"(?:/[a-z0-9]+)?/g/collect/?",
        encoding="ga4",
    ),
    Vendor(
        name="segment",
        aliases=("segment", "segment.io", "segment.com"),
        hosts=("api.segment.io", "cdn.segment.com", "api.segment.com", "events.eu1.segmentapis.com"),
        shared_hosts=(),
        paths=r"/v1/(?:t|track|p|page|i|identify|s|screen|g|group|a|alias|b|batch|import)/?",
        encoding="segment",
    ),
    Vendor(
        name="plausible",
        aliases=("plausible", "plausible.io"),
        hosts=("plausible.io",),
        shared_hosts=(),
        paths=r"/api/event/?",
        encoding="plausible",
    ),
    Vendor(
        name="meta",
        aliases=("meta", "meta_pixel", "meta-pixel", "facebook", "facebook_pixel", "fb", "fbq"),
        hosts=("connect.facebook.net",),
        shared_hosts=("facebook.com",),
        paths=r"/tr/?",
        encoding="meta",
    ),
)

_BY_ALIAS = {alias: v for v in VENDORS for alias in v.aliases}
_SEGMENT_TYPES = {"t": "track", "p": "page", "i": "identify", "s": "screen", "g": "group", "a": "alias",
                  "b": "batch"}
LOOPBACK_NAMES = ("localhost",)


def vendor_names() -> tuple[str, ...]:
    """The canonical vendor names, for validation messages and docs."""
    return tuple(v.name for v in VENDORS)


def normalize_vendor(name: str) -> str | None:
    """The canonical name of a vendor as a spec may write it (`GA4`, `facebook`), else None."""
    vendor = _BY_ALIAS.get(name.strip().lower())
    return vendor.name if vendor else None


def beacon_matches(beacon: Beacon, vendor: str, event: str | None) -> bool:
    """flow-spec v1: the vendor matches, and the event too when one is given (case-insensitive)."""
    wanted = normalize_vendor(vendor) or vendor.strip().lower()
    if beacon.vendor != wanted:
        return False
    if event is None or event == "":
        return True
    return (beacon.event or "").casefold() == event.strip().casefold()


def matching_beacons(beacons: Iterable[Beacon], vendor: str, event: str | None) -> list[Beacon]:
    return [b for b in beacons if beacon_matches(b, vendor, event)]


# --- hosts ----------------------------------------------------------------------------------------


def host_of(url: str) -> str:
    """The lower-case host of a URL without port or brackets ('' when it has none)."""
    try:
        return (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        return ""


#: the hosts a run sees are few (its site, a vendor or two, some CDNs) and every request asks
#: again; parsing an address is the slow part, so the answers are kept
_HOST_CACHE = 4096


@lru_cache(maxsize=_HOST_CACHE)
def is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@lru_cache(maxsize=_HOST_CACHE)
def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _within(host: str, base: str) -> bool:
    """`host` is `base` or one of its subdomains (an IP or loopback base admits only itself)."""
    if not base:
        return False
    if host == base:
        return True
    if is_ip(base) or is_loopback(base):
        return False
    return host.endswith("." + base)


def navigation_allowed(host: str, entry_host: str | None, allowed_hosts: Iterable[str]) -> bool:
    """May the top-level page go to `host`? Entry host + subdomains, allowed hosts + subdomains."""
    host = host.lower().rstrip(".")
    if entry_host and _within(host, entry_host):
        return True
    return any(_within(host, h.lower().rstrip(".")) for h in allowed_hosts)


def request_allowed(host: str, entry_host: str | None, allowed_hosts: Iterable[str]) -> bool:
    """May a subresource request reach `host` in offline mode? Loopback plus the navigation list."""
    return is_loopback(host) or navigation_allowed(host, entry_host, allowed_hosts)


def _host_alternation(hosts: Iterable[str]) -> str:
    return "|".join(re.escape(h) for h in sorted(set(hosts)))


def outside_pattern(entry_host: str | None, allowed_hosts: Iterable[str]) -> re.Pattern[str]:
    """http(s) URLs whose host is outside the navigation allowlist.

    Only requests that match reach Python (routing every request costs a round trip each); the
    handler then decides between a blocked navigation, an allowed loopback request and offline
    blocking. The same test as `navigation_allowed`, written as one negative lookahead.
    """
    exact: list[str] = []
    suffix: list[str] = []
    for h in [entry_host or "", *allowed_hosts]:
        h = h.lower().rstrip(".")
        if not h:
            continue
        (exact if is_ip(h) or is_loopback(h) else suffix).append(h)
    parts = []
    if exact:
        # IPv6 literals are bracketed in URLs
        parts.append(f"(?:{_host_alternation(f'[{h}]' if ':' in h else h for h in exact)})")
    if suffix:
        parts.append(f"(?:[^/?#@]*\\.)?(?:{_host_alternation(suffix)})")
    if not parts:
        return re.compile(r"^https?://", re.IGNORECASE)
    hosts = "|".join(parts)
    # A URL with userinfo (user@host) may match even when its host is allowed: the handler decides
    # again on the parsed host, so the pattern only has to never miss an outside host.
    return re.compile(rf"^https?://(?:[^/?#@]*@)?(?!(?:{hosts})(?::\d+)?(?:[/?#]|$))", re.IGNORECASE)


def vendor_pattern() -> re.Pattern[str]:
    """http(s) URLs answered locally: every vendor host, and the event paths of shared hosts."""
    dedicated = _host_alternation(h for v in VENDORS for h in v.hosts)
    shared = "|".join(
        f"(?:(?:[^/?#@]*\\.)?(?:{_host_alternation(v.shared_hosts)})(?::\\d+)?(?:{v.paths})(?:[?#]|$))"
        for v in VENDORS if v.shared_hosts
    )
    return re.compile(
        rf"^https?://(?:(?:[^/?#@]*\.)?(?:{dedicated})(?::\d+)?(?:[/?#]|$)|{shared})", re.IGNORECASE
    )


@lru_cache(maxsize=_HOST_CACHE)
def vendor_for_host(host: str) -> Vendor | None:
    for v in VENDORS:
        if any(_within(host, h) for h in v.hosts + v.shared_hosts):
            return v
    return None


# --- beacons --------------------------------------------------------------------------------------


def parse_beacons(url: str, method: str, post_data: str | None, t: float) -> list[Beacon]:
    """The analytics events one request carries ([] for anything that is not a vendor event call)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    host = (parts.hostname or "").lower()
    vendor = vendor_for_host(host)
    if vendor is None or not re.fullmatch(vendor.paths, parts.path or "/", re.IGNORECASE):
        return []
    body = post_data if method.upper() != "GET" else None
    events = _EVENT_READERS[vendor.encoding](parts.path, parts.query, body)
    return [Beacon(vendor=vendor.name, event=e, url=url, t=t) for e in events]


def _first(query: dict[str, list[str]], *names: str) -> str | None:
    for name in names:
        values = query.get(name)
        if values and values[0] != "":
            return values[0]
    return None


def _ga4_events(path: str, query: str, body: str | None) -> list[str | None]:
    # A single event travels in the URL (`en=`); a batch puts shared parameters in the URL and
    # one event per body line, each line a query string of its own.
    events: list[str | None] = []
    in_url = _first(parse_qs(query), "en")
    if in_url:
        events.append(in_url)
    for line in (body or "").splitlines():
        name = _first(parse_qs(line.strip()), "en")
        if name:
            events.append(name)
    return events or [None]


def _json_body(body: str | None) -> object:
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


def _segment_event(call: object, path_type: str | None) -> str | None:
    if not isinstance(call, dict):
        return path_type
    kind = str(call.get("type") or path_type or "")
    if kind == "track":
        event = call.get("event")
        return str(event) if event is not None else None
    # page, identify, screen ... calls have no event name: the call type stands for it
    return kind or None


def _segment_events(path: str, query: str, body: str | None) -> list[str | None]:
    short = path.rstrip("/").rsplit("/", 1)[-1].lower()
    path_type = _SEGMENT_TYPES.get(short, short)
    data = _json_body(body)
    if isinstance(data, dict) and isinstance(data.get("batch"), list):
        return [_segment_event(call, None) for call in data["batch"]] or [None]
    return [_segment_event(data, path_type)]


def _plausible_events(path: str, query: str, body: str | None) -> list[str | None]:
    data = _json_body(body)
    if isinstance(data, dict):
        name = data.get("name", data.get("n"))
        return [str(name) if name is not None else None]
    return [None]


_MULTIPART_EV = re.compile(r'name="ev"\r?\n(?:[^\r\n]+\r?\n)*\r?\n([^\r\n]*)')


def _meta_events(path: str, query: str, body: str | None) -> list[str | None]:
    name = _first(parse_qs(query), "ev")
    if name is None and body:
        name = _first(parse_qs(body), "ev")
        if name is None:
            match = _MULTIPART_EV.search(body)
            name = match.group(1) if match else None
    return [name]


_EVENT_READERS = {
    "ga4": _ga4_events,
    "segment": _segment_events,
    "plausible": _plausible_events,
    "meta": _meta_events,
}
