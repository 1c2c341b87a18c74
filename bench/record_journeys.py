"""Recorded journeys replayed with no edit (issue 49): does what `flowwalk record` writes pass?

Each journey is a person's session scripted with Playwright's real mouse and keyboard on a
recording (record/__init__.py's `start` and `finish`, headless): on the bundled example site
(examples/site), on TodoMVC Backbone as published (todomvc@0.1.1, scripts/fetch_thirdparty.sh),
and, for the kinds neither has (drag and drop, an upload, a popup, an iframe, dialogs, a menu
that opens on hover), on the recorder's own test pages (tests/site/pages/record). The written
spec is then walked with `flowwalk run` as written (the setup of a `--session` recording beside
it, with the journey's --var and --secret), and read back through the writer: a spec in the
writer's layout renders to its own text. It prints each journey, then pass/total; every
recordable kind is among them (the script refuses a list that misses one).

    .venv/bin/python bench/record_journeys.py [--only NAME,...] [--write-docs] [--keep DIR]

`--write-docs` writes the table into docs/record.md between its markers. Run it on a quiet
machine for a figure; it prints the load average beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from flowwalk.record import RecordRequest, finish, start
from flowwalk.serve import StaticServer
from flowwalk.settings import CHROMIUM_ARGS, default_executable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from todomvc_refactor import original  # noqa: E402

EXAMPLE = ROOT / "examples" / "site"
RECORD_PAGES = ROOT / "tests" / "site" / "pages" / "record"
TODOMVC = ROOT / ".cache" / "thirdparty" / "todomvc" / "package"
TODO_APP = "/examples/backbone/index.html"
DOCS = ROOT / "docs" / "record.md"
MARKERS = ("<!-- record-journeys:start -->", "<!-- record-journeys:end -->")
KINDS = ("click", "dblclick", "fill", "press", "select", "check", "texts", "count", "drag", "upload", "navigation",
         "popup", "iframe", "dialog", "hover", "secret", "append", "session")
DEMO = {"DEMO_USER": "ada@example.com"}
DEMO_PASSWORD = "correct-horse-battery"
SIGNIN_PASSWORD = "pw-3c9e-journeys"


@dataclass
class Journey:
    name: str
    site: str            # example, todomvc, record
    page: str            # where the recording starts (or the spec's url, for --append)
    kinds: tuple[str, ...]
    drive: Callable[[Any, "Ctx"], None]
    answer: Callable[[str, str, str], tuple[bool, str | None]] | None = None
    #: the setup spec (`--session demo`), its text with BASE for the served address
    setup: str | None = None
    #: the spec `--append` continues, BASE for the served address
    append: str | None = None
    variables: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)
    #: files put beside the spec for its replay (an upload's)
    beside: tuple[Path, ...] = ()


# --- what a person does ---------------------------------------------------------------------------


@dataclass
class Ctx:
    """What a journey's drive has besides its page: the recording and the served address."""

    recording: Any
    served: str


def pick(page: Any, check: str, target: Any = None) -> None:
    """A check from the recorder's toolbar, then the element it is of, with the mouse."""
    page.locator("flowwalk-recorder button", has_text=check).click()
    if target is not None:
        target.click()


def typed(page: Any, selector: str, text: str, *, enter: bool = False) -> None:
    page.locator(selector).click()
    page.keyboard.type(text)
    if enter:
        page.keyboard.press("Enter")


def over(page: Any, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=4)


def cookies(page: Any) -> None:
    page.locator("[data-testid=cookie-accept]").click()


def notes(page: Any, *texts: str) -> None:
    for text in texts:
        typed(page, "#new-note", text, enter=True)
    page.locator("[data-testid=note]").nth(len(texts) - 1).wait_for()


def todos(page: Any, *texts: str) -> None:
    page.locator("#new-todo").click()
    for text in texts:
        page.keyboard.type(text)
        page.keyboard.press("Enter")
    page.locator("#todo-list li").nth(len(texts) - 1).wait_for()


