"""The discover mutation bench: do the specs `flowwalk discover --submit-forms` writes catch real bugs?

    .venv/bin/python bench/discover_mutations.py todomvc-backbone [--twice] [--only NAME] [--json FILE]
    .venv/bin/python bench/discover_mutations.py adminlike [--twice] [--only NAME] [--json FILE]

For one app, offline and deterministic: TodoMVC Backbone (other people's JavaScript, from
.cache/thirdparty, fetched by scripts/fetch_thirdparty.sh; its bugs are seeded in the JavaScript)
or the admin site shaped like Django's of tests/adminlike.py (logged in; its bugs are seeded in the
Python server, which is started afresh from the changed source for each bug):

1. serve the unmodified app on 127.0.0.1 and run `discover --submit-forms` (no model) into a
   scratch folder: the generated suite (with --twice, a second crawl, and the two spec trees are
   compared byte for byte);
2. run the generated suite and the small hand-written suite once on the unmodified app (every
   spec of both should pass);
3. for each seeded one-line bug (an action that does nothing, a counter off by one, a filter that
   shows the wrong items, a change that is not saved, ...): apply it, run both suites, restore it.
   A bug is caught when at least one spec of the suite fails.

It prints a Markdown table (and with --json FILE writes the figures there). A mutation whose line
is not found exactly once stops the bench: the app changed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


@dataclass(frozen=True)
class Mutation:
    name: str
    #: the file (relative to the served root) and the exact text replaced, once
    path: str
    old: str
    new: str
    what: str


@dataclass(frozen=True)
class App:
    name: str
    #: serves a folder on 127.0.0.1
    serve: Callable[[Path], Any]
    start: str
    #: the hand-written suite: spec files written by a person for the same app
    hand: tuple[Path, ...]
    mutations: tuple[Mutation, ...]
    #: a login flow (YAML text) and the variables and secrets it needs
    login: str = ""
    variables: tuple[tuple[str, str], ...] = ()
    secrets: tuple[tuple[str, str], ...] = ()


BACKBONE = "examples/backbone/"
TODOMVC_MUTATIONS = (
    Mutation("add-does-nothing", BACKBONE + "js/views/app-view.js", "app.todos.create(this.newAttributes());",
             "/* nothing */", "pressing Enter in the new-todo field adds nothing"),
    Mutation("add-not-saved", BACKBONE + "js/views/app-view.js", "app.todos.create(this.newAttributes());",
             "app.todos.add(this.newAttributes());", "a new todo is shown but not saved (gone after a reload)"),
    Mutation("counter-off-by-one", BACKBONE + "js/views/app-view.js", "remaining: remaining",
             "remaining: remaining + 1", "the items-left counter is one too high"),
    Mutation("counter-plural", BACKBONE + "index.html", "remaining === 1 ? 'item' : 'items'",
             "remaining === 1 ? 'items' : 'item'", "'1 items left' / '2 item left'"),
    Mutation("input-not-cleared", BACKBONE + "js/views/app-view.js", "this.$input.val('');", "",
             "the new-todo field keeps the text after adding"),
    Mutation("toggle-does-nothing", BACKBONE + "js/views/todo-view.js", "this.model.toggle();", "",
             "a todo's checkbox does not complete it"),
    Mutation("toggle-not-saved", BACKBONE + "js/models/todo.js", "this.save({", "this.set({",
             "completing a todo is not saved (undone by a reload)"),
    Mutation("filter-active-wrong", BACKBONE + "js/views/todo-view.js", "app.TodoFilter === 'active' :",
             "app.TodoFilter === 'completed' :", "the Active filter shows the completed todos"),
    Mutation("filter-completed-wrong", BACKBONE + "js/views/todo-view.js", "app.TodoFilter === 'completed';",
             "app.TodoFilter === 'none';", "the Completed filter shows the active todos too"),
    Mutation("filter-not-highlighted", BACKBONE + "js/views/app-view.js", ".addClass('selected');", ".addClass('');",
             "the chosen filter link is not highlighted"),
    Mutation("clear-completed-nothing", BACKBONE + "js/views/app-view.js",
             "_.invoke(app.todos.completed(), 'destroy');", "_.invoke([], 'destroy');",
             "Clear completed removes nothing"),
    Mutation("clear-completed-wrong", BACKBONE + "js/views/app-view.js",
             "_.invoke(app.todos.completed(), 'destroy');", "_.invoke(app.todos.remaining(), 'destroy');",
             "Clear completed removes the active todos instead"),
    Mutation("delete-does-nothing", BACKBONE + "js/views/todo-view.js", "this.model.destroy();", "",
             "a todo's delete button does nothing"),
    Mutation("edit-not-saved", BACKBONE + "js/views/todo-view.js", "this.model.save({ title: trimmedValue });", "",
             "editing a todo's title is not kept"),
    Mutation("edit-enter-ignored", BACKBONE + "js/views/todo-view.js", "if (e.which === ENTER_KEY) {",
             "if (e.which === ESC_KEY) {", "Enter does not finish editing"),
    Mutation("toggle-all-nothing", BACKBONE + "js/views/app-view.js", "var completed = this.allCheckbox.checked;",
             "var completed = !this.allCheckbox.checked;", "'Mark all as complete' does nothing"),
    Mutation("list-hidden", BACKBONE + "js/views/app-view.js", "this.$main.show();", "this.$main.hide();",
             "the list of todos is never shown"),
)


ADMIN = "adminlike.py"
#: one-line bugs in tests/adminlike.py's server code
ADMIN_MUTATIONS = (
    Mutation("save-does-nothing", ADMIN, "self.store.rows[model.name].append(row)", "pass",
     "Save answers 'added successfully' but the row is not kept"),
    Mutation("no-success-message", ADMIN, 'flash = {"Set-Cookie": "flash=" + quote(said) + "; Path=/"}', "flash = {}",
     "no message after a save"),
    Mutation("search-ignored", ADMIN, "        if q:\n", "        if False:\n", "the search box shows every row"),
    Mutation("search-case-sensitive", ADMIN, "if any(q.lower() in str(v).lower()", "if any(q in str(v).lower()",
     "the search finds nothing with a capital letter"),
    Mutation("required-not-checked", ADMIN, 'errors = {f: "This field is required." for f, _, _, required in model.fields if required and not values[f]}',
     "errors: dict[str, str] = {}", "an empty form is saved as a blank row"),
    Mutation("error-note-wrong", ADMIN, '<p class="errornote">Please correct the error below.</p>',
     '<p class="errornote">Please correct the errors below.</p>', "the form's error note changed"),
    Mutation("save-lands-on-index", ADMIN, "            self._redirect(base, flash)\n", '            self._redirect("/admin/", flash)\n',
     "Save lands on the index instead of the list"),
    Mutation("new-rows-not-listed", ADMIN, "rows = list(self.store.rows[model.name])", "rows = list(self.store.rows[model.name])[:3]",
     "the list shows only its first three rows"),
    Mutation("filter-inverted", ADMIN, "rows = [r for r in rows if str(r.get(model.filter_field)) == chosen]",
     "rows = [r for r in rows if str(r.get(model.filter_field)) != chosen]", "a filter shows every row but the chosen ones"),
    Mutation("value-truncated", ADMIN, 'values = {f: form.get(f, "").strip() for f, _, _, _ in model.fields}',
     'values = {f: form.get(f, "").strip()[:20] for f, _, _, _ in model.fields}', "a saved value is cut at 20 characters"),
    Mutation("add-page-heading", ADMIN, 'title = f"Change {model.name}" if row else f"Add {model.name}"\n        tools',
     'title = f"Add {model.name}" if row else f"Change {model.name}"\n        tools', "the add page is titled Change"),
    Mutation("history-empty", ADMIN, "mine = [line for line in self.store.log if", "mine = [line for line in [] if",
     "an item's history is always empty"),
    Mutation("login-refused", ADMIN, "if form.get(\"username\") == USER and form.get(\"password\") == PASSWORD:",
     "if form.get(\"username\") == USER and form.get(\"password\") == PASSWORD + \"x\":", "the right password is refused"),
)


def _serve_static(folder: Path) -> Any:
    from flowwalk.serve import StaticServer

    return StaticServer(folder)


def _copy_todomvc(scratch: Path) -> Path:
    package = ROOT / ".cache" / "thirdparty" / "todomvc" / "package"
    if not package.is_dir():
        raise SystemExit("TodoMVC is not fetched: run scripts/fetch_thirdparty.sh first")
    root = scratch / "app"
    shutil.copytree(package / "examples" / "backbone", root / "examples" / "backbone")
    shutil.copy(package / "learn.json", root / "learn.json")
    return root


@dataclass
class Served:
    url: str
    root: Path
    stop: Callable[[], None]
    #: start the app again from its (changed) source, on the same port; None: it reads its files live
    restart: Callable[[], None] | None = None


def _load_admin(path: Path) -> Any:
    """tests/adminlike.py's module, loaded from `path` (a copy the bench changes)."""
    import importlib.util

    name = f"adminlike_bench_{abs(hash(path.read_text(encoding='utf-8')))}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module   # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _start(app_name: str, scratch: Path) -> Served:
    if app_name == "todomvc-backbone":
        root = _copy_todomvc(scratch)
        server = _serve_static(root).start()
        return Served(server.url, root, server.stop)
    root = scratch / "app"
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "tests" / ADMIN, root / ADMIN)
    site = _load_admin(root / ADMIN).AdminSite().start()
    port = int(site.url.rsplit(":", 1)[1])
    served = Served(site.url, root, site.stop)

    def restart() -> None:
        served.stop()
        fresh = _load_admin(root / ADMIN).AdminSite(port=port).start()
        served.stop = fresh.stop

    served.restart = restart
    return served


