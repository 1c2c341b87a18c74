"""A stock Django 5.2 admin over books and authors, generated and served on 127.0.0.1 for discover.

`make_site(folder)` generates the project (`django-admin startproject`, a `catalog` app whose
`models.py` and `admin.py` are below, sqlite, migrated, a superuser, 4 authors and 14 books) and
keeps a pristine copy of its database; `DjangoAdmin(project).start()` serves it with
`manage.py runserver --noreload` on a free port (tests/served.py: its own process group, stopped by its pid),
from the pristine data each time it starts. `rows()` reads the data as it is now, so a test can
tell what a crawl created, changed or deleted.

The admin is configured as a team configures one: list columns (a computed one among them),
filters, search over several fields, 10 rows a page, an ordering, a validator with its message,
an upper bound on the page count that only the server enforces (the number field shows no `max`),
a book form whose title is stored trimmed, a field default, and a related object that protects its
author from deletion. `MUTATIONS` are one-line bugs of that configuration, each in the site's own
`admin.py` or `models.py`, of the thirteen kinds bench/discover_mutations.py measures.

Django comes from PyPI (the `test` extra); nothing here is imported by flowwalk.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adminlike import LOGIN_FLOW_YAML as ADMINLIKE_LOGIN
from served import ServedProcess, free_port

__all__ = ["ADMIN", "DjangoAdmin", "LOGIN_FLOW_YAML", "MODELS", "MUTATIONS", "Mutation", "PASSWORD", "USER",
           "make_site"]

USER = "admin"
PASSWORD = "admin-pass-1"

#: Django's login page is the one tests/adminlike.py copies: the same flow signs in to both
LOGIN_FLOW_YAML = ADMINLIKE_LOGIN

MODELS = '''\
from django.core.validators import MaxValueValidator, RegexValidator
from django.db import models


class Author(models.Model):
    name = models.CharField(max_length=100)
    born = models.PositiveIntegerField("year of birth")

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Book(models.Model):
    title = models.CharField(max_length=200)
    author = models.ForeignKey(Author, on_delete=models.PROTECT)
    isbn = models.CharField("ISBN", max_length=13, help_text="13 digits",
                            validators=[RegexValidator(r"^[0-9]{13}$", "An ISBN has 13 digits.")])
    published = models.DateField()
    pages = models.PositiveIntegerField(validators=[MaxValueValidator(5000)])
    available = models.BooleanField(default=True)

    def __str__(self):
        return self.title
'''

ADMIN = '''\
from django import forms
from django.contrib import admin

from .models import Author, Book


class BookForm(forms.ModelForm):
    title = forms.CharField(max_length=200, strip=True)

    class Meta:
        model = Book
        fields = "__all__"


@admin.register(Author)
class AuthorAdmin(admin.ModelAdmin):
    list_display = ["name", "born", "book_count"]
    search_fields = ["name"]

    @admin.display(description="books")
    def book_count(self, obj):
        return obj.book_set.count()


@admin.register(Book)
class BookAdmin(admin.ModelAdmin):
    form = BookForm
    list_display = ["title", "author", "published", "pages", "available", "century"]
    list_filter = ["available", "author"]
    search_fields = ["title", "author__name"]
    list_per_page = 10
    ordering = ["title"]

    @admin.display(description="century")
    def century(self, obj):
        return obj.published.year // 100 + 1
'''

AUTHORS = (("Frank Herbert", 1920), ("Jane Austen", 1775), ("Mary Shelley", 1797), ("Ursula K. Le Guin", 1929))
#: (title, author, isbn, published, pages, available): 14 books, none of whose titles sorts after
#: the crawl's own rows ("Written by flowwalk discover ...")
BOOKS = (
    ("Always Coming Home", 3, "9780520227354", "1985-09-01", 562, True),
    ("Children of Dune", 0, "9780593098240", "1976-04-01", 444, True),
    ("Dune", 0, "9780441172719", "1965-08-01", 412, True),
    ("Dune Messiah", 0, "9780593098233", "1969-10-15", 256, False),
    ("Emma", 1, "9780141439587", "1815-12-23", 474, True),
    ("Frankenstein", 2, "9780486282114", "1818-01-01", 166, True),
    ("Lodore", 2, "9781551113272", "1835-03-01", 490, False),
    ("Mansfield Park", 1, "9780141439808", "1814-07-09", 507, True),
    ("Persuasion", 1, "9780141439686", "1817-12-20", 249, True),
    ("Pride and Prejudice", 1, "9780141439518", "1813-01-28", 480, True),
    ("The Dispossessed", 3, "9780061054884", "1974-05-01", 387, True),
    ("The Last Man", 2, "9780199552351", "1826-01-23", 479, False),
    ("The Left Hand of Darkness", 3, "9780441478125", "1969-03-01", 304, True),
    ("The Lathe of Heaven", 3, "9781416556961", "1971-01-01", 184, True),
)

SEED = f"""
import datetime
from catalog.models import Author, Book
authors = [Author.objects.create(name=n, born=b) for n, b in {AUTHORS!r}]
for title, author, isbn, published, pages, available in {BOOKS!r}:
    Book.objects.create(title=title, author=authors[author], isbn=isbn, published=datetime.date.fromisoformat(published),
                        pages=pages, available=available)