def e_login(page: Any, _: Ctx) -> None:
    cookies(page)
    typed(page, "#login-email", DEMO["DEMO_USER"])
    typed(page, "#login-password", DEMO_PASSWORD, enter=True)
    page.wait_for_url("**/dashboard.html")
    page.locator("[data-testid=greeting]").wait_for()
    pick(page, "Text", page.locator("[data-testid=greeting]"))
    pick(page, "URL")


def e_wrong_password(page: Any, _: Ctx) -> None:
    cookies(page)
    typed(page, "#login-email", DEMO["DEMO_USER"])
    typed(page, "#login-password", "not-the-password")
    page.locator("[data-testid=login-submit]").click()
    page.locator("[data-testid=login-error]").wait_for()
    pick(page, "Text", page.locator("[data-testid=login-error]"))


def e_notes(page: Any, _: Ctx) -> None:
    cookies(page)
    notes(page, "Buy milk", "Call Alan", "Ship v2")
    pick(page, "List", page.locator("[data-testid=note]").nth(1))
    pick(page, "Count", page.locator("[data-testid=note]").nth(2))
    pick(page, "Text", page.locator("[data-testid=notes-count]"))


def e_notes_complete(page: Any, _: Ctx) -> None:
    cookies(page)
    notes(page, "Buy milk", "Call Alan")
    page.locator("[data-testid=note] input[type=checkbox]").first.click()
    pick(page, "Checked", page.locator("[data-testid=note] input[type=checkbox]").first)
    page.locator("[data-testid=filter-active]").click()
    pick(page, "Text", page.locator("[data-testid=notes-count]"))


def e_notes_button(page: Any, _: Ctx) -> None:
    cookies(page)
    typed(page, "#new-note", "Water the plants")
    page.locator("[data-testid=add-note]").click()
    page.locator("[data-testid=note]").first.wait_for()
    pick(page, "Visible", page.locator("[data-testid=note]").first)
    pick(page, "Value", page.locator("#new-note"))


def e_settings(page: Any, _: Ctx) -> None:
    cookies(page)
    page.locator("[data-testid=theme]").focus()
    page.keyboard.press("ArrowDown")
    page.locator("[data-testid=digest]").click()
    page.locator("[data-testid=density-compact]").click()
    page.locator("[data-testid=save-settings]").click()
    pick(page, "Text", page.locator("[data-testid=settings-status]"))
    pick(page, "Value", page.locator("[data-testid=theme]"))
    pick(page, "Checked", page.locator("[data-testid=density-compact]"))


def e_settings_uncheck(page: Any, _: Ctx) -> None:
    cookies(page)
    page.locator("[data-testid=announcements]").click()
    pick(page, "Checked", page.locator("[data-testid=announcements]"))
    page.locator("[data-testid=save-settings]").click()
    pick(page, "Text", page.locator("[data-testid=settings-status]"))


def e_navigation(page: Any, ctx: Ctx) -> None:
    cookies(page)
    page.locator("flowwalk-recorder button[title='Move the toolbar']").click()   # it lies over the footer
    # the site's help links go to another host (localhost), outside a replay's allowlist: Team
    page.locator("footer a", has_text="Team").click()
    page.wait_for_url("**/team.html")
    pick(page, "URL")
    page.wait_for_timeout(2100)            # the link's navigation is done: the next address is typed
    page.goto(f"{ctx.served}/settings.html")
    pick(page, "URL")


def e_session_notes(page: Any, _: Ctx) -> None:
    notes(page, "Signed-in note")
    pick(page, "Count", page.locator("[data-testid=note]").first)


def e_session_dashboard(page: Any, _: Ctx) -> None:
    page.locator("[data-testid=greeting]").wait_for()
    pick(page, "Text", page.locator("[data-testid=greeting]"))


