"""The readiness wait and the run's HTTP access, without a browser: statuses, origins, the settings
that name secrets (never hold them), and a wait against a real loopback server whose redirect to
another origin must not carry the headers."""

from __future__ import annotations

import threading

import pytest

from flowwalk.errors import UsageError
from flowwalk.readiness import (HttpAccess, describe_statuses, origin_of, parse_statuses, readiness_url,
                                wait_until_ready)
from flowwalk.settings import Overrides, build_settings
from flowwalk.spec.variables import Redactor
from preview_site import HEADER, PASSWORD, TOKEN, USER, PreviewSite, secret_forms


@pytest.mark.parametrize("text, ranges, shown", [
    ("2xx", ((200, 299),), "2xx"), ("200", ((200, 200),), "200"),
    ("200, 301-308", ((200, 200), (301, 308)), "200, 301-308"), ("4XX", ((400, 499),), "4xx"),
])
def test_expected_statuses_are_codes_classes_and_ranges(text: str, ranges: tuple[tuple[int, int], ...],
                                                        shown: str) -> None:
    assert parse_statuses(text) == ranges
    assert describe_statuses(ranges) == shown


@pytest.mark.parametrize("text", ["ok", "2x", "600", "299-200", ""])
def test_a_status_that_is_not_one_is_refused_with_the_forms_it_can_take(text: str) -> None:
    with pytest.raises(UsageError) as refused:
        parse_statuses(text)
    assert "hint:" in str(refused.value)


@pytest.mark.parametrize("url, origin", [
    ("https://PR-12.example.com/x?y", "https://pr-12.example.com"), ("https://a.example:443/", "https://a.example"),
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080"), ("http://[::1]:80/", "http://[::1]"), ("/relative", None),
])
def test_origins_compare_as_browsers_compare_them(url: str, origin: str | None) -> None:
    assert origin_of(url) == origin


def test_a_relative_wait_url_resolves_against_the_base_url_like_a_spec_url() -> None:
    assert readiness_url("/health", "https://pr-1.example.com/app/") == "https://pr-1.example.com/health"
    assert readiness_url("health", "https://pr-1.example.com/app/") == "https://pr-1.example.com/app/health"
    with pytest.raises(UsageError, match="no base URL"):
        readiness_url("/health", None)


def test_settings_name_the_secrets_and_every_form_of_their_values_is_redacted() -> None:
    settings = build_settings(Overrides(base_url="https://pr-7.example.com/", http_headers={HEADER: "BYPASS"},
                                        http_credentials="AUTH"), {"BYPASS": TOKEN, "AUTH": f"{USER}:{PASSWORD}"})
    access = settings.http_access
    assert access.origin == "https://pr-7.example.com" and access.headers == ((HEADER, TOKEN),)
    assert {"BYPASS", "AUTH"} <= set(settings.secret_names)
    assert TOKEN not in repr(settings) and PASSWORD not in repr(settings)
    redact = Redactor(settings.secrets.values()).text
    for form in secret_forms():
        assert redact(f"seen: {form}.") == "seen: ***."


@pytest.mark.parametrize("options, words", [
    (Overrides(http_headers={"x-bypass": "abc-123"}), "must be the NAME of an environment variable"),
    (Overrides(http_headers={"Host": "BYPASS"}), "not a header flowwalk can send"),
    (Overrides(http_headers={"not a header": "BYPASS"}), "not a header flowwalk can send"),
    (Overrides(wait_status="fine"), "is not an HTTP status"),
    (Overrides(browser_endpoint="http://127.0.0.1:3000/"), "not a ws:// or wss:// URL"),
])
def test_bad_preview_options_are_refused_with_a_hint(options: Overrides, words: str) -> None:
    with pytest.raises(UsageError) as refused:
        build_settings(options, {"BYPASS": TOKEN})
    assert words in str(refused.value) and "hint:" in str(refused.value)


def access(site: PreviewSite) -> HttpAccess:
    return HttpAccess(headers=((HEADER, TOKEN),), credentials=(USER, PASSWORD), origin=site.url)


def test_the_wait_ends_once_the_site_answers_and_logs_each_change() -> None:
    lines: list[str] = []
    with PreviewSite(up_after=2) as site:
        result = wait_until_ready(site.url + "/app", statuses=parse_statuses("2xx"), text="Welcome", timeout_s=30,
                                  interval_s=0.05, access=access(site), log=lines.append)
    # two 503s, then /app redirects to /app/ on the same origin, which answers with the text
    assert result.ready and result.attempts == 3 and result.last == "200 OK"
    assert lines[0].startswith(f"flowwalk: waiting for {site.url}/app to answer 2xx containing 'Welcome'")
    assert lines[1].endswith(": 503 Service Unavailable") and len(lines) == 3
    assert f"is up after" in lines[2]


def test_a_redirect_to_another_origin_is_followed_without_the_headers() -> None:
    with PreviewSite(up_after=0) as site:
        result = wait_until_ready(site.url + "/out", statuses=parse_statuses("2xx"), text="Another origin",
                                  timeout_s=30, interval_s=0.05, access=access(site), log=lambda _: None)
        assert result.ready
        [landing] = site.other_requests
    assert landing["path"] == "/landing"
    assert HEADER not in {k.lower() for k in landing["headers"]} and "Authorization" not in landing["headers"]


def test_without_the_header_the_preview_is_not_up_and_the_wait_says_what_it_answered() -> None:
    with PreviewSite(up_after=0) as site:
        result = wait_until_ready(site.url, statuses=parse_statuses("2xx"), text=None, timeout_s=0.3,
                                  interval_s=0.1, access=HttpAccess(), log=lambda _: None)
    assert not result.ready and result.last == "403 Forbidden" and not result.cancelled
    assert result.message().startswith(f"the site never came up: {site.url} answered 403 Forbidden for")


def test_a_cancel_stops_the_wait_at_once() -> None:
    cancel = threading.Event()
    with PreviewSite(never_up=True) as site:
        threading.Timer(0.2, cancel.set).start()
        result = wait_until_ready(site.url, statuses=parse_statuses("2xx"), text=None, timeout_s=600,
                                  interval_s=300, access=access(site), cancel=cancel, log=lambda _: None)
    assert result.cancelled and not result.ready
