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
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterator, Literal
from urllib.parse import urlsplit

from flowwalk.browser import Browser, InvalidSelector, NavigationBlocked, PageError, PageSession
from flowwalk.browser.explore import ExplorePage
from flowwalk.cooperative import CancelToken
from flowwalk.discover.advice import advice_question, advise_specs
from flowwalk.discover.crawl import STATE_FILE, Crawler
from flowwalk.discover.features import classify
from flowwalk.discover.generate import GeneratedSpec, SignIn, generate_specs, render_spec
from flowwalk.discover.goal import goal_words, page_score
from flowwalk.discover.journeys import JourneyExplorer, MoveFailed
from flowwalk.discover.login import LoginFailed, LoginFlow, load_login, play_login
from flowwalk.discover.markdown import render_index
from flowwalk.discover.options import DISCOVER_DIR, DiscoverOptions, DiscoverResult, JourneySummary, StopReason
from flowwalk.discover.refusals import Proposer, model_proposer
from flowwalk.discover.record import CrawlRecord, Limits, ModelCallRecord, ModelDrop, SpecRecord, build_record
from flowwalk.discover.safety import destructive, url_key
from flowwalk.discover.selectors import choose_selector
from flowwalk.discover.state import CrawledPage, CrawlState, Edge, Journey
from flowwalk.discover.verify import verify_specs
from flowwalk.errors import UsageError
from flowwalk.settings import Overrides, Settings
from flowwalk.spec.config import settings_for

__all__ = ["crawl_browser", "crawl_session", "discover", "discover_settings"]

REVIEW_DIR = "needs-review"


def discover_settings(options: DiscoverOptions, env: dict[str, str] | None = None) -> Settings:
    """The run settings discover walks with: flowwalk.yaml, the environment, then the options."""
    told = Overrides(variables=dict(options.variables), secret_names=options.secret_names,
                     executable=options.executable or None, workers=options.workers or None,
                     test_id_attribute=tuple(options.test_id_attribute))
    settings = settings_for(told, os.environ if env is None else env, options.config_path)
    # discover's own cap: its verification walks run at most two at once
    return replace(settings, workers=max(1, min(settings.workers, 2)))


@contextmanager
def crawl_browser(settings: Settings, browser: Browser | None = None) -> Iterator[Browser]:
    """`browser` when the caller has one running (tests and the MCP server share theirs), else a
    Chromium launched for the block (`browser.Browser.launch`) and closed after it."""
    if browser is not None:
        yield browser
        return
    launched = Browser.launch(settings)
    try:
        yield launched
    finally:
        launched.close()


def crawl_session(browser: Browser, options: DiscoverOptions, settings: Settings,
                  signed_in: dict[str, Any] | None = None) -> PageSession:
    """A fresh context + page for crawling `options.url`: its allowed hosts, offline as the settings
    say, starting from the cookies and storage `signed_in` holds (the login's, kept once)."""
    return browser.new_session(entry_url=options.url, allowed_hosts=tuple(options.allow_hosts),
                               offline=settings.offline, storage_state=signed_in)


