"""Healing on the real apps: Django admin and TodoMVC Backbone, with no earlier report.

The outside check of issue 25, run offline:

- a throwaway Django project is generated in a temp folder at run time (startproject, a "catalog"
  app with Author and Book registered in the admin, sqlite, migrate, a superuser whose password
  comes from $FLOWWALK_ADMIN_PASSWORD or is made up for the run, three authors and three books),
  served by `manage.py runserver --noreload` on a free 127.0.0.1 port and stopped by its pid;
- TodoMVC Backbone is the real app `scripts/fetch_thirdparty.sh` fetches (npm todomvc@0.1.1),
  served by `flowwalk run --serve`.

Each variant is one flow-spec 1.1 file whose one act step has a broken pinned `selector` and a
`target` as a person writes it; the check after it holds whether the step did what it meant.
The walk, per app: `flowwalk run` (no fingerprints, no durations), `flowwalk heal --apply` on
that report, then, for Django, the data changes (a new book, "Beloved", is added: the change list
shows the newest first, so it becomes the first row and every other book moves down one), then
`flowwalk run` again. A positive counts when it healed, passed, and the second run passed with no
heal (a clean round trip). A variant whose target names a position ("the first book's checkbox")
is marked `positional`: its clean round trip is over that data change, so it shows whether the
selector written holds the row's position or the row's data. A negative names what the page really does not have
(a model that is not registered, a button Django's change form does not show, a todo that is not
there, TodoMVC's Clear completed button that Backbone removes while nothing is completed); its
check is one a wrong heal could satisfy, so a run that passes is a false pass.

    pip install django            # into the worktree's venv only: not a flowwalk dependency
    scripts/fetch_thirdparty.sh
    .venv/bin/python bench/heal_realapps.py [--out DIR] [--only django|todomvc]

Django is not a dependency of flowwalk; it is imported by the generated project only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from flowwalk.heal.meaning import parse_target  # noqa: E402  (the bench runs from a checkout)
TODOMVC = ROOT / ".cache" / "thirdparty" / "todomvc" / "package"
PASSWORD_ENV = "FLOWWALK_ADMIN_PASSWORD"

MODELS = '''\
from django.db import models


class Author(models.Model):
    name = models.CharField(max_length=100)

    def __str__(self):
        return self.name


class Book(models.Model):
    title = models.CharField(max_length=200)
    author = models.ForeignKey(Author, on_delete=models.CASCADE)
    available = models.BooleanField(default=True)

    def __str__(self):
        return self.title
'''

ADMIN = '''\
from django.contrib import admin

from .models import Author, Book


@admin.register(Author)
class AuthorAdmin(admin.ModelAdmin):
    search_fields = ["name"]


@admin.register(Book)
class BookAdmin(admin.ModelAdmin):
    list_display = ["title", "author", "available"]
    list_filter = ["available"]
    search_fields = ["title"]
'''

SEED = '''\
from catalog.models import Author, Book
authors = [Author.objects.create(name=n) for n in ("Frank Herbert", "Ursula K. Le Guin", "Iain Banks")]
for title, author in (("Dune", 0), ("The Dispossessed", 1), ("Excession", 2)):
    Book.objects.create(title=title, author=authors[author])
'''

LOGIN = '''\
  - {type: act, action: fill, selector: "#id_username", value: admin}
  - {type: act, action: fill, selector: "#id_password", value: "{{%s}}"}
  - {type: act, action: click, selector: "#login-form [type=submit]"}
  - {type: expect, kind: text_contains, value: Site administration}
''' % PASSWORD_ENV

SEED_TODOS = '''\
  - {type: act, action: fill, selector: "#new-todo", value: Buy milk}
  - {type: act, action: press, selector: "#new-todo", value: Enter}
  - {type: act, action: fill, selector: "#new-todo", value: Walk the dog}
  - {type: act, action: press, selector: "#new-todo", value: Enter}
  - {type: act, action: fill, selector: "#new-todo", value: Write the report}
  - {type: act, action: press, selector: "#new-todo", value: Enter}
'''

BOOKS = "/admin/catalog/book/"

#: app -> name -> (positive?, steps before the broken one, the broken act, the checks after it)
VARIANTS: dict[str, dict[str, tuple[bool, str, str, str]]] = {
    "django": {
        "books-link": (True, "  - {type: goto, url: /admin/}\n",
                       '{type: act, action: click, target: "Books link in the Catalog module", '
                       'selector: "tr.model-books > th > a"}',
                       '  - {type: expect, kind: url_matches, value: "/admin/catalog/book/$"}\n'),
        "search-box": (True, f"  - {{type: goto, url: {BOOKS}}}\n",
                       '{type: act, action: fill, target: "changelist search box", selector: "#searchbar-input", '
                       'value: Dune}',
                       '  - {type: act, action: click, selector: "#changelist-search [type=submit]"}\n'
                       '  - {type: expect, kind: url_contains, value: "q=Dune"}\n'),
        "add-book": (True, f"  - {{type: goto, url: {BOOKS}}}\n",
                     '{type: act, action: click, target: "Add book button", selector: ".object-tools a.addlink-book"}',
                     '  - {type: expect, kind: url_matches, value: "/admin/catalog/book/add/$"}\n'),
        "save-button": (True, f"  - {{type: goto, url: {BOOKS}add/}}\n"
                              '  - {type: act, action: fill, selector: "#id_title", value: Heal test}\n'
                              '  - {type: act, action: select, selector: "#id_author", value: "1"}\n',
                        '{type: act, action: click, target: "Save button", selector: "input[name=_save_now]"}',
                        '  - {type: expect, kind: text_contains, value: was added successfully}\n'
                        '  - {type: expect, kind: url_matches, value: "/admin/catalog/book/$"}\n'),
        "first-book-checkbox": (True, f"  - {{type: goto, url: {BOOKS}}}\n",
                                "{type: act, action: check, target: \"the first book's checkbox\", "
                                'selector: "#result_list tbody tr:first-child input.select-row"}',
                                '  - {type: expect, kind: checked, '
                                'selector: "#result_list tbody tr:first-child input.action-select"}\n'),
        "action-dropdown": (True, f"  - {{type: goto, url: {BOOKS}}}\n",
                            '{type: act, action: select, target: "Action dropdown", '
                            'selector: "select[name=bulk_action]", value: delete_selected}',
                            '  - {type: act, action: click, selector: "#changelist-form button[name=index]"}\n'
                            '  - {type: expect, kind: text_contains, value: Items must be selected}\n'),
        # negatives: the target names what this admin does not have; the check is loose enough that
        # a heal onto a neighbour would pass it
        "publishers-link": (False, "  - {type: goto, url: /admin/}\n",
                            '{type: act, action: click, target: "Publishers link in the Catalog module", '
                            'selector: "tr.model-publisher th a"}',
                            '  - {type: expect, kind: url_contains, value: /admin/catalog/}\n'),
        "save-as-new": (False, f"  - {{type: goto, url: {BOOKS}1/change/}}\n",
                        '{type: act, action: click, target: "Save as new button", selector: "input[name=_saveasnew]"}',
                        '  - {type: expect, kind: text_contains, value: successfully}\n'),
        "ninth-book-checkbox": (False, f"  - {{type: goto, url: {BOOKS}}}\n",
                                '{type: act, action: check, target: "checkbox of the ninth book", '
                                'selector: "#result_list tbody tr:nth-child(9) input.action-select"}',
                                '  - {type: expect, kind: text_contains, selector: ".action-counter", '
                                'value: 1 of 3 selected}\n'),
    },
    "todomvc": {
        "active-filter": (True, SEED_TODOS,
                          '{type: act, action: click, target: "Active filter", selector: "#filters a[href=\'#/actives\']"}',
                          '  - {type: expect, kind: url_contains, value: "#/active"}\n'),
        "first-todo-row": (True, SEED_TODOS,
                           '{type: act, action: hover, target: "first todo row", '
                           'selector: "#todo-list > li.item:first-child"}',
                           '  - {type: expect, kind: visible, selector: "#todo-list li:first-child .destroy"}\n'),
        "delete-first-todo": (True, SEED_TODOS + '  - {type: act, action: hover, selector: "#todo-list li:first-child"}\n',
                              '{type: act, action: click, target: "delete (x) button of the first todo", '
                              'selector: "#todo-list li:first-child .remove"}',
                              '  - {type: expect, kind: count, selector: "#todo-list li", equals: 2}\n'
                              '  - {type: expect, kind: text_contains, selector: "#todo-list li:first-child label", '
                              'value: Walk the dog}\n'),
        "new-todo-box": (True, SEED_TODOS,
                         '{type: act, action: fill, target: "new todo box", selector: "#new-todo-input", '
                         'value: Water the plants}',
                         '  - {type: act, action: press, selector: "#new-todo", value: Enter}\n'
                         '  - {type: expect, kind: count, selector: "#todo-list li", equals: 4}\n'),
        "toggle-all": (True, SEED_TODOS,
                       '{type: act, action: click, target: "toggle all checkbox", selector: "#toggle-all-checkbox"}',
                       '  - {type: expect, kind: count, selector: "#todo-list li.completed", equals: 3}\n'),
        "clear-completed": (True, SEED_TODOS + '  - {type: act, action: click, selector: "#toggle-all"}\n',
                            '{type: act, action: click, target: "Clear completed button", '
                            'selector: "#clear-completed-btn"}',
                            '  - {type: expect, kind: count, selector: "#todo-list li", equals: 0}\n'),
        # negatives
        "archive-first-todo": (False, SEED_TODOS + '  - {type: act, action: hover, selector: "#todo-list li:first-child"}\n',
                               '{type: act, action: click, target: "Archive button of the first todo", '
                               'selector: "#todo-list li:first-child .archive"}',
                               '  - {type: expect, kind: count, selector: "#todo-list li", equals: 2}\n'),
        "delete-fourth-todo": (False, SEED_TODOS + '  - {type: act, action: hover, selector: "#todo-list li:first-child"}\n',
                               '{type: act, action: click, target: "delete (x) button of the fourth todo", '
                               'selector: "#todo-list li:nth-child(4) .destroy-btn"}',
                               '  - {type: expect, kind: count, selector: "#todo-list li", equals: 2}\n'),
        "clear-completed-none": (False, SEED_TODOS,
                                 '{type: act, action: click, target: "Clear completed button", '
                                 'selector: "#clear-completed-btn"}',
                                 '  - {type: expect, kind: count, selector: "#todo-list li.completed", equals: 0}\n'),
    },
}

ENTRY = {"django": "/admin/login/?next=/admin/", "todomvc": "/examples/backbone/index.html"}


def spec_text(app: str, name: str) -> str:
    positive, before, broken, after = VARIANTS[app][name]
    login = LOGIN if app == "django" else ""
    return (f'spec_version: "1.1"\nname: {app} {name}\nurl: "{ENTRY[app]}"\nsteps:\n'
            f"{login}{before}  - {broken}\n{after}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def make_django(where: Path, password: str) -> Path:
    """A fresh Django project with the catalog app, migrated and seeded; returns manage.py's folder."""
    env = {**os.environ, "DJANGO_SUPERUSER_PASSWORD": password}
    project = where / "djsite"
    project.mkdir()
    py = sys.executable

    def call(*args: str) -> None:
        subprocess.run([py, *args], cwd=project, env=env, check=True, capture_output=True, text=True)

    call("-m", "django", "startproject", "djsite", ".")
    call("manage.py", "startapp", "catalog")
    (project / "catalog" / "models.py").write_text(MODELS)
    (project / "catalog" / "admin.py").write_text(ADMIN)
    settings = project / "djsite" / "settings.py"
    text = re.sub(r"""(["']django\.contrib\.staticfiles["'],)""", r'\1\n    "catalog",', settings.read_text(), count=1)
    settings.write_text(text + '\nALLOWED_HOSTS = ["127.0.0.1", "localhost"]\n')
    call("manage.py", "makemigrations", "catalog")
    call("manage.py", "migrate")
    call("manage.py", "createsuperuser", "--noinput", "--username", "admin", "--email", "admin@example.com")
    call("manage.py", "shell", "-c", SEED)
    return project