def e_append(page: Any, _: Ctx) -> None:
    notes(page, "Second note")
    pick(page, "Text", page.locator("[data-testid=notes-count]"))


def t_add(page: Any, _: Ctx) -> None:
    todos(page, "Buy milk", "Walk the dog", "Read")
    pick(page, "List", page.locator("#todo-list li label").first)
    pick(page, "Count", page.locator("#todo-list li label").nth(1))


def t_complete(page: Any, _: Ctx) -> None:
    todos(page, "Buy milk", "Walk the dog")
    page.locator("#todo-list li .toggle").first.click()
    pick(page, "Checked", page.locator("#todo-list li .toggle").first)
    # TodoMVC's filters lie over the whole of its count (no pointer reaches it): a todo is checked
    pick(page, "Text", page.locator("#todo-list li label").nth(1))


def t_uncheck(page: Any, _: Ctx) -> None:
    todos(page, "Buy milk")
    page.locator("#todo-list li .toggle").first.click()
    page.locator("#todo-list li .toggle").first.click()
    pick(page, "Checked", page.locator("#todo-list li .toggle").first)


def t_edit(page: Any, _: Ctx) -> None:
    todos(page, "Buy milk")
    page.locator("#todo-list li label").first.dblclick()
    page.locator("#todo-list li .edit").first.wait_for()
    page.keyboard.press("Control+a")
    page.keyboard.type("Buy oat milk")
    page.keyboard.press("Enter")
    pick(page, "Text", page.locator("#todo-list li label").first)


def t_destroy(page: Any, _: Ctx) -> None:
    todos(page, "Buy milk", "Walk the dog")
    over(page, "#todo-list li label >> nth=0")
    page.locator("#todo-list li .destroy").first.click()
    page.wait_for_function("document.querySelectorAll('#todo-list li').length === 1")
    pick(page, "Count", page.locator("#todo-list li label").first)


def t_toggle_all(page: Any, _: Ctx) -> None:
    todos(page, "Buy milk", "Walk the dog")
    page.locator("#toggle-all").click()
    pick(page, "Checked", page.locator("#todo-list li .toggle").nth(1))
    page.locator("#clear-completed").click()
    page.wait_for_function("document.querySelectorAll('#todo-list li').length === 0")
    pick(page, "Visible", page.locator("#new-todo"))


def t_filter(page: Any, _: Ctx) -> None:
    todos(page, "Buy milk", "Walk the dog", "Read")
    page.locator("#todo-list li .toggle").nth(1).click()
    page.locator("#filters a", has_text="Active").click()
    page.wait_for_url("**#/active")
    pick(page, "List", page.locator("#todo-list li:visible label").first)
    pick(page, "URL")


def t_typed_hash(page: Any, ctx: Ctx) -> None:
    todos(page, "Buy milk", "Walk the dog")
    page.locator("#todo-list li .toggle").first.click()
    page.wait_for_timeout(2100)
    page.goto(f"{ctx.served}{TODO_APP}#/completed")
    page.locator("#filters a.selected", has_text="Completed").wait_for()
    pick(page, "Text", page.locator("#filters a.selected"))


def t_append(page: Any, _: Ctx) -> None:
    page.locator("#new-todo").click()
    page.keyboard.type("Walk the dog")
    page.keyboard.press("Enter")
    page.locator("#todo-list li").nth(1).wait_for()
    pick(page, "Count", page.locator("#todo-list li label").nth(1))


def r_drag(page: Any, _: Ctx) -> None:
    page.locator("[data-testid=card]").drag_to(page.locator("[data-testid=done]"))
    page.wait_for_function("document.querySelector('[data-testid=moved]').textContent !== ''")
    pick(page, "Text", page.locator("[data-testid=moved]"))


