"""`{{NAME}}` placeholders: finding, substituting, checking availability, and redacting secrets.

Two kinds of names (flow-spec v1, "Variables"): run variables (`--var`, `flowwalk.yaml`, a rule
file's `variables:`, values pulled by `extract`) may appear in any string and also in reports;
secrets (`--secret NAME`, the config's or a rule file's `secrets:`, read from environment
variables) resolve only in the `value` of a fill or press step, at the browser boundary, and are
redacted from every string that leaves the run. Regular expressions (`url_matches`,
`text_matches`) are literal: they are never substituted, so their braces are not placeholders.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any, Iterable, Iterator, Mapping
from urllib.parse import quote as url_quote, quote_plus

from flowwalk.errors import Location, Problem
from flowwalk.model import Act, Emit, Expect, Extract, Goto, Rule, Scenario, Step, VerifierRef, Wait
from flowwalk.dag import ancestors
from flowwalk.spec.source import NAME_SHOWN, escape, quote

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
#: the step actions whose `value` may hold a secret
SECRET_ACTIONS = ("fill", "press", "type")
#: expect kinds whose value is a literal regular expression, never substituted
LITERAL_KINDS = ("url_matches", "text_matches")
MASK = "***"


def placeholders(text: str | None) -> list[str]:
    """The names used in `text`, in order of first use, each once."""
    if not text:
        return []
    return list(dict.fromkeys(PLACEHOLDER.findall(text)))


def substitute(text: str, values: Mapping[str, str]) -> str:
    """Replace every `{{ NAME }}` whose name is in `values`; unknown names stay as written."""
    if "{{" not in text:
        return text

    def repl(match: re.Match[str]) -> str:
        name = match.group(1)
        return values[name] if name in values else match.group(0)

    return PLACEHOLDER.sub(repl, text)


# --- where strings sit in a scenario --------------------------------------------------------------


def _verifier_strings(ref: VerifierRef) -> Iterator[tuple[str, str]]:
    for key in ("selector", "expected"):
        value = ref.options.get(key)
        if isinstance(value, str):
            yield key, value
    http = ref.options.get("http")
    if isinstance(http, Mapping):
        for key in ("url", "equals"):
            if isinstance(http.get(key), str):
                yield f"http {key}", http[key]
    expect = ref.options.get("expect")
    if isinstance(expect, Expect):
        for where, value in step_strings(expect):
            yield f"expect {where}", value
    args = ref.options.get("args")
    if isinstance(args, Mapping):
        for key, value in args.items():
            if isinstance(value, str):
                yield f"option {key}", value


def step_strings(step: Step) -> Iterator[tuple[str, str]]:
    """(field, text) of every substitutable string of a step. Regex values are left out."""
    if isinstance(step, Goto):
        yield "url", step.url
    elif isinstance(step, Act):
        for name in ("selector", "target", "value", "await_selector", "to_selector"):
            value = getattr(step, name)
            if value is not None:
                yield name.replace("_selector", ""), value
        if step.dialog is not None:
            for name in ("message", "answer"):
                value = getattr(step.dialog, name)
                if value is not None:
                    yield f"dialog {name}", value
    elif isinstance(step, Expect):
        if step.kind not in LITERAL_KINDS and step.value is not None:
            yield "value", step.value
        for name in ("selector", "vendor", "event", "attr"):
            value = getattr(step, name)
            if value is not None:
                yield name, value
        for n, listed in enumerate(step.items or (), 1):
            yield f"item {n}", listed
    elif isinstance(step, Wait):
        if step.for_selector is not None:
            yield "for", step.for_selector
    elif isinstance(step, Extract):
        yield "selector", step.selector
    elif isinstance(step, Emit):
        for item in step.fields:
            for name in ("selector", "attr", "expr"):
                value = getattr(item, name)
                if value is not None:
                    yield f"field {item.name} {name}", value
    for ref in step.verify:
        for where, value in _verifier_strings(ref):
            yield f"{ref.name} verifier {where}", value


def _rule_strings(rule: Rule) -> Iterator[tuple[str, str]]:
    if rule.child_scope:
        yield "child_scope", rule.child_scope
    for selector in rule.interrupt_selectors:
        yield "interrupts override", selector
    for ref in rule.verify:
        for where, value in _verifier_strings(ref):
            yield f"{ref.name} verifier {where}", value


def _scenario_strings(scenario: Scenario) -> Iterator[tuple[str, str]]:
    if scenario.entry_url:
        yield "url", scenario.entry_url
    for selector in scenario.dismiss_selectors:
        yield "dismiss selector", selector


def missing_variables(scenario: Scenario, available: Iterable[str]) -> list[tuple[Location, str]]:
    """Each (location, name) the run cannot supply, in file order.

    A name is available when it is in `available` (the run's variables and secret names, and
    `BASE_URL` when a base URL is set), a default of the file (`scenario.variables`), or is produced
    by an `extract` that runs before: an earlier step of the same rule, or any step of an ancestor
    rule. `url_matches` / `text_matches` values are literal and never count.
    """
    have = set(available) | set(scenario.variables)
    missing: dict[tuple[Location, str], None] = {}
    for _, text in _scenario_strings(scenario):
        for name in placeholders(text):
            if name not in have:
                missing[(scenario.loc, name)] = None
    extracted = {rule.name: {s.into for s in rule.steps if isinstance(s, Extract)} for rule in scenario.rules}
    ancestry = ancestors(scenario.rules)
    for rule in scenario.rules:
        known = set(have)
        for parent in ancestry.get(rule.name, ()):
            known |= extracted.get(parent, set())
        for _, text in _rule_strings(rule):
            for name in placeholders(text):
                if name not in known:
                    missing[(rule.loc, name)] = None
        for step in rule.steps:
            for _, text in step_strings(step):
                for name in placeholders(text):
                    if name not in known:
                        missing[(step.loc, name)] = None
            if isinstance(step, Extract):
                known.add(step.into)
    return sorted(missing, key=lambda item: (item[0].line, item[0].col, item[1]))


def _step_label(rule: Rule, index: int, step: Step, scenario: Scenario) -> str:
    where = f"step {index} ({escape(step.text)})"
    return where if scenario.kind == "flow" else f"{where} of rule {quote(rule.name, NAME_SHOWN)}"


def secret_misuse(scenario: Scenario, secret_names: Iterable[str]) -> list[Problem]:
    """A secret placeholder anywhere but the value of a fill or press step, refused at load."""
    secrets = set(secret_names) | set(scenario.secrets)
    if not secrets:
        return []
    hint = ("secrets resolve only in the value of fill and press steps; use a plain variable "
            "(--var) here, or type the secret with a fill step")
    problems: list[Problem] = []

    def check(loc: Location, where: str, field: str, text: str) -> None:
        for name in placeholders(text):
            if name in secrets:
                problems.append(Problem(loc, f"secret {{{{{name}}}}} is used in the {field} of {where}", hint))

    for field, text in _scenario_strings(scenario):
        check(scenario.loc, f"scenario {quote(scenario.name, NAME_SHOWN)}", field, text)
    for rule in scenario.rules:
        for field, text in _rule_strings(rule):
            check(rule.loc, f"rule {quote(rule.name, NAME_SHOWN)}", field, text)
        for index, step in enumerate(rule.steps, start=1):
            where = _step_label(rule, index, step, scenario)
            for field, text in step_strings(step):
                if field == "value" and isinstance(step, Act) and step.action in SECRET_ACTIONS:
                    continue
                check(step.loc, where, field, text)
            if isinstance(step, Expect) and step.kind in LITERAL_KINDS and step.value:
                # never substituted, so a secret here would be matched literally and can never work
                check(step.loc, where, "regular expression", step.value)
            if isinstance(step, Extract) and step.into in secrets:
                into = quote(step.into, NAME_SHOWN)
                problems.append(Problem(step.loc, f"{where} extracts into {into}, which is a secret",
                                        "extract into a name of its own; secrets come only from the environment"))
    return problems


# --- redaction -------------------------------------------------------------------------------------


class Redactor:
    """Replaces every secret value, and its percent-encoded (`+` for spaces with or without the rest
    encoded) and JSON-escaped forms, with `***`.

    Longer values are replaced first, so a secret that contains another is masked whole.
    """

    def __init__(self, values: Iterable[str], *, names: Mapping[str, str] | None = None):
        # names: secret value -> its name; a form of a named value becomes `{{NAME}}` instead of
        # `***` (a prompt to a model shows the placeholder, so the step still reads sensibly)
        forms: set[str] = set()
        self._names: dict[str, str] = {}
        for value in values:
            if not value:
                continue
            before = set(forms)
            forms.add(value)
            # a query decoded with decodeURIComponent keeps `+` for each space
            forms.add(value.replace(" ", "+"))
            forms.add(url_quote(value, safe=""))
            forms.add(quote_plus(value, safe=""))
            forms.add(url_quote(value, safe="/:"))
            forms.add(json.dumps(value)[1:-1])
            forms.add(json.dumps(value, ensure_ascii=False)[1:-1])
            # a JSON string written into another JSON string (a record holding a serialised body)
            forms.add(json.dumps(json.dumps(value)[1:-1])[1:-1])
            if names and value in names:
                for form in forms - before:
                    self._names.setdefault(form, "{{" + names[value] + "}}")
        ordered = sorted((f for f in forms if f), key=lambda f: (-len(f), f))
        self._pattern = re.compile("|".join(re.escape(f) for f in ordered)) if ordered else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, value: str) -> str:
        if self._pattern is None or not value:
            return value
        if self._names:
            return self._pattern.sub(lambda m: self._names.get(m.group(0), MASK), value)
        return self._pattern.sub(MASK, value)

    def deep(self, obj: Any) -> Any:
        """A copy of `obj` with every string (dict keys too) redacted; dataclasses are rebuilt."""
        if self._pattern is None:
            return obj
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, dict):
            return {self.deep(k): self.deep(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self.deep(v) for v in obj]
        if isinstance(obj, tuple):
            if hasattr(obj, "_fields"):  # a namedtuple
                return type(obj)(*(self.deep(v) for v in obj))
            return tuple(self.deep(v) for v in obj)
        if isinstance(obj, (set, frozenset)):
            return type(obj)(self.deep(v) for v in obj)
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            changes = {f.name: self.deep(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.init}
            return dataclasses.replace(obj, **changes)
        if isinstance(obj, bytes):
            return self.text(obj.decode("utf-8", errors="replace")).encode("utf-8")
        return obj