NEW_FIRST_BOOK = '''\
from catalog.models import Author, Book
Book.objects.create(title="Beloved", author=Author.objects.create(name="Toni Morrison"))
'''


def add_first_book(project: Path) -> str:
    """The data change between `heal --apply` and the second run: a new book becomes the first row."""
    subprocess.run([sys.executable, "manage.py", "shell", "-c", NEW_FIRST_BOOK], cwd=project, check=True,
                   capture_output=True, text=True)
    return 'a new book, "Beloved", is the first row of the change list'


def start_django(project: Path, port: int) -> subprocess.Popen[bytes]:
    log = open(project / "runserver.log", "wb")
    server = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
                              cwd=project, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/admin/login/", timeout=2).close()
            return server
        except OSError:
            if server.poll() is not None:
                raise SystemExit(f"runserver exited: see {project / 'runserver.log'}")
            time.sleep(0.5)
    stop(server)
    raise SystemExit("runserver did not answer within 60 s")


def stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)   # its own session: runserver and only it
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def flowwalk(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "flowwalk", *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=900)


def rules(out: Path) -> dict[str, dict[str, Any]]:
    """Variant name -> its rule_finished record."""
    found: dict[str, dict[str, Any]] = {}
    for line in (out / "emit.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record.get("event") == "rule_finished":
            found[Path(record["path"]).name.removesuffix(".flow.yaml")] = record   # the last attempt
    return found


def heals(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [f["heal"] for f in record.get("findings", []) if f.get("kind") == "healed"]


def passed(record: dict[str, Any]) -> bool:
    return record.get("status") == "passed"


def measure(app: str, repo: Path, where: Path, run_args: list[str],
            change: Callable[[], str] | None = None) -> list[dict[str, Any]]:
    folder = repo / "specs" / app
    folder.mkdir(parents=True)
    for name in VARIANTS[app]:
        (folder / f"{name}.flow.yaml").write_text(spec_text(app, name))
    first, again = where / f"{app}-first", where / f"{app}-again"
    base = ["--workers", "1", *run_args]
    done = flowwalk(repo, "run", f"specs/{app}", "--out", str(first), *base)
    if not (first / "emit.jsonl").is_file():
        raise SystemExit(f"flowwalk run failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    applied = flowwalk(repo, "heal", "--report", str(first), "--apply")
    changed = change() if change is not None else ""
    flowwalk(repo, "run", f"specs/{app}", "--out", str(again), *base)
    one, two = rules(first), rules(again)
    rows = []
    for name, (positive, *_rest) in VARIANTS[app].items():
        r1, r2 = one.get(name, {}), two.get(name, {})
        h1 = heals(r1)
        failure = r1.get("failure") or {}
        target = re.search(r'target: (?:"((?:[^"\\]|\\.)*)"|([^,}]+))', spec_text(app, name))
        assert target is not None, name
        said = (target.group(1) or target.group(2)).replace('\\"', '"').strip()
        row: dict[str, Any] = {
            "app": app, "variant": name, "positive": positive, "target": said,
            "positional": parse_target(said).ordinal is not None, "data_changed": changed,
            "first_passed": passed(r1) if r1 else None,
            "healed_to": [h["new_selector"] for h in h1], "score": [h.get("score") for h in h1],
            "method": [h.get("method") for h in h1],
            "failure": failure.get("runtime_code"), "message": failure.get("message", ""),
            "again_passed": passed(r2) if r2 else None, "again_heals": len(heals(r2)) if r2 else None,
        }
        if positive:
            row["ok"] = bool(h1) and row["first_passed"] and row["again_passed"] and not row["again_heals"]
        else:
            row["false_pass"] = bool(row["first_passed"])
        rows.append(row)
    rows.append({"app": app, "heal_apply_exit": applied.returncode, "heal_apply_out": applied.stdout[-2000:]
                 + applied.stderr[-2000:], "data_changed": changed})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="keep the projects and reports here (default: a temp folder)")
    parser.add_argument("--only", choices=["django", "todomvc"], help="one app only")
    args = parser.parse_args()
    where = args.out or Path(tempfile.mkdtemp(prefix="heal-realapps-"))
    where.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    if args.only in (None, "todomvc"):
        if not (TODOMVC / "examples" / "backbone" / "index.html").is_file():
            raise SystemExit("TodoMVC is not fetched: run scripts/fetch_thirdparty.sh")
        repo = where / "todomvc-repo"
        repo.mkdir()
        rows += measure("todomvc", repo, where, ["--serve", str(TODOMVC)])
    if args.only in (None, "django"):
        password = os.environ.get(PASSWORD_ENV) or secrets.token_urlsafe(16)
        os.environ[PASSWORD_ENV] = password
        project = make_django(where, password)
        port = free_port()
        server = start_django(project, port)
        try:
            repo = where / "django-repo"
            repo.mkdir()
            rows += measure("django", repo, where, ["--base-url", f"http://127.0.0.1:{port}",
                                                    "--secret", PASSWORD_ENV], change=lambda: add_first_book(project))
        finally:
            stop(server)
    (where / "results.json").write_text(json.dumps(rows, indent=2))
    variants = [r for r in rows if "variant" in r]
    pos = [r for r in variants if r["positive"]]
    neg = [r for r in variants if not r["positive"]]
    for r in variants:
        if r["positive"]:
            what = "OK  " if r["ok"] else "MISS"
        else:
            what = "FALSE PASS" if r["false_pass"] else "held"
        heal = ", ".join(f"{s} ({sc:.2f}, {m})" for s, sc, m in zip(r["healed_to"], r["score"], r["method"]))
        print(f"{what:10} {r['app']:8} {r['variant']:22} {r['target']!r}: healed to {heal or '-'}; "
              f"first run {'passed' if r['first_passed'] else 'failed ' + str(r['failure'])}; "
              f"after heal --apply {'passed' if r['again_passed'] else 'failed'}, {r['again_heals']} heal(s)")
        if r["message"]:
            print(f"{'':10} {r['message'][:600]}")
    for r in rows:
        if "heal_apply_exit" in r:
            print(f"heal --apply ({r['app']}): exit {r['heal_apply_exit']}"
                  + (f"; then, before the second run, {r['data_changed']}" if r["data_changed"] else ""))
    positional = [r for r in pos if r["positional"]]
    print("positional targets whose round trip held over a data change: "
          f"{sum(bool(r['ok']) for r in positional if r['data_changed'])} of "
          f"{sum(1 for r in positional if r['data_changed'])} "
          f"({', '.join(r['variant'] for r in positional if r['data_changed']) or 'none'}); "
          f"positional targets with no data change: {', '.join(r['variant'] for r in positional if not r['data_changed'])}")
    print(f"\nhealed with a clean round trip: {sum(bool(r['ok']) for r in pos)} of {len(pos)}; "
          f"false passes: {sum(r['false_pass'] for r in neg)} of {len(neg)}   (details: {where / 'results.json'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
