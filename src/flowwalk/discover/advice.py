"""The optional model step: better names and descriptions, and which deterministic checks to keep.

Only when `flowwalk.yaml` configures a `model:` (the one client in `agent/`, with its fenced
prompt, secret placeholders, caps and call records). One question for the whole crawl: each spec
is an item showing its page, feature and numbered checks (page text is data, never instructions).
What comes back is held to what the crawl saw, and anything else is dropped and recorded:

- a name (at most 120 characters) and a description (at most 500), one line each, with no URL
  outside the allowed hosts;
- `keep`: numbers of the spec's own checks; at least one must stay, and nothing new is invented;
- `extra`: a check to add, only `visible` with a selector the recorded page survey has matching
  exactly one element, or `url_contains` with the path of a page the crawl reached.

Without a model, or when it is unavailable, over its cap or answers twice with nothing usable,
the deterministic specs are written as they are (and the reason is recorded).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Callable, Mapping, Sequence
from urllib.parse import urlsplit

from flowwalk.browser.explored import Element
from flowwalk.discover.features import Feature
from flowwalk.discover.generate import GeneratedSpec, render_spec
from flowwalk.discover.options import DiscoverOptions
from flowwalk.discover.record import ModelCallRecord, ModelDrop
from flowwalk.discover.safety import host_in_scope
from flowwalk.discover.state import CrawledPage, CrawlState, Step
from flowwalk.settings import Settings

__all__ = ["advise_specs", "advice_question"]

_URL = re.compile(r"https?://[^\s\"'<>]+", re.I)
ANSWER_FORMAT = ('{"specs": [{"spec": <number>, "name": "<short>", "description": "<one sentence>", '
                 '"keep": [<check numbers>], "extra": [{"kind": "visible", "selector": "<css>"} | '
                 '{"kind": "url_contains", "value": "<path>"}]}], "reason": "<short>"}')


def _checks(spec: GeneratedSpec) -> list[int]:
    """Indexes (in data["steps"]) of the spec's own expects, after the steps that lead to the page."""
    return [i for i, step in enumerate(spec.data["steps"]) if i >= spec.prefix_steps and step.get("type") == "expect"]


def _describe(spec: GeneratedSpec, number: int) -> str:
    lines = [f"spec {number}: {spec.data['name']} ({spec.feature})"]
    for n, index in enumerate(_checks(spec), 1):
        step = spec.data["steps"][index]
        lines.append(f"  check {n}: {step.get('kind')} {step.get('selector', '')} {step.get('value', step.get('equals', ''))}".rstrip())
    return "\n".join(lines)


def _one_line(value: Any, limit: int) -> str | None:
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    return text[:limit] if text else None


def advice_question(specs: list[GeneratedSpec], state: CrawlState) -> Any:
    """The one question the model is asked about a crawl's specs (an `agent.Question`)."""
    from flowwalk.agent import Question

    return Question(purpose="discover",
                    task=("These flow specs were generated from a crawl of a web site. For each, propose a "
                          "clear name, a one-sentence description, and which of its numbered checks a "
                          "person would keep. You may add a check only from the data shown."),
                    answer_format=ANSWER_FORMAT,
                    facts={"site": state.start_url, "specs": str(len(specs))},
                    items=[_describe(spec, n) for n, spec in enumerate(specs, 1)])


class _Given:
    """An answer given instead of a model's (`discover` over MCP with `advice`): read by the same
    validator, applied by the same rules, refused the same way (NoValidAnswer, recorded as a drop)."""

    def __init__(self, data: Mapping[str, Any]):
        self.data = data

    def ask(self, question: Any, validate: Callable[[dict[str, Any]], Any], **_: Any) -> Any:
        from flowwalk.agent import Answer, InvalidAnswer, NoValidAnswer

        if not isinstance(self.data, Mapping):
            raise NoValidAnswer("the given answer is not a JSON object")
        try:
            value = validate(dict(self.data))
        except InvalidAnswer as error:
            raise NoValidAnswer(f"the given answer was refused: {error}") from None
        reason = self.data.get("reason")
        return Answer(value, reason if isinstance(reason, str) else "", ())


def _unique_selectors(page: CrawledPage | None) -> set[str]:
    """The selectors the page's survey found matching exactly one element."""
    if page is None:
        return set()
    survey = page.survey
    elements: list[Element] = [*survey.links, *survey.buttons, *survey.lists, *survey.dialogs]
    for form in survey.forms:
        elements += [form, *form.fields, *([form.submit] if form.submit is not None else [])]
    return {c.selector for element in elements for c in element.candidates if c.count == 1}