def r_upload(page: Any, _: Ctx) -> None:
    page.locator("[data-testid=avatar]").set_input_files(str(RECORD_PAGES / "upload.txt"))
    typed(page, "[data-testid=name]", "Ada", enter=True)
    pick(page, "Text", page.locator("[data-testid=result]"))


def r_popup(page: Any, ctx: Ctx) -> None:
    with page.expect_popup() as opened:
        page.locator("[data-testid=open-help]").click()
    popup = opened.value
    popup.wait_for_load_state()
    popup.locator("[data-testid=thanks]").click()
    popup.locator("[data-testid=thanked]").wait_for()
    pick(popup, "Text", popup.locator("[data-testid=thanked]"))
    ctx.recording.settle()
    popup.close()
    pick(page, "Visible", page.locator("[data-testid=confirm]"))


def r_iframe(page: Any, _: Ctx) -> None:
    frame = page.frame_locator("[data-testid=card-frame]")
    frame.locator("[data-testid=card-number]").click()
    page.keyboard.type("4242 4242")
    frame.locator("[data-testid=check-card]").click()
    frame.locator("[data-testid=card-ok]").wait_for()
    page.locator("[data-testid=pay]").click()


def r_dialog(page: Any, _: Ctx) -> None:
    for button, shown in (("confirm", "confirmed"), ("ask", "greeting"), ("warn", "warned")):
        page.locator(f"[data-testid={button}]").click()
        page.wait_for_function(f"document.querySelector('[data-testid={shown}]').textContent !== ''")
    pick(page, "Text", page.locator("[data-testid=greeting]"))


def r_menu(page: Any, _: Ctx) -> None:
    for trigger, item in (("[data-testid=account-menu] > span", "profile"), ("[data-testid=help-trigger]", "docs")):
        over(page, trigger)
        page.locator(f"[data-testid={item}]").wait_for(state="visible")
        over(page, f"[data-testid={item}]")
        page.mouse.down()
        page.mouse.up()
        pick(page, "Text", page.locator("[data-testid=chosen]"))


def r_dblclick(page: Any, _: Ctx) -> None:
    page.locator("[data-testid=more]").dblclick()
    pick(page, "Visible", page.locator("[data-testid=extra]"))


def r_secret(page: Any, _: Ctx) -> None:
    typed(page, "[data-testid=name]", "Ada")
    typed(page, "[data-testid=password]", SIGNIN_PASSWORD, enter=True)
    pick(page, "Text", page.locator("[data-testid=result]"))


def r_session(page: Any, _: Ctx) -> None:
    page.locator("[data-testid=plan]").click()
    pick(page, "Text", page.locator("[data-testid=plan-shown]"))
    pick(page, "Text", page.locator("[data-testid=who]"))


def r_select_keys(page: Any, _: Ctx) -> None:
    page.locator("[data-testid=plan]").focus()
    page.keyboard.press("ArrowDown")
    page.locator("text=I agree").click()
    page.keyboard.press("Tab")
    pick(page, "Value", page.locator("[data-testid=plan]"))


#: the bundled setup (examples/sessions): signs in as the demo user and saves session `demo`
EXAMPLE_SETUP = (ROOT / "examples" / "sessions" / "sign-in.flow.yaml").read_text(encoding="utf-8")
RECORD_SETUP = """\
spec_version: '1.1'
name: sign in
saves_session: demo
url: BASE/signin.html
steps:
  - {type: act, action: fill, selector: '[data-testid="user"]', value: '{{DEMO_USER}}'}
  - {type: act, action: fill, selector: '[data-testid="password"]', value: '{{SIGNIN_PASSWORD}}'}
  - {type: act, action: press, selector: '[data-testid="password"]', value: Enter}
  - {type: expect, kind: has_text, selector: '[data-testid="who"]', value: 'Signed in as {{DEMO_USER}}'}
"""
NOTES_BEGUN = """\
# yaml-language-server: $schema=https://flowwalk.dev/schemas/flow-spec.v1.schema.json
spec_version: '1.1'
name: notes, continued
url: BASE/notes.html
steps:
  - {type: act, action: click, selector: '[data-testid="cookie-accept"]'}
  - {type: act, action: fill, selector: '#new-note', value: First note}
  - {type: act, action: press, selector: '#new-note', value: Enter}
"""
TODOS_BEGUN = """\
# yaml-language-server: $schema=https://flowwalk.dev/schemas/flow-spec.v1.schema.json
spec_version: '1.1'
name: todos, continued
url: BASE/examples/backbone/index.html
steps:
  - {type: act, action: fill, selector: '#new-todo', value: Buy milk}
  - {type: act, action: press, selector: '#new-todo', value: Enter}
"""

