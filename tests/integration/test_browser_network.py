"""The network policy as pure functions: beacon parsing, the allowlist, the routing patterns (no browser)."""

from __future__ import annotations

import pytest

from flowwalk.browser.network import (
    Beacon,
    beacon_matches,
    navigation_allowed,
    normalize_vendor,
    outside_pattern,
    parse_beacons,
    request_allowed,
    vendor_names,
    vendor_pattern,
)


def events(url: str, method: str = "GET", body: str | None = None) -> list[tuple[str, str | None]]:
    return [(b.vendor, b.event) for b in parse_beacons(url, method, body, 0.0)]


@pytest.mark.parametrize(("url", "method", "body", "expected"), [
    ("https://www.google-analytics.com/g/collect?v=2&tid=G-1&en=page_view", "POST", "", [("ga4", "page_view")]),
    ("https://region1.google-analytics.com/g/collect?v=2&tid=G-1", "POST", "en=a&ep.x=1\nen=b\r\nen=c",
     [("ga4", "a"), ("ga4", "b"), ("ga4", "c")]),
    ("https://analytics.google.com/g/collect?v=2&en=login", "GET", None, [("ga4", "login")]),
    ("https://www.google-analytics.com/g/collect?v=2&tid=G-1", "POST", "", [("ga4", None)]),
    ("https://api.segment.io/v1/t", "POST", '{"type":"track","event":"Signed Up"}', [("segment", "Signed Up")]),
    ("https://api.segment.io/v1/track", "POST", '{"event":"Order Completed"}', [("segment", "Order Completed")]),
    ("https://api.segment.io/v1/p", "POST", '{"type":"page","name":"Home"}', [("segment", "page")]),
    ("https://api.segment.io/v1/page", "POST", "not json", [("segment", "page")]),
    ("https://api.segment.io/v1/batch", "POST", '{"batch":[{"type":"track","event":"A"},{"type":"identify"}]}',
     [("segment", "A"), ("segment", "identify")]),
    ("https://plausible.io/api/event", "POST", '{"name":"pageview","url":"https://x"}', [("plausible", "pageview")]),
    ("https://plausible.io/api/event", "POST", '{"n":"Signup"}', [("plausible", "Signup")]),
    ("https://www.facebook.com/tr?id=1&ev=PageView&noscript=1", "GET", None, [("meta", "PageView")]),
    ("https://www.facebook.com/tr/", "POST", "id=1&ev=Purchase", [("meta", "Purchase")]),
    ("https://www.facebook.com/tr/", "POST",
     '------b\r\nContent-Disposition: form-data; name="ev"\r\n\r\nAddToCart\r\n------b--', [("meta", "AddToCart")]),
    # not event calls: the script downloads, other paths, other hosts
    ("https://www.googletagmanager.com/gtag/js?id=G-1", "GET", None, []),
    ("https://www.facebook.com/login", "GET", None, []),
    ("https://example.com/g/collect?en=fake", "GET", None, []),
    ("https://plausible.io/js/script.js", "GET", None, []),
    ("not a url", "GET", None, []),
])
def test_parse_beacons(url: str, method: str, body: str | None, expected: list[tuple[str, str | None]]) -> None:
    assert events(url, method, body) == expected


def test_get_requests_ignore_a_body() -> None:
    assert events("https://www.google-analytics.com/g/collect?en=x", "GET", "en=y") == [("ga4", "x")]


def test_vendor_names_and_matching() -> None:
    assert vendor_names() == ("ga4", "segment", "plausible", "meta")
    assert normalize_vendor(" GA4 ") == "ga4"
    assert normalize_vendor("Facebook") == "meta"
    assert normalize_vendor("mixpanel") is None
    b = Beacon("ga4", "Sign_Up", "https://www.google-analytics.com/g/collect", 1.0)
    assert beacon_matches(b, "ga4", "sign_up")
    assert beacon_matches(b, "GA", None)
    assert not beacon_matches(b, "ga4", "sign")
    assert not beacon_matches(b, "segment", None)
    assert not beacon_matches(Beacon("ga4", None, "u", 0), "ga4", "x")


@pytest.mark.parametrize(("host", "entry", "allowed", "ok"), [
    ("example.com", "example.com", (), True),
    ("app.example.com", "example.com", (), True),
    ("example.com.evil.net", "example.com", (), False),
    ("notexample.com", "example.com", (), False),
    ("checkout.stripe.com", "example.com", ("checkout.stripe.com",), True),
    ("eu.checkout.stripe.com", "example.com", ("checkout.stripe.com",), True),
    ("stripe.com", "example.com", ("checkout.stripe.com",), False),
    # loopback and IP entry hosts compare exactly
    ("127.0.0.1", "127.0.0.1", (), True),
    ("localhost", "127.0.0.1", (), False),
    ("app.localhost", "localhost", (), False),
    ("10.0.0.5", "10.0.0.5", (), True),
    ("1.10.0.0.5", "10.0.0.5", (), False),
    ("EXAMPLE.COM.", "example.com", (), True),
    ("anything.com", None, (), False),
])
def test_navigation_allowlist(host: str, entry: str | None, allowed: tuple[str, ...], ok: bool) -> None:
    assert navigation_allowed(host, entry, allowed) is ok


def test_subresources_may_also_reach_loopback() -> None:
    assert request_allowed("localhost", "example.com", ())
    assert request_allowed("127.0.0.2", "example.com", ())
    assert request_allowed("cdn.example.com", "example.com", ())
    assert not request_allowed("cdn.other.com", "example.com", ())


@pytest.mark.parametrize(("url", "outside"), [
    ("http://127.0.0.1:8123/page", False),
    ("http://127.0.0.1/", False),
    ("https://shop.example.com/cart?x=1", False),
    ("https://example.com", False),
    ("https://checkout.stripe.com/pay", False),
    ("http://127.0.0.1.evil.net/", True),
    ("https://example.com.evil.net/", True),
    ("https://evil.net/?next=https://example.com", True),
    ("https://user@evil.net/", True),
    ("http://localhost:8123/", True),
    ("https://stripe.com/", True),
])
def test_outside_pattern_never_misses_an_outside_host(url: str, outside: bool) -> None:
    pattern = outside_pattern("example.com", ("checkout.stripe.com",))
    loopback = outside_pattern("127.0.0.1", ())
    matched = bool(pattern.search(url)) if "127.0.0.1" not in url else bool(loopback.search(url))
    assert matched is outside


@pytest.mark.parametrize(("url", "local"), [
    ("https://www.google-analytics.com/g/collect?v=2", True),
    ("https://region1.google-analytics.com/g/collect", True),
    ("https://www.googletagmanager.com/gtag/js?id=G-1", True),
    ("https://api.segment.io/v1/t", True),
    ("https://cdn.segment.com/analytics.js/v1/x/analytics.min.js", True),
    ("https://plausible.io/api/event", True),
    ("https://www.facebook.com/tr?id=1&ev=Lead", True),
    ("https://www.facebook.com/tr/", True),
    ("https://connect.facebook.net/en_US/fbevents.js", True),
    ("https://www.facebook.com/login", False),
    ("https://www.facebook.com/track", False),
    ("https://example.com/g/collect", False),
    ("https://notgoogle-analytics.com/g/collect", False),
])
def test_vendor_pattern_answers_vendor_hosts_only(url: str, local: bool) -> None:
    assert bool(vendor_pattern().search(url)) is local
