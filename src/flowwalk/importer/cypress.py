"""Cypress's commands as flow-spec steps: one table (`COMMANDS`, `CHAINERS`) of what each command and
each `should` chainer becomes, which docs/import.md is generated from (`render_table`, beside
Playwright Test's).

A Cypress test is a list of chains: `cy.get('.todo-list li').eq(1).find('.toggle').check()` starts
at `cy`, narrows a subject with queries (get, contains, find, eq, first, last, within, an alias)
and acts on it or checks it. The subject is a `Locator` (a flowwalk selector, as in playwright.py),
so a chain becomes the steps of its actions and checks, in order. An alias (`.as('todos')`) binds
the subject's selector: Cypress re-runs an aliased query when it is used, and so does the selector.
Aliases set in a `beforeEach` are the tests' too.

A custom command (`Cypress.Commands.add(name, fn)`, in the project's `cypress/support/commands.js`
or the test file) is a steps file with a parameter per argument; what the command returns is its
callers' subject (`cy.createTodo('x').as('first')`). A query ending a chain is Cypress's implicit
existence check (`expect selector_exists`); a `contains` ending one is an explicit check of the text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from tree_sitter import Node

from pathlib import Path

from flowwalk.importer.core import Block, Helper, Mapped, Noted, Route, Use, Walk, kebab
from flowwalk.importer.ledger import Outcome
from flowwalk.importer.playwright import Entry, Locator, Segment, Unfit, chain_of, quoted
from flowwalk.importer.syntax import Source, calls_in, children, text
from flowwalk.importer.values import Param, Regex, Unevaluable, spelled, value_of

__all__ = ["CHAINERS", "COMMANDS", "Cypress", "render_table", "type_steps"]


@dataclass(frozen=True)
class LogHandle:
    """What `Cypress.log(...)` returns: the command log's entry, which flowwalk's report replaces."""


@dataclass(frozen=True)
class Special:
    """A subject that is not an element: the window, its localStorage, the URL, the title, the location."""

    what: str
    key: str = ""


#: the scope's key of a `within` block's subject
WITHIN = "@@within"
_ALIAS = "@"


def _escaped(value: str) -> str:
    """A text as a regular expression that matches it (inside `/.../`)."""
    return re.sub(r"([\\^$.|?*+()\[\]{}/])", r"\\\1", value)


def _text_regex(value: str) -> str:
    """A text as a case-kept substring match: Cypress's `contains`, as Playwright's `text=/.../`."""
    return "text=/" + _escaped(value) + "/"


# --- Cypress's type keys -----------------------------------------------------------------------------------

#: `{name}` of cy.type -> the key act press presses (Playwright's key names)
KEYS = {"enter": "Enter", "esc": "Escape", "backspace": "Backspace", "del": "Delete", "selectall": "ControlOrMeta+a",
        "leftarrow": "ArrowLeft", "rightarrow": "ArrowRight", "uparrow": "ArrowUp", "downarrow": "ArrowDown",
        "home": "Home", "end": "End", "pageup": "PageUp", "pagedown": "PageDown", "insert": "Insert",
        "movetostart": "ControlOrMeta+Home", "movetoend": "ControlOrMeta+End"}
_MODIFIERS = {"ctrl": "Control", "control": "Control", "alt": "Alt", "option": "Alt", "shift": "Shift",
              "meta": "Meta", "cmd": "Meta", "command": "Meta"}
_TOKEN = re.compile(r"\{\{[A-Za-z_]\w*\}\}|\{\{\}|\{[^{}]*\}|[^{]+|\{")


def type_steps(selector: str, typed: str) -> list[dict[str, Any]]:
    """`cy.get(selector).type(typed)` as act type (the text) and act press (each `{key}`), in order."""
    steps: list[dict[str, Any]] = []
    held: list[str] = []
    buffer = ""

    def flush() -> None:
        nonlocal buffer
        if buffer:
            steps.append({"type": "act", "action": "type", "selector": selector, "value": buffer})
            buffer = ""

    for token in _TOKEN.findall(typed):
        if token == "{{}":
            buffer += "{"
        elif token.startswith("{{") or not token.startswith("{") or token == "{":
            if held:
                if len(token) != 1:
                    raise Unfit(f"a modifier before '{token}': hold it for one key only, e.g. '{{ctrl}}a'")
                flush()
                steps.append({"type": "act", "action": "press", "selector": selector, "value": "+".join(
                    [*held, token])})
                held = []
            else:
                buffer += token
        else:
            name = token[1:-1].lower()
            if name in _MODIFIERS:
                held.append(_MODIFIERS[name])
                continue
            if name not in KEYS:
                raise Unfit(f"cy.type's key '{token}' has no key here (the keys: "
                             f"{', '.join('{' + k + '}' for k in KEYS)})")
            flush()
            steps.append({"type": "act", "action": "press", "selector": selector, "value": "+".join(
                [*held, KEYS[name]])})
            held = []
    if held:
        raise Unfit("a modifier key at the end of the text presses nothing")
    flush()
    if not steps:
        raise Unfit("cy.type of an empty text: Cypress refuses it too")
    return steps


# --- the table -----------------------------------------------------------------------------------------------


@dataclass
class _Chain:
    """A chain being mapped: its walk and scope, its subject so far, its steps and checks."""

    walk: Walk
    scope: dict[str, Any]
    subject: Any = None
    steps: list[Any] = None  # type: ignore[assignment]
    checks: int = 0
    outcome: Outcome = "converted"
    notes: list[str] = None  # type: ignore[assignment]
    blocks: list[Block] = None  # type: ignore[assignment]
    #: the last link was a query (an element looked for, nothing done with it yet)
    queried: bool = False
    #: the last link was a `contains` of a text (`cy.get('.count').contains('3 items')`)
    contained: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        self.steps, self.notes, self.blocks = [], [], []

    def note(self, how: str) -> None:
        self.outcome = "approximated"
        if how not in self.notes:
            self.notes.append(how)

    def value(self, node: Node) -> Any:
        return value_of(self.walk.source, node, self.scope)

    def text_of(self, node: Node) -> str:
        value = _textish(self.walk.source, node, self.scope)
        if isinstance(value, Param):
            return spelled(value)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return spelled(value)
        raise Unfit(f"'{text(self.walk.source, node)}' is not a text known before the test runs")

    @property
    def selector(self) -> str:
        if not isinstance(self.subject, Locator):
            raise Unfit("the command needs an element to act on: start the chain with cy.get(...) or cy.contains(...)")
        return self.subject.selector


def _textish(source: Source, node: Node, scope: Mapping[str, Any]) -> Any:
    """A value, with `param.trim()` of a command's parameter taken as the parameter (the selectors
    that match a text trim it)."""
    if node.type == "call_expression":
        callee = node.child_by_field_name("function")
        if callee is not None and callee.type == "member_expression" and \
                text(source, callee.child_by_field_name("property")) == "trim":  # type: ignore[arg-type]
            target = callee.child_by_field_name("object")
            inner = value_of(source, target, scope)
            if isinstance(inner, Param):
                return inner
    return value_of(source, node, scope)


Link = Callable[[_Chain, list[Node], Segment], None]


def _options_of(chain: _Chain, args: list[Node], at: int, allowed: tuple[str, ...] = ()) -> dict[str, Any]:
    """An options object (`{ log: false }`); `log` and `timeout` change nothing flowwalk checks."""
    if len(args) <= at:
        return {}
    options = chain.value(args[at])
    if not isinstance(options, dict):
        raise Unfit(f"'{text(chain.walk.source, args[at])}' is not an options object")
    left = {k: v for k, v in options.items() if k not in ("log", "timeout", *allowed)}
    if left:
        raise Unfit(f"the option(s) {', '.join(sorted(left))} have no equivalent here")
    return options


def _get(chain: _Chain, args: list[Node], seg: Segment) -> None:
    if not args:
        raise Unfit("cy.get needs a selector")
    _options_of(chain, args, 1, ("withinSubject",))
    try:
        value = chain.value(args[0])
    except Unevaluable as unknown:
        raise Unfit(f"a selector built from a value known only when the test runs ({unknown.why}): write the "
                     "selector out, or alias the element with .as()") from None
    if isinstance(value, Param):
        raise Unfit("a selector passed to a command: write it in the command")
    if not isinstance(value, str) or not value:
        raise Unfit("cy.get takes a selector")
    if value.startswith(_ALIAS):
        alias = chain.scope.get(_ALIAS + value[1:])
        if alias is None:
            raise Unfit(f"the alias '{value}' is not set before this (.as('{value[1:]}') in the test or a "
                         "beforeEach)")
        chain.subject = alias
    else:
        within = chain.scope.get(WITHIN)
        chain.subject = Locator((within.selector + " >> " if isinstance(within, Locator) else "") + value)
    chain.queried = True
    chain.contained = None


def _contains(chain: _Chain, args: list[Node], seg: Segment, on_subject: bool) -> None:
    if not args:
        raise Unfit("contains needs a text")
    within = chain.scope.get(WITHIN)
    base = chain.subject.selector + " >> " if on_subject and isinstance(chain.subject, Locator) else \
        within.selector + " >> " if isinstance(within, Locator) else ""
    selector_node, text_node = (args[0], args[1]) if len(args) > 1 and args[1].type != "object" else (None, args[0])
    options = _options_of(chain, args, 2 if selector_node is not None else 1, ("matchCase",))
    found = _textish(chain.walk.source, text_node, chain.scope)
    if options.get("matchCase") is False and isinstance(found, str):
        found = Regex(_escaped(found), "i")
    if selector_node is not None:
        css = chain.value(selector_node)
        if not isinstance(css, str):
            raise Unfit("contains' selector is not a text")
        if isinstance(found, Regex):
            raise Unfit("contains(selector, /re/) has no selector equivalent here")
        shown = spelled(found) if isinstance(found, (Param, int, float)) else found
        if not isinstance(shown, str):
            raise Unfit("contains' text is not a text")
        chain.subject = Locator(f"{base}{css}:has-text({quoted(shown)})",
                                "contains(selector, text) as :has-text(), which ignores case")
        chain.contained = None
    else:
        if isinstance(found, Regex):
            selector = f"text=/{found.pattern}/{found.flags}"
            chain.contained = None
        elif isinstance(found, Param):
            selector = f"text={quoted(spelled(found))}"
            chain.subject = Locator(base + selector, "contains of a command's parameter as text=\"…\", which "
                                                     "matches the whole text")
            chain.queried = True
            return
        else:
            shown = spelled(found) if isinstance(found, (int, float)) and not isinstance(found, bool) else found
            if not isinstance(shown, str) or not shown:
                raise Unfit("contains takes a text, a number or a regular expression")
            selector = _text_regex(shown)
            chain.contained = (base[:-4] if base else "body", shown)
        chain.subject = Locator(base + selector)
    chain.queried = True


def _narrow(kind: str) -> Link:
    def link(chain: _Chain, args: list[Node], seg: Segment) -> None:
        if not isinstance(chain.subject, Locator):
            raise Unfit(f".{kind}() needs elements: start the chain with cy.get(...)")
        if kind == "find":
            if not args:
                raise Unfit("find needs a selector")
            _options_of(chain, args, 1)
            css = chain.value(args[0])
            if not isinstance(css, str):
                raise Unfit("find takes a selector")
            chain.subject = Locator(f"{chain.subject.selector} >> {css}", chain.subject.approx)
        else:
            index = 0 if kind == "first" else -1 if kind == "last" else chain.value(args[0]) if args else None
            if not isinstance(index, int) or isinstance(index, bool):
                raise Unfit(f".{kind}() takes a literal index")
            chain.subject = Locator(f"{chain.subject.selector} >> nth={index}", chain.subject.approx)
        chain.queried = True
        chain.contained = None
    return link


def _refused(why: str) -> Link:
    def link(chain: _Chain, args: list[Node], seg: Segment) -> None:
        raise Unfit(why)
    return link


_UPWARD = _refused("flowwalk's selectors go down the page, never up or across (no XPath): select the element "
                   "itself, e.g. by its class, a test id or li:has(label)")


def _alias(chain: _Chain, args: list[Node], seg: Segment) -> None:
    name = chain.value(args[0]) if args else None
    if not isinstance(name, str) or not name:
        raise Unfit(".as() takes a literal name")
    if chain.subject is None:
        raise Unfit(f".as('{name}') of a command that yields nothing flowwalk follows")
    chain.scope[_ALIAS + name] = chain.subject


def _focused(chain: _Chain, args: list[Node], seg: Segment) -> None:
    chain.subject = Locator(":focus")
    chain.queried = True


def _act(action: str, value: bool = False) -> Link:
    def link(chain: _Chain, args: list[Node], seg: Segment) -> None:
        step: dict[str, Any] = {"type": "act", "action": action, "selector": chain.selector}
        rest = 0
        if value:
            if not args:
                raise Unfit(f".{seg.name}() needs a value")
            picked = chain.value(args[0])
            if isinstance(picked, list):
                raise Unfit("select of several options has no act here")
            step["value"] = chain.text_of(args[0])
            rest = 1
        options = _options_of(chain, args, rest, ("force",))
        if options.get("force"):
            chain.note("{ force: true }: flowwalk acts as a person would, waiting for the element to take the action")
        chain.steps.append(step)
    return link


def _type(chain: _Chain, args: list[Node], seg: Segment) -> None:
    if not args:
        raise Unfit("type needs a text")
    _options_of(chain, args, 1, ("force", "delay"))
    steps = type_steps(chain.selector, chain.text_of(args[0]))
    if any(s["value"].startswith("ControlOrMeta") for s in steps):
        chain.note("{selectall}, {movetostart}, {movetoend} as ControlOrMeta shortcuts, which select the field's text "
                   "as Cypress's keys do")
    chain.steps.extend(steps)


def _clear(chain: _Chain, args: list[Node], seg: Segment) -> None:
    _options_of(chain, args, 0, ("force",))
    chain.steps.append({"type": "act", "action": "fill", "selector": chain.selector, "value": ""})


def _trigger(chain: _Chain, args: list[Node], seg: Segment) -> None:
    if not args:
        raise Unfit("trigger needs an event type")
    event = chain.text_of(args[0])
    step: dict[str, Any] = {"type": "act", "action": "dispatch", "selector": chain.selector, "event": event}
    if len(args) > 1:
        options = chain.value(args[1])
        if not isinstance(options, dict):
            raise Unfit("trigger's second argument is not an options object")
        detail = {k: v for k, v in options.items() if k not in ("log", "timeout", "force", "bubbles", "cancelable")}
        if detail:
            step["detail"] = detail
            chain.note("the options' other keys as the event's detail (a CustomEvent), where Cypress sets them on "
                       "the event itself")
    if event in ("mouseover", "mousedown", "mouseup", "keydown", "keyup", "pointerdown"):
        chain.note(f"'{event}' dispatched as a plain event, where Cypress makes a {event[:5]} event of it")
    chain.steps.append(step)


def _goto(chain: _Chain, args: list[Node], seg: Segment) -> None:
    if not args:
        raise Unfit("cy.visit needs a URL")
    url = chain.value(args[0])
    if isinstance(url, dict):
        raise Unfit("cy.visit with an options object: write the URL as its first argument")
    _options_of(chain, args, 1)
    chain.steps.append({"type": "goto", "url": chain.text_of(args[0])})
    chain.subject = None


def _reload(chain: _Chain, args: list[Node], seg: Segment) -> None:
    if args and chain.value(args[0]) is True:
        chain.note("reload(true) skips the cache; flowwalk's reload may use it")
    chain.steps.append({"type": "reload"})
    chain.subject = None


def _go(chain: _Chain, args: list[Node], seg: Segment) -> None:
    where = chain.value(args[0]) if args else None
    moves: dict[Any, str] = {"back": "go_back", -1: "go_back", "forward": "go_forward", 1: "go_forward"}
    move = moves.get(where) if isinstance(where, (str, int)) else None
    if move is None:
        raise Unfit("cy.go takes 'back', 'forward', -1 or 1")
    chain.steps.append({"type": move})
    chain.subject = None


def _wait(chain: _Chain, args: list[Node], seg: Segment) -> None:
    ms = chain.value(args[0]) if args else None
    if isinstance(ms, str) and isinstance(chain.scope.get(_ALIAS + ms[1:]), Special) and ms.startswith(_ALIAS):
        chain.note("cy.wait on a route's alias: a flow waits in its next check, which polls until the page "
                   "shows what the answer changed")
        return
    if not isinstance(ms, int) or isinstance(ms, bool) or ms < 1:
        raise Unfit("cy.wait of an alias waits for a request: flowwalk's checks wait by themselves; cy.wait takes "
                     "a literal number of milliseconds here")
    chain.steps.append({"type": "wait", "ms": ms})


def _nothing(why: str) -> Link:
    def link(chain: _Chain, args: list[Node], seg: Segment) -> None:
        chain.note(why)
    return link


_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")


def _fixture(chain: _Chain, name: str) -> Any:
    """A fixture file's content (cypress/fixtures/<name>, beside the nearest cypress/ above the test)."""
    for folder in Path(chain.walk.source.path).resolve().parents:
        for base in (folder / "fixtures", folder / "cypress" / "fixtures"):
            path = base / name
            if not path.suffix and not path.is_file():
                path = path.with_suffix(".json")
            if path.is_file():
                raw = path.read_text(encoding="utf-8")
                if path.suffix == ".json":
                    try:
                        return json.loads(raw)
                    except ValueError:
                        raise Unfit(f"the fixture {path.name} is not JSON") from None
                return raw
    raise Unfit(f"the fixture '{name}' is not in a fixtures folder above the test")


