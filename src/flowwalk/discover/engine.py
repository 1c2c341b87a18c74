"""`discover(options)`: crawl, classify, generate, verify, write. The one entry point (CLI and MCP).

Layout of `--out DIR` after a run:

    DIR/<page slug>/<feature>.flow.yaml          specs that passed twice
    DIR/needs-review/<page slug>/<feature>.review.yaml
                                                 specs that did not, with their failure on top
                                                 (not *.flow.yaml: `flowwalk run DIR` skips them)
    DIR/discover/index.md, crawl.json            what was found, for people and as data
    DIR/discover/pages/<slug>/snapshot.md, screenshot.png
    DIR/discover/discover.state.json             the crawl state (`--resume`)

A new run replaces the specs an earlier run into the same folder wrote (listed in its crawl.json)
and nothing else.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import urlsplit

from flowwalk.discover.options import DiscoverOptions, DiscoverResult, JourneySummary, StopReason
from flowwalk.errors import UsageError
from flowwalk.settings import Settings

__all__ = ["crawl_browser", "crawl_session", "discover", "discover_settings"]

DISCOVER_DIR = "discover"
REVIEW_DIR = "needs-review"


def discover_settings(options: DiscoverOptions, env: dict[str, str] | None = None) -> Settings:
    """The run settings discover walks with: flowwalk.yaml, the environment, then the options."""
    from flowwalk.spec.config import settings_for  # the spec layer loads lazily, as before

    cli: dict[str, Any] = {"variables": [f"{k}={v}" for k, v in options.variables],
                           "secret_names": list(options.secret_names)}
    if options.executable:
        cli["executable"] = options.executable
    if options.workers:
        cli["workers"] = options.workers
    settings = settings_for(cli, os.environ if env is None else env, options.config_path)
    # discover's own cap: its verification walks run at most two at once
    return replace(settings, workers=max(1, min(settings.workers, 2)))


@contextmanager
def crawl_browser(settings: Settings, browser: Any = None) -> Iterator[Any]:
    """`browser` when the caller has one running (tests and the MCP server share theirs), else a
    Chromium launched for the block (`browser.Browser.launch`) and closed after it."""
    if browser is not None:
        yield browser
        return
    from flowwalk.browser import Browser

    launched = Browser.launch(settings)
    try:
        yield launched
    finally:
        launched.close()


def crawl_session(browser: Any, options: DiscoverOptions, settings: Settings) -> Any:
    """A fresh context + page for crawling `options.url`: its allowed hosts, offline as the settings say."""
    return browser.new_session(entry_url=options.url, allowed_hosts=tuple(options.allow_hosts),
                               offline=settings.offline)


def _check(options: DiscoverOptions) -> None:
    parts = urlsplit(options.url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"'{options.url}' is not an http(s) URL\n  hint: for example flowwalk discover "
                         f"https://staging.example.com --out checks/")
    for name, value, low in (("--max-pages", options.max_pages, 1), ("--max-depth", options.max_depth, 0),
                             ("--max-actions", options.max_actions, 0)):
        if value < low:
            raise UsageError(f"{name} {value} is below {low}\n  hint: use {low} or more")
    if options.budget_s <= 0:
        raise UsageError("--budget must be above 0 minutes")
    for host in options.allow_hosts:
        if not host or "/" in host or ":" in host or host.startswith("*"):
            raise UsageError(f"--allow-host '{host}' is not a bare host name\n  hint: for example --allow-host "
                             f"help.example.com (its subdomains are allowed too)")


def discover(options: DiscoverOptions, *, progress: Callable[[str], None] | None = None,
             cancel: threading.Event | None = None, browser: Any = None) -> DiscoverResult:
    """Crawl `options.url`, write specs and the discover folder under `options.out_dir`.

    `browser`: a running `browser.Browser` to crawl with (tests share theirs); else one is
    launched and closed. Raises UsageError / SpecError for bad input before any browser starts.
    """
    from flowwalk.discover.crawl import STATE_FILE, Crawler, CrawlState
    from flowwalk.discover.features import classify
    from flowwalk.discover.generate import generate_specs
    from flowwalk.discover.login import LoginFlow, load_login, play_login

    say = progress or (lambda _line: None)
    cancel = cancel if cancel is not None else threading.Event()
    _check(options)
    settings = discover_settings(options)
    login: LoginFlow | None = load_login(Path(options.login), settings, options.url) if options.login else None
    started = time.monotonic()
    out = Path(options.out_dir)
    folder = out / DISCOVER_DIR
    state_path = folder / STATE_FILE
    if options.resume and state_path.is_file():
        try:
            state = CrawlState.from_json(state_path.read_text(encoding="utf-8"))
        except (ValueError, TypeError) as error:
            raise UsageError(f"{state_path}: cannot resume: {error}\n  hint: run without --resume to start over") from None
        if state.start_url != options.url:
            raise UsageError(f"{state_path} is a crawl of {state.start_url}, not {options.url}\n"
                             f"  hint: run without --resume, or with that URL")
        say(f"resuming the crawl of {state.start_url}: {len(state.pages)} pages, {len(state.queue)} queued")
    else:
        state = CrawlState(start_url=options.url)
    previous = _previous_specs(folder)
    if not options.resume and folder.is_dir():
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)

    with crawl_browser(settings, browser) as browser:
        session = crawl_session(browser, options, settings)
        try:
            crawler = Crawler(options, session, state, folder, action_timeout_ms=min(settings.action_timeout_ms, 5_000),
                              navigation_timeout_ms=settings.navigation_timeout_ms, progress=say, cancel=cancel,
                              started=started)
            if login is not None:
                say(f"logging in with {options.login}")
                play_login(login, session, settings, browser)
                landing = _in_page_login(login, session, settings, browser)
                if landing is not None:
                    say(f"  the login stays in the page at {landing}: that state is explored, not a fresh load")
                    crawler.landing = state.login_landing = landing
                    crawler.relogin = lambda: play_login(login, session, settings, browser)
            reason: StopReason = crawler.run()
        finally:
            session.close()
        if options.submit_forms and not cancel.is_set() and state.pages:
            state.journeys = _explore_journeys(options, settings, browser, state, login, crawler, say)
    crawl_s = time.monotonic() - started
    say(f"crawl {reason}: {len(state.pages)} pages, {state.actions} actions in {crawl_s:.1f} s")

    state_dict = json.loads(state.to_json())
    features = classify(state_dict["pages"], state_dict["dismiss"])
    login_data = {"url": login.url, "steps": login.steps} if login else None
    specs = generate_specs(state_dict, features, login=login_data, submit_forms=options.submit_forms,
                           words=options.destructive_words())
    drops: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    question = None
    if options.advice is not None:
        from flowwalk.discover.advice import advise_specs

        specs, drops, calls = advise_specs(specs, state_dict, features, settings, options, say, given=options.advice)
    elif options.use_model and settings.model is not None:
        from flowwalk.discover.advice import advise_specs

        specs, drops, calls = advise_specs(specs, state_dict, features, settings, options, say)
    elif options.use_model and specs:
        from flowwalk.discover.advice import advice_question

        question = advice_question(specs, state_dict)   # what a model would have been asked
    say(f"{len(features)} features, {len(specs)} specs to check")

    # --no-verify writes every spec in place, marked not_verified in crawl.json and index.md
    verdicts: dict[str, str | None] = {s.path: None for s in specs}
    if options.verify and specs:
        from flowwalk.discover.verify import verify_specs

        verdicts = verify_specs(specs, folder / ".verify", settings, progress=say, cancel=cancel)
        specs = _without_failed_loads(specs, verdicts, state_dict, folder, settings, say, cancel)
        shutil.rmtree(folder / ".verify", ignore_errors=True)

    _remove_previous(out, previous)
    spec_records: list[dict[str, Any]] = []
    written: list[str] = []
    review: list[str] = []
    for spec in specs:
        failure = verdicts.get(spec.path)
        if failure is None:
            target = out / spec.path
            status = "written" if options.verify else "not_verified"
            text = spec.text
            written.append(target.as_posix())
        else:
            target = out / REVIEW_DIR / spec.path.replace(".flow.yaml", ".review.yaml")
            status = "needs_review"
            text = "".join(f"# NEEDS REVIEW: {line}\n" for line in failure.splitlines()) + \
                "# Fix it, then rename it to *.flow.yaml and move it next to the others.\n" + spec.text
            review.append(target.as_posix())
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        spec_records.append({"path": target.relative_to(out).as_posix(), "feature": spec.feature, "status": status,
                             "failure": failure, "variables": list(spec.variables)})

    from flowwalk.discover.markdown import render_index
    from flowwalk.discover.record import build_record

    duration = time.monotonic() - started
    limits = {"max_pages": options.max_pages, "max_depth": options.max_depth, "max_actions": options.max_actions,
              "budget_s": options.budget_s, "submit_forms": options.submit_forms,
              "allow_hosts": list(options.allow_hosts), "destructive_words": list(options.destructive_words())}
    record = build_record(state_dict, features, spec_records, limits=limits, duration_s=crawl_s, drops=drops,
                          calls=calls)
    (folder / "crawl.json").write_text(record.model_dump_json(by_alias=True, indent=2) + "\n", encoding="utf-8")
    (folder / "index.md").write_text(render_index(record), encoding="utf-8")
    say(f"wrote {len(written)} specs to {out}/ and {len(review)} to {out}/{REVIEW_DIR}/; "
        f"{folder}/index.md says what was found")
    return DiscoverResult(out_dir=out, pages=len(state.pages), features=len(features),
                          specs_written=tuple(written), needs_review=tuple(review), duration_s=round(duration, 1),
                          stopped_reason=reason, discover_dir=folder, model_question=question,
                          dropped=tuple(f"{d['feature']}: {d['what']}: {d['reason']}" for d in drops),
                          journeys=_summaries(record))


_FAILED_LOAD = "Failed to load resource"


def _only_failed_loads(failure: str | None) -> list[str]:
    """The console errors a verification failure names, when each is a resource that did not load
    (the browser logs a missing favicon so); else []."""
    if not failure or "console error(s): " not in failure:
        return []
    shown = failure.split("console error(s): ", 1)[1].split("; ")
    return shown if shown and all(e.strip().startswith(_FAILED_LOAD) for e in shown) else []


def _without_failed_loads(specs: list[Any], verdicts: dict[str, str | None], state: dict[str, Any], folder: Path,
                          settings: Settings, say: Callable[[str], None], cancel: threading.Event) -> list[Any]:
    """A spec that failed only because a resource did not load (a favicon 404 the page never uses)
    is verified again without `no_console_errors`; the failed load becomes a finding in index.md."""
    from flowwalk.discover.generate import render_spec
    from flowwalk.discover.verify import verify_specs

    retry = {}
    for spec in specs:
        loads = _only_failed_loads(verdicts.get(spec.path))
        if loads and spec.data.get("assertions"):
            data = {k: v for k, v in spec.data.items() if k != "assertions"}
            retry[spec.path] = (replace(spec, data=data, text=render_spec(data, list(spec.header))), loads)
    if not retry:
        return specs
    say(f"{len(retry)} specs failed only on resources that did not load: verifying them without no_console_errors")
    again = verify_specs([r[0] for r in retry.values()], folder / ".verify-again", settings, progress=say, cancel=cancel)
    shutil.rmtree(folder / ".verify-again", ignore_errors=True)
    out = []
    for spec in specs:
        if spec.path in retry and again.get(spec.path) is None:
            fixed, loads = retry[spec.path]
            verdicts[spec.path] = None
            page = next((p for p in state["pages"] if spec.feature.startswith(p["slug"] + "/")), None)
            if page is not None:
                found = page.setdefault("failed_resources", [])
                for load in loads:
                    if f"console: {load.strip()[:160]}" not in found:
                        found.append(f"console: {load.strip()[:160]}")
            out.append(fixed)
        else:
            out.append(spec)
    return out


def _summaries(record: Any) -> tuple[JourneySummary, ...]:
    pages = {p.id: p.path for p in record.pages}
    status = {s.path: s.status for s in record.specs}
    return tuple(JourneySummary(id=j.id, name=j.name, page=pages.get(j.page, j.page), why=j.why, spec=j.spec,
                                status=status.get(j.spec, "not_written") if j.spec else "not_written",
                                covers=tuple(f"{m.name}: " + ("; ".join(m.checks) or "nothing to check")
                                             for m in j.moves))
                 for j in record.journeys)


def _in_page_login(login: Any, session: Any, settings: Settings, browser: Any) -> str | None:
    """The URL key of the page a login left the session at, when that login lives in the page (a
    single-page app: loading the URL again shows the login form); None for a cookie session."""
    from flowwalk.discover.login import play_login
    from flowwalk.discover.safety import url_key

    def has_password() -> bool:
        survey = session.page.survey()
        return any(f.get("type") == "password" for form in survey.get("forms") or () for f in form.get("fields") or ())

    from flowwalk.browser import PageError
    from flowwalk.browser.errors import translating

    landing = session.page.last_url()
    try:
        with translating():
            if has_password():
                return None   # the login did not leave the login form behind: nothing to keep
            session.goto(landing, timeout_ms=settings.navigation_timeout_ms)
            session.wait(300)
            if not has_password():
                return None
    except PageError:
        return None
    play_login(login, session, settings, browser)
    return url_key(landing)


def _explore_journeys(options: DiscoverOptions, settings: Settings, browser: Any, state: Any, login: Any,
                      crawler: Any, say: Callable[[str], None]) -> list[dict[str, Any]]:
    """With --submit-forms: the journeys of every page, each walked twice in fresh contexts."""
    from flowwalk.browser.errors import translating
    from flowwalk.browser.locate import locate
    from flowwalk.discover.journeys import JourneyExplorer, MoveFailed
    from flowwalk.discover.login import play_login
    from flowwalk.discover.safety import url_key

    def open_state(page: dict[str, Any]) -> Any:
        session = crawl_session(browser, options, settings)
        try:
            via = page.get("reached_by") or {}
            start = str(via.get("from_url") if via.get("kind") == "route" else page["url"])
            if login is not None:
                play_login(login, session, settings, browser)
            clicks = ([page["banner"]["selector"]] if page.get("banner") else []) + \
                ([via["selector"]] if via.get("kind") == "route" else [])
            with translating():
                if login is None or crawler.landing is None or url_key(start) != crawler.landing:
                    session.goto(start, timeout_ms=settings.navigation_timeout_ms)
                for selector in clicks:
                    found = locate(session.playwright_page, selector)
                    if found.count:
                        with session.translating():
                            found.locator.first.click(timeout=settings.action_timeout_ms)
                        session.wait(200)
        except BaseException as error:
            session.close()
            from flowwalk.browser import InvalidSelector, NavigationBlocked, PageError
            from flowwalk.discover.login import LoginFailed

            if isinstance(error, (PageError, InvalidSelector, NavigationBlocked, LoginFailed)):
                raise MoveFailed(f"could not open {page['path']}: {str(error).splitlines()[0][:200]}") from None
            raise
        return session

    explorer = JourneyExplorer(open_state, words=options.destructive_words(),
                               action_timeout_ms=min(settings.action_timeout_ms, 5_000),
                               navigation_timeout_ms=settings.navigation_timeout_ms,
                               take_action=crawler.take_action, progress=say)
    pages = {p["id"]: p for p in state.pages}
    links = _links(state, options.destructive_words())
    out: list[dict[str, Any]] = []
    for page in state.pages:
        if crawler.out_of_time():
            say("journeys: the budget is spent; the rest are not explored")
            break
        try:
            found = explorer.explore(page, pages, links)
        except MoveFailed as failed:
            say(f"  journeys of {page['path']}: {failed}")
            continue
        out.extend(j.to_dict() for j in found)
    for page in state.pages:
        page.pop("_create_claimed", None)
    return out


def _links(state: Any, words: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every link of every page to another crawled page ({from, to, kind, selector, name}), from the
    pages' surveys: the crawl's edges keep only the first way each page was found."""
    from flowwalk.discover.safety import destructive_word, url_key
    from flowwalk.discover.selectors import choose_selector

    out: list[dict[str, Any]] = []
    for page in state.pages:
        for link in page["survey"].get("links") or ():
            target = state.seen.get(url_key(str(link.get("href") or "")))
            selector = choose_selector(link)
            if not target or target == page["id"] or not selector or destructive_word(link, words):
                continue
            edge = {"from": page["id"], "to": target, "kind": "link", "selector": selector,
                    "name": str(link.get("name") or "")[:80]}
            if edge not in out:
                out.append(edge)
    return out


def _previous_specs(folder: Path) -> list[str]:
    """The specs an earlier discover run wrote into this --out folder (its crawl.json lists them)."""
    try:
        specs = json.loads((folder / "crawl.json").read_text(encoding="utf-8")).get("specs") or []
    except (OSError, ValueError, AttributeError):
        return []
    return [str(s.get("path", "")) for s in specs if isinstance(s, dict) and s.get("path")]


def _remove_previous(out: Path, previous: list[str]) -> None:
    """Remove what an earlier run wrote (and the folders it leaves empty), nothing of the user's."""
    root = out.resolve()
    for name in previous:
        path = (out / name).resolve()
        if root not in path.parents or not path.is_file():
            continue
        path.unlink()
        parent = path.parent
        while parent != root and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