def _app(name: str) -> App:
    if name == "todomvc-backbone":
        # the two Backbone flows tests/thirdparty walks, written by hand for that app
        specs = ROOT / "tests" / "thirdparty" / "specs"
        return App(name, _serve_static, "/examples/backbone/index.html",
                   (specs / "backbone-v1.flow.yaml", specs / "backbone-v11.flow.yaml"), TODOMVC_MUTATIONS)
    if name == "adminlike":
        sys.path.insert(0, str(ROOT / "tests"))
        from adminlike import LOGIN_FLOW_YAML, PASSWORD, USER

        return App(name, _serve_static, "/admin/", tuple(sorted((HERE / "discover_mutations" / "adminlike").glob("*.flow.yaml"))),
                   ADMIN_MUTATIONS, login=LOGIN_FLOW_YAML, variables=(("ADMIN_USER", USER),),
                   secrets=(("ADMIN_PASSWORD", PASSWORD),))
    raise SystemExit(f"unknown app '{name}'\n  hint: todomvc-backbone or adminlike")


@contextlib.contextmanager
def _mutated(root: Path, mutation: Mutation) -> Iterator[None]:
    path = root / mutation.path
    text = path.read_text(encoding="utf-8")
    if text.count(mutation.old) != 1:
        raise SystemExit(f"{mutation.name}: '{mutation.old}' occurs {text.count(mutation.old)} times in "
                         f"{mutation.path}, not once: the app changed")
    path.write_text(text.replace(mutation.old, mutation.new), encoding="utf-8")
    try:
        yield
    finally:
        path.write_text(text, encoding="utf-8")