#: the setup's secret, and the recorded password field's placeholder ({{PASSWORD}}, from its name)
LOGIN = {"variables": DEMO, "secrets": {"DEMO_PASSWORD": DEMO_PASSWORD, "PASSWORD": DEMO_PASSWORD}}
JOURNEYS = [
    Journey("example: log in", "example", "/login.html", ("click", "fill", "secret", "press"), e_login, **LOGIN),
    Journey("example: a wrong password", "example", "/login.html", ("click", "fill", "secret"), e_wrong_password,
            secrets={"PASSWORD": "not-the-password"}),
    Journey("example: write notes", "example", "/notes.html", ("fill", "press", "texts", "count"), e_notes),
    Journey("example: complete a note", "example", "/notes.html", ("check", "click"), e_notes_complete),
    Journey("example: add a note with the button", "example", "/notes.html", ("fill", "click"), e_notes_button),
    Journey("example: change settings", "example", "/settings.html", ("select", "check"), e_settings),
    Journey("example: untick a setting", "example", "/settings.html", ("check",), e_settings_uncheck),
    Journey("example: a link, then a typed address", "example", "/index.html", ("click", "navigation"),
            e_navigation),
    Journey("example: notes, signed in", "example", "/notes.html", ("session", "fill", "count"), e_session_notes,
            setup=EXAMPLE_SETUP, **LOGIN),
    Journey("example: the dashboard, signed in", "example", "/dashboard.html", ("session",), e_session_dashboard,
            setup=EXAMPLE_SETUP, **LOGIN),
    Journey("example: continue a notes spec", "example", "/notes.html", ("append", "fill", "press"), e_append,
            append=NOTES_BEGUN),
    Journey("todomvc: add todos", "todomvc", TODO_APP, ("fill", "press", "texts", "count"), t_add),
    Journey("todomvc: complete a todo", "todomvc", TODO_APP, ("check",), t_complete),
    Journey("todomvc: tick and untick", "todomvc", TODO_APP, ("check",), t_uncheck),
    Journey("todomvc: edit a todo", "todomvc", TODO_APP, ("dblclick", "press", "fill"), t_edit),
    Journey("todomvc: delete a todo (hover)", "todomvc", TODO_APP, ("hover", "click", "count"), t_destroy),
    Journey("todomvc: complete all, clear", "todomvc", TODO_APP, ("check", "click"), t_toggle_all),
    Journey("todomvc: the Active filter", "todomvc", TODO_APP, ("click", "texts", "navigation"), t_filter),
    Journey("todomvc: a typed #/completed", "todomvc", TODO_APP, ("navigation",), t_typed_hash),
    Journey("todomvc: continue a spec", "todomvc", TODO_APP, ("append",), t_append, append=TODOS_BEGUN),
    Journey("record pages: drag and drop", "record", "/drag.html", ("drag",), r_drag),
    Journey("record pages: an upload", "record", "/form.html", ("upload", "fill", "press"), r_upload,
            beside=(RECORD_PAGES / "upload.txt",)),
    Journey("record pages: a popup", "record", "/popup.html", ("popup",), r_popup),
    Journey("record pages: an iframe", "record", "/frames.html", ("iframe",), r_iframe),
    Journey("record pages: dialogs", "record", "/popup.html", ("dialog",), r_dialog,
            answer=lambda kind, message, default: {"confirm": (False, None), "prompt": (True, "Grace")}.get(
                kind, (True, None))),
    Journey("record pages: menus on hover", "record", "/menu.html", ("hover",), r_menu),
    Journey("record pages: a double click", "record", "/form.html", ("dblclick",), r_dblclick),
    Journey("record pages: a password", "record", "/form.html", ("secret", "press"), r_secret,
            secrets={"PASSWORD": SIGNIN_PASSWORD}),
    Journey("record pages: signed in, --var and --secret", "record", "/account.html", ("session", "secret"),
            r_session, setup=RECORD_SETUP, variables={"DEMO_USER": "ada"},
            secrets={"SIGNIN_PASSWORD": SIGNIN_PASSWORD}),
    Journey("record pages: a select by keys", "record", "/form.html", ("select", "check", "press"), r_select_keys),
]


