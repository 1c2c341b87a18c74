"""Verifiers: postcondition checks run after an act (or after a rule's body) that name them.

"Success means verified": an act that completed is not yet an act that worked. A step or rule
lists verifiers (`model.VerifierRef`); each ends `pass`, `fail` or `inconclusive` (it could not
tell: its timeout ran out or data was missing) and inconclusive counts as fail. Each outcome is
recorded (the walker puts `VerifierOutcome.record()` into `StepFinished.detail["verifiers"]`).

Built in:

- `read_after_write` re-reads what the act wrote, until it matches or `timeout_ms` ends: an
  input's value after fill, the checked state after check/uncheck, the selected value (or label)
  after select. With options `selector` and `expected` it reads that element's text instead
  (`match: equals` (default, trimmed) or `contains`, case-sensitive either way).
- `invariant_check` evaluates a condition that does not depend on the act's target:
  - option `expect`: a page condition (a `model.Expect`, or a dict with `kind`, `value`,
    `selector`, ...), checked with the stabilized checks of `walk.checks`;
  - option `http: {url, status, json_field, equals}`: an HTTP GET through `requests`, only to a
    loopback host or a host of the scenario's allowlist (a relative URL is resolved against the
    page); `status` (default 200) must match, and with `json_field` (a dotted path, list indexes
    allowed: `items.0.id`) the JSON value there must equal `equals` (compared as text for
    numbers and booleans: `equals: "3"` matches 3, `"true"` matches true).

User verifiers: the module the loader found (`options["module"]`), else
`<verifiers_dir>/<name>.py`, exposing `verify(context: dict) -> result`, where the result is a
dict or an object with `outcome` ("pass" | "fail" | "inconclusive") and `detail`. The context
holds `url`, `title`, `step` (the step as written), `value` (what the act wrote, secrets
redacted), `variables` (run variables and extracted values, never secrets), `scenario`, `rule`
and `options` (the step's `options:` for the verifier). It runs in its own thread, so the page
cannot be touched from it, and `timeout_ms` bounds it.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import json
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Mapping, Sequence
from urllib.parse import urljoin, urlsplit

from flowwalk.browser.records import Element
from flowwalk.browser.session import PageSession
from flowwalk.cooperative import offload
from flowwalk.model import Act, Expect, Stabilize, Step, VerifierRef
from flowwalk.walk.checks import run_check

OUTCOMES = ("pass", "fail", "inconclusive")
#: read_after_write polls this often until the value reads back or its timeout ends
READ_INTERVAL_S = 0.1


@dataclass(frozen=True)
class VerifierOutcome:
    name: str
    outcome: str          # pass | fail | inconclusive
    detail: str
    duration_ms: float

    def record(self) -> dict[str, Any]:
        return {"name": self.name, "outcome": self.outcome, "detail": self.detail,
                "duration_ms": round(self.duration_ms, 1)}


@dataclass(frozen=True)
class VerifierContext:
    """What a verifier may look at. Built by the walker for one act or one rule."""

    session: PageSession
    step: Step | None                 # the act (None for a rule's own verifiers)
    value: str | None                 # what the act wrote, resolved (may be a secret: never shown)
    element: Element | None           # the element the act worked on (None for a rule)
    scope: str | None
    variables: Mapping[str, str]      # without secrets
    allowed_hosts: tuple[str, ...]    # entry host + the scenario's allowed_hosts (subdomains admitted)
    redact: Callable[[str], str]
    substitute: Callable[[str], str]
    stabilize: Stabilize
    verifiers_dir: Path
    scenario_id: str = ""
    rule: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


def run_verifiers(refs: Sequence[VerifierRef], context: VerifierContext) -> list[VerifierOutcome]:
    """Run every named verifier in order (all of them, so each outcome is recorded)."""
    outcomes: list[VerifierOutcome] = []
    for ref in refs:
        t0 = time.monotonic()
        try:
            if ref.name == "read_after_write":
                outcome, detail = _read_after_write(ref, context)
            elif ref.name == "invariant_check":
                outcome, detail = _invariant_check(ref, context)
            else:
                outcome, detail = _user_verifier(ref, context)
        except Exception as exc:  # noqa: BLE001 - a verifier that breaks could not tell: inconclusive
            outcome, detail = "inconclusive", f"the verifier raised {type(exc).__name__}: {str(exc)[:300]}"
        outcomes.append(VerifierOutcome(ref.name, outcome, context.redact(detail),
                                        (time.monotonic() - t0) * 1000))
    return outcomes


# --- read_after_write ---------------------------------------------------------------------------


def _read_after_write(ref: VerifierRef, ctx: VerifierContext) -> tuple[str, str]:
    options = dict(ref.options)
    end = time.monotonic() + ref.timeout_ms / 1000
    selector = options.get("selector")
    if selector:
        expected = options.get("expected")
        if expected is None:
            return "inconclusive", "read_after_write: 'selector' given without 'expected'"
        sel = ctx.substitute(str(selector))
        want = ctx.substitute(str(expected))
        contains = str(options.get("match", "equals")) == "contains"

        def read_text() -> str | None:
            return ctx.session.page.first_text(sel, ctx.scope, _left_ms(end))

        return _poll(read_text, lambda got: (want in got) if contains else got == want.strip(), end,
                     f"text of '{sel}'", want)

    step = ctx.step
    if not isinstance(step, Act) or ctx.element is None:
        return "inconclusive", "read_after_write: nothing was written here; name a 'selector' and 'expected'"
    target, page = ctx.element, ctx.session.page
    if step.action == "fill":
        want = ctx.value or ""
        return _poll(lambda: page.field_value(target, _left_ms(end)), lambda got: got == want, end,
                     "the input's value", want)
    if step.action in ("check", "uncheck"):
        wanted = step.action == "check"
        return _poll(lambda: page.checked(target, _left_ms(end)), lambda got: got is wanted, end,
                     "the checked state", str(wanted).lower())
    if step.action == "select":
        want = ctx.value or ""

        def read_selected() -> str | None:
            return json.dumps(page.selected_options(target))

        def selected_matches(got: str) -> bool:
            return any(want in (v, label) for v, label in json.loads(got))

        return _poll(read_selected, selected_matches, end, "the selected option (value, label)", want)
    return "inconclusive", (f"read_after_write: a {step.action} writes nothing to read back; "
                            "name a 'selector' and 'expected'")


def _left_ms(end: float) -> int:
    return max(int((end - time.monotonic()) * 1000), 1)


def _poll(read: Callable[[], Any], ok: Callable[[Any], bool], end: float, what: str,
          want: str) -> tuple[str, str]:
    """Read until `ok`, or until `end`: fail on a wrong value, inconclusive when nothing was read."""
    last: Any = None
    read_any = False
    while True:
        try:
            got = read()
        except Exception as exc:  # noqa: BLE001 - the element went away or the read timed out
            got = None
            last_error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        else:
            last_error = ""
        if got is not None:
            read_any = True
            last = got
            if ok(got):
                return "pass", f"{what} reads back '{_show(got)}'"
        if time.monotonic() >= end:
            break
        time.sleep(min(READ_INTERVAL_S, max(end - time.monotonic(), 0)))
    if not read_any:
        return "inconclusive", f"could not read {what} within the verifier's time" + (
            f" ({last_error})" if last_error else "")
    return "fail", f"{what} reads back '{_show(last)}', expected '{want}'"


def _show(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= 200 else text[:200] + "…"


# --- invariant_check ----------------------------------------------------------------------------


def _invariant_check(ref: VerifierRef, ctx: VerifierContext) -> tuple[str, str]:
    options = dict(ref.options)
    if options.get("expect") is not None:
        return _page_invariant(ref, ctx, options["expect"])
    http = options.get("http")
    if isinstance(http, Mapping) and http.get("url"):
        return _http_invariant(ref, ctx, http)
    return "inconclusive", "invariant_check needs an 'expect' (page condition) or 'http' (an HTTP GET)"


def _page_invariant(ref: VerifierRef, ctx: VerifierContext, raw: Any) -> tuple[str, str]:
    if isinstance(raw, Expect):
        expect = raw
    elif isinstance(raw, Mapping) and raw.get("kind"):
        known = {"kind", "value", "selector", "vendor", "event", "count", "op", "attr", "match"}
        expect = Expect(loc=ref.loc, text=f"invariant {raw['kind']}",
                        **{k: v for k, v in raw.items() if k in known})
    else:
        return "inconclusive", "invariant_check: 'expect' is not a page condition"
    expect = replace(expect,
                     value=expect.value if expect.kind == "url_matches" or expect.value is None
                     else ctx.substitute(expect.value),
                     selector=ctx.substitute(expect.selector) if expect.selector else None)
    result = run_check(ctx.session, expect, scope=ctx.scope, timeout_ms=ref.timeout_ms,
                       stabilize=expect.stabilize or ctx.stabilize)
    if result.passed:
        return "pass", f"{expect.kind} holds after {result.reads} read(s): {result.observed}"
    return "fail", f"{expect.kind}: expected {result.expected}, observed {result.observed} ({result.reads} read(s))"


def host_allowed(host: str, allowed: Sequence[str]) -> bool:
    """Loopback always; otherwise a host of the allowlist or one of its subdomains."""
    host = host.lower().rstrip(".")
    if host == "localhost":
        return True
    try:
        if ipaddress.ip_address(host).is_loopback:
            return True
    except ValueError:
        pass
    return any(host == h.lower() or host.endswith("." + h.lower()) for h in allowed)


def _http_invariant(ref: VerifierRef, ctx: VerifierContext, options: Mapping[str, Any]) -> tuple[str, str]:
    url = ctx.substitute(str(options["url"]))
    if not urlsplit(url).scheme:
        url = urljoin(ctx.session.page.url(), url)
    host = urlsplit(url).hostname or ""
    if not host_allowed(host, ctx.allowed_hosts):
        return "inconclusive", f"invariant_check: '{host}' is neither loopback nor in the allowlist"
    want_status = int(options.get("status") or 200)
    # imported here, not at the top: requests costs 0.1-0.7 s of start-up and only this check uses it
    import requests

    try:
        # no redirects: a redirect could leave the allowlist behind the check's back; offloaded: the
        # other workers sharing this thread go on meanwhile (flowwalk/cooperative.py)
        response = offload(lambda: requests.get(url, timeout=ref.timeout_ms / 1000, allow_redirects=False))
    except requests.Timeout:
        return "inconclusive", f"GET {url} timed out after {ref.timeout_ms} ms"
    except requests.RequestException as exc:
        return "inconclusive", f"GET {url} failed: {type(exc).__name__}"
    if response.status_code != want_status:
        return "fail", f"GET {url} answered {response.status_code}, expected {want_status}"
    path = options.get("json_field")
    if not path:
        return "pass", f"GET {url} answered {response.status_code}"
    try:
        data = response.json()
    except ValueError:
        return "inconclusive", f"GET {url}: the body is not JSON"
    found, value = _dig(data, str(path))
    if not found:
        return "inconclusive", f"GET {url}: no field '{path}' in the JSON"
    want = options.get("equals")
    if isinstance(want, str):
        want = ctx.substitute(want)
    if want is None or value == want or (isinstance(want, str) and _as_text(value) == want):
        return "pass", f"GET {url}: {path} = {json.dumps(value)}"
    return "fail", f"GET {url}: {path} = {json.dumps(value)}, expected {json.dumps(want)}"


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _dig(data: Any, path: str) -> tuple[bool, Any]:
    current = data
    for part in path.split("."):
        if isinstance(current, Mapping) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.lstrip("-").isdigit() and -len(current) <= int(part) < len(current):
            current = current[int(part)]
        else:
            return False, None
    return True, current


# --- user verifiers -----------------------------------------------------------------------------

_modules: dict[tuple[str, float], ModuleType] = {}
_modules_lock = threading.Lock()


def _load_module(path: Path) -> ModuleType:
    key = (str(path.resolve()), path.stat().st_mtime)
    with _modules_lock:
        if key not in _modules:
            spec = importlib.util.spec_from_file_location(f"flowwalk_verifier_{path.stem}", path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {path}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            _modules[key] = module
        return _modules[key]


def _user_verifier(ref: VerifierRef, ctx: VerifierContext) -> tuple[str, str]:
    module_path = ref.options.get("module")
    path = Path(str(module_path)) if module_path else ctx.verifiers_dir / f"{ref.name}.py"
    if not path.is_file():
        return "inconclusive", f"no verifier '{ref.name}': {path} does not exist"
    module = _load_module(path)
    verify = getattr(module, "verify", None)
    if not callable(verify):
        return "inconclusive", f"{path} has no verify(context) function"
    page = ctx.session.page
    context = {
        "url": page.url(),
        "title": page.document_title(),
        "step": ctx.step.text if ctx.step is not None else "",
        "value": ctx.redact(ctx.value) if ctx.value is not None else None,
        "variables": dict(ctx.variables),
        "scenario": ctx.scenario_id,
        "rule": ctx.rule,
        "options": dict(_mapping(ref.options.get("args"))),
    }
    box: dict[str, Any] = {}

    def call() -> None:
        try:
            box["result"] = verify(context)
        except BaseException as exc:  # noqa: BLE001 - reported as inconclusive below
            box["error"] = exc

    worker = threading.Thread(target=call, name=f"verifier-{ref.name}", daemon=True)
    worker.start()
    worker.join(ref.timeout_ms / 1000)
    if worker.is_alive():
        return "inconclusive", f"timed out after {ref.timeout_ms} ms"
    if "error" in box:
        exc = box["error"]
        return "inconclusive", f"verify() raised {type(exc).__name__}: {str(exc)[:300]}"
    result = box.get("result")
    if isinstance(result, Mapping):
        outcome, detail = result.get("outcome"), result.get("detail", "")
    else:
        outcome, detail = getattr(result, "outcome", None), getattr(result, "detail", "")
    if outcome not in OUTCOMES:
        return "inconclusive", f"verify() returned outcome {outcome!r}; expected one of {', '.join(OUTCOMES)}"
    return str(outcome), str(detail or "")


def _mapping(value: object) -> Mapping[str, Any]:
    """A user verifier's `args` as a mapping (the loader guarantees one; anything else is empty)."""
    return value if isinstance(value, Mapping) else {}