def _intercept(chain: _Chain, args: list[Node], seg: Segment) -> None:
    if chain.walk.role in ("helper", "after_each"):
        raise Unfit("cy.intercept in a command or an afterEach: a flow's routes are set up by the test or its "
                     "beforeEach")
    values = [chain.value(a) if a.type not in ("arrow_function", "function_expression") else None for a in args]
    if any(v is None for v in values):
        raise Unfit("cy.intercept with a function answers the request with code when the test runs: give a "
                     "static response (statusCode, body, fixture, forceNetworkError)")
    method = None
    if values and isinstance(values[0], str) and values[0].upper() in _METHODS and len(values) > 1:
        method, values = values[0].upper(), values[1:]
    matcher = values[0] if values else None
    if isinstance(matcher, dict):
        left = set(matcher) - {"url", "method", "pathname", "path"}
        if left:
            raise Unfit(f"cy.intercept's matcher key(s) {', '.join(sorted(left))} have no route equivalent")
        method = str(matcher.get("method", method or "")).upper() or None
        matcher = matcher.get("url") or matcher.get("pathname") or matcher.get("path")
    if isinstance(matcher, Regex):
        raise Unfit("a route is a path or a glob, not a regular expression")
    if not isinstance(matcher, str) or not matcher:
        raise Unfit("cy.intercept needs the URL it matches")
    url = matcher if matcher.startswith(("/", "http://", "https://", "**")) else "**/" + matcher.lstrip("*/")
    route: dict[str, Any] = {"url": url}
    if method:
        route["method"] = method
    response = values[1] if len(values) > 1 else None
    if response is None:
        chain.note("a spy: the request goes on to the server (no route); cy.wait on its alias waits for nothing")
        chain.subject = Special("route")
        return
    if isinstance(response, str):
        response = {"body": response}
    if not isinstance(response, dict):
        raise Unfit("cy.intercept's response is not a static response")
    response = dict(response)
    if response.pop("forceNetworkError", False):
        route["abort"] = True
    if "statusCode" in response:
        route["status"] = response.pop("statusCode")
    if "fixture" in response:
        body = _fixture(chain, str(response.pop("fixture")))
        response["body"] = body
    if "body" in response:
        body = response.pop("body")
        route["json" if isinstance(body, (dict, list)) else "body"] = body if isinstance(body, (dict, list)) \
            else spelled(body)
    if "headers" in response:
        route["headers"] = response.pop("headers")
    if "delay" in response:
        route["delay_ms"] = response.pop("delay")
    if response:
        raise Unfit(f"cy.intercept's response key(s) {', '.join(sorted(response))} have no route equivalent")
    if len(route) == 1 + bool(method):
        route["status"] = 200
    chain.note("a route of the flow, in place before its first step, where Cypress's answers from this command on")
    chain.steps.append(Route(route))
    chain.subject = Special("route")


