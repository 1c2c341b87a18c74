"""`Agent`: ask a model one question through the prompt boundary, under the caps, with a record per call.

    agent = Agent.open(config, env=os.environ, secrets={"PASSWORD": "..."}, record=events.append)
    answer = agent.ask(question, validate, step="login.flow.yaml#log in:3")

A question becomes a prompt (`prompt.build_prompt`: page data fenced with a nonce, secrets as
placeholders), one request (`client.ChatClient`), and a locally validated answer: the reply must
hold a JSON object and `validate` must accept it. An invalid answer is asked once more, saying
what was wrong; a second invalid answer raises `NoValidAnswer`. Every request, answered or not,
produces one `ModelCall` for `record` (provider, model, tokens, latency, the decision, the
prompt's hash; never the prompt or the reply). `choose_candidate` is the question the healer asks.

Failure classes (flow-spec v1): `ModelUnavailable` and `NoValidAnswer` are `agent_uncertain`;
`QuotaExceeded` is `quota_exceeded`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Generic, Hashable, Mapping, Sequence, TypeVar

from flowwalk.agent.budget import CallBudget, QuotaExceeded
from flowwalk.agent.client import ChatClient, Completion, ModelUnavailable
from flowwalk.agent.prompt import MAX_ITEMS, InvalidAnswer, Question, build_prompt, read_object, read_pick
from flowwalk.agent.prompt import CANDIDATE_FORMAT, CANDIDATE_TASK
from flowwalk.llm import LLMConfig
from flowwalk.spec.variables import Redactor

__all__ = ["Agent", "Answer", "ModelCall", "NoValidAnswer", "Choice", "choose_candidate", "candidate_question"]

T = TypeVar("T")


class NoValidAnswer(Exception):
    """The model answered twice and neither answer was usable."""


@dataclass(frozen=True)
class ModelCall:
    """One request to the model, as recorded in emit.jsonl (the `model_called` event)."""

    purpose: str
    provider: str
    model: str
    attempt: int                   # 1, or 2 for the retry after an invalid answer
    call: int                      # its number among the run's requests (1-based)
    outcome: str                   # answered | invalid | unavailable
    decision: str                  # what was decided ("candidate 3", "none", ...) or why not
    prompt_sha256: str
    latency_ms: float
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    status: int | None = None      # the HTTP status, when there was one
    step: str | None = None        # the step the question was for


@dataclass(frozen=True)
class Answer(Generic[T]):
    value: T
    reason: str                    # the model's own words, never recorded by flowwalk
    calls: tuple[ModelCall, ...]


class Agent:
    """The run's model: one client, one budget, one place that records calls. Thread-safe."""

    def __init__(self, config: LLMConfig, *, api_key: str | None = None,
                 secrets: Mapping[str, str] | None = None,
                 record: Callable[[ModelCall], None] | None = None, client: ChatClient | None = None):
        self.config = config
        self.client = client or ChatClient(config, api_key)
        self.budget = CallBudget(config.max_calls, config.max_calls_per_step)
        named = {value: name for name, value in (secrets or {}).items() if value}
        self._placeholders = Redactor(named, names=named)
        self._record = record

    @classmethod
    def open(cls, config: LLMConfig, *, env: Mapping[str, str] | None = None,
             secrets: Mapping[str, str] | None = None,
             record: Callable[[ModelCall], None] | None = None) -> "Agent":
        """An agent whose key is read from `config.api_key_env` in `env` (the process environment)."""
        env = os.environ if env is None else env
        key = env.get(config.api_key_env) if config.api_key_env else None
        # the key is a secret of the run too: it must never be shown to the model either
        hidden = dict(secrets or {})
        if key and config.api_key_env:
            hidden.setdefault(config.api_key_env, key)
        return cls(config, api_key=key or None, secrets=hidden, record=record)

    @property
    def exhausted(self) -> bool:
        return self.budget.exhausted

    def ask(self, question: Question, validate: Callable[[dict[str, Any]], T], *,
            step: Hashable | None = None, timeout_s: float | None = None,
            describe: Callable[[T], str] = str,
            record: Callable[[ModelCall], None] | None = None) -> Answer[T]:
        """The validated answer to `question`.

        Raises QuotaExceeded (no request sent), ModelUnavailable (agent_uncertain) or NoValidAnswer.
        `validate` gets the reply's JSON object and raises InvalidAnswer (or returns the value);
        `describe` turns an accepted value into the recorded decision. `record`, when given, gets
        this question's calls instead of the agent's own `record` (the walker records them with
        the step they belong to).
        """
        self.budget.open_question(step)
        calls: list[ModelCall] = []
        note: str | None = None
        for attempt in (1, 2):
            prompt = build_prompt(question, self._placeholders, note=note)
            number = self.budget.take_call()
            base = dict(purpose=question.purpose, provider=self.config.provider, model=self.config.model,
                        attempt=attempt, call=number, prompt_sha256=prompt.sha256,
                        step=None if step is None else str(step))
            try:
                completion = self.client.complete(prompt.messages, timeout_s=timeout_s)
            except ModelUnavailable as exc:
                self._emit(calls, record, ModelCall(outcome="unavailable", decision=str(exc), latency_ms=exc.latency_ms,
                                            status=exc.status, **base))  # type: ignore[arg-type]
                raise
            try:
                data = read_object(completion.content)
                value = validate(data)
            except InvalidAnswer as exc:
                self._emit(calls, record, _done(base, completion, "invalid", f"refused: {exc}"))
                if attempt == 2:
                    raise NoValidAnswer(f"the model's answer was refused twice; last: {exc}") from None
                note = (f"Your previous answer was refused: {exc}. Answer again with only the JSON "
                        f"object: {question.answer_format}")
                continue
            reason = data.get("reason")
            self._emit(calls, record, _done(base, completion, "answered", describe(value)))
            return Answer(value, reason if isinstance(reason, str) else "", tuple(calls))
        raise AssertionError("unreachable")  # pragma: no cover

    def _emit(self, calls: list[ModelCall], record: Callable[[ModelCall], None] | None, call: ModelCall) -> None:
        calls.append(call)
        sink = record or self._record
        if sink is not None:
            sink(call)