def run_suite(folder: Path, base_url: str, settings: Any) -> dict[str, str]:
    """spec file -> passed / failed (one walk each, no retries)."""
    from flowwalk import events as ev
    from flowwalk.spec.loader import load_suites
    from flowwalk.walk.run import run_plan

    quiet = replace(settings, base_url=base_url, retries=0, screenshots="off", trace="off",
                    out_dir=str(folder.parent / f".report-{folder.name}"), rule_timeout_ms=8_000)
    suites = load_suites([str(folder)], quiet)
    scenarios = [sc for suite in suites for sc in suite.scenarios]
    by_id = {sc.id: Path(sc.loc.path).resolve().relative_to(folder.resolve()).as_posix() for sc in scenarios}
    status: dict[str, str] = {sc.id: "passed" for sc in scenarios}

    def collect(event: Any) -> None:
        if isinstance(event, ev.RuleFinished) and (event.status not in ("passed", "skipped") or event.findings):
            status[event.scenario_id] = "failed"

    run_plan(scenarios, quiet, collect, cancel=threading.Event())
    return {by_id.get(k, k): v for k, v in sorted(status.items())}


def run_suites(folders: tuple[Path, Path], base_url: str, settings: Any) -> tuple[dict[str, str], dict[str, str]]:
    """The generated suite's and the hand-written suite's `run_suite`, one after the other."""
    return run_suite(folders[0], base_url, settings), run_suite(folders[1], base_url, settings)


def _caught(run: dict[str, str], base: dict[str, str]) -> list[str]:
    """The specs that passed on the unmodified app and fail on the changed one."""
    return sorted(k for k, v in run.items() if v == "failed" and base.get(k) == "passed")


