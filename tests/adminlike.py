"""An admin site shaped like Django's admin, served on 127.0.0.1 for discover's multi-page tests.

Django is not a dependency of the tests (it is on PyPI, but a test needs only the shape): this
app reproduces what a crawl meets in a Django admin. A login page (`/admin/login/`, a session
cookie); the index with two apps (Library: authors, books, publishers; Authentication: users,
groups), an Add link and a Change link per model, and the recent actions; per model a change list
(a search box, filters by link, a table whose first column links to the change page, an actions
form with "Delete selected", the row count), an add form (required fields, a select, Save / Save
and add another / Save and continue editing, "This field is required." under an empty field),
a change form with its Delete and History links, a history page, a delete confirmation; a password
change form; breadcrumbs; a header with "Log out" (a form); `/favicon.ico` answers 404, as
Django's does. Every page sends no-store headers.

`AdminSite(...).start()` serves it on port 0; `rows()` gives the data as it is now, so a test can
tell what a crawl created, changed or deleted.
"""

from __future__ import annotations

import html
import threading
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from flowwalk.serve import LoopbackServer

__all__ = ["AdminSite", "LOGIN_FLOW_YAML", "MODELS", "PASSWORD", "USER"]

USER = "admin"
PASSWORD = "admin-pass-1"
SESSION = "s3ss10n-token"

LOGIN_FLOW_YAML = """spec_version: "1.1"
name: log in to the admin
url: /admin/login/?next=/admin/
steps:
  - {type: act, action: fill, target: the Username field, selector: "#id_username", value: "{{ADMIN_USER}}"}
  - {type: act, action: fill, target: the Password field, selector: "#id_password", value: "{{ADMIN_PASSWORD}}"}
  - {type: act, action: click, target: the Log in button, selector: "input[type=submit]"}
  - {type: expect, kind: text_contains, value: Site administration}
"""


@dataclass(frozen=True)
class Model:
    app: str
    app_label: str
    name: str           # singular, lower case
    plural: str
    #: (field, label, kind, required): kind is text, number or a model name (a select of its rows)
    fields: tuple[tuple[str, str, str, bool], ...]
    filter_field: str = ""


MODELS = (
    Model("library", "Library", "author", "authors", (("name", "Name", "text", True), ("born", "Born", "number", False)),
          "born"),
    Model("library", "Library", "book", "books", (("title", "Title", "text", True), ("author", "Author", "author", True),
                                                  ("year", "Year", "number", False)), "year"),
    Model("library", "Library", "publisher", "publishers", (("name", "Name", "text", True), ("city", "City", "text", False))),
    Model("auth", "Authentication and Authorization", "user", "users",
          (("username", "Username", "text", True), ("email", "Email address", "text", False))),
    Model("auth", "Authentication and Authorization", "group", "groups", (("name", "Name", "text", True),)),
)
_BY_NAME = {m.name: m for m in MODELS}


def _seed() -> dict[str, list[dict[str, Any]]]:
    return {
        "author": [{"id": 1, "name": "Ursula K. Le Guin", "born": "1929"}, {"id": 2, "name": "Frank Herbert", "born": "1920"},
                   {"id": 3, "name": "Octavia E. Butler", "born": "1947"}],
        "book": [{"id": 1, "title": "The Dispossessed", "author": "1", "year": "1974"},
                 {"id": 2, "title": "Dune", "author": "2", "year": "1965"},
                 {"id": 3, "title": "Kindred", "author": "3", "year": "1979"},
                 {"id": 4, "title": "The Left Hand of Darkness", "author": "1", "year": "1969"}],
        "publisher": [{"id": 1, "name": "Ace Books", "city": "New York"}, {"id": 2, "name": "Doubleday", "city": "New York"}],
        "user": [{"id": 1, "username": "admin", "email": "admin@example.com"},
                 {"id": 2, "username": "editor", "email": "editor@example.com"}],
        "group": [{"id": 1, "name": "Editors"}],
    }


@dataclass
class _Store:
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=_seed)
    log: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _label(model: Model, row: dict[str, Any]) -> str:
    return str(row.get(model.fields[0][0], ""))


