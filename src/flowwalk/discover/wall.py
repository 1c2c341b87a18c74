"""Is the site behind a login? One page load of the start URL, before a crawl, to find out.

`probe_login(options)` opens the start URL the way the crawl would and surveys the page it lands
on. The site counts as behind a login when that page holds a login form (a password field and
one user field, `features.form_kind`) and either the start URL sent the browser somewhere else
(`/dashboard` -> `/login?next=...`) or the login form is the only form of the page. It answers
the form's user field, password field and submit button, each with the selector a generated spec
would pin.

`login_flow(wall, user_variable, password_secret)` writes the flow spec that logs in through that
form: the user name comes from a run variable, the password from a secret (the NAME of an
environment variable), typed into the password field and submitted with Enter. Enter, not a click
on the button: a cookie banner over the page blocks clicks but not typing. The MCP server asks
the person for the user name and for the NAME of the variable (discover then crawls with
`--login` on that flow); a person at a terminal writes the same flow by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from flowwalk.browser import Browser, NavigationBlocked, PageError
from flowwalk.browser.explored import Survey
from flowwalk.discover.engine import crawl_browser, crawl_page, discover_settings
from flowwalk.discover.features import form_kind
from flowwalk.discover.options import DiscoverOptions
from flowwalk.discover.selectors import choose_selector, target_of

__all__ = ["LoginWall", "probe_login", "login_flow"]


@dataclass(frozen=True)
class LoginWall:
    """The login form the start URL led to."""

    url: str                 # where the browser landed (the login page, with its query)
    redirected: bool         # the start URL sent the browser to another page
    user_selector: str
    user_target: str         # 'the Email field'
    user_type: str           # email | text | tel
    password_selector: str
    password_target: str
    form_name: str = ""


def _wall_of(survey: Survey, landed: str, start: str) -> LoginWall | None:
    forms = survey.forms
    logins = [f for f in forms if form_kind(f)[0] == "login"]
    if not logins:
        return None
    redirected = urlsplit(landed).path.rstrip("/") != urlsplit(start).path.rstrip("/")
    if not redirected and len(forms) > 1:
        return None   # a page with a login form among others is a page, not a wall
    form = logins[0]
    password = next((f for f in form.fields if f.type == "password"), None)
    user = next((f for f in form.fields if f.type in ("email", "text", "tel")), None)
    if password is None or user is None:
        return None
    user_selector, password_selector = choose_selector(user), choose_selector(password)
    if not user_selector or not password_selector:
        return None
    return LoginWall(url=landed, redirected=redirected, user_selector=user_selector, user_target=target_of(user),
                     user_type=user.type or "text", password_selector=password_selector,
                     password_target=target_of(password), form_name=form.name)


def probe_login(options: DiscoverOptions, *, browser: Browser | None = None) -> LoginWall | None:
    """The login form the start URL lands on, or None when the site is not behind a login."""
    settings = discover_settings(options)
    with crawl_browser(settings, browser) as running:
        page = crawl_page(running, options, settings)
        try:
            try:
                page.goto(options.url)
            except (PageError, NavigationBlocked):
                return None   # unreachable: the crawl itself says so (stopped_reason unreachable)
            page.settle(3_000)
            return _wall_of(page.survey(), page.url, options.url)
        finally:
            page.close()


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def login_flow(wall: LoginWall, user_variable: str, password_secret: str) -> str:
    """The flow spec (YAML) that logs in through `wall`'s form."""
    return "\n".join([
        "# Written by flowwalk discover to log in before the crawl (and before every spec it wrote).",
        f"# The user name is the variable {user_variable}; the password is the secret {password_secret}",
        "# (an environment variable of whoever runs the checks, never written here).",
        'spec_version: "1"',
        "name: log in",
        f"url: {_quoted(wall.url)}",
        "steps:",
        "  - type: goto",
        f"    url: {_quoted(wall.url)}",
        "  - type: act",
        "    action: fill",
        f"    target: {_quoted(wall.user_target)}",
        f"    selector: {_quoted(wall.user_selector)}",
        f"    value: '{{{{{user_variable}}}}}'",
        "  - type: act",
        "    action: fill",
        f"    target: {_quoted(wall.password_target)}",
        f"    selector: {_quoted(wall.password_selector)}",
        f"    value: '{{{{{password_secret}}}}}'",
        "  - type: act",
        "    action: press",
        f"    target: {_quoted(wall.password_target)}",
        f"    selector: {_quoted(wall.password_selector)}",
        "    value: Enter",
        "",
    ])
