"""The only code that talks to a language model, and only when `flowwalk.yaml` has a `model:` block.

- `config`: the `model:` block, presets (github, openai, ollama, vllm, llamacpp, litellm), the caps;
- `client`: one OpenAI-compatible chat-completions request over `requests`;
- `prompt`: the boundary (page text fenced with a per-call nonce, secrets as placeholders) and
  reading the JSON answer back;
- `budget`: the run's hard cap and the per-step cap, shared by worker threads;
- `agent`: `Agent.ask(question, validate)`, one retry on an invalid answer, a `ModelCall` record per
  request; `choose_candidate` is the healer's question.

A caller (the healer, `discover`) builds a `Question`, passes a validator that raises
`InvalidAnswer` for anything it cannot use, and maps the three errors to failure classes with
`failure_class(exc)`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flowwalk import lazy
from flowwalk.llm import PRESETS, LLMConfig, build_llm_config

if TYPE_CHECKING:
    from flowwalk.agent.agent import (Agent, Answer, Choice, ModelCall, NoValidAnswer, candidate_question,
                                      choose_candidate)
    from flowwalk.agent.budget import CallBudget, QuotaExceeded
    from flowwalk.agent.client import ChatClient, Completion, ModelUnavailable
    from flowwalk.agent.prompt import (MAX_CONTEXT_BYTES, MAX_ITEMS, InvalidAnswer, Prompt, Question,
                                       build_prompt)

__all__ = ["Agent", "Answer", "Choice", "ModelCall", "NoValidAnswer", "candidate_question", "choose_candidate",
           "CallBudget", "QuotaExceeded", "ChatClient", "Completion", "ModelUnavailable", "PRESETS",
           "LLMConfig", "build_llm_config", "MAX_CONTEXT_BYTES", "MAX_ITEMS", "InvalidAnswer", "Prompt",
           "Question", "build_prompt", "failure_class", "runtime_code"]

#: `settings` imports `config` on every command: the rest (the prompt, the client and the HTTP stack
#: under it) is imported on first use
__getattr__ = lazy.exports(__name__, {
    "agent": ("Agent", "Answer", "Choice", "ModelCall", "NoValidAnswer", "candidate_question", "choose_candidate"),
    "budget": ("CallBudget", "QuotaExceeded"),
    "client": ("ChatClient", "Completion", "ModelUnavailable"),
    "prompt": ("MAX_CONTEXT_BYTES", "MAX_ITEMS", "InvalidAnswer", "Prompt", "Question", "build_prompt"),
})


def failure_class(exc: BaseException) -> str:
    """The flow-spec v1 class a step fails with when the model could not decide for it."""
    from flowwalk.agent.budget import QuotaExceeded

    return "quota_exceeded" if isinstance(exc, QuotaExceeded) else "agent_uncertain"


def runtime_code(exc: BaseException) -> str:
    """The runtime code (walk/recovery.py maps it to the class above)."""
    from flowwalk.agent.agent import NoValidAnswer
    from flowwalk.agent.budget import QuotaExceeded

    if isinstance(exc, QuotaExceeded):
        return "QUOTA_EXCEEDED"
    if isinstance(exc, NoValidAnswer):
        return "MODEL_INVALID_ANSWER"
    return "MODEL_UNAVAILABLE"