def advise_specs(specs: list[GeneratedSpec], state: CrawlState, features: Sequence[Feature],
                 settings: Settings, options: DiscoverOptions, say: Callable[[str], None],
                 given: Mapping[str, Any] | None = None,
                 ) -> tuple[list[GeneratedSpec], list[ModelDrop], list[ModelCallRecord]]:
    """(specs, drops, calls): the specs with the model's usable proposals applied (or those of the
    `given` answer, when an agent answered the question itself)."""
    config = settings.llm
    if (config is None and given is None) or not specs:
        return specs, [], []
    from flowwalk.agent import Agent, InvalidAnswer, ModelUnavailable, NoValidAnswer, QuotaExceeded

    calls: list[ModelCallRecord] = []
    agent: Any
    if given is not None:
        agent = _Given(given)   # the agent's own answer, held to the model's rules below
    else:
        assert config is not None
        secrets = {name: settings.secrets.get(name) or "" for name in settings.secrets.names()}
        agent = Agent.open(config, secrets=secrets, record=lambda call: calls.append(ModelCallRecord(
            purpose=call.purpose, outcome=call.outcome, decision=call.decision[:300],
            latency_ms=round(call.latency_ms, 1))))
    start_host = urlsplit(state.start_url).hostname or ""
    allowed = tuple(options.allow_hosts)
    pages = {p.id: p for p in state.pages}
    feature_page = {f.id: f.page for f in features}
    known_paths = {urlsplit(v).path for p in state.pages for v in p.visits}

    def validate(data: dict[str, Any]) -> list[dict[str, Any]]:
        entries = data.get("specs")
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise InvalidAnswer('"specs" must be a list of objects')
        for entry in entries:
            if not isinstance(entry.get("spec"), int) or not 1 <= entry["spec"] <= len(specs):
                raise InvalidAnswer(f'every "spec" must be a number from 1 to {len(specs)}')
        return entries

    question = advice_question(specs, state)
    drops: list[ModelDrop] = []
    try:
        answer = agent.ask(question, validate, describe=lambda v: f"{len(v)} specs advised")
    except (ModelUnavailable, QuotaExceeded, NoValidAnswer) as error:
        say(f"model: no advice ({type(error).__name__}: {str(error)[:200]}); the deterministic specs stand")
        return specs, [ModelDrop(feature="*", what="the whole answer",
                                 reason=f"{type(error).__name__}: {error}"[:300])], calls

    out = list(specs)
    for entry in answer.value:
        spec = out[entry["spec"] - 1]
        page = pages.get(feature_page.get(spec.feature, ""))

        def drop(what: str, reason: str, feature: str = spec.feature) -> None:
            drops.append(ModelDrop(feature=feature, what=what[:200], reason=reason))

        def url_ok(text: str) -> bool:
            return all(host_in_scope(urlsplit(u).hostname or "", start_host, allowed) for u in _URL.findall(text))

        data = spec.data.copy()
        name = _one_line(entry.get("name"), 120)
        if name and url_ok(name):
            data["name"] = name
        elif entry.get("name") is not None:
            drop(f"name {str(entry.get('name'))[:80]!r}", "not a one-line name, or names a URL outside the allowed hosts")
        description = _one_line(entry.get("description"), 500)
        if description and url_ok(description):
            data["description"] = description
        elif entry.get("description") is not None:
            drop("description", "not one line of text, or names a URL outside the allowed hosts")
        checks = _checks(spec)
        keep = entry.get("keep")
        removed: set[int] = set()
        if isinstance(keep, list):
            numbers = {k for k in keep if isinstance(k, int) and 1 <= k <= len(checks)}
            if len(numbers) != len(keep):
                drop(f"keep {keep!r}"[:200], "names checks the spec does not have")
            if numbers:
                removed = {checks[k - 1] for k in range(1, len(checks) + 1) if k not in numbers}
            elif checks and not keep:
                drop("keep []", "a spec keeps at least one check")
        extras: list[Step] = []
        for extra in entry.get("extra") or []:
            if not isinstance(extra, dict):
                drop(repr(extra)[:120], "not a check")
            elif extra.get("kind") == "visible" and isinstance(extra.get("selector"), str):
                if extra["selector"] in _unique_selectors(page):
                    extras.append({"type": "expect", "kind": "visible", "selector": extra["selector"]})
                else:
                    drop(f"visible {extra['selector']!r}"[:200], "the selector does not resolve to one element "
                                                                 "on the recorded page")
            elif extra.get("kind") == "url_contains" and isinstance(extra.get("value"), str):
                value = extra["value"]
                parts = urlsplit(value)
                if (parts.scheme and not url_ok(value)) or (parts.path not in known_paths):
                    drop(f"url_contains {value!r}"[:200], "not a URL of the crawl inside the allowed hosts")
                else:
                    extras.append({"type": "expect", "kind": "url_contains", "value": value})
            else:
                drop(repr(extra)[:120], "only visible and url_contains checks may be added")
        data["steps"] = [s for i, s in enumerate(data["steps"]) if i not in removed] + extras
        data["steps"] = data["steps"][:30]
        out[entry["spec"] - 1] = replace(spec, data=data, text=render_spec(data, spec.header))
    say(f"model: advised {len(answer.value)} specs; {len(drops)} proposals dropped")
    return out, drops, calls