def _window(chain: _Chain, args: list[Node], seg: Segment) -> None:
    _options_of(chain, args, 0)
    chain.subject = Special("window")


def _special(what: str) -> Link:
    def link(chain: _Chain, args: list[Node], seg: Segment) -> None:
        key = chain.value(args[0]) if args and args[0].type != "object" else ""
        if what == "location" and key and not isinstance(key, str):
            raise Unfit("cy.location takes the name of a part (pathname, hash, search, href, ...)")
        chain.subject = Special(what, key or "")
    return link


def _its(chain: _Chain, args: list[Node], seg: Segment) -> None:
    name = chain.value(args[0]) if args else None
    subject = chain.subject
    if isinstance(subject, Special) and subject.what == "window" and name in ("localStorage", "sessionStorage"):
        chain.subject = Special("storage", "local" if name == "localStorage" else "session")
        return
    if isinstance(subject, Special) and subject.what == "storage" and isinstance(name, str):
        chain.subject = Special(f"storage:{subject.key}", name)
        return
    if isinstance(subject, Special) and subject.what == "window" and isinstance(name, str) and \
            re.fullmatch(r"[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*", name):
        chain.subject = Special("js", f"window.{name}")
        return
    raise Unfit(f".its({text(chain.walk.source, args[0]) if args else ''}) of this subject has no check here")