# --- recording and replaying ----------------------------------------------------------------------


@dataclass
class Outcome:
    journey: Journey
    steps: int = 0
    replayed: bool = False
    layout: bool = False
    leaked: bool = False
    problem: str = ""
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return self.replayed and self.layout and not self.leaked


def in_writer_layout(path: Path) -> bool:
    """The file renders to its own text through the one writer."""
    from ruamel.yaml import YAML

    from flowwalk.spec.models import FlowSpecModel
    from flowwalk.spec.writer import render_as

    text = path.read_text(encoding="utf-8")
    tree = FlowSpecModel.model_validate(YAML(typ="safe").load(text))
    return render_as(tree, path.name) == text


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def walk(journey: Journey, playwright: Any, served: str, work: Path) -> Outcome:
    outcome = Outcome(journey)
    t0 = time.monotonic()
    project = work / slug(journey.name)
    (project / ".git").mkdir(parents=True)
    checks = project / "checks"
    checks.mkdir()
    out = checks / f"{slug(journey.name)}.flow.yaml"
    setup: Path | None = None
    if journey.setup:
        setup = checks / "sign-in.flow.yaml"
        setup.write_text(journey.setup.replace("BASE", served), encoding="utf-8")
    if journey.append:
        out.write_text(journey.append.replace("BASE", served), encoding="utf-8")
    for file in journey.beside:
        shutil.copy(file, checks / file.name)
    saved = {name: os.environ.get(name) for name in journey.secrets}
    os.environ.update(journey.secrets)
    try:
        ask = RecordRequest(url=None if journey.append else served + journey.page, out=out, headless=True,
                            executable=default_executable(), browser_args=CHROMIUM_ARGS, append=bool(journey.append),
                            session="demo" if journey.setup else None, variables=journey.variables,
                            secret_names=tuple(journey.secrets))
        try:
            recording = start(ask, playwright=playwright, answer_dialog=journey.answer)
        except Exception as exc:  # noqa: BLE001 - a journey that cannot start is a failure, not the end
            outcome.problem = f"start: {str(exc).splitlines()[0]}"
            return outcome
        try:
            journey.drive(recording.pages[0], Ctx(recording, served))
        except Exception as exc:  # noqa: BLE001
            recording.close()
            outcome.problem = f"drive: {str(exc).splitlines()[0]}"
            return outcome
        result = finish(recording, ask)
        outcome.steps = result.steps
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    outcome.layout = in_writer_layout(out)
    args = [sys.executable, "-m", "flowwalk", "run", str(out), *([str(setup)] if setup else []),
            "--out", str(project / "report"), "--base-url", served]
    for name, value in journey.variables.items():
        args += ["--var", f"{name}={value}"]
    for name in journey.secrets:
        args += ["--secret", name]
    env = {**{k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}, **journey.secrets}
    done = subprocess.run(args, cwd=project, capture_output=True, text=True, timeout=300, env=env)
    outcome.replayed = done.returncode == 0
    if not outcome.replayed:
        outcome.problem = f"replay exited {done.returncode}: " + " | ".join(done.stdout.strip().splitlines()[-4:])
    values = [v.encode() for v in journey.secrets.values()]
    outcome.leaked = any(v in p.read_bytes() for p in project.rglob("*") if p.is_file() for v in values)
    if outcome.leaked:
        outcome.problem += " a secret's value is in a file written"
    outcome.seconds = time.monotonic() - t0
    return outcome