class _Handler(BaseHTTPRequestHandler):
    store: _Store

    def log_message(self, *args: Any) -> None:
        pass

    # --- plumbing ---

    def _logged_in(self) -> bool:
        cookie = SimpleCookie(self.headers.get("Cookie") or "")
        return "sessionid" in cookie and cookie["sessionid"].value == SESSION

    def _send(self, status: int, body: str, headers: dict[str, str] | None = None) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _redirect(self, to: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(302)
        self.send_header("Location", to)
        self.send_header("Content-Length", "0")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()

    def _form(self) -> dict[str, str]:
        length = int(self.headers.get("Content-Length") or 0)
        data = parse_qs(self.rfile.read(length).decode("utf-8"), keep_blank_values=True)
        return {k: v[-1] for k, v in data.items()}

    def _page(self, title: str, body: str, crumbs: list[tuple[str, str]], message: str = "") -> str:
        trail = " &rsaquo; ".join(f'<a href="{_e(href)}">{_e(name)}</a>' if href else _e(name) for name, href in crumbs)
        messages = f'<ul class="messagelist"><li class="success">{_e(message)}</li></ul>' if message else ""
        return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{_e(title)} | Library admin</title></head>
<body><div id="container">
<header id="header"><div id="branding"><a href="/admin/" id="site-name">Library administration</a></div>
<div id="user-tools">Welcome, <strong>admin</strong>. <a href="/admin/password_change/">Change password</a> /
<form id="logout-form" method="post" action="/admin/logout/"><button type="submit">Log out</button></form></div></header>
<nav aria-label="Breadcrumbs" class="breadcrumbs">{trail}</nav>
<main id="content">{messages}{body}</main>
<footer id="footer">Library admin</footer></div></body></html>"""

    def _flash(self) -> str:
        cookie = SimpleCookie(self.headers.get("Cookie") or "")
        return unquote(cookie["flash"].value) if "flash" in cookie else ""

    def _send_page(self, title: str, body: str, crumbs: list[tuple[str, str]]) -> None:
        message = self._flash()
        self._send(200, self._page(title, body, crumbs, message),
                   {"Set-Cookie": "flash=; Path=/; Max-Age=0"} if message else None)

    # --- GET ---

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        if path == "/favicon.ico":
            self._send(404, "not found")
            return
        if path in ("/", "/admin"):
            self._redirect("/admin/")
            return
        if path == "/admin/login/":
            self._send(200, self._login_page(query.get("next", ["/admin/"])[0], ""))
            return
        if not self._logged_in():
            self._redirect("/admin/login/?" + urlencode({"next": path}))
            return
        if path == "/admin/":
            self._send_page("Site administration", self._index(), [("Home", "")])
            return
        if path == "/admin/password_change/":
            self._send_page("Password change", self._password_form(""), [("Home", "/admin/"), ("Password change", "")])
            return
        found = self._route(path)
        if found is None:
            self._send(404, self._page("Not found", "<h1>Page not found</h1>", [("Home", "/admin/")]))
            return
        model, row, view = found
        crumbs = [("Home", "/admin/"), (model.app_label, ""), (model.plural.capitalize(), f"/admin/{model.app}/{model.name}/")]
        if view == "list":
            self._send_page(f"Select {model.name} to change", self._changelist(model, query), crumbs[:2] + [(model.plural.capitalize(), "")])
        elif view == "add":
            self._send_page(f"Add {model.name}", self._change_form(model, None, {}, {}), crumbs + [(f"Add {model.name}", "")])
        elif row is None:
            self._send(404, self._page("Not found", "<h1>Page not found</h1>", [("Home", "/admin/")]))
        elif view == "change":
            self._send_page(f"Change {model.name}", self._change_form(model, row, row, {}), crumbs + [(_label(model, row), "")])
        elif view == "history":
            self._send_page(f"Change history: {_label(model, row)}", self._history(model, row),
                            crumbs + [(_label(model, row), f"/admin/{model.app}/{model.name}/{row['id']}/change/"), ("History", "")])
        elif view == "delete":
            self._send_page("Are you sure?", self._delete_page(model, row), crumbs + [("Delete", "")])

    def _route(self, path: str) -> tuple[Model, dict[str, Any] | None, str] | None:
        bits = [b for b in path.split("/") if b]
        if len(bits) < 3 or bits[0] != "admin" or bits[2] not in _BY_NAME or _BY_NAME[bits[2]].app != bits[1]:
            return None
        model = _BY_NAME[bits[2]]
        if len(bits) == 3:
            return model, None, "list"
        if bits[3:] == ["add"]:
            return model, None, "add"
        if len(bits) == 5 and bits[3].isdigit() and bits[4] in ("change", "history", "delete"):
            row = next((r for r in self.store.rows[model.name] if r["id"] == int(bits[3])), None)
            return model, row, bits[4]
        return None

    def _login_page(self, next_url: str, error: str) -> str:
        note = f'<p class="errornote">{_e(error)}</p>' if error else ""
        return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Log in | Library admin</title></head>
<body><div id="container"><header id="header"><div id="branding"><span id="site-name">Library administration</span></div></header>
<main id="content" class="login">{note}<h1>Log in</h1>
<form action="/admin/login/?next={_e(next_url)}" method="post" id="login-form">
<div class="form-row"><label for="id_username">Username:</label> <input type="text" name="username" id="id_username" autocomplete="username" required></div>
<div class="form-row"><label for="id_password">Password:</label> <input type="password" name="password" id="id_password" autocomplete="current-password" required></div>
<div class="submit-row"><input type="submit" value="Log in"></div></form></main></div></body></html>"""

    def _index(self) -> str:
        apps: dict[str, list[Model]] = {}
        for model in MODELS:
            apps.setdefault(model.app, []).append(model)
        modules = []
        for app, models in apps.items():
            rows = "".join(
                f'<tr class="model-{m.name}"><th scope="row"><a href="/admin/{app}/{m.name}/">{m.plural.capitalize()}</a></th>'
                f'<td><a href="/admin/{app}/{m.name}/add/" class="addlink">Add</a></td>'
                f'<td><a href="/admin/{app}/{m.name}/" class="changelink">Change</a></td></tr>' for m in models)
            modules.append(f'<div class="app-{app} module"><table id="app-{app}"><caption>{_e(models[0].app_label)}</caption>'
                           f'{rows}</table></div>')
        recent = "".join(f"<li>{_e(line)}</li>" for line in self.store.log[-10:][::-1]) or "<li>None available</li>"
        return (f'<h1>Site administration</h1><div id="content-main">{"".join(modules)}</div>'
                f'<aside id="content-related"><div class="module" id="recent-actions-module"><h2>Recent actions</h2>'
                f'<h3>My actions</h3><ul class="actionlist">{recent}</ul></div></aside>')

    def _changelist(self, model: Model, query: dict[str, list[str]]) -> str:
        q = query.get("q", [""])[0]
        rows = list(self.store.rows[model.name])
        if q:
            rows = [r for r in rows if any(q.lower() in str(v).lower() for k, v in r.items() if k != "id")]
        chosen = query.get(model.filter_field, [""])[0] if model.filter_field else ""
        if chosen:
            rows = [r for r in rows if str(r.get(model.filter_field)) == chosen]
        heads = "".join(f'<th scope="col" class="column-{f}">{_e(label)}</th>' for f, label, _, _ in model.fields)
        body = []
        for row in rows:
            cells = []
            for n, (f, _, kind, _) in enumerate(model.fields):
                value = row.get(f, "")
                if kind in _BY_NAME:
                    ref = next((r for r in self.store.rows[kind] if str(r["id"]) == str(value)), None)
                    value = _label(_BY_NAME[kind], ref) if ref else "-"
                if n == 0:
                    cells.append(f'<th class="field-{f}"><a href="/admin/{model.app}/{model.name}/{row["id"]}/change/">{_e(value)}</a></th>')
                else:
                    cells.append(f'<td class="field-{f}">{_e(value)}</td>')
            body.append(f'<tr><td class="action-checkbox"><input type="checkbox" name="_selected_action" value="{row["id"]}" '
                        f'class="action-select" aria-label="Select this object for an action - {_e(_label(model, row))}"></td>{"".join(cells)}</tr>')
        filters = ""
        if model.filter_field:
            values = sorted({str(r.get(model.filter_field)) for r in self.store.rows[model.name] if r.get(model.filter_field)})[:5]
            selected = ' class="selected"'
            links = "".join(f'<li{selected if v == chosen else ""}><a href="?{model.filter_field}={_e(v)}">{_e(v)}</a></li>'
                            for v in values)
            filters = (f'<nav id="changelist-filter" aria-label="Filter"><h2>Filter</h2><h3>By {model.filter_field}</h3>'
                       f'<ul><li{selected if not chosen else ""}><a href="?">All</a></li>{links}</ul></nav>')
        noun = model.name if len(rows) == 1 else model.plural
        return (f'<h1>Select {model.name} to change</h1>'
                f'<ul class="object-tools"><li><a href="/admin/{model.app}/{model.name}/add/" class="addlink">Add {model.name}</a></li></ul>'
                f'<div id="changelist"><div id="toolbar"><form id="changelist-search" method="get" role="search">'
                f'<label for="searchbar">Search</label> <input type="text" size="40" name="q" value="{_e(q)}" id="searchbar">'
                f'<input type="submit" value="Search"></form></div>{filters}'
                f'<form id="changelist-form" method="post" action="/admin/{model.app}/{model.name}/">'
                f'<div class="actions"><label>Action: <select name="action" required><option value="" selected>---------</option>'
                f'<option value="delete_selected">Delete selected {model.plural}</option></select></label>'
                f'<button type="submit" class="button" title="Run the selected action" name="index" value="0">Go</button></div>'
                f'<table id="result_list"><thead><tr><th scope="col" class="action-checkbox-column">'
                f'<input type="checkbox" id="action-toggle" aria-label="Select all objects on this page for an action"></th>{heads}</tr></thead>'
                f'<tbody>{"".join(body)}</tbody></table><p class="paginator">{len(rows)} {noun}</p></form></div>')

    def _change_form(self, model: Model, row: dict[str, Any] | None, values: dict[str, Any], errors: dict[str, str]) -> str:
        rows = []
        for f, label, kind, required in model.fields:
            value = values.get(f, "")
            error = f'<ul class="errorlist" id="id_{f}_error"><li>{_e(errors[f])}</li></ul>' if f in errors else ""
            req = " required" if required else ""
            if kind in _BY_NAME:
                options = "".join(f'<option value="{r["id"]}"{" selected" if str(r["id"]) == str(value) else ""}>'
                                  f'{_e(_label(_BY_NAME[kind], r))}</option>' for r in self.store.rows[kind])
                widget = f'<select name="{f}" id="id_{f}"{req}><option value="">---------</option>{options}</select>'
            else:
                kind_attr = "number" if kind == "number" else "text"
                widget = f'<input type="{kind_attr}" name="{f}" id="id_{f}" value="{_e(value)}" maxlength="200"{req}>'
            required_class = ' class="required"' if required else ""
            rows.append(f'<div class="form-row field-{f}">{error}<label for="id_{f}"{required_class}>'
                        f'{_e(label)}:</label> {widget}</div>')
        note = '<p class="errornote">Please correct the error below.</p>' if errors else ""
        title = f"Change {model.name}" if row else f"Add {model.name}"
        tools = ""
        delete = ""
        if row:
            tools = (f'<ul class="object-tools"><li><a href="/admin/{model.app}/{model.name}/{row["id"]}/history/" '
                     f'class="historylink">History</a></li></ul>')
            delete = f'<a href="/admin/{model.app}/{model.name}/{row["id"]}/delete/" class="deletelink">Delete</a>'
        action = f"/admin/{model.app}/{model.name}/{row['id']}/change/" if row else f"/admin/{model.app}/{model.name}/add/"
        # novalidate: the server says what is missing, as Django's admin does
        return (f'<h1>{title}</h1>{f"<h2>{_e(_label(model, row))}</h2>" if row else ""}{tools}'
                f'<form method="post" action="{action}" id="{model.name}_form" novalidate>{note}'
                f'<fieldset class="module aligned">{"".join(rows)}</fieldset>'
                f'<div class="submit-row"><input type="submit" value="Save" class="default" name="_save">{delete}'
                f'<input type="submit" value="Save and add another" name="_addanother">'
                f'<input type="submit" value="Save and continue editing" name="_continue"></div></form>')

    def _history(self, model: Model, row: dict[str, Any]) -> str:
        mine = [line for line in self.store.log if f"{model.name} \u201c{_label(model, row)}\u201d" in line]
        items = "".join(f"<tr><td>admin</td><td>{_e(line)}</td></tr>" for line in mine)
        return (f'<h1>Change history: {_e(_label(model, row))}</h1><div id="content-main"><div class="module">'
                + (f'<table id="change-history"><thead><tr><th scope="col">User</th><th scope="col">Action</th></tr></thead>'
                   f'<tbody>{items}</tbody></table>' if mine else
                   "<p>This object doesn\u2019t have a change history. It probably wasn\u2019t added via this admin site.</p>")
                + "</div></div>")

    def _delete_page(self, model: Model, row: dict[str, Any]) -> str:
        return (f'<h1>Are you sure?</h1><p>Are you sure you want to delete the {model.name} \u201c{_e(_label(model, row))}\u201d?</p>'
                f'<form method="post" action="/admin/{model.app}/{model.name}/{row["id"]}/delete/"><input type="hidden" name="post" value="yes">'
                f'<input type="submit" value="Yes, I\u2019m sure"> <a href="/admin/{model.app}/{model.name}/{row["id"]}/change/" '
                f'class="button cancel-link">No, take me back</a></form>')

    def _password_form(self, error: str) -> str:
        note = f'<p class="errornote">{_e(error)}</p>' if error else ""
        return (f'<h1>Password change</h1><form method="post" action="/admin/password_change/" novalidate>{note}'
                f'<p>Please enter your old password, for security\u2019s sake, and then enter your new password twice.</p>'
                f'<div class="form-row"><label for="id_old_password">Old password:</label> <input type="password" name="old_password" id="id_old_password" autocomplete="current-password"></div>'
                f'<div class="form-row"><label for="id_new_password1">New password:</label> <input type="password" name="new_password1" id="id_new_password1" autocomplete="new-password"></div>'
                f'<div class="form-row"><label for="id_new_password2">New password confirmation:</label> <input type="password" name="new_password2" id="id_new_password2" autocomplete="new-password"></div>'
                f'<div class="submit-row"><input type="submit" value="Change my password" class="default"></div></form>')

    # --- POST ---

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        parts = urlsplit(self.path)
        path = parts.path
        form = self._form()
        if path == "/admin/login/":
            next_url = parse_qs(parts.query).get("next", ["/admin/"])[0]
            if form.get("username") == USER and form.get("password") == PASSWORD:
                self._redirect(next_url if next_url.startswith("/admin/") else "/admin/",
                               {"Set-Cookie": f"sessionid={SESSION}; Path=/; HttpOnly"})
            else:
                self._send(200, self._login_page(next_url, "Please enter the correct username and password for a staff "
                                                           "account. Note that both fields may be case-sensitive."))
            return
        if not self._logged_in():
            self._redirect("/admin/login/")
            return
        if path == "/admin/logout/":
            self._redirect("/admin/login/", {"Set-Cookie": "sessionid=; Path=/; Max-Age=0"})
            return
        if path == "/admin/password_change/":
            self._send_page("Password change", self._password_form("Please correct the errors below."),
                            [("Home", "/admin/"), ("Password change", "")])
            return
        found = self._route(path)
        if found is None:
            self._send(404, "not found")
            return
        model, row, view = found
        base = f"/admin/{model.app}/{model.name}/"
        with self.store.lock:
            if view == "list":
                if form.get("action") == "delete_selected" and form.get("_selected_action"):
                    chosen = {int(form["_selected_action"])}
                    self.store.rows[model.name] = [r for r in self.store.rows[model.name] if r["id"] not in chosen]
                self._redirect(base)
                return
            if view == "delete" and row is not None:
                self.store.rows[model.name].remove(row)
                self.store.log.append(f"Deleted {model.name} \u201c{_label(model, row)}\u201d")
                self._redirect(base, {"Set-Cookie": "flash=" + quote(f"The {model.name} was deleted successfully.") + "; Path=/"})
                return
            if view not in ("add", "change"):
                self._send(405, "not allowed")
                return
            values = {f: form.get(f, "").strip() for f, _, _, _ in model.fields}
            errors = {f: "This field is required." for f, _, _, required in model.fields if required and not values[f]}
            if errors:
                title = f"Change {model.name}" if row else f"Add {model.name}"
                self._send(200, self._page(title, self._change_form(model, row, values, errors),
                                           [("Home", "/admin/"), (title, "")]))
                return
            if row is None:
                new_id = max((r["id"] for r in self.store.rows[model.name]), default=0) + 1
                row = {"id": new_id, **values}
                self.store.rows[model.name].append(row)
                self.store.log.append(f"Added {model.name} \u201c{_label(model, row)}\u201d")
                said = f"The {model.name} \u201c{_label(model, row)}\u201d was added successfully."
            else:
                changed = any(str(row.get(k, "")) != v for k, v in values.items())
                row.update(values)
                if changed:
                    self.store.log.append(f"Changed {model.name} \u201c{_label(model, row)}\u201d")
                said = f"The {model.name} \u201c{_label(model, row)}\u201d was changed successfully."
        flash = {"Set-Cookie": "flash=" + quote(said) + "; Path=/"}
        if "_continue" in form:
            self._redirect(f"{base}{row['id']}/change/", flash)
        elif "_addanother" in form:
            self._redirect(f"{base}add/", flash)
        else:
            self._redirect(base, flash)


class AdminSite(LoopbackServer):
    """`with AdminSite() as site: site.url` -> "http://127.0.0.1:<port>"; `site.rows()` is the data now."""

    def __init__(self, port: int = 0) -> None:
        self.store = _Store()
        super().__init__(type("Handler", (_Handler,), {"store": self.store}), port, name="adminlike")

    def rows(self) -> dict[str, list[dict[str, Any]]]:
        with self.store.lock:
            return {k: [dict(r) for r in v] for k, v in self.store.rows.items()}


if __name__ == "__main__":   # serve it by hand: python tests/adminlike.py
    import time

    with AdminSite() as site:
        print(f"{site.url}/admin/  (user {USER}, password {PASSWORD})", flush=True)
        while True:
            time.sleep(3600)