"""


@dataclass(frozen=True)
class Mutation:
    name: str
    #: the file (relative to the project) and the exact text replaced, once
    path: str
    old: str
    new: str
    #: which of the thirteen kinds of configuration bug it is
    kind: str
    what: str


A, M = "catalog/admin.py", "catalog/models.py"
MUTATIONS = (
    Mutation("book-column-dropped", A, '"title", "author", "published"', '"title", "published"', "a column dropped",
             "the book list no longer shows the author column"),
    Mutation("author-column-dropped", A, '["name", "born", "book_count"]', '["name", "book_count"]', "a column dropped",
             "the author list no longer shows the year of birth"),
    Mutation("filter-available-dropped", A, 'list_filter = ["available", "author"]', 'list_filter = ["author"]',
             "a filter dropped", "the book list cannot be filtered by availability"),
    Mutation("filter-author-dropped", A, 'list_filter = ["available", "author"]', 'list_filter = ["available"]',
             "a filter dropped", "the book list cannot be filtered by author"),
    Mutation("search-author-dropped", A, 'search_fields = ["title", "author__name"]', 'search_fields = ["title"]',
             "a field no longer searched", "searching books by author finds nothing"),
    Mutation("search-title-dropped", A, 'search_fields = ["title", "author__name"]', 'search_fields = ["author__name"]',
             "a field no longer searched", "searching books by title finds nothing"),
    Mutation("paging-changed", A, "list_per_page = 10", "list_per_page = 20", "paging changed",
             "the book list shows 20 rows a page instead of 10"),
    Mutation("book-ordering-reversed", A, 'ordering = ["title"]', 'ordering = ["-title"]', "ordering reversed",
             "the book list is sorted Z to A"),
    Mutation("author-ordering-reversed", M, 'ordering = ["name"]', 'ordering = ["-name"]', "ordering reversed",
             "the author list is sorted Z to A"),
    Mutation("century-off-by-one", A, "return obj.published.year // 100 + 1", "return obj.published.year // 100",
             "a computed column off by one", "the century column is one too low"),
    Mutation("book-count-off-by-one", A, "return obj.book_set.count()", "return obj.book_set.count() + 1",
             "a computed column off by one", "an author's book count is one too high"),
    Mutation("century-header-renamed", A, '@admin.display(description="century")', '@admin.display(description="era")',
             "a column header renamed", "the century column is headed 'era'"),
    Mutation("author-shown-by-birth-year", M, "        return self.name\n", "        return str(self.born)\n",
             "an object shown by the wrong field", "authors are shown by their year of birth"),
    Mutation("available-default-flipped", M, "available = models.BooleanField(default=True)",
             "available = models.BooleanField(default=False)", "a default flipped",
             "a new book is not available unless ticked"),
    Mutation("isbn-validator-loosened", M, 'validators=[RegexValidator(r"^[0-9]{13}$", "An ISBN has 13 digits.")]',
             "validators=[]", "a validator loosened", "any text is accepted as an ISBN"),
    Mutation("isbn-validator-10-to-13", M, 'RegexValidator(r"^[0-9]{13}$"', 'RegexValidator(r"^[0-9]{10,13}$"',
             "a validator loosened", "an ISBN of 10 to 13 digits is accepted"),
    Mutation("pages-bound-raised", M, "MaxValueValidator(5000)", "MaxValueValidator(50000)", "a bound raised",
             "a book of up to 50,000 pages is accepted (the bound is 5,000)"),
    Mutation("title-not-trimmed", A, "max_length=200, strip=True", "max_length=200, strip=False",
             "a value no longer trimmed", "a title's outer spaces are stored"),
    Mutation("delete-rule-cascade", M, "on_delete=models.PROTECT", "on_delete=models.CASCADE", "a delete rule changed",
             "deleting an author deletes their books instead of being refused"),
)


def make_site(folder: Path) -> Path:
    """Generate, migrate and seed the project under `folder`; returns manage.py's folder. The
    pristine database is kept as `db.pristine.sqlite3` beside it."""
    project = folder / "djsite"
    project.mkdir(parents=True)
    env = {**os.environ, "DJANGO_SUPERUSER_PASSWORD": PASSWORD}

    def call(*args: str) -> None:
        done = subprocess.run([sys.executable, *args], cwd=project, env=env, capture_output=True, text=True,
                              timeout=300)
        if done.returncode:
            raise RuntimeError(f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")

    call("-m", "django", "startproject", "djsite", ".")
    call("manage.py", "startapp", "catalog")
    (project / "catalog" / "models.py").write_text(MODELS, encoding="utf-8")
    (project / "catalog" / "admin.py").write_text(ADMIN, encoding="utf-8")
    settings = project / "djsite" / "settings.py"
    text = re.sub(r"""(["']django\.contrib\.staticfiles["'],)""", r'\1\n    "catalog",', settings.read_text(), count=1)
    settings.write_text(text + '\nALLOWED_HOSTS = ["127.0.0.1", "localhost"]\n', encoding="utf-8")
    call("manage.py", "makemigrations", "catalog")
    call("manage.py", "migrate")
    call("manage.py", "createsuperuser", "--noinput", "--username", USER, "--email", "admin@example.com")
    call("manage.py", "shell", "-c", SEED)
    shutil.copy(project / "db.sqlite3", project / "db.pristine.sqlite3")
    return project


class DjangoAdmin:
    """The generated project served by runserver (see the module docstring)."""

    def __init__(self, project: Path, port: int = 0):
        self.project = project
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._server = ServedProcess(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{self.port}", "--noreload", "--skip-checks"],
            cwd=project, log=project / "runserver.log", probe=f"{self.url}/admin/login/")

    def start(self, *, fresh: bool = True) -> "DjangoAdmin":
        """Serve the project (from the pristine data when `fresh`), answering within 60 s."""
        if fresh:
            shutil.copy(self.project / "db.pristine.sqlite3", self.project / "db.sqlite3")
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    def restart(self, *, fresh: bool = True) -> None:
        self.stop()
        self.start(fresh=fresh)

    def rows(self) -> dict[str, list[dict[str, Any]]]:
        """Every author and book as stored now (id and fields)."""
        code = ("import json\nfrom catalog.models import Author, Book\n"
                "print(json.dumps({'author': list(Author.objects.order_by('id').values()), "
                "'book': list(Book.objects.order_by('id').values())}, default=str))")
        done = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=self.project,
                              capture_output=True, text=True, timeout=120, check=True)
        data: dict[str, list[dict[str, Any]]] = json.loads(done.stdout.strip().splitlines()[-1])
        return data