def _done(base: dict[str, Any], completion: Completion, outcome: str, decision: str) -> ModelCall:
    return ModelCall(outcome=outcome, decision=decision, latency_ms=completion.latency_ms,
                     prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens,
                     status=completion.status, **base)


# --- the healer's question ---------------------------------------------------------------------



@dataclass(frozen=True)
class Choice:
    """The model's pick: an index into the candidates given (0-based), or None for "none of them"."""

    index: int | None
    reason: str
    calls: tuple[ModelCall, ...]


def candidate_question(action: str, target: str, candidates: Sequence[str], context: str = "") -> Question:
    """Which listed element does the step mean? Items and context are page data (fenced)."""
    return Question(
        purpose="heal",
        task=CANDIDATE_TASK,
        answer_format=CANDIDATE_FORMAT,
        facts={"action": action, "target": target},
        items=tuple(candidates)[:MAX_ITEMS],
        context=context,
    )


def choose_candidate(agent: Agent, action: str, target: str, candidates: Sequence[str], context: str = "", *,
                     step: Hashable | None = None, timeout_s: float | None = None,
                     record: Callable[[ModelCall], None] | None = None) -> Choice:
    """Ask which candidate the target means. Only `candidate` of the answer is read: the action,
    value, URL and checks stay the spec's whatever else the reply holds."""
    shown = min(len(candidates), MAX_ITEMS)

    def validate(data: dict[str, Any]) -> int | None:
        pick = read_pick(data, shown)
        return None if pick is None else pick - 1

    answer = agent.ask(candidate_question(action, target, candidates, context), validate, step=step,
                       timeout_s=timeout_s, record=record,
                       describe=lambda i: "none" if i is None else f"candidate {i + 1} of {shown}")
    return Choice(answer.value, answer.reason, answer.calls)



