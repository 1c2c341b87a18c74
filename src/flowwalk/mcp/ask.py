"""Asking the person, in the middle of a tool call (MCP elicitation), on both protocol generations.

Only when the client declared the form-elicitation capability; otherwise `Asker.can` is false and
the tools behave as they always have. How a question travels depends on the negotiated version:

- before 2026-07-28 (the handshake era: the clients people use today) the server sends
  `elicitation/create` mid-call and waits for the answer;
- from 2026-07-28 a server may not send requests of its own: the tool returns an
  `InputRequiredResult` naming the questions, with the answers so far in `request_state`, and the
  client calls the tool again with the person's answers. The tool body runs again from the start,
  so every question is asked before any work is done; a question already answered is answered
  from the state (and checked again, like a fresh answer).

Every accepted answer is checked (`check` returns what is wrong, or None): the schema first, then
the tool's own rules. A refused answer is asked again, saying what was wrong, at most
`MAX_TRIES` times; the refusal never quotes the answer (a person may have typed a password where
a name belongs). Decline and cancel are outcomes the tool turns into a clean answer with what was
done so far. No question ever asks for a secret value: the MCP specification forbids sensitive
values in form elicitation, so a secret is asked for by the NAME of the server's environment
variable that holds it, and `Asker.ask` refuses to send a message that holds a known secret value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, TypeVar

from mcp.server.elicitation import render_elicitation_schema
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from mcp_types.version import is_version_at_least
from pydantic import BaseModel, ValidationError

__all__ = ["Asker", "Asked", "NeedInput", "MAX_TRIES", "INPUT_REQUIRED_VERSION"]

#: the first protocol version that asks through `InputRequiredResult` instead of a server request
INPUT_REQUIRED_VERSION = "2026-07-28"
#: how many times one question is asked when the answers are refused
MAX_TRIES = 3
_STATE_VERSION = 1

M = TypeVar("M", bound=BaseModel)
Action = Literal["accept", "decline", "cancel"]


def is_modern(version: str | None) -> bool:
    return version is not None and is_version_at_least(version, INPUT_REQUIRED_VERSION)


@dataclass(frozen=True)
class Asked:
    """One question's outcome: the validated answer when accepted."""

    key: str
    message: str
    action: Action
    data: BaseModel | None = None


class NeedInput(Exception):
    """(2026-07-28 and later) the client must answer `result`'s questions and call the tool again."""

    def __init__(self, result: InputRequiredResult):
        super().__init__("input required")
        self.result = result


@dataclass
class Asker:
    """The questions of one tool call. `Asker.of(ctx)` reads the client's capability and the protocol."""

    ctx: Any
    can: bool
    modern: bool
    #: secret values that must never be part of a question (the last guard; questions use names)
    hidden: list[str] = field(default_factory=list)
    #: (modern) the answers of earlier rounds, by question key: {"action", "content"}
    state: dict[str, dict[str, Any]] = field(default_factory=dict)
    asked: list[Asked] = field(default_factory=list)

    @classmethod
    def of(cls, ctx: Any, hidden: list[str] | None = None) -> Asker:
        caps = getattr(ctx, "client_capabilities", None)
        elicitation = getattr(caps, "elicitation", None) if caps is not None else None
        # a bare `elicitation: {}` (before modes existed) means form support; url-only does not
        form = elicitation is not None and (elicitation.form is not None or elicitation.url is None)
        version = getattr(ctx, "protocol_version", None)
        modern = is_modern(version)
        if form and not modern:
            session = ctx.request_context.session
            form = bool(getattr(session, "can_send_request", True))
        asker = cls(ctx=ctx, can=form, modern=modern, hidden=list(hidden or []))
        if modern:
            asker.state = _decode(getattr(ctx, "request_state", None))
        return asker

    async def ask(self, key: str, message: str, schema: type[M], check: Callable[[M], str | None]) -> Asked:
        """Ask until an answer passes `check` (at most MAX_TRIES times); decline and cancel end it.

        Raises NeedInput (modern protocol: the question goes back to the client), or ValueError
        when every answer was refused (the message says why, never what was typed)."""
        if not self.can:
            raise RuntimeError("the client cannot be asked (check Asker.can first)")
        text = message
        problem = ""
        for attempt in range(1, MAX_TRIES + 1):
            round_key = key if attempt == 1 else f"{key}.{attempt}"
            self._guard(text)
            action, content = await self._once(round_key, text, schema)
            if action != "accept":
                outcome = Asked(key, message, action)
                self.asked.append(outcome)
                return outcome
            try:
                data = schema.model_validate(content or {})
            except ValidationError as error:
                problem = _schema_problem(error)
            else:
                found = check(data)
                if found is None:
                    outcome = Asked(key, message, "accept", data)
                    self.asked.append(outcome)
                    return outcome
                problem = found
            text = f"{message}\n\nThe last answer was refused: {problem}. Please answer again."
        raise ValueError(f"every answer to the question was refused ({MAX_TRIES} tries); the last: {problem}")

    async def _once(self, key: str, message: str, schema: type[BaseModel]) -> tuple[Action, dict[str, Any] | None]:
        requested = render_elicitation_schema(schema)
        if not self.modern:
            try:
                result = await self.ctx.request_context.session.elicit_form(
                    message=message, requested_schema=requested, related_request_id=self.ctx.request_id)
            except MCPError:
                # the client declared elicitation but could not put the question: as if cancelled
                return "cancel", None
            return result.action, (dict(result.content) if result.content is not None else None)
        if key in self.state:
            kept = self.state[key]
            return kept["action"], kept.get("content")
        answers = getattr(self.ctx, "input_responses", None) or {}
        answer = answers.get(key)
        if isinstance(answer, ElicitResult):
            content = dict(answer.content) if answer.content is not None else None
            self.state[key] = {"action": answer.action, "content": content}
            return answer.action, content
        request = ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=requested))
        raise NeedInput(InputRequiredResult(input_requests={key: request}, request_state=_encode(self.state)))

    def _guard(self, text: str) -> None:
        for value in self.hidden:
            if value and value in text:
                raise RuntimeError("a question would have carried a secret value; it was not sent")


def _schema_problem(error: ValidationError) -> str:
    """What is wrong with an answer, by field, without quoting what was typed."""
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item.get("loc") or ()) or "the answer"
        parts.append(f"{where}: {item.get('msg', 'invalid')}")
    return "; ".join(parts)


def _encode(state: dict[str, dict[str, Any]]) -> str:
    return json.dumps({"v": _STATE_VERSION, "answers": state}, separators=(",", ":"), sort_keys=True)


def _decode(text: str | None) -> dict[str, dict[str, Any]]:
    """The answers of earlier rounds; anything unreadable counts as none (the questions come again)."""
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    if not isinstance(data, dict) or data.get("v") != _STATE_VERSION or not isinstance(data.get("answers"), dict):
        return {}
    out: dict[str, dict[str, Any]] = {}
    for key, value in data["answers"].items():
        if isinstance(value, dict) and value.get("action") in ("accept", "decline", "cancel"):
            content = value.get("content")
            out[str(key)] = {"action": value["action"], "content": content if isinstance(content, dict) else None}
    return out
