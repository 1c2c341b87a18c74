"""The one HTTP client for models: POST {base_url}/chat/completions, OpenAI-compatible, over requests.

It knows nothing about prompts or caps: one request in, the reply's text and token counts out,
or `ModelUnavailable` when the server cannot be reached, times out, or answers anything but a
well-formed 200 (a 5xx, a 429, a refused key, a body that is not a chat completion). The key is
read once from the environment variable the config names and is sent only in the
`Authorization` header; it is never logged or kept anywhere else.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from flowwalk import __version__
from flowwalk.cooperative import offload
from flowwalk.llm import LLMConfig

if TYPE_CHECKING:
    import requests

__all__ = ["ChatClient", "Completion", "ModelUnavailable"]


class ModelUnavailable(Exception):
    """The backend did not give an answer: unreachable, timed out, or an error status."""

    def __init__(self, message: str, *, status: int | None = None, latency_ms: float = 0.0):
        super().__init__(message)
        self.status = status
        self.latency_ms = latency_ms


@dataclass(frozen=True)
class Completion:
    content: str
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: float
    status: int


class ChatClient:
    """One model endpoint. Thread-safe: every call uses its own connection from the session pool."""

    def __init__(self, config: LLMConfig, api_key: str | None = None,
                 session: requests.Session | None = None):
        # requests (and urllib3, http.client) costs ~0.1 s to import: only a run with a model pays it
        import requests

        self.config = config
        self._session = session or requests.Session()
        self._headers = {"Content-Type": "application/json", "User-Agent": f"flowwalk/{__version__}"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"

    @property
    def url(self) -> str:
        return f"{self.config.base_url}/chat/completions"

    def complete(self, messages: Sequence[Mapping[str, str]], *, timeout_s: float | None = None) -> Completion:
        """Send the messages; the reply or ModelUnavailable (never another exception for the server)."""
        config = self.config
        body: dict[str, Any] = {"model": config.model, "messages": [dict(m) for m in messages],
                                "max_tokens": config.max_tokens, "temperature": 0, "stream": False}
        if config.json_mode:
            body["response_format"] = {"type": "json_object"}
        timeout = max(0.1, min(config.timeout_s, timeout_s) if timeout_s is not None else config.timeout_s)
        started = time.monotonic()
        import requests  # imported by __init__ already: a lookup in sys.modules

        def elapsed() -> float:
            return round((time.monotonic() - started) * 1000, 1)

        try:
            # in a walker that shares its thread, the others go on while the model thinks
            response = offload(lambda: self._session.post(self.url, json=body, headers=self._headers,
                                                          timeout=timeout))
        except requests.Timeout:
            raise ModelUnavailable(f"no answer within {timeout:g} s", latency_ms=elapsed()) from None
        except requests.RequestException as exc:
            raise ModelUnavailable(f"cannot reach {self.url}: {type(exc).__name__}",
                                   latency_ms=elapsed()) from None
        latency = elapsed()
        status = response.status_code
        if status != 200:
            what = {401: "the key was refused", 403: "access denied", 404: "no such endpoint or model",
                    429: "rate limited"}.get(status, "server error" if status >= 500 else "request refused")
            raise ModelUnavailable(f"{self.url} answered {status} ({what})", status=status, latency_ms=latency)
        try:
            payload = response.json()
            content = payload["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ModelUnavailable(f"{self.url} answered 200 without a chat completion",
                                   status=status, latency_ms=latency) from None
        if not isinstance(content, str):
            raise ModelUnavailable(f"{self.url} answered a completion without text", status=status,
                                   latency_ms=latency)
        usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
        return Completion(content, _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")),
                          latency, status)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