def _invoke(chain: _Chain, args: list[Node], seg: Segment) -> None:
    subject = chain.subject
    name = chain.value(args[0]) if args else None
    if isinstance(subject, Special) and subject.what == "storage" and name == "getItem" and len(args) == 2:
        chain.subject = Special(f"storage:{subject.key}", chain.text_of(args[1]))
        return
    raise Unfit(".invoke() runs a function of the page when the test runs; check its effect instead")


def _check_a11y(chain: _Chain, args: list[Node], seg: Segment) -> None:
    step: dict[str, Any] = {"type": "expect", "kind": "accessible"}
    context = chain.value(args[0]) if args else None
    if isinstance(context, str):
        step["selector"] = context
    elif context is not None:
        raise Unfit("checkA11y's context is a selector (or null for the page)")
    options = chain.value(args[1]) if len(args) > 1 else {}
    if not isinstance(options, dict):
        raise Unfit("checkA11y's options are not an object")
    run_only = options.pop("runOnly", None)
    if isinstance(run_only, dict):
        run_only = run_only.get("values")
    if run_only is not None:
        if not isinstance(run_only, list) or not all(isinstance(r, str) for r in run_only):
            raise Unfit("checkA11y's runOnly is a list of rule ids or tags")
        step["rules"] = {"include": run_only}
    impacts = options.pop("includedImpacts", None)
    if isinstance(impacts, list) and impacts:
        order = ["minor", "moderate", "serious", "critical"]
        if not all(i in order for i in impacts):
            raise Unfit("checkA11y's includedImpacts names an impact axe-core does not have")
        step["impact"] = min(impacts, key=order.index)
        if set(impacts) != set(order[order.index(step["impact"]):]):
            chain.note("includedImpacts as its lowest impact and every higher one")
    if options:
        raise Unfit(f"checkA11y's option(s) {', '.join(sorted(options))} have no equivalent here")
    chain.steps.append(step)
    chain.checks += 1


def _then(chain: _Chain, args: list[Node], seg: Segment) -> None:
    walk = chain.walk
    if len(args) != 1:
        raise Unfit(".then() takes one function")
    fn = args[0]
    if fn.type == "identifier" and text(walk.source, fn) in walk.helpers:
        name = text(walk.source, fn)
        helper = walk.helpers[name]
        if helper.params:
            raise Unfit(f".then({name}) passes the subject to a function with parameters: call it with cy inside")
        inner = walk.helper_block(name)
        if inner is None:
            raise Unfit("a helper that calls itself")
        chain.blocks.append(inner)
        if inner.steps:
            chain.steps.append(Use(name, {}))
        return
    if fn.type not in ("arrow_function", "function_expression", "function"):
        raise Unfit(".then() of a value flowwalk does not know")
    body = fn.child_by_field_name("body")
    source_text = text(walk.source, body) if body is not None else ""
    if re.search(r"createElement\(\s*['\"]script['\"]\s*\)", source_text) and "axe" in source_text:
        chain.note("loads axe-core into the page: flowwalk's accessibility checks bring their own")
        return
    calls = list(calls_in(body)) if body is not None else []
    if calls and all(isinstance(chain.scope.get(_root_name(walk.source, c)), LogHandle) for c in calls):
        # every call updates a Cypress.log entry (`cmd.set({ $el }).snapshot().end()`)
        chain.note("Cypress's command log: flowwalk's report lists the steps instead")
        return
    params = children(fn.child_by_field_name("parameters")) if fn.child_by_field_name("parameters") else []
    if isinstance(chain.subject, Special) and chain.subject.what == "window" and len(params) == 1 and \
            walk.role == "after_each" and re.fullmatch(
                rf"\{{?\s*{re.escape(text(walk.source, params[0]))}\.document\.activeElement\.blur\(\)\s*;?\s*\}}?",
                source_text.replace("\n", " ").replace("// @ts-ignore", "").strip()):
        chain.note("after each test, the focus moved away: flowwalk closes the page with its browser context after "
                   "each flow, so no blur handler reaches the next one")
        return
    if params:
        raise Unfit(".then() with a function of the subject runs code when the test runs: check the element with "
                     ".should() instead")
    inner = Block()
    walk.body(body, chain.scope, inner)
    chain.blocks.append(inner)
    chain.steps.extend(inner.steps)


def _helper_call(walk: Walk, root: Node) -> str | None:
    """The name of the function of the file that `root` calls (as in items().should(...)), else None."""
    if root.type != "call_expression":
        return None
    callee = root.child_by_field_name("function")
    name = text(walk.source, callee) if callee is not None and callee.type == "identifier" else ""
    return name if name in walk.helpers else None


def _root_name(source: Source, call: Node) -> str:
    root, _ = chain_of(source, call)
    return text(source, root) if root.type == "identifier" else ""


def _within(chain: _Chain, args: list[Node], seg: Segment) -> None:
    if not isinstance(chain.subject, Locator):
        raise Unfit(".within() needs an element: start the chain with cy.get(...)")
    fn = next((a for a in args if a.type in ("arrow_function", "function_expression", "function")), None)
    if fn is None:
        raise Unfit(".within() takes a function written in place")
    scope = dict(chain.scope)
    scope[WITHIN] = chain.subject
    inner = Block()
    chain.walk.body(fn.child_by_field_name("body"), scope, inner)
    chain.blocks.append(inner)
    chain.steps.extend(inner.steps)
    for key, value in scope.items():
        if key.startswith(_ALIAS) and key != WITHIN:
            chain.scope[key] = value