def _verdict(caught: list[str]) -> str:
    return "caught" if caught else "missed"


def _spec_tree(folder: Path) -> dict[Path, bytes]:
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*.yaml")}


def crawl(app: App, url: str, out: Path) -> Any:
    import os

    from flowwalk.discover import DiscoverOptions, discover

    login = None
    if app.login:
        login = out.parent / f"{out.name}-login.flow.yaml"
        login.write_text(app.login, encoding="utf-8")
        os.environ.update(dict(app.secrets))
    options = DiscoverOptions(url=url + app.start, out_dir=out, submit_forms=True, use_model=False,
                              max_pages=50, budget_s=900, login=login, variables=app.variables,
                              secret_names=tuple(name for name, _ in app.secrets))
    return discover(options, progress=lambda line: None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("app", choices=("todomvc-backbone", "adminlike"))
    parser.add_argument("--twice", action="store_true", help="crawl twice and compare the spec trees")
    parser.add_argument("--only", action="append", default=[], help="run only this mutation (repeatable)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    from flowwalk.settings import Settings, default_executable

    from flowwalk.settings import Secrets

    app = _app(args.app)
    settings = Settings(executable=default_executable(), workers=2, variables=dict(app.variables),
                        secret_names=tuple(name for name, _ in app.secrets), secrets=Secrets(dict(app.secrets)))
    results: dict[str, Any] = {"app": app.name, "mutations": []}
    with tempfile.TemporaryDirectory(prefix="flowwalk-mutations-") as tmp:
        scratch = Path(tmp)
        served = _start(app.name, scratch)
        try:
            t0 = time.monotonic()
            first = crawl(app, served.url, scratch / "generated")
            results["crawl_s"] = round(time.monotonic() - t0, 1)
            results["pages"] = first.pages
            results["written"] = len(first.specs_written)
            results["needs_review"] = len(first.needs_review)
            results["journeys"] = [j.name for j in first.journeys]
            if args.twice:
                if served.restart is not None:
                    served.restart()   # the same app as the first crawl saw, not the rows that crawl created
                crawl(app, served.url, scratch / "again")
                results["identical"] = _spec_tree(scratch / "generated") == _spec_tree(scratch / "again")
            hand = scratch / "hand"
            hand.mkdir()
            for spec in app.hand:
                shutil.copy(spec, hand / spec.name)
            if served.restart is not None:
                served.restart()   # the suites start from the app's own data, as each bug's run does
            suites = (scratch / "generated", hand)
            base, hand_base = run_suites(suites, served.url, settings)
            results["unmodified"] = {"generated": base, "hand": hand_base}
            for mutation in app.mutations:
                if args.only and mutation.name not in args.only:
                    continue
                with _mutated(served.root, mutation):
                    if served.restart is not None:
                        served.restart()
                    gen, hand_run = run_suites(suites, served.url, settings)
                caught, hand_caught = _caught(gen, base), _caught(hand_run, hand_base)
                results["mutations"].append({"name": mutation.name, "what": mutation.what, "generated": caught,
                                             "hand": hand_caught})
                print(f"{mutation.name}: generated {'CAUGHT' if caught else 'missed'} {caught}; "
                      f"hand {'CAUGHT' if hand_caught else 'missed'}", flush=True)
        finally:
            served.stop()
    muts = results["mutations"]
    gen_n = sum(1 for m in muts if m["generated"])
    hand_n = sum(1 for m in muts if m["hand"])
    passing = sum(1 for v in results["unmodified"]["generated"].values() if v == "passed")
    total = len(results["unmodified"]["generated"])
    results["summary"] = {"generated_caught": gen_n, "hand_caught": hand_n, "bugs": len(muts),
                          "generated_pass_unmodified": f"{passing}/{total}"}
    print()
    print(f"| bug | what | generated suite | hand-written suite |")
    print("|---|---|---|---|")
    for m in muts:
        print(f"| {m['name']} | {m['what']} | {_verdict(m['generated'])} | {_verdict(m['hand'])} |")
    print(f"\n{app.name}: generated {gen_n} of {len(muts)}, hand-written {hand_n} of {len(muts)}; "
          f"{results['written']} specs written ({results['needs_review']} needs-review), {passing} of {total} pass "
          f"on the unmodified app" + (f"; two crawls identical: {results['identical']}" if "identical" in results else ""))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
