"""The one internal model every input becomes: Suite -> Scenario -> Rule -> Step.

A flow spec is a scenario with one rule (its steps, no guard split). Rule files and aitester-bdd
suites are scenarios with many rules. Loaders (`spec/`) build these frozen objects; the walker
(`walk/`) only reads them. Strings may hold `{{NAME}}` placeholders; they are resolved by the
walker at the browser boundary (see `spec/variables.py`), never here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Mapping, get_args
from urllib.parse import urlsplit

from flowwalk.errors import Location
from flowwalk.events import FailureClass, FailureStepKind, Severity, Status, StepFrame

# --- vocabularies (one place; docs, models and the walker read these) --------------------------

ACT_ACTIONS = ("click", "fill", "press", "hover", "scroll",  # flow-spec v1
               "select", "check", "uncheck", "dblclick", "focus", "upload",  # v1.x for rules
               # v1.1 (issue 36): key by key, drag and drop, an event dispatched on the element
               "type", "drag", "dispatch",
               # v1.1 (issue 46): the focus moved away, as Playwright's locator.blur and Cypress's blur
               "blur")

EXPECT_KINDS = (
    # flow-spec v1
    "url_contains", "url_matches", "text_contains", "beacon",
    # v1.x additions for rules and .robot suites
    "url_not_contains", "text_not_contains", "text_matches", "has_text",
    "selector_exists", "selector_absent", "count",
    "visible", "hidden", "enabled", "disabled", "checked", "unchecked",
    "attribute", "input_value",
    # v1.1 (issue 28): baselines beside the spec, and axe-core in the page
    "aria_snapshot", "screenshot", "accessible",
    # v1.1 (issue 36): lists of texts and classes, item by item; one element's classes
    "texts", "classes", "has_class", "lacks_class",
    # v1.1 (issue 36 phase B): state beyond the DOM
    "storage", "storage_count", "cookie", "js", "request",
)
#: expect kinds compared with a baseline file in `<spec>.snapshots/`
SNAPSHOT_EXPECTS = ("aria_snapshot", "screenshot")
#: axe-core's impact levels, least to most severe
IMPACTS = ("minor", "moderate", "serious", "critical")
SEVERITIES: tuple[Severity, ...] = get_args(Severity)
EMIT_SOURCES = ("text", "attr", "count", "html", "value", "class", "is_visible", "is_enabled",
                "is_checked", "js", "url", "title")
#: the most workers flowwalk.yaml allows, and so the most the default gives
MAX_WORKERS = 64

#: a tag (`tags:` of a spec, scenario or rule; a .robot suite's `[Tags]` and `Test Tags`): one word,
#: so that a `--tag` expression can name it; compared without regard to case
TAG_PATTERN = r"^[A-Za-z0-9_@][A-Za-z0-9_@.:/+-]*$"
TAG_MAX = 64
#: the most tags one spec, scenario or rule may carry
TAGS_MAX = 20
#: the words of a `--tag` expression, which no tag may be
TAG_OPERATORS = ("and", "or", "not")
_TAG = re.compile(TAG_PATTERN)


def tag_problem(tag: str, shown: str | None = None) -> tuple[str, str] | None:
    """(what is wrong, how to fix it) when `tag` cannot be a tag, else None. `shown`: the tag as
    the message should quote it (escaped by the caller), `'tag'` by default."""
    shown = shown if shown is not None else f"'{tag}'"
    if not tag:
        return "a tag is empty", "remove it, or write a word such as smoke"
    if len(tag) > TAG_MAX:
        return f"tag {shown} is {len(tag)} characters long; the limit is {TAG_MAX}", "shorten it"
    if tag.lower() in TAG_OPERATORS:
        return f"{shown} cannot be a tag", "and, or and not join tags in a --tag expression: use another word"
    if not _TAG.match(tag):
        word = re.sub(r"[^A-Za-z0-9_@.:/+-]+", "-", tag).strip("-")[:TAG_MAX] or "smoke"
        return (f"tag {shown} is not one word",
                f"a tag is letters, digits and _ @ . : / + - (so a --tag expression can name it), "
                f"e.g. '{word}'")
    return None

def has_scheme(url: str) -> bool:
    """Whether `url` names its scheme (`https:`, also `localhost:` of `localhost:8080`) or starts
    with `//`: not a path that resolves against a base URL."""
    return url.startswith("//") or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", url) is not None


def url_problem(url: str, relative_to: str | None = None) -> tuple[str, str] | None:
    """Why `url` is not an absolute http(s) URL of a site, as (what is wrong, how to fix it), to follow
    the URL in a message; None when it is one. `relative_to` names what a path resolves against
    where one is also accepted (the hints offer it)."""
    path_hint = f", or use a path starting with '/' (resolved against {relative_to})" if relative_to else ""
    try:
        parts = urlsplit(url)
        parts.port
    except ValueError as error:
        return (f"is not a url ({error})",
                "write it as http(s)://host[:port]/path, e.g. 'http://127.0.0.1:8080/'; an IPv6 address goes in "
                "brackets ('http://[::1]:8080/'), a port is at most 65535")
    if "://" not in url:
        return "is not an http(s) url", f"add the scheme: 'https://{url.lstrip('/')}'{path_hint}"
    if parts.scheme.lower() not in ("http", "https"):
        return "is not an http(s) url", "only http and https urls can be walked" + (
            f"; a path starting with '/' is resolved against {relative_to}" if relative_to else "")
    if not parts.hostname:
        return "has no host", "write the site's host after the scheme, e.g. 'http://127.0.0.1:8080/'"
    if any(char.isspace() for char in url):
        return "holds a space", "write a space in a url as %20"
    return None


#: the attributes that carry an element's test id, in the order they are looked for: the ones
#: testing tools read (Playwright's `data-testid`, Cypress's `data-cy`, and the common variants)
TEST_ID_ATTRIBUTES = ("data-testid", "data-test-id", "data-test", "data-qa", "data-cy")
#: what an attribute name may be (the HTML attribute names a selector can write unescaped)
TEST_ID_ATTRIBUTE_PATTERN = r"^[A-Za-z_][A-Za-z0-9_-]*$"
TEST_ID_ATTRIBUTES_MAX = 10

#: per setting: (lowest, highest) value, the one table flowwalk.yaml, the command line, the Action's
#: inputs and FLOWWALK_* variables are all checked against (None: no upper bound)
SETTING_RANGES: Mapping[str, tuple[float, float | None]] = {
    "workers": (1, MAX_WORKERS),
    "retries": (0, 5),
    "max_failures": (1, 100_000),
    "rule_timeout_ms": (100, 600_000),
    "guard_timeout_ms": (1, 60_000),
    "action_timeout_ms": (100, 600_000),
    "navigation_timeout_ms": (100, 600_000),
    "expect_timeout_ms": (100, 600_000),
    "run_timeout_s": (0, 86_400),   # above 0
    "wait_timeout_s": (0, 3_600),   # above 0: the readiness wait (readiness.py)
    "wait_interval_s": (0, 300),    # above 0
}

#: the events' vocabularies as tuples, in their documented order (events.py owns the values)
FAILURE_CLASSES: tuple[FailureClass, ...] = get_args(FailureClass)
#: where in a rule a failure happened
STEP_KINDS: tuple[FailureStepKind, ...] = get_args(FailureStepKind)
STATUSES: tuple[Status, ...] = get_args(Status)


# --- steps ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stabilize:
    """RFC 010 verify-until-stable settings for one check (bounds are enforced by the loaders)."""

    window_ms: int = 1000          # 500..1500
    stable_reads: int = 2          # consecutive matching fresh reads, 1..5
    interval_ms: int = 100         # 100..200 between reads (the lowest: a check passing at once costs least)
    max_rechecks: int = 3          # 0..5
    stale_ms: int = 500            # 300..800

    BOUNDS = {"window_ms": (500, 1500), "stable_reads": (1, 5), "interval_ms": (100, 200),
              "max_rechecks": (0, 5), "stale_ms": (300, 800)}


@dataclass(frozen=True)
class VerifierRef:
    """A verifier named on a step or rule: `read_after_write`, `invariant_check`, or a user module."""

    name: str
    loc: Location
    options: Mapping[str, object] = field(default_factory=dict)
    timeout_ms: int = 5000


@dataclass(frozen=True)
class Step:
    loc: Location
    #: the step as written, for people: "expect text_contains 'Saved'", "act click 'the submit button'"
    text: str
    optional: bool = False
    verify: tuple[VerifierRef, ...] = ()
    #: the blocks this step runs inside, outermost first: a steps file a `use:` called (then `loc`
    #: is in that file), a named group, a before_each or after_each hook
    frames: tuple[StepFrame, ...] = ()

    @property
    def teardown(self) -> bool:
        """An after_each step: it runs even when a step before it failed."""
        return any(f.kind == "after_each" for f in self.frames)


def frame_label(frame: StepFrame) -> str:
    """A block as a failure names it: a call with where it is written, a group by its title."""
    if frame.kind == "call":
        return f"{frame.title} (at {frame.path}:{frame.line})"
    return frame.title


#: the blocks that say where a step runs: the popup an act opened, an iframe (walk/places.py)
PLACE_KINDS = ("popup", "frame")


def place_of(step: Step) -> tuple[int, ...]:
    """The ids of the popup and frame blocks `step` runs in, outermost first (empty: the page)."""
    return tuple(f.id for f in step.frames if f.kind in PLACE_KINDS)


def titled(step: Step) -> str:
    """The step as a failure names it: the blocks it runs in, then its text
    (`use steps/add-todo.steps.yaml (at specs/x.flow.yaml:9) › act press '#new-todo'`)."""
    return " › ".join([*(frame_label(f) for f in step.frames), step.text])


@dataclass(frozen=True)
class Goto(Step):
    url: str = ""


@dataclass(frozen=True)
class DialogAnswer:
    """How an act answers the dialog (alert, confirm, prompt) it opens, and what it expects of it."""

    #: accept (OK) or dismiss (Cancel)
    accept: bool = True
    #: the dialog's message, exactly; a dialog with another message is dismissed and the step fails
    message: str | None = None
    #: what a prompt is answered with (accept only)
    answer: str | None = None


@dataclass(frozen=True)
class PopupPlan:
    """The popup (a new tab or window) an act opens: the steps run in it are those of its block."""

    #: the id of the popup's block (`StepFrame` of kind popup) among its test's blocks
    frame: int
    #: closed when its block ends (else left open while the walk goes back to the opener)
    close: bool = True


@dataclass(frozen=True)
class Act(Step):
    action: str = "click"
    #: CSS or `text=` selector; may be a pipe fallback `a | b | c` (first that matches wins)
    selector: str | None = None
    #: a short human description used to re-resolve when the selector is missing or matches nothing
    target: str | None = None
    value: str | None = None
    #: after the action, wait until this selector is attached (rules' `await`)
    await_selector: str | None = None
    # v1.1 (issue 36): typing, drag and drop, events, dialogs
    #: type: the pause between two keys (ms)
    delay_ms: int = 0
    #: drag: where the element is dropped (a selector)
    to_selector: str | None = None
    #: dispatch: the event's type (`blur`, `input`, `my-event`) and, for a CustomEvent, its
    #: `detail` as JSON text
    event: str | None = None
    detail: str | None = None
    #: the dialog this act opens and how it is answered; None: a dialog is dismissed and reported
    dialog: DialogAnswer | None = None
    #: the popup this act opens; None: a popup is closed as it opens, and recorded
    popup: PopupPlan | None = None


@dataclass(frozen=True)
class Snapshot:
    """What an aria_snapshot or screenshot expect compares with, and how closely."""

    #: the baseline's name: a file `<name>.yml` or `<name>.png` in the spec's snapshots folder
    name: str
    #: the baseline file, relative to the working directory with '/' (like `Scenario.source`)
    baseline: str
    #: screenshot: how far apart two pixels' colours may be and still count as equal (0..1,
    #: pixelmatch's YIQ distance; Playwright Test's default 0.2)
    threshold: float = 0.2
    #: screenshot: how many pixels may differ (beyond the threshold) and the check still pass;
    #: None with max_diff_ratio None too: none may
    max_diff_pixels: int | None = None
    #: screenshot: the same as a share of the image's pixels (0..1); None: not set
    max_diff_ratio: float | None = None
    #: screenshot: selectors whose boxes are painted over in both images before comparing
    mask: tuple[str, ...] = ()
    #: screenshot of the page: the whole scrollable page instead of the viewport
    full_page: bool = False


@dataclass(frozen=True)
class AxeOptions:
    """An accessibility check with axe-core: which violations count."""

    #: the least severe impact that counts (minor counts everything)
    impact: str = "minor"
    #: run only these rules (rule ids, or tags such as wcag2aa that stand for their rules); () = all
    include: tuple[str, ...] = ()
    #: never run these rule ids
    skip: tuple[str, ...] = ()
    #: parts of the page left out of the check (selectors)
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class Expect(Step):
    kind: str = "url_contains"
    value: str | None = None
    selector: str | None = None
    vendor: str | None = None
    event: str | None = None
    #: count: the number compared with `op`
    count: int | None = None
    op: Literal["eq", "gte", "lte"] = "eq"
    #: attribute: which attribute, and whether `value` must equal it or be contained in it;
    #: texts, classes: whether the items must be exactly `items`, or contain them in order
    attr: str | None = None
    #: state kinds: also "matches" (`pattern`)
    match: Literal["equals", "contains", "matches"] = "equals"
    #: texts, classes: the expected items, in order
    items: tuple[str, ...] | None = None
    #: text_contains, text_not_contains: compare with case (flow-spec v1 ignores it)
    match_case: bool = False
    #: has_text, texts: compare the textContent as the DOM holds it, whitespace kept
    keep_whitespace: bool = False
    #: compiled at load for url_matches / text_matches (never substituted for url_matches)
    pattern: re.Pattern[str] | None = None
    stabilize: Stabilize | None = None
    #: observation timeout override for this check (ms); None -> the rule's timeout
    timeout_ms: int | None = None
    #: aria_snapshot and screenshot: the baseline and the comparison's tolerances
    snapshot: Snapshot | None = None
    #: accessible: which axe-core violations fail it
    axe: AxeOptions | None = None
    #: storage, storage_count, cookie, js, request: what they read (`value`/`match`/`pattern` compare it)
    state: StateQuery | None = None


@dataclass(frozen=True)
class StateQuery:
    """What a check of state beyond the DOM reads (issue 36 phase B; docs/flow-spec.md)."""

    #: storage, storage_count: "local" or "session"
    area: str = "local"
    #: storage: the key; cookie: the cookie's name; storage_count: the keys' prefix
    key: str = ""
    #: storage: the JSON path compared in the key's value
    path: str | None = None
    #: storage_count: JSON paths the counted values hold; request: the JSON body's fields
    fields: tuple[tuple[str, str], ...] = ()
    #: js: the expression
    expr: str = ""
    #: request: a part of its URL, its method, its response's status
    url: str = ""
    method: str | None = None
    status: int | None = None
    #: cookie: attributes asked for (http_only, secure, same_site, expires, expires_after_s), as text
    attrs: tuple[tuple[str, str], ...] = ()
    #: storage, cookie, request: there is none
    absent: bool = False


@dataclass(frozen=True)
class History(Step):
    """go_back, go_forward, reload"""

    move: str = "reload"


@dataclass(frozen=True)
class Wait(Step):
    ms: int | None = None
    for_selector: str | None = None


@dataclass(frozen=True)
class Extract(Step):
    selector: str = ""
    into: str = ""


@dataclass(frozen=True)
class EmitField:
    name: str
    source: str = "text"
    selector: str | None = None
    attr: str | None = None
    expr: str | None = None


@dataclass(frozen=True)
class Emit(Step):
    """Record page state into emit.jsonl. Never fails the rule. Ends the guard section."""

    name: str = ""
    fields: tuple[EmitField, ...] = ()


@dataclass(frozen=True)
class Assertion:
    """A flow-level grade evaluated after the flow (never halts it)."""

    kind: str
    loc: Location
    text: str
    severity: Literal["critical", "warning", "info"] = "warning"
    vendor: str | None = None
    event: str | None = None
    #: no_accessibility_violations: which axe-core violations count
    axe: AxeOptions | None = None


# --- network control (v1.1, issue 36: docs/flow-spec.md, "Network control") -------------------


@dataclass(frozen=True)
class Route:
    """Requests a spec answers itself: a canned response, an abort, or a HAR file's recording."""

    loc: Location
    #: which requests: a path on an allowed host (`/api/todos`), or an absolute URL; `*` matches
    #: within one path segment, `**` across them
    url: str
    #: the request method (upper case), None: any
    method: str | None = None
    status: int = 200
    #: the body as sent, and its content type when the spec gave JSON (application/json)
    body: str | None = None
    #: a file sent as the body, relative to the working directory with '/'
    file: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    delay_ms: int = 0
    abort: bool = False
    #: a HAR file the matching requests are answered from (relative to the working directory)
    har: str | None = None
    json: bool = False