@dataclass(frozen=True)
class Command:
    link: Link
    entry: Entry
    #: a query: narrows the subject (the chain's end is then Cypress's existence check)
    query: bool = False


def _e(group: str, call: str, becomes: str, outcome: Outcome = "converted", note: str = "") -> Entry:
    return Entry(group, call, becomes, outcome, note)


_UPWARD_ENTRY = _e("query", ".parent() / .parents() / .closest() / .siblings() / .prev() / .next()", "nothing",
                   "not_converted", "flowwalk's selectors go down the page (no XPath)")
_NTH = _e("query", ".eq(i) / .first() / .last()", "`<subject> >> nth=i` (0, -1)")
COMMANDS: dict[str, Command] = {
    "visit": Command(_goto, _e("navigation", "cy.visit(url)", "goto (the outermost beforeEach's: the flows' url)")),
    "reload": Command(_reload, _e("navigation", "cy.reload()", "reload")),
    "go": Command(_go, _e("navigation", "cy.go('back' | 'forward' | -1 | 1)", "go_back / go_forward")),
    "wait": Command(_wait, _e("navigation", "cy.wait(ms) / cy.wait('@route')", "wait ms / nothing",
                              note="a route's alias: the next check waits (approximated)")),
    "get": Command(_get, _e("query", "cy.get(selector | '@alias')", "the selector (an alias: its subject's)"),
                   query=True),
    "contains": Command(lambda c, a, s: _contains(c, a, s, True), _e(
        "query", "cy.contains(text) / .contains(selector, text)", "`text=/text/` (case kept, a substring) / "
        "`selector:has-text(\"text\")`", note="with a selector: :has-text ignores case (approximated); ending a "
        "chain: expect text_contains, a check"), query=True),
    "find": Command(_narrow("find"), _e("query", ".find(selector)", "`<subject> >> selector`"), query=True),
    "eq": Command(_narrow("eq"), _NTH, query=True),
    "first": Command(_narrow("first"), _NTH, query=True),
    "last": Command(_narrow("last"), _NTH, query=True),
    **{name: Command(_UPWARD, _UPWARD_ENTRY, query=True) for name in ("parent", "parents", "closest", "siblings",
                                                                     "prev", "next", "prevAll", "nextAll")},
    "focused": Command(_focused, _e("query", "cy.focused()", "`:focus`"), query=True),
    "as": Command(_alias, _e("query", ".as(name), cy.get('@name')", "the subject's selector, re-run where it is "
                             "used (as Cypress re-runs an aliased query); a beforeEach's aliases are its tests'")),
    "within": Command(_within, _e("query", ".within(fn)", "fn's steps, each query inside the subject")),
    "click": Command(_act("click"), _e("action", ".click()", "act click")),
    "dblclick": Command(_act("dblclick"), _e("action", ".dblclick()", "act dblclick")),
    "check": Command(_act("check"), _e("action", ".check()", "act check")),
    "uncheck": Command(_act("uncheck"), _e("action", ".uncheck()", "act uncheck")),
    "type": Command(_type, _e("action", ".type(text)", "act type, and act press for each {key}",
                              note="{enter} {esc} {backspace} {del} {selectall} {arrows} {home} {end} {ctrl}x ...; "
                                   "{selectall}: ControlOrMeta+a (approximated)")),
    "clear": Command(_clear, _e("action", ".clear()", "act fill ''")),
    "select": Command(_act("select", True), _e("action", ".select(value)", "act select")),
    "trigger": Command(_trigger, _e("action", ".trigger(event)", "act dispatch, event",
                                    note="mouse and key events are plain events (approximated)")),
    "focus": Command(_act("focus"), _e("action", ".focus()", "act focus")),
    "blur": Command(_act("blur"), _e("action", ".blur()", "act blur")),
    "realHover": Command(_act("hover"), _e("action", ".realHover() (cypress-real-events)", "act hover")),
    "then": Command(_then, _e("reuse", ".then(helper) / .then(() => { ... })", "use: the helper's steps file / "
                              "the function's steps", note="a function of the subject: not converted; a "
                              "Cypress.log entry's calls: nothing (approximated)")),
    "intercept": Command(_intercept, _e("network", "cy.intercept([method,] url, { statusCode, body, fixture, "
                                        "headers, delay, forceNetworkError })", "`routes:` of the flow (status, "
                                        "json / body, headers, delay_ms, abort)", "approximated",
                                        "in place before the flow's first step; a fixture's content written in; "
                                        "no response: a spy, no route; a function: not converted")),
    "window": Command(_window, _e("state", "cy.window().its('localStorage').invoke('getItem', key)",
                                  "the subject of expect storage", note="cy.window().its('app.x'): expect js")),
    "its": Command(_its, _e("state", ".its(name)", "a storage area, a key of it, or a window property")),
    "invoke": Command(_invoke, _e("state", ".invoke('getItem', key)", "the storage key checked")),
    "getCookie": Command(_special("cookie"), _e("state", "cy.getCookie(name).should('have.property', 'value', v)",
                                                "expect cookie equals", note="'exist': matches '^'; 'not.exist', "
                                                "'be.null': absent; have.property httpOnly / secure: http_only / "
                                                "secure")),
    "url": Command(_special("url"), _e("state", "cy.url().should(...)", "expect url_contains / url_matches")),
    "title": Command(_special("title"), _e("state", "cy.title().should(...)", "expect js document.title")),
    "location": Command(_special("location"), _e("state", "cy.location(part).should(...)", "expect js "
                                                 "location.<part>")),
    "checkA11y": Command(_check_a11y, _e("check", "cy.checkA11y(context, { runOnly, includedImpacts })",
                                          "expect accessible, rules include / impact")),
    "injectAxe": Command(_nothing("flowwalk's accessibility checks bring their own axe-core"), _e(
        "check", "cy.injectAxe() (or a command that adds axe-core's script)", "nothing", "approximated",
        "flowwalk's accessibility checks bring their own axe-core")),
    "log": Command(_nothing("a line of Cypress's command log: flowwalk's report lists the steps"), _e(
        "reuse", "cy.log(text), Cypress.log({...})", "nothing", "approximated", "the report lists the steps")),
}


# --- should chainers ------------------------------------------------------------------------------------------

Check = Callable[[_Chain, list[Node], bool], dict[str, Any]]


def _element(kind: str, negated: str | None = None) -> Check:
    def make(chain: _Chain, args: list[Node], neg: bool) -> dict[str, Any]:
        if neg and negated is None:
            raise Unfit("this chainer's 'not.' has no check here")
        return {"type": "expect", "kind": negated if neg else kind, "selector": chain.selector}
    return make


