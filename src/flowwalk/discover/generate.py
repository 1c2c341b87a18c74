"""Writing one flow spec per feature: the steps and checks a person would write, through the writer
of flow-spec trees (spec/writer.py).

Pure functions of the crawl state and the features: the same crawl gives byte-identical files.
Every `act` has a `selector` (chosen by `selectors.choose_selector`) and a `target`; the checks
are the page's heading, the URL, list counts, what a filter or a search showed, a form's
validation message; `no_console_errors` is asserted where the page logged none. A form that
needs an account gets `{{VARIABLES}}` (LOGIN_EMAIL, LOGIN_PASSWORD, ...), which the run supplies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence
from urllib.parse import urlsplit

from pydantic import ValidationError
from typing_extensions import TypedDict

from flowwalk.browser.explored import Element, Survey
from flowwalk.discover.effects import checks_per_move, kept_checks
from flowwalk.discover.features import Feature
from flowwalk.discover.listview import rows_not_ours
from flowwalk.discover.safety import destructive, url_key
from flowwalk.discover.selectors import choose_selector, target_of
from flowwalk.discover.state import CrawledPage, CrawlState, Journey, ListMove, Step
from flowwalk.spec.models import FlowSpecModel
from flowwalk.spec.writer import render_as

__all__ = ["GeneratedSpec", "SignIn", "SpecData", "generate_specs", "render_spec"]

MAX_STEPS = 30
#: navigation links a navigation spec follows
NAV_LINKS = 4
#: what a form field of a type is filled with (a text field gets words that fit its name)
SAMPLE_VALUES = {"email": "ada@example.com", "tel": "+1 555 0100", "url": "https://example.com", "number": "3",
           "password": "sample-password-1", "search": "notes", "date": "2024-01-15"}
_ACCEPT = re.compile(r"\b(close|dismiss|ok|okay|got it|hide|no thanks|later)\b", re.I)
#: with --login: the session the setup spec saves and every other spec starts from
SESSION = "discover-login"
SETUP_PATH = "sign-in.flow.yaml"


class Assertion(TypedDict):
    kind: str


class SpecData(TypedDict, total=False):
    """A generated flow spec as it is written (keys in the order a person reads them)."""

    spec_version: str
    name: str
    description: str
    saves_session: str
    session: str
    url: str
    allowed_hosts: list[str]
    steps: list[Step]
    assertions: list[Assertion]


@dataclass(frozen=True)
class SignIn:
    """The --login flow as written: its entry URL and its steps."""

    url: str
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class GeneratedSpec:
    """One spec: where it goes (relative to --out), its feature, its data and its YAML text."""

    path: str
    feature: str
    data: SpecData
    text: str
    #: the variables the spec needs from the run ({{NAME}})
    variables: tuple[str, ...] = ()
    #: the comment lines on top, and how many steps lead to the page (login, banner, route)
    header: tuple[str, ...] = ()
    prefix_steps: int = 0


def render_spec(data: SpecData, header: Sequence[str]) -> str:
    """The spec's text: `data` validated into the flow spec's tree (spec/models/, so discover
    never writes a spec the loader refuses the shape of) and written by the one writer."""
    return render_as(FlowSpecModel.model_validate(dict(data)), SETUP_PATH, header)


def _path_of(url: str) -> str:
    parts = urlsplit(url)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return path


class _Writer:
    def __init__(self, state: CrawlState, login: SignIn | None, words: tuple[str, ...], submitting: bool):
        self.pages = {p.id: p for p in state.pages}
        self.login = login
        #: where an in-page login (a single-page app) leaves the page: its specs do not load it again
        self.landing = state.login_landing
        #: a login that leaves a cookie session is one setup whose session every spec starts from;
        #: an in-page login (kept in the page's memory, which a saved session does not hold) starts each
        self.session = SESSION if login and not self.landing else ""
        self.words = words
        #: --submit-forms: an account form's spec fills {{VARIABLES}} and submits
        self.submitting = submitting

    # --- the start of every spec ---

    def prefix(self, page: CrawledPage, *, banner: bool = True) -> tuple[str, list[Step]]:
        """(entry url, steps) that bring a fresh browser to `page` ready to use."""
        steps: list[Step] = []
        via = page.reached_by
        start = page.start
        if self.login and not self.session:
            entry = self.login.url
            steps.extend(self.login.steps)
            if url_key(start) != self.landing:
                steps.append({"type": "goto", "url": start})   # (an in-page login is already there)
        else:
            entry = start
        if banner and page.banner is not None:
            steps.append({"type": "act", "action": "click", "target": page.banner.target, "selector": page.banner.selector})
        if via is not None and via.kind == "route":
            steps.append({"type": "act", "action": "click", "target": f"the {via.name or 'route'} control",
                          "selector": via.selector})
        return entry, steps

    def heading_check(self, page: CrawledPage) -> list[Step]:
        h1 = [h for h in page.survey.headings if h.level == 1 and h.text]
        chosen = h1[0] if h1 else next((h for h in page.survey.headings if h.text), None)
        if chosen is None:
            return []
        # the one h1 of a page is simply `h1`: what a person writes, and it survives layout changes
        selector = "h1" if len(h1) == 1 and chosen is h1[0] else choose_selector(Element(candidates=chosen.selector))
        step: Step = {"type": "expect", "kind": "text_contains", "value": chosen.text[:200]}
        if selector:
            step["selector"] = selector
        return [step]

    def url_check(self, url: str) -> list[Step]:
        parts = urlsplit(url)
        if parts.fragment.startswith(("/", "!")):
            return [{"type": "expect", "kind": "url_contains", "value": "#" + parts.fragment}]
        path = _path_of(url)
        if path in ("", "/"):
            return [{"type": "expect", "kind": "url_matches", "value": "^" + re.escape(f"{parts.scheme}://{parts.netloc}") + r"/?(\?.*)?$"}]
        return [{"type": "expect", "kind": "url_contains", "value": path}]

    # --- one feature ---

    def steps_for(self, feature: Feature, page: CrawledPage) -> list[Step] | None:
        kind = feature.kind
        if kind == "page":
            return self.heading_check(page) + self.url_check(page.url)
        if kind == "navigation":
            return self.navigation(feature, page)
        if kind == "list" or kind == "table":
            item = f"{feature.list} > {feature.item_tag}"
            entry = next((e for e in page.survey.lists if choose_selector(e) == feature.list), None)
            checks: list[Step] = [{"type": "expect", "kind": "count", "selector": item, "equals": feature.count}]
            if entry is not None and entry.first_item:
                checks.append({"type": "expect", "kind": "text_contains", "value": entry.first_item[:120],
                               "selector": feature.list})
            return checks
        handler: Callable[[Feature, CrawledPage], list[Step] | None] | None = {
            "search": self.search, "filter": self.filters, "control": self.control, "login": self.form,
            "signup": self.form, "form": self.form, "dialog": self.dialog}.get(kind)
        if handler is not None:
            return handler(feature, page)
        if kind == "cookie_banner":
            banner: list[Step] = []
            if feature.banner:
                banner.append({"type": "expect", "kind": "visible", "selector": feature.banner})
            banner.append({"type": "act", "action": "click", "target": "the cookie banner's accept button",
                           "selector": feature.dismiss})
            if feature.banner:
                banner.append({"type": "expect", "kind": "selector_absent", "selector": feature.banner})
            return banner
        return None

    def dialog(self, feature: Feature, page: CrawledPage) -> list[Step] | None:
        dialog = next((d for d in page.survey.dialogs if choose_selector(d) == feature.dialog), None)
        if dialog is None:
            return None
        for button in dialog.buttons:
            selector = choose_selector(button)
            if selector and _ACCEPT.search(button.name) and not destructive(button, self.words):
                return [{"type": "expect", "kind": "visible", "selector": feature.dialog},
                        {"type": "act", "action": "click", "target": target_of(button), "selector": selector},
                        {"type": "expect", "kind": "hidden", "selector": feature.dialog}]
        return [{"type": "expect", "kind": "text_contains", "value": dialog.text[:120], "selector": feature.dialog}]

    def navigation(self, feature: Feature, page: CrawledPage) -> list[Step] | None:
        steps: list[Step] = []
        by_url: dict[str, CrawledPage] = {}
        for other in self.pages.values():
            for visit in other.visits:
                by_url.setdefault(visit.split("#")[0], other)
        followed = 0
        for link in page.survey.links:
            if link.landmark != feature.landmark:
                continue
            selector = choose_selector(link)
            target = by_url.get(link.href.split("#")[0])
            if not selector or target is None or target.id == page.id or destructive(link, self.words):
                continue
            if followed:
                steps.append({"type": "goto", "url": _path_of(page.url)})
            steps.append({"type": "act", "action": "click", "target": f"{target_of(link)} in the {feature.name}",
                          "selector": selector})
            steps.extend(self.url_check(target.url))
            steps.extend(self.heading_check(target)[:1])
            steps.extend(_narrowed(page, target))
            followed += 1
            if followed >= NAV_LINKS:
                break
        return steps or None

    def search(self, feature: Feature, page: CrawledPage) -> list[Step] | None:
        tried = next((s for s in page.searches if s.form == feature.form), None)
        if tried is None:
            return None
        steps: list[Step] = [{"type": "act", "action": "fill", "target": tried.target, "selector": tried.selector,
                              "value": tried.term}]
        shown = {entry.selector: entry for entry in _counts(page.survey)}
        for entry in tried.lists:
            earlier = shown.get(entry.selector) if entry.selector else None
            if earlier is None or earlier.count == entry.count:
                continue
            if entry.total == entry.count:
                # the items left the DOM: a count says it exactly
                steps.append({"type": "expect", "kind": "count", "selector": f"{entry.selector} > {entry.item_tag}",
                              "equals": entry.count})
            gone = [item for item in earlier.items if item and item not in entry.items
                    and tried.term.lower() not in item.lower()]
            if entry.count:
                steps.append({"type": "expect", "kind": "text_contains", "value": tried.term, "selector": entry.selector})
            if gone:
                steps.append({"type": "expect", "kind": "text_not_contains", "value": gone[0][:120],
                              "selector": entry.selector})
            break
        else:
            return None   # the list did not change: "the field holds what was typed" passes on any app
        return steps

    def filters(self, feature: Feature, page: CrawledPage) -> list[Step] | None:
        steps: list[Step] = []
        before = {entry.selector: entry.count for entry in _counts(page.survey)}
        for control in page.controls:
            if control.selector not in feature.controls:
                continue
            steps.append({"type": "act", "action": "click", "target": control.target, "selector": control.selector})
            if control.attrs_after.get("pressed") == "true":
                steps.append({"type": "expect", "kind": "attribute", "selector": control.selector,
                              "name": "aria-pressed", "equals": "true"})
            for entry in control.lists:
                if entry.selector and entry.selector in before and entry.total == entry.count:
                    steps.append({"type": "expect", "kind": "count",
                                  "selector": f"{entry.selector} > {entry.item_tag}", "equals": entry.count})
                    break
        return steps or None

    def control(self, feature: Feature, page: CrawledPage) -> list[Step] | None:
        control = next((c for c in page.controls if c.selector == feature.control), None)
        if control is None:
            return None
        steps: list[Step] = [{"type": "act", "action": "click", "target": control.target, "selector": control.selector}]
        after = control.attrs_after
        if control.controls and re.match(r"^[A-Za-z][\w-]*$", control.controls) and after.get("expanded") != "false":
            steps.append({"type": "expect", "kind": "visible", "selector": "#" + control.controls})
        elif after.get("expanded") in ("true", "false"):
            steps.append({"type": "expect", "kind": "attribute", "selector": control.selector,
                          "name": "aria-expanded", "equals": str(after.get("expanded"))})
        elif after.get("selected") == "true":
            steps.append({"type": "expect", "kind": "attribute", "selector": control.selector,
                          "name": "aria-selected", "equals": "true"})
        elif control.new_text:
            steps.append({"type": "expect", "kind": "text_contains", "value": control.new_text[0][:200]})
        else:
            return None
        if control.route:
            steps.extend(self.url_check(control.route))
        return steps

    def form(self, feature: Feature, page: CrawledPage) -> list[Step] | None:
        forms = page.survey.forms
        form = forms[feature.form] if feature.form < len(forms) else None
        if form is None:
            return None
        submits = [s for s in page.submits if s.form == feature.form]
        account = feature.kind in ("login", "signup")
        empty = next((s for s in submits if s.kind == "empty" and s.new_text), None)
        if empty is not None and not account:
            # what a person checks first: submitting it empty says what is missing, and stays put
            said: list[Step] = [{"type": "act", "action": "click", "target": empty.target, "selector": empty.selector},
                                {"type": "expect", "kind": "text_contains", "value": empty.new_text[0][:200]}]
            return said + self.url_check(page.url)
        entered = next((s for s in submits if s.kind == "enter"), None)
        if entered is not None:
            steps: list[Step] = [
                {"type": "act", "action": "fill", "target": entered.target, "selector": entered.selector,
                 "value": entered.value},
                {"type": "act", "action": "press", "target": entered.target, "selector": entered.selector,
                 "value": "Enter"}]
            # the list the value went into (not the first list of the page: a sidebar has one too)
            for entry in entered.lists:
                if entry.selector and entry.count and any(entered.value in item for item in [entry.first_item, *entry.items]):
                    steps.append({"type": "expect", "kind": "count", "selector": f"{entry.selector} > {entry.item_tag}",
                                  "equals": entry.count})
                    steps.append({"type": "expect", "kind": "text_contains", "value": entered.value,
                                  "selector": entry.selector})
                    break
            return steps
        steps = []
        prefix = "LOGIN" if feature.kind == "login" else "SIGNUP"
        for field_ in form.fields:
            selector = choose_selector(field_)
            ftype = field_.type or "text"
            if selector is None or field_.disabled:
                continue
            if ftype in ("checkbox", "radio", "select", "file", "hidden", "range", "color"):
                continue
            if account and self.submitting:
                value = "{{" + _variable(prefix, field_) + "}}"
            else:
                value = SAMPLE_VALUES.get(ftype, _sample_text(field_))
            steps.append({"type": "act", "action": "fill", "target": target_of(field_), "selector": selector,
                          "value": value})
            if ftype != "password" and not value.startswith("{{"):
                steps.append({"type": "expect", "kind": "input_value", "selector": selector, "value": value})
        submit = form.submit
        submit_selector = choose_selector(submit) if submit else None
        if account and self.submitting and submit is not None and submit_selector and not submit.disabled:
            steps.append({"type": "act", "action": "click", "target": target_of(submit), "selector": submit_selector})
            steps.append({"type": "expect", "kind": "url_not_contains", "value": _path_of(page.url)})
        elif submit_selector:
            steps.append({"type": "expect", "kind": "visible", "selector": submit_selector})
        return steps or None


def _variable(prefix: str, field_: Element) -> str:
    base = "PASSWORD" if field_.type == "password" else "EMAIL" if field_.type == "email" else \
        re.sub(r"[^A-Z0-9]+", "_", (field_.field_name or field_.name or "VALUE").upper()).strip("_")
    return f"{prefix}_{base or 'VALUE'}"[:64]


def _sample_text(field_: Element) -> str:
    words = " ".join((field_.name, field_.field_name, field_.autocomplete)).lower()
    if "name" in words:
        return "Ada Lovelace"
    if "mail" in words:
        return "ada@example.com"
    return "Sample text"


def _narrowed(page: CrawledPage, target: CrawledPage) -> list[Step]:
    """The checks of a link to the same list narrowed (the same path, another query: an admin's
    filter, a tag, a category): a row the narrowed list shows, and one of the page's rows it
    leaves out. The URL and heading alone pass when the filter shows the wrong rows, or all of
    them. Rows other specs add (the crawl's own text) neither remove the one nor bring back the
    other. Nothing when the crawl saw no list shrink."""
    here, there = urlsplit(page.url), urlsplit(target.url)
    if here.path != there.path or not there.query or here.query == there.query:
        return []
    before = {entry.selector: entry for entry in _counts(page.survey) if entry.selector}
    for entry in _counts(target.survey):
        earlier = before.get(entry.selector)
        shown = [item for item in entry.items if item]
        if earlier is None or not shown or entry.count >= earlier.count:
            continue
        steps: list[Step] = [{"type": "expect", "kind": "text_contains", "value": shown[0][:120],
                              "selector": entry.selector}]
        left = [item for item in earlier.items if item and not any(item in kept or kept in item for kept in shown)]
        if left:
            steps.append({"type": "expect", "kind": "text_not_contains", "value": left[0][:120],
                          "selector": entry.selector})
        return steps
    return []


@dataclass(frozen=True)
class _Count:
    selector: str
    count: int
    items: tuple[str, ...]


def _counts(survey: Survey) -> list[_Count]:
    return [_Count(choose_selector(entry) or "", entry.count, entry.items) for entry in survey.lists]


def _title(page: CrawledPage) -> str:
    path = page.path.split("?", 1)[0]
    return path if path not in ("", "/") else "home page"


#: the feature kinds whose checks only restate what a page shows at rest: they go into the smoke specs
FURNITURE = ("page", "list", "table")


def _clean(page: CrawledPage) -> bool:
    """A page that logged no console error and loaded every resource: its specs assert no_console_errors."""
    return page.console_errors == 0 and not page.failed_resources


def _spec(writer: _Writer, path: str, feature: str, name: str, description: str, entry: str,
          steps: list[Step], prefix: int, header: list[str], clean: bool) -> GeneratedSpec:
    data: SpecData = {"spec_version": "1.1", "name": name[:120].strip(),
                      "description": (description[:440] + " Written by flowwalk discover.")[:500]}
    if writer.session:
        data["session"] = writer.session
    data["url"] = entry
    allowed = sorted({urlsplit(p.url).hostname or "" for p in writer.pages.values()}
                     - {urlsplit(entry).hostname or ""} - {""})
    if allowed:
        data["allowed_hosts"] = allowed[:10]
    steps = steps[:MAX_STEPS]
    data["steps"] = steps
    if clean:
        data["assertions"] = [{"kind": "no_console_errors"}]
    while True:
        try:
            text = render_spec(data, header)
            break
        except ValidationError as refused:
            # a step built from what a page holds that the loader would refuse (an XPath-looking
            # selector, a value out of range) is left out, and the header says which and why
            bad = _refused_steps(refused)
            if not bad or len(bad) >= len(steps):
                raise
            header = [*header, *(f"left out step {i + 1} ({_said(steps[i])}): {why}" for i, why in sorted(bad.items()))]
            prefix -= sum(1 for i in bad if i < prefix)
            steps = [step for i, step in enumerate(steps) if i not in bad]
            data["steps"] = steps
    return GeneratedSpec(path=path, feature=feature, data=data, text=text, variables=_variables(steps),
                         header=tuple(header), prefix_steps=min(prefix, MAX_STEPS))


def _refused_steps(refused: ValidationError) -> dict[int, str]:
    """The steps (by index) the model refused, with the first reason each; empty when something
    other than a step was refused."""
    bad: dict[int, str] = {}
    for error in refused.errors():
        loc = error["loc"]
        if len(loc) < 2 or loc[0] != "steps" or not isinstance(loc[1], int):
            return {}
        bad.setdefault(loc[1], str(error["msg"]))
    return bad


def _said(step: Step) -> str:
    fields: dict[str, object] = dict(step)
    return " ".join(str(fields[k]) for k in ("type", "action", "kind", "selector") if fields.get(k))[:120]


def _variables(steps: Sequence[Step]) -> tuple[str, ...]:
    """The {{NAMES}} the steps' values need from the run."""
    return tuple(sorted({m for s in steps for m in re.findall(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}", str(s.get("value", "")))}))


def smoke_specs(writer: _Writer, pages: list[CrawledPage]) -> list[GeneratedSpec]:
    """The pages' furniture (each page's heading and URL) in as few specs as fit: one page after
    another in one spec, until the next would pass the step limit."""
    out: list[GeneratedSpec] = []
    group: list[CrawledPage] = []
    steps: list[Step] = []
    entry, prefix = "", 0

    def close() -> None:
        paths = ", ".join(p.path for p in group)
        first = group[0]
        header = [f"smoke: {paths}"[:300],
                  "Each page answers with its heading at its URL: what the pages show at rest, in one spec.",
                  "Written by `flowwalk discover`; edit it as you like."]
        out.append(_spec(writer, f"{first.slug}/smoke.flow.yaml", f"{first.slug}/smoke", f"smoke: {paths}",
                         f"The pages {paths} answer with their headings.", entry, list(steps), prefix, header,
                         all(_clean(p) for p in group)))

    for page in pages:
        checks = writer.heading_check(page) + writer.url_check(page.url) + _defaults(page)
        via = page.reached_by
        lead: list[Step] = [{"type": "goto", "url": _path_of(page.start) + _hash(page.start)}]
        if via is not None and via.kind == "route":
            lead.append({"type": "act", "action": "click", "target": f"the {via.name or 'route'} control",
                         "selector": via.selector})
        if group and len(steps) + len(lead) + len(checks) <= MAX_STEPS:
            steps.extend(lead + checks)
            group.append(page)
            continue
        if group:
            close()
        entry, first = writer.prefix(page)
        prefix = len(first)
        steps = first + checks
        group = [page]
    if group:
        close()
    return out


#: checkboxes per page whose state at rest the smoke spec checks
DEFAULTS = 2


def _defaults(page: CrawledPage) -> list[Step]:
    """The state at rest of a form's checkboxes (a new item's defaults, an item's flags), on a page
    without a table (a table's row checkboxes select rows: they say nothing of the site)."""
    if any(entry.table for entry in page.survey.lists) or page.confirmation:
        return []
    out: list[Step] = []
    for form in page.survey.forms:
        if form.implicit or form.search:
            continue
        for field in form.fields:
            selector = choose_selector(field)
            if field.type == "checkbox" and selector and not field.disabled:
                out.append({"type": "expect", "kind": "checked" if field.checked else "unchecked", "selector": selector})
    return out[:DEFAULTS]


def _hash(url: str) -> str:
    fragment = urlsplit(url).fragment
    return f"#{fragment}" if fragment.startswith(("/", "!")) else ""


def journey_spec(writer: _Writer, journey: Journey, page: CrawledPage) -> GeneratedSpec | None:
    """A journey as one flow: its moves, each followed by the checks of what it changed."""
    entry, steps = writer.prefix(page)
    prefix = len(steps)
    covers: list[str] = []
    per_move = _fitting(journey, checks_per_move(len(journey.moves)), MAX_STEPS - prefix)
    for move, effects in zip(journey.moves, journey.effects):
        checks = [e.check for e in kept_checks(effects, per_move) if e.check]
        if not checks or len(steps) + len(move.steps) + 1 > MAX_STEPS:
            break
        steps.extend(move.steps)
        steps.extend(checks[:MAX_STEPS - len(steps)])
        covers.append(move.name)
    if not covers:
        return None
    header = [f"journey on {page.path}: {journey.name}",
              f"Why: {journey.why}"[:300],
              *[f"  {line}"[:300] for line in journey.covers()[:len(covers)]],
              "Each check asserts what the move before it changed, as the crawl observed it"
              + (" twice." if journey.walks > 1 else "."),
              "Written by `flowwalk discover`; edit it as you like."]
    return _spec(writer, f"{journey.id}.flow.yaml", journey.id, f"{_title(page)}: {journey.name}",
                 f"{journey.why}: " + "; then ".join(covers), entry, steps, prefix, header, _clean(page))


def _fitting(journey: Journey, most: int, room: int) -> int:
    """The most checks a move keeps (at most `most`, at least 1) with which every move of the
    journey fits in `room` steps: a journey that ends by deleting its own item is not cut before it."""
    for per_move in range(most, 1, -1):
        if sum(len(m.steps) + len(kept_checks(effects, per_move))
               for m, effects in zip(journey.moves, journey.effects)) <= room:
            return per_move
    return 1


def _turned(page: CrawledPage, kind: str) -> bool:
    """The page's list spec has a move of `kind` (sort, page, filter, search)."""
    return page.list is not None and any(m.kind == kind for m in page.list.moves)


def _only_queries(feature: Feature, page: CrawledPage) -> bool:
    """Every link of the navigation `feature` leads to the page's own path under another query."""
    here = urlsplit(page.url)
    links = [link for link in page.survey.links if link.landmark == feature.landmark]
    return bool(links) and all(urlsplit(link.href).path == here.path for link in links)


def list_specs(writer: _Writer, page: CrawledPage) -> list[GeneratedSpec]:
    """What the page's main list shows (listview.py): its columns, its first rows in order and how
    many rows a page holds, a header's sort and page 2 in one spec; what each filter value and each
    search leaves in and out in another. Counts leave out the rows other specs create (the crawl's
    text), and rows are named by their first cell."""
    view = page.list
    if view is None:
        return []
    table = view.table
    ours = rows_not_ours(view)
    path = _path_of(page.url)
    out: list[GeneratedSpec] = []

    def first_rows(first: Sequence[str]) -> list[Step]:
        # the n-th of the rows that are not the crawl's own: a row another spec creates may sort first
        return [{"type": "expect", "kind": "text_contains", "selector": f":nth-match({ours}, {i + 1})", "value": text[:200]}
                for i, text in enumerate(first[:2]) if text]

    def move_steps(move: ListMove) -> list[Step]:
        steps: list[Step]
        if move.kind == "search":
            steps = [{"type": "act", "action": "fill", "target": "the search field", "selector": move.selector,
                      "value": move.value},
                     {"type": "act", "action": "press", "target": "the search field", "selector": move.selector,
                      "value": "Enter"}]
        else:
            steps = [{"type": "act", "action": "click", "target": move.name, "selector": move.selector}]
        if move.kind in ("sort", "page"):
            steps += first_rows(move.first[:1] if move.kind == "sort" else move.first)
        else:
            steps.append({"type": "expect", "kind": "text_contains", "selector": table, "value": move.shown[:200]})
            if move.left_out:
                steps.append({"type": "expect", "kind": "text_not_contains", "selector": table,
                              "value": move.left_out[:200]})
        if move.count >= 0 and move.kind != "sort":
            steps.append({"type": "expect", "kind": "count", "selector": ours, "equals": move.count})
        return steps

    entry, prefix = writer.prefix(page)
    headers = " ".join(h for h in view.headers if h)
    rest: list[Step] = [{"type": "expect", "kind": "text_contains", "selector": f"{table} thead", "value": headers[:200]}]
    if view.count >= 0:
        rest.append({"type": "expect", "kind": "count", "selector": ours, "equals": view.count})
    rest += first_rows(view.first)
    covers = ["its columns", f"its first rows{' and how many a page holds' if view.paged else ''}"]
    def back() -> list[Step]:
        return [{"type": "goto", "url": path}]

    for move in (m for m in view.moves if m.kind in ("sort", "page")):
        steps = (back() if covers[2:] else []) + move_steps(move)
        if len(prefix) + len(rest) + len(steps) > MAX_STEPS:
            break
        rest += steps
        covers.append(move.name)
    header = [f"list on {page.path}: {', '.join(covers)}",
              "Each check holds what the crawl saw the list show (the rows other specs create are left out).",
              "Written by `flowwalk discover`; edit it as you like."]
    out.append(_spec(writer, f"{page.slug}/list.flow.yaml", f"{page.slug}/list", f"{_title(page)}: the list",
                     f"The list on {page.path} shows " + ", ".join(covers) + " as it did.", entry, prefix + rest,
                     len(prefix), header, _clean(page)))
    turns: list[Step] = []
    covers = []
    for move in (m for m in view.moves if m.kind in ("filter", "search")):
        steps = (back() if turns else []) + move_steps(move)
        if len(prefix) + len(turns) + len(steps) > MAX_STEPS:
            break
        turns += steps
        covers.append(move.name)
    if turns:
        header = [f"list on {page.path}: {', '.join(covers)}"[:300],
                  "Each filter and search must show a row it showed the crawl and leave out one it left out.",
                  "Written by `flowwalk discover`; edit it as you like."]
        out.append(_spec(writer, f"{page.slug}/list-filters.flow.yaml", f"{page.slug}/list-filters",
                         f"{_title(page)}: filters and search", f"The list on {page.path}: " + "; ".join(covers) + ".",
                         entry, prefix + turns, len(prefix), header, _clean(page)))
    return out


def _setup_spec(writer: _Writer) -> GeneratedSpec | None:
    """With a cookie-session login: the login flow's steps as the one setup, saving `SESSION`."""
    if not writer.session or writer.login is None:
        return None
    data: SpecData = {"spec_version": "1.1", "name": "sign in",
                      "description": "The --login flow, once: every other spec starts from the session it saves. "
                                     "Written by flowwalk discover.",
                      "saves_session": writer.session, "url": writer.login.url,
                      "steps": list(writer.login.steps)[:MAX_STEPS]}
    header = ["sign in: the --login flow, as a setup (docs/sessions.md)",
              f"Every other spec says `session: {writer.session}` and starts signed in.",
              "Written by `flowwalk discover`; edit it as you like."]
    return GeneratedSpec(path=SETUP_PATH, feature="sign-in", data=data, text=render_spec(data, header),
                         variables=_variables(data["steps"]), header=tuple(header))


def generate_specs(state: CrawlState, features: Sequence[Feature], *, login: SignIn | None = None,
                   submit_forms: bool = False, words: tuple[str, ...] = ()) -> list[GeneratedSpec]:
    """The smoke specs, one spec per feature that checks a behaviour, and one per journey.

    Fewer, stronger specs: headings, lists and tables at rest go into the smoke specs; a form
    spec that would only read back what it typed is not written (with --submit-forms a form's
    empty submit, which answers with a message, is); the add-a-todo spec of a page that has
    journeys is part of its main journey."""
    writer = _Writer(state, login, words, submit_forms)
    setup = _setup_spec(writer)
    journeys = state.journeys
    journey_pages = {j.page for j in journeys}
    # a form page a journey created an item through: the journey submits it empty first, too
    through = {j.through for j in journeys if j.through}
    # a page whose journey searched for what it created: that search is the page's search spec
    searched = {j.page for j in journeys if any(m.key.startswith("search|") for m in j.moves)}
    out = ([setup] if setup else []) + smoke_specs(writer, list(writer.pages.values()))
    for page in writer.pages.values():
        out.extend(list_specs(writer, page))
    for feature in features:
        found = writer.pages.get(feature.page)
        if found is None or feature.kind in FURNITURE:
            continue
        page = found
        if feature.kind == "search" and (page.id in searched or _turned(page, "search")):
            continue
        if feature.kind == "navigation" and _turned(page, "filter") and _only_queries(feature, page):
            continue   # the list's filters: its list spec follows one value of each, and checks more
        if feature.kind in ("login", "signup", "form"):
            if not submit_forms:
                continue   # filling fields and reading them back checks nothing the site does
            if feature.kind == "form" and page.id in through:
                continue
            if feature.kind == "form" and page.id in journey_pages and any(
                    s.kind == "enter" and s.form == feature.form for s in page.submits):
                continue   # the main journey adds items with it, and checks more
        body = writer.steps_for(feature, page)
        if not body:
            continue
        if feature.kind == "form" and all(s.get("type") != "act" or s.get("action") == "fill" for s in body):
            continue
        entry, prefix = writer.prefix(page, banner=feature.kind != "cookie_banner")
        header = [f"{feature.kind} on {page.path}: {feature.reason[:200]}",
                  f"Written by `flowwalk discover` (page signature {page.signature}); edit it as you like."]
        out.append(_spec(writer, f"{feature.id}.flow.yaml", feature.id, f"{_title(page)}: {feature.name}",
                         feature.reason[:400] + ".", entry, prefix + body, len(prefix), header, _clean(page)))
    for journey in journeys:
        owner = writer.pages.get(journey.page)
        spec = journey_spec(writer, journey, owner) if owner is not None else None
        if spec is not None:
            out.append(spec)
    return out