def crawl_page(browser: Browser, options: DiscoverOptions, settings: Settings,
               signed_in: dict[str, Any] | None = None) -> ExplorePage:
    """`crawl_session` as the page the crawl and the journeys explore (actions capped at 5 s)."""
    return ExplorePage(crawl_session(browser, options, settings, signed_in),
                       action_timeout_ms=min(settings.action_timeout_ms, 5_000),
                       navigation_timeout_ms=settings.navigation_timeout_ms)


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
             cancel: CancelToken | None = None, browser: Browser | None = None) -> DiscoverResult:
    """Crawl `options.url`, write specs and the discover folder under `options.out_dir`.

    `browser`: a running `browser.Browser` to crawl with (tests share theirs); else one is
    launched and closed. Raises UsageError / SpecError for bad input before any browser starts.
    """
    say = progress or (lambda _line: None)
    cancel = cancel if cancel is not None else CancelToken()
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

    with crawl_browser(settings, browser) as running:
        page = crawl_page(running, options, settings)
        #: the session the login left (a cookie session): every journey's walk starts from it
        signed_in: dict[str, Any] | None = None
        try:
            crawler = Crawler(options, page, state, folder, progress=say, cancel=cancel, started=started)
            if login is not None:
                say(f"logging in with {options.login}")
                play_login(login, page.session, settings, running)
                landing = _in_page_login(login, page, settings, running)
                if landing is None:
                    signed_in = page.session.storage_state()
                else:
                    say(f"  the login stays in the page at {landing}: that state is explored, not a fresh load")
                    crawler.landing = state.login_landing = landing
                    flow = login
                    crawler.relogin = lambda: play_login(flow, page.session, settings, running)
            reason: StopReason = crawler.run()
        finally:
            page.close()
        #: a model, when configured, may propose a refusal the crawl cannot read from a message (refusals.py)
        refusal_calls: list[ModelCallRecord] = []
        propose = model_proposer(settings, lambda call: refusal_calls.append(ModelCallRecord(
            purpose=call.purpose, outcome=call.outcome, decision=call.decision[:300],
            latency_ms=round(call.latency_ms, 1)))) if options.use_model and options.advice is None else None
        if options.submit_forms and not cancel.is_set() and state.pages:
            state.journeys = _explore_journeys(options, settings, running, state, login, crawler, say, signed_in,
                                               propose)
    crawl_s = time.monotonic() - started
    say(f"crawl {reason}: {len(state.pages)} pages, {state.actions} actions in {crawl_s:.1f} s")

    features = classify(state.pages, state.dismiss)
    specs = generate_specs(state, features, login=SignIn(login.url, login.steps) if login else None,
                           submit_forms=options.submit_forms, words=options.destructive_words())
    drops: list[ModelDrop] = []
    calls: list[ModelCallRecord] = []
    question = None
    if options.advice is not None:
        specs, drops, calls = advise_specs(specs, state, features, settings, options, say, given=options.advice)
    elif options.use_model and settings.llm is not None:
        specs, drops, calls = advise_specs(specs, state, features, settings, options, say)
    elif options.use_model and specs:
        question = advice_question(specs, state)   # what a model would have been asked
    calls = refusal_calls + calls
    say(f"{len(features)} features, {len(specs)} specs to check")

    # --no-verify writes every spec in place, marked not_verified in crawl.json and index.md
    verdicts: dict[str, str | None] = {s.path: None for s in specs}
    if options.verify and specs:
        verdicts = verify_specs(specs, folder / ".verify", settings, progress=say, cancel=cancel)
        specs = _without_failed_loads(specs, verdicts, state, folder, settings, say, cancel)
        shutil.rmtree(folder / ".verify", ignore_errors=True)

    _remove_previous(out, previous)
    spec_records: list[SpecRecord] = []
    written: list[str] = []
    review: list[str] = []
    for spec in specs:
        failure = verdicts.get(spec.path)
        status: Literal["written", "needs_review", "not_verified"]
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
        spec_records.append(SpecRecord(path=target.relative_to(out).as_posix(), feature=spec.feature, status=status,
                                       failure=failure, variables=list(spec.variables)))

    duration = time.monotonic() - started
    limits = Limits(max_pages=options.max_pages, max_depth=options.max_depth, max_actions=options.max_actions,
                    budget_s=options.budget_s, submit_forms=options.submit_forms, allow_hosts=list(options.allow_hosts),
                    destructive_words=list(options.destructive_words()))
    record = build_record(state, features, spec_records, limits=limits, duration_s=crawl_s, drops=drops, calls=calls)
    (folder / "crawl.json").write_text(record.model_dump_json(by_alias=True, indent=2) + "\n", encoding="utf-8")
    (folder / "index.md").write_text(render_index(record), encoding="utf-8")
    say(f"wrote {len(written)} specs to {out}/ and {len(review)} to {out}/{REVIEW_DIR}/; "
        f"{folder}/index.md says what was found")
    return DiscoverResult(out_dir=out, pages=len(state.pages), features=len(features),
                          specs_written=tuple(written), needs_review=tuple(review), duration_s=round(duration, 1),
                          stopped_reason=reason, discover_dir=folder, model_question=question,
                          dropped=tuple(f"{d.feature}: {d.what}: {d.reason}" for d in drops),
                          journeys=_summaries(record))


_FAILED_LOAD = "Failed to load resource"


def _only_failed_loads(failure: str | None) -> list[str]:
    """The console errors a verification failure names, when each is a resource that did not load
    (the browser logs a missing favicon so); else []."""
    if not failure or "console error(s): " not in failure:
        return []
    shown = failure.split("console error(s): ", 1)[1].split("; ")
    return shown if shown and all(e.strip().startswith(_FAILED_LOAD) for e in shown) else []