def _length(chain: _Chain, args: list[Node], neg: bool, how: str = "eq") -> dict[str, Any]:
    count = chain.value(args[0]) if args else None
    if neg or not isinstance(count, int) or isinstance(count, bool):
        raise Unfit("have.length takes a literal number (and no not.)")
    bound = {"eq": ("equals", count), "gt": ("at_least", count + 1), "gte": ("at_least", count),
             "lt": ("at_most", count - 1), "lte": ("at_most", count)}[how]
    return {"type": "expect", "kind": "count", "selector": chain.selector, bound[0]: bound[1]}


def _contain(chain: _Chain, args: list[Node], neg: bool) -> dict[str, Any]:
    value = chain.text_of(args[0]) if args else None
    if value is None:
        raise Unfit("contain needs a text")
    if neg:
        chain.note("not.contain as text_not_contains, which ignores case")
        return {"type": "expect", "kind": "text_not_contains", "selector": chain.selector, "value": value}
    return {"type": "expect", "kind": "text_contains", "selector": chain.selector, "value": value, "match_case": True}


def _have_text(chain: _Chain, args: list[Node], neg: bool) -> dict[str, Any]:
    if neg or not args:
        raise Unfit("have.text takes a text (and no not.)")
    return {"type": "expect", "kind": "has_text", "selector": chain.selector, "value": chain.text_of(args[0]),
            "keep_whitespace": True}


def _have_class(chain: _Chain, args: list[Node], neg: bool) -> dict[str, Any]:
    if not args:
        raise Unfit("have.class needs a class name")
    return {"type": "expect", "kind": "lacks_class" if neg else "has_class", "selector": chain.selector,
            "value": chain.text_of(args[0])}


def _have_value(chain: _Chain, args: list[Node], neg: bool) -> dict[str, Any]:
    if neg or not args:
        raise Unfit("have.value takes a text (and no not.)")
    return {"type": "expect", "kind": "input_value", "selector": chain.selector, "value": chain.text_of(args[0])}


def _have_attr(chain: _Chain, args: list[Node], neg: bool) -> dict[str, Any]:
    if not args:
        raise Unfit("have.attr needs an attribute name")
    name = chain.text_of(args[0])
    if len(args) == 1:
        css = f"[{name}]"
        return {"type": "expect", "kind": "selector_absent" if neg else "selector_exists",
                "selector": f"{chain.selector}{css}" if " >> " not in chain.selector.rsplit(" ", 1)[-1] else
                f"{chain.selector} >> xpath=self::*[@{name}]"}
    if neg:
        raise Unfit("not.have.attr with a value has no check here")
    return {"type": "expect", "kind": "attribute", "selector": chain.selector, "name": name,
            "equals": chain.text_of(args[1])}


def _empty(chain: _Chain, args: list[Node], neg: bool) -> dict[str, Any]:
    if neg:
        raise Unfit("not.be.empty has no check here")
    chain.note("be.empty as an empty text, where Cypress asks for no child node at all")
    return {"type": "expect", "kind": "has_text", "selector": chain.selector, "value": "", "keep_whitespace": True}


CHAINERS: dict[str, tuple[Check, Entry]] = {
    "have.length": (_length, _e("check", "should('have.length', n)", "expect count equals",
                                note="have.length.gt/gte/lt/lte: at_least / at_most")),
    "have.length.gt": (lambda c, a, n: _length(c, a, n, "gt"), _e("check", "should('have.length.gt', n)",
                                                                   "expect count at_least n+1")),
    "have.length.gte": (lambda c, a, n: _length(c, a, n, "gte"), _e("check", "should('have.length.gte', n)",
                                                                     "expect count at_least n")),
    "have.length.lt": (lambda c, a, n: _length(c, a, n, "lt"), _e("check", "should('have.length.lt', n)",
                                                                   "expect count at_most n-1")),
    "have.length.lte": (lambda c, a, n: _length(c, a, n, "lte"), _e("check", "should('have.length.lte', n)",
                                                                     "expect count at_most n")),
    "contain": (_contain, _e("check", "should('contain' | 'contain.text' | 'include.text', text)",
                             "expect text_contains, match_case: true",
                             note="not.contain: text_not_contains, which ignores case (approximated)")),
    "have.text": (_have_text, _e("check", "should('have.text', text)", "expect has_text, keep_whitespace: true")),
    "have.class": (_have_class, _e("check", "should('have.class' | 'not.have.class', name)",
                                   "expect has_class / lacks_class")),
    "be.visible": (_element("visible", "hidden"), _e("check", "should('be.visible' | 'not.be.visible')",
                                                     "expect visible / hidden")),
    "be.hidden": (_element("hidden", "visible"), _e("check", "should('be.hidden')", "expect hidden")),
    "be.checked": (_element("checked", "unchecked"), _e("check", "should('be.checked' | 'not.be.checked')",
                                                        "expect checked / unchecked")),
    "be.enabled": (_element("enabled", "disabled"), _e("check", "should('be.enabled')", "expect enabled")),
    "be.disabled": (_element("disabled", "enabled"), _e("check", "should('be.disabled')", "expect disabled")),
    "exist": (_element("selector_exists", "selector_absent"), _e("check", "should('exist' | 'not.exist')",
                                                                 "expect selector_exists / selector_absent")),
    "have.value": (_have_value, _e("check", "should('have.value', text)", "expect input_value")),
    "have.attr": (_have_attr, _e("check", "should('have.attr', name[, value])", "expect attribute equals (a name "
                                 "alone: selector_exists of `[name]`)")),
    "be.empty": (_empty, _e("check", "should('be.empty')", "expect has_text ''", "approximated",
                            "an element with only whitespace text or comments is empty here")),
}
_SYNONYMS = {"contain.text": "contain", "include.text": "contain", "include": "contain", "contains": "contain",
             "have.lengthOf": "have.length", "have.length.greaterThan": "have.length.gt",
             "have.length.above": "have.length.gt", "have.length.at.least": "have.length.gte",
             "have.length.lessThan": "have.length.lt", "have.length.below": "have.length.lt",
             "have.length.at.most": "have.length.lte", "be.selected": "be.checked"}


def _cookie_check(chain: _Chain, chainer: str, args: list[Node], neg: bool) -> dict[str, Any]:
    """A check of `cy.getCookie(name)`: there or not, its value, its httpOnly and secure flags."""
    subject = chain.subject
    assert isinstance(subject, Special)
    step: dict[str, Any] = {"type": "expect", "kind": "cookie", "name": subject.key}
    if (chainer == "exist" and neg) or (chainer == "be.null" and not neg):
        return {**step, "absent": True}
    if chainer in ("exist", "be.null"):
        return {**step, "matches": "^"}
    if chainer == "have.property" and not neg and len(args) == 2:
        prop, value = chain.text_of(args[0]), chain.value(args[1])
        if prop == "value":
            return {**step, "equals": chain.text_of(args[1])}
        if prop in ("httpOnly", "secure") and isinstance(value, bool):
            return {**step, "matches": "^", "http_only" if prop == "httpOnly" else "secure": value}
    raise Unfit(f"should('{'not.' if neg else ''}{chainer}') of a cookie has no check here")