# --- the browser's environment -----------------------------------------------------------------

COLOR_SCHEMES = ("light", "dark", "no-preference")


@dataclass(frozen=True)
class Environment:
    """The browser a scenario walks in (flowwalk.yaml, a project, a spec or a rule file's scenario);
    a key left None inherits from the layer below (environment.py merges them)."""

    #: (width, height) in CSS pixels
    viewport: tuple[int, int] | None = None
    #: one of Playwright's device descriptors by name (devices.json): viewport, user agent, scale, touch
    device: str | None = None
    locale: str | None = None
    #: an IANA time zone id, e.g. Europe/Paris
    timezone: str | None = None
    color_scheme: Literal["light", "dark", "no-preference"] | None = None
    #: (latitude, longitude, accuracy in metres); the geolocation permission is granted with it
    geolocation: tuple[float, float, float] | None = None

    def is_empty(self) -> bool:
        return self == Environment()


@dataclass(frozen=True)
class Project:
    """A named environment profile of flowwalk.yaml's `projects`: every scenario runs once in each."""

    name: str
    environment: Environment = Environment()


# --- rules, scenarios, suites -----------------------------------------------------------------


@dataclass(frozen=True)
class Retry:
    max: int = 0
    delay_ms: int = 1000


@dataclass(frozen=True)
class Rule:
    name: str
    loc: Location
    steps: tuple[Step, ...]
    parents: tuple[str, ...] = ()
    retry: Retry = Retry()
    guard_policy: Literal["skip", "abort"] = "skip"
    #: bounds guards and observations; None -> the run's default (30 s observations, 200 ms guards)
    timeout_ms: int | None = None
    guard_timeout_ms: int | None = None
    #: selectors of this rule's descendants are prefixed with `child_scope >> `
    child_scope: str | None = None
    interrupts: Literal["inherit", "paused", "override"] = "inherit"
    interrupt_selectors: tuple[str, ...] = ()
    screenshot_on_enter: bool = False
    screenshot_on_fail: bool = True
    #: flows have no guard section: every step is body, a failed required step halts the flow
    guards_enabled: bool = True
    verify: tuple[VerifierRef, ...] = ()
    #: when the rule passes, its context's storage state (cookies, local storage) is saved under
    #: this name for the scenarios that declare `session:` it (walk/sessions.py)
    saves_session: str | None = None
    #: where `saves_session` is written (its key), for problems about the session it saves
    saves_loc: Location | None = None
    #: the rule's own tags; its test also carries its scenario's (`Scenario.test_tags`)
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scenario:
    """The unit of scheduling and sharding: one browser context, an entry URL and a rule DAG."""

    #: stable across runs and machines: "<relative path>#<scenario name>"
    id: str
    name: str
    #: the file it came from, relative to the working directory, with forward slashes
    source: str
    kind: Literal["flow", "rules", "robot"]
    loc: Location
    entry_url: str | None
    rules: tuple[Rule, ...]
    description: str = ""
    allowed_hosts: tuple[str, ...] = ()
    assertions: tuple[Assertion, ...] = ()
    dismiss_selectors: tuple[str, ...] = ()
    #: defaults declared in the file (rules `variables:`, robot `*** Variables ***`); --var wins
    variables: Mapping[str, str] = field(default_factory=dict)
    #: variable names the file itself marks secret (robot `type secret`, rules `secrets:`)
    secrets: frozenset[str] = frozenset()
    #: the saved session this scenario's context starts from (`session:`), and where it is named
    session: str | None = None
    session_loc: Location | None = None
    #: the browser's environment this file asks for (over flowwalk.yaml's and the project's)
    environment: Environment = Environment()
    #: the project (environment profile) this copy of the scenario runs in; its name prefixes the id
    project: str | None = None
    #: requests the spec answers itself (`routes:`), first match wins
    routes: tuple[Route, ...] = ()

    @property
    def saves(self) -> tuple[tuple[str, Rule], ...]:
        """(session name, the rule that saves it) for every session this scenario saves."""
        return tuple((r.saves_session, r) for r in self.rules if r.saves_session)
    #: tags of the spec, the rule file and the scenario, or the .robot test case (`--tag`)
    tags: tuple[str, ...] = ()

    def test_id(self, rule: Rule) -> str:
        """The id of one testcase: the scenario id for a flow, `<scenario id>/<rule>` otherwise."""
        return self.id if self.kind == "flow" else f"{self.id}/{rule.name}"

    def test_tags(self, rule: Rule) -> tuple[str, ...]:
        """A test's tags: its scenario's, then the rule's own, each once."""
        return merge_tags(self.tags, rule.tags)