def _without_failed_loads(specs: list[GeneratedSpec], verdicts: dict[str, str | None], state: CrawlState,
                          folder: Path, settings: Settings, say: Callable[[str], None],
                          cancel: CancelToken) -> list[GeneratedSpec]:
    """A spec that failed only because a resource did not load (a favicon 404 the page never uses)
    is verified again without `no_console_errors`; the failed load becomes a finding in index.md."""
    retry = {}
    for spec in specs:
        loads = _only_failed_loads(verdicts.get(spec.path))
        if loads and spec.data.get("assertions"):
            data = spec.data.copy()
            del data["assertions"]
            retry[spec.path] = (replace(spec, data=data, text=render_spec(data, spec.header)), loads)
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
            page = next((p for p in state.pages if spec.feature.startswith(p.slug + "/")), None)
            if page is not None:
                found = list(page.failed_resources)
                for line in (f"console: {load.strip()[:160]}" for load in loads):
                    if line not in found:
                        found.append(line)
                state.put(replace(page, failed_resources=tuple(found)))
            out.append(fixed)
        else:
            out.append(spec)
    return out


def _summaries(record: CrawlRecord) -> tuple[JourneySummary, ...]:
    pages = {p.id: p.path for p in record.pages}
    status = {s.path: s.status for s in record.specs}
    return tuple(JourneySummary(id=j.id, name=j.name, page=pages.get(j.page, j.page), why=j.why, spec=j.spec,
                                status=status.get(j.spec, "not_written") if j.spec else "not_written",
                                covers=tuple(f"{m.name}: " + ("; ".join(m.checks) or "nothing to check")
                                             for m in j.moves))
                 for j in record.journeys)


def _in_page_login(login: LoginFlow, page: ExplorePage, settings: Settings, browser: Browser) -> str | None:
    """The URL key of the page a login left the session at, when that login lives in the page (a
    single-page app: loading the URL again shows the login form); None for a cookie session."""

    def has_password() -> bool:
        return any(f.type == "password" for form in page.survey().forms for f in form.fields)

    landing = page.url
    try:
        if has_password():
            return None   # the login did not leave the login form behind: nothing to keep
        page.goto(landing)
        page.wait(300)
        if not has_password():
            return None
    except PageError:
        return None
    play_login(login, page.session, settings, browser)
    return url_key(landing)


def _explore_journeys(options: DiscoverOptions, settings: Settings, browser: Browser, state: CrawlState,
                      login: LoginFlow | None, crawler: Crawler, say: Callable[[str], None],
                      signed_in: dict[str, Any] | None, propose: Proposer | None = None) -> list[Journey]:
    """With --submit-forms: the journeys of every page, each walked twice in fresh contexts (each
    from the crawl's signed-in cookies; a login that lives in the page is played again in each)."""

    def open_state(record: CrawledPage) -> ExplorePage:
        page = crawl_page(browser, options, settings, signed_in)
        try:
            via = record.reached_by
            if login is not None and signed_in is None:
                play_login(login, page.session, settings, browser)
            clicks = ([record.banner.selector] if record.banner is not None else []) + \
                ([via.selector] if via is not None and via.kind == "route" else [])
            if login is None or crawler.landing is None or url_key(record.start) != crawler.landing:
                page.goto(record.start)
            for selector in clicks:
                if page.act("click", selector).found:
                    page.wait(200)
        except (PageError, InvalidSelector, NavigationBlocked, LoginFailed) as error:
            page.close()
            raise MoveFailed(f"could not open {record.path}: {str(error).splitlines()[0][:200]}") from None
        except BaseException:
            page.close()
            raise
        return page

    explorer = JourneyExplorer(open_state, words=options.destructive_words(), take_action=crawler.take_action,
                               progress=say, propose=propose)
    pages = {p.id: p for p in state.pages}
    links = _links(state, options.destructive_words())
    out: list[Journey] = []
    goal = goal_words(options.goal)
    # with --goal, the journeys of the pages its words match come first (the budget may not reach the rest)
    for page in sorted(state.pages, key=lambda p: -page_score(goal, p)) if goal else state.pages:
        if page.confirmation:
            continue   # a delete confirmation: nothing on it is used
        if crawler.out_of_time():
            say("journeys: the budget is spent; the rest are not explored")
            break
        try:
            out.extend(explorer.explore(page, pages, links))
        except MoveFailed as failed:
            say(f"  journeys of {page.path}: {failed}")
    return out


def _links(state: CrawlState, words: tuple[str, ...]) -> list[Edge]:
    """Every link of every page to another crawled page, from the pages' surveys: the crawl's edges
    keep only the first way each page was found."""
    out: list[Edge] = []
    for page in state.pages:
        for link in page.survey.links:
            target = state.seen.get(url_key(link.href))
            selector = choose_selector(link)
            if not target or target == page.id or not selector or destructive(link, words):
                continue
            edge = Edge(from_=page.id, to=target, kind="link", selector=selector, name=link.name[:80])
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