def _state_check(chain: _Chain, chainer: str, args: list[Node], neg: bool) -> dict[str, Any]:
    """A check of the URL, the title, the location, a storage key, a window property or a cookie."""
    subject = chain.subject
    assert isinstance(subject, Special)
    if subject.what == "cookie":
        return _cookie_check(chain, chainer, args, neg)
    how = {"eq": "equals", "equal": "equals", "contain": "contains", "include": "contains", "match": "matches"}.get(
        chainer)
    if how is None or not args:
        raise Unfit(f"should('{'not.' if neg else ''}{chainer}') of {subject.what} has no check here")
    raw = chain.value(args[0])
    value = raw.pattern if isinstance(raw, Regex) else chain.text_of(args[0])
    if how == "matches" and not isinstance(raw, Regex):
        raise Unfit("match takes a regular expression")
    if subject.what == "url":
        if how == "contains":
            return {"type": "expect", "kind": "url_not_contains" if neg else "url_contains", "value": value}
        if neg:
            raise Unfit("not.eq / not.match of the URL has no check here")
        pattern = value if how == "matches" else "^" + re.escape(value) + "$"
        return {"type": "expect", "kind": "url_matches", "value": pattern}
    if neg:
        raise Unfit(f"a negated check of {subject.what} has no check here")
    if subject.what.startswith("storage:"):
        return {"type": "expect", "kind": "storage", "area": subject.what.split(":", 1)[1], "key": subject.key,
                how: value}
    expr = {"title": "document.title", "location": f"location.{subject.key or 'href'}"}.get(subject.what) or \
        (subject.key if subject.what == "js" else "")
    if not expr:
        raise Unfit(f"a check of {subject.what} has no check here")
    return {"type": "expect", "kind": "js", "expr": expr, how: value}


def _should(chain: _Chain, args: list[Node], seg: Segment) -> None:
    chain.checks += 1
    if not args:
        raise Unfit("should needs a chainer")
    if args[0].type in ("arrow_function", "function_expression", "function"):
        raise Unfit("should(fn) runs code when the test runs: write each expectation as a chainer")
    chainer = chain.value(args[0])
    if not isinstance(chainer, str):
        raise Unfit("the chainer is not a literal text")
    neg = chainer.startswith("not.")
    name = chainer[4:] if neg else chainer
    name = _SYNONYMS.get(name, name)
    if isinstance(chain.subject, Special):
        chain.steps.append(_state_check(chain, name, args[1:], neg))
    elif name in CHAINERS:
        chain.steps.append(CHAINERS[name][0](chain, args[1:], neg))
    else:
        raise Unfit(f"no row of the table maps the chainer '{chainer}'")
    chain.contained = None
    chain.queried = False


COMMANDS["should"] = Command(_should, _e("check", ".should(chainer, ...) / .and(chainer, ...)",
                                         "the chainer's expect (below)"))
COMMANDS["and"] = COMMANDS["should"]


# --- the front end ------------------------------------------------------------------------------------------

STRUCTURE = {
    "describe": "describe", "context": "describe", "describe.only": "describe", "context.only": "describe",
    "describe.skip": "describe", "context.skip": "describe",
    "it": "test", "specify": "test", "it.only": "only", "specify.only": "only", "it.skip": "skip",
    "specify.skip": "skip", "xit": "skip", "beforeEach": "before_each", "afterEach": "after_each",
    "before": "before_all", "after": "after_all",
}
STRUCTURE_ENTRIES = (
    _e("structure", "describe / context (title, fn)", "a folder named after the title"),
    _e("structure", "it / specify (title, fn)", "a flow spec, `name:` the title"),
    _e("structure", "beforeEach(fn) / afterEach(fn)", "the folder's before_each.steps.yaml / after_each.steps.yaml"),
    _e("structure", "it.skip / xit", "a flow spec in needs-review/"),
    _e("structure", "before / after", "nothing", "not_converted", "every flow starts in a fresh browser context"),
    _e("reuse", "Cypress.Commands.add(name, fn) (cypress/support/commands.js)", "steps/<name>.steps.yaml with a "
       "parameter per argument, `use:`; what it returns is its callers' subject"),
    _e("reuse", "a function declared in a describe or a test", "steps/<name>.steps.yaml, `use:`"),
    _e("reuse", "let/const x = <literal>", "written into each step that uses it"),
)