def table(outcomes: list[Outcome], load: str) -> str:
    passed = sum(o.passed for o in outcomes)
    lines = [f"{passed} of {len(outcomes)} journeys pass on replay with no edit "
             f"({100 * passed / len(outcomes):.0f} %), {sum(o.layout for o in outcomes)} of {len(outcomes)} "
             f"written in the writer's layout; load average {load} on this machine.", "",
             "| journey | kinds | steps | replay |", "|---|---|---|---|"]
    for o in outcomes:
        verdict = "passed" if o.passed else f"failed: {o.problem.replace('|', '/')[:120]}"
        lines.append(f"| {o.journey.name} | {', '.join(o.journey.kinds)} | {o.steps} | {verdict} |")
    return "\n".join(lines) + "\n"


def write_docs(text: str) -> None:
    doc = DOCS.read_text(encoding="utf-8")
    begin, end = MARKERS
    if begin not in doc or end not in doc:
        raise SystemExit(f"{DOCS}: the markers {begin} and {end} are missing")
    head, rest = doc.split(begin, 1)
    _, tail = rest.split(end, 1)
    DOCS.write_text(f"{head}{begin}\n{text}{end}{tail}", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="the journeys whose names contain one of these (comma-separated)")
    parser.add_argument("--write-docs", action="store_true", help="write the table into docs/record.md")
    parser.add_argument("--keep", type=Path, help="record into this folder and keep it")
    options = parser.parse_args()
    missing = sorted(set(KINDS) - {k for j in JOURNEYS for k in j.kinds})
    if missing:
        raise SystemExit(f"no journey records {', '.join(missing)}")
    chosen = [j for j in JOURNEYS if not options.only or any(w in j.name for w in options.only.split(","))]
    if not (TODOMVC / "examples" / "backbone" / "index.html").is_file():
        raise SystemExit("no TodoMVC copy: run scripts/fetch_thirdparty.sh (or scripts/install.sh --with-tests)")
    from playwright.sync_api import sync_playwright

    work = options.keep or Path(tempfile.mkdtemp(prefix="record-journeys-"))
    work.mkdir(parents=True, exist_ok=True)
    todo_root = original(TODOMVC, work / "todomvc-app")
    outcomes: list[Outcome] = []
    try:
        with sync_playwright() as playwright, StaticServer(EXAMPLE) as example, StaticServer(todo_root) as todo, \
                StaticServer(RECORD_PAGES) as pages:
            served = {"example": example.url, "todomvc": todo.url, "record": pages.url}
            for journey in chosen:
                outcome = walk(journey, playwright, served[journey.site], work)
                outcomes.append(outcome)
                print(f"{'pass' if outcome.passed else 'FAIL'}  {journey.name:<48} {outcome.steps:>3} steps  "
                      f"{outcome.seconds:5.1f} s  {outcome.problem}", flush=True)
    finally:
        if options.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    passed = sum(o.passed for o in outcomes)
    print(f"{passed}/{len(outcomes)} pass on replay with no edit; "
          f"{sum(o.layout for o in outcomes)}/{len(outcomes)} in the writer's layout; load average {load}")
    print(json.dumps({"passed": passed, "total": len(outcomes), "load": load}))
    if options.write_docs:
        write_docs(table(outcomes, load))
    return 0 if outcomes and passed >= 0.95 * len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