@dataclass(frozen=True)
class Suite:
    """One input file."""

    path: str
    kind: Literal["flow", "rules", "robot"]
    scenarios: tuple[Scenario, ...]


def merge_tags(*groups: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Tags in order of appearance, each once (compared without regard to case)."""
    out: list[str] = []
    seen: set[str] = set()
    for group in groups:
        for tag in group:
            if tag.lower() not in seen:
                seen.add(tag.lower())
                out.append(tag)
    return tuple(out)


# --- destructive controls (discover never triggers them; the healer never heals onto one the
# target does not name) ----------------------------------------------------------------------

#: words that make a control destructive: a button, link or form whose text, label, test id, id,
#: class, name, href or action says one of them is never clicked, followed or submitted. Matched
#: as whole words, ignoring case, with `-`, `_`, `/` and camelCase humps splitting words. Extend
#: with `--destructive WORD`, shorten with `--not-destructive WORD` (docs/discover.md). The healer uses the
#: default list (docs/healing.md).
DEFAULT_DESTRUCTIVE: tuple[str, ...] = (
    "delete", "remove", "destroy", "erase", "purge", "wipe", "trash", "discard",
    "logout", "log out", "log off", "signout", "sign out", "sign off",
    "pay", "pay now", "buy", "purchase", "checkout", "check out", "place order", "order now", "subscribe",
    "unsubscribe", "cancel subscription", "cancel plan", "cancel account", "close account", "deactivate",
    "terminate", "revoke", "reset", "archive", "ban", "block", "kick", "transfer", "withdraw", "refund",
    "donate", "clear", "uninstall", "disable account",
)

_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SPLIT = re.compile(r"[^0-9a-z]+")
#: the attributes of a surveyed element whose words say what it does
_ATTRS = ("href", "name", "title", "value", "action", "formaction", "aria-label", "data-action", "onclick")


def words_of(text: str) -> list[str]:
    """`"deleteItem /items/3/delete"` -> `["delete", "item", "items", "3", "delete"]`."""
    return [w for w in _SPLIT.split(_HUMP.sub(" ", text).lower()) if w]


def _contains(words: list[str], phrase: list[str]) -> bool:
    n = len(phrase)
    return any(words[i:i + n] == phrase for i in range(len(words) - n + 1))


def destructive_word(element: Mapping[str, Any], vocabulary: Iterable[str]) -> str | None:
    """The destructive word `element` (a surveyed link, button or form) says, or None."""
    texts = [str(element.get(k) or "") for k in ("name", "text", "testid", "id", "raw_href", "action")]
    texts.extend(str(c) for c in element.get("classes") or ())
    attrs = element.get("attrs") or {}
    texts.extend(str(attrs.get(a) or "") for a in _ATTRS)
    words = words_of(" | ".join(texts))
    for entry in vocabulary:
        phrase = words_of(entry)
        if phrase and _contains(words, phrase):
            return entry
    return None