class Cypress:
    """Cypress's side of an import. One instance serves a whole suite: the support files' commands
    (walked first) are every test file's."""

    structure = STRUCTURE

    def __init__(self) -> None:
        #: custom commands by name: the walk of the file that adds each, and its helper
        self.commands: dict[str, tuple[Walk, Helper]] = {}

    def recognises(self, source: Source) -> bool:
        if b"@playwright/test" in source.data:
            return False
        return any(_root_name(source, c) in ("cy", "Cypress") for c in calls_in(source.root))

    @staticmethod
    def is_support(source: Source) -> bool:
        """A file that adds commands and holds no test (cypress/support/commands.js)."""
        tests = any(text(source, c.child_by_field_name("function") or c) in STRUCTURE for c in calls_in(source.root))
        return not tests and b"Cypress.Commands.add" in source.data

    def fixture(self, name: str, annotation: str) -> Any | None:
        return None

    def carries(self, name: str) -> bool:
        return name.startswith(_ALIAS) and name != WITHIN

    def collect(self, walk: Walk, node: Node) -> None:
        """`Cypress.Commands.add(name, fn)` at the top of a file: a helper named after the command."""
        call = children(node)[0] if node.type == "expression_statement" and children(node) else None
        callee = call.child_by_field_name("function") if call is not None else None
        if call is None or call.type != "call_expression" or callee is None or \
                text(walk.source, callee) != "Cypress.Commands.add":
            return
        args = children(call.child_by_field_name("arguments"))
        fn = args[-1] if args and args[-1].type in ("arrow_function", "function_expression", "function") else None
        if fn is None or args[0].type != "string":
            return
        if len(args) == 3:
            return  # a child command ({ prevSubject }): not a steps file (its row says why)
        name = value_of(walk.source, args[0], {})
        walk.add_helper(fn, None, call, label=name)
        self.commands[name] = (walk, walk.helpers[name])

    def bound(self, walk: Walk, node: Node, scope: Mapping[str, Any]) -> Any:
        callee = node.child_by_field_name("function") if node.type == "call_expression" else None
        if callee is not None and text(walk.source, callee) == "Cypress.log":
            return Noted(LogHandle(), "approximated", "Cypress's command log: flowwalk's report lists the steps "
                                                      "instead")
        raise Unevaluable(node, "a Cypress chain yields its subject only to .then(): alias it with .as() and "
                                "cy.get('@name') instead of a variable")

    def statement(self, walk: Walk, node: Node, scope: Mapping[str, Any]) -> Mapped | None:
        callee = text(walk.source, node.child_by_field_name("function"))  # type: ignore[arg-type]
        if callee == "Cypress.Commands.add":
            args = children(node.child_by_field_name("arguments"))
            if len(args) == 3:
                return Mapped((), "not_converted", "a child or dual command ({ prevSubject }) acts on its caller's "
                                                   "subject: flowwalk's steps files take parameters, not a subject")
            name = value_of(walk.source, args[0], {}) if args and args[0].type == "string" else ""
            return Mapped((), "converted", f"the command's steps file steps/{kebab(name)}.steps.yaml")
        if callee in ("Cypress.Commands.overwrite", "Cypress.on", "Cypress.config"):
            return Mapped((), "not_converted", f"{callee} changes Cypress itself: flowwalk has no equivalent")
        root, segments = chain_of(walk.source, node)
        name = text(walk.source, root) if root.type == "identifier" else ""
        if isinstance(scope.get(name), LogHandle):
            return Mapped((), "approximated", "Cypress's command log: flowwalk's report lists the steps instead")
        helper = _helper_call(walk, root)
        if (name != "cy" and helper is None) or not segments:
            return None
        chain = _Chain(walk, scope if isinstance(scope, dict) else dict(scope))
        try:
            if helper is not None:
                # items().should(...): a function of the file whose returned query the chain goes on from
                self._command(chain, helper, walk, walk.helpers[helper],
                              children(root.child_by_field_name("arguments")))
            self._links(chain, segments)
        except (Unfit, Unevaluable) as unfit:
            checks = sum(1 for s in segments if s.name in ("should", "and", "checkA11y"))
            return Mapped((), "not_converted", unfit.why, checks=checks, blocks=tuple(chain.blocks))
        detail = "; ".join([*([_detail(chain.steps)] if chain.steps or not chain.notes else []), *chain.notes])
        return Mapped(tuple(chain.steps), chain.outcome, detail, checks=chain.checks, blocks=tuple(chain.blocks))

    def _links(self, chain: _Chain, segments: list[Segment]) -> None:
        for i, seg in enumerate(segments):
            args = children(seg.args) if seg.args is not None else []
            if seg.args is None:
                raise Unfit(f"'.{seg.name}' is a property; Cypress chains call commands")
            if seg.name in self.commands and seg.name not in COMMANDS:
                self._command(chain, seg.name, *self.commands[seg.name], args)
                continue
            command = COMMANDS.get(seg.name)
            if command is None:
                raise Unfit(f"no row of the table maps the command '{seg.name}'")
            before = len(chain.steps), chain.subject
            if seg.name == "contains":
                _contains(chain, args, seg, i > 0 and chain.queried)
            else:
                command.link(chain, args, seg)
            if not command.query and (len(chain.steps), chain.subject) != before:
                # an action, a check or a parent command: the chain's end is no longer a bare query
                chain.queried = False
                chain.contained = None
        if chain.contained is not None:
            where, value = chain.contained
            chain.steps.append({"type": "expect", "kind": "text_contains", "selector": where, "value": value,
                                "match_case": True})
            chain.checks += 1
        elif chain.queried and isinstance(chain.subject, Locator):
            step = {"type": "expect", "kind": "selector_exists", "selector": chain.subject.selector}
            if not chain.steps or chain.steps[-1] != step:
                chain.steps.append(step)
        if isinstance(chain.subject, Locator) and chain.subject.approx and chain.steps:
            chain.note(chain.subject.approx)

    def _command(self, chain: _Chain, name: str, walk: Walk, helper: Helper, args: list[Node]) -> None:
        """`cy.<custom command>(args)` (or a function of the file): use its steps file; its returned
        query is the chain's subject."""
        inner = walk.helper_block(name)
        if inner is None:
            raise Unfit("a command that calls itself")
        if walk is not chain.walk and walk not in chain.walk.others:
            chain.walk.others.append(walk)
        values = [_textish(chain.walk.source, a, chain.scope) for a in args]
        names = list(helper.params)
        if len(values) > len(names):
            raise Unfit(f"{name} takes {len(names)} argument(s)")
        given = {n: spelled(v) if isinstance(v, Param) else v for n, v in zip(names, values)}
        chain.blocks.append(inner)
        if inner.steps:
            chain.steps.append(Use(name, given))
        else:
            chain.note(f"{name}() has no step of its own (its rows say why)")
        chain.subject = self._returned(walk, helper, dict(zip(names, values)))
        chain.queried = False
        chain.contained = None

    def _returned(self, walk: Walk, helper: Helper, given: dict[str, Any]) -> Any:
        """The subject a command's `return cy...` yields its caller, with the caller's arguments."""
        body = helper.node.child_by_field_name("body")
        returned = next((s for s in children(body) if s.type == "return_statement"), None) if body else None
        if returned is None or not children(returned):
            return None
        root, segments = chain_of(walk.source, children(returned)[0])
        if root.type != "identifier" or text(walk.source, root) != "cy":
            return None
        chain = _Chain(walk, {**(walk.scope if helper.scope is None else helper.scope), **given})
        try:
            for seg in segments:
                command = COMMANDS.get(seg.name)
                if command is None or not command.query:
                    return None
                args = children(seg.args) if seg.args is not None else []
                if seg.name == "contains":
                    _contains(chain, args, seg, chain.queried)
                else:
                    command.link(chain, args, seg)
        except (Unfit, Unevaluable):
            return None
        return chain.subject


def _detail(steps: list[Any]) -> str:
    names = []
    for step in steps:
        if isinstance(step, Use):
            names.append(f"use: steps/{kebab(step.helper)}.steps.yaml")
        elif isinstance(step, dict):
            kind = step.get("action") or step.get("kind") or step.get("type")
            names.append(f"{step['type']} {kind}" if step["type"] in ("act", "expect") else str(kind))
    return ", ".join(dict.fromkeys(names)) or "no step: a query whose subject later commands use"


def entries() -> list[Entry]:
    return [*STRUCTURE_ENTRIES, *(c.entry for n, c in COMMANDS.items() if n != "and"),
            *(e for _, e in CHAINERS.values())]


def render_table() -> str:
    """The Cypress table as Markdown, for docs/import.md."""
    out = ["| group | Cypress | flow spec | how | note |", "|---|---|---|---|---|"]
    seen = set()
    for e in entries():
        if e.call in seen:
            continue
        seen.add(e.call)
        out.append(f"| {e.group} | `{e.call}` | {e.becomes} | {e.outcome.replace('_', ' ')} | {e.note} |")
    return "\n".join(out) + "\n"
