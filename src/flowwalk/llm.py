"""The language model flowwalk may ask (the `model:` block of `flowwalk.yaml`): which
OpenAI-compatible server to ask, and the hard caps. "The model" everywhere else in the code is the
domain model (`model.py`); this one is the LLM, `Settings.llm`.

A preset fills in the base URL, a default model and the environment variable holding the key for
a known provider; any key set beside it wins. Without a `model:` block there is no model: every
heal is deterministic. The key itself never appears in configuration, only the *name* of the
environment variable that holds it (`api_key_env`).

`settings` reads the block with it and agent/ asks the model it names; it sits at the top level
so that settings imports nothing of agent/ (which imports spec/, which imports settings).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import urlsplit

from flowwalk.errors import UsageError

__all__ = ["LLMConfig", "PRESETS", "build_llm_config", "DEFAULT_MAX_CALLS", "DEFAULT_MAX_TOKENS"]

DEFAULT_MAX_CALLS = 10
DEFAULT_MAX_CALLS_PER_STEP = 1
DEFAULT_MAX_TOKENS = 300
DEFAULT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Preset:
    base_url: str
    model: str | None          # None: the user must name one (local servers serve what they loaded)
    api_key_env: str | None    # None: the server takes no key


#: known providers. Every one speaks POST {base_url}/chat/completions.
PRESETS: dict[str, Preset] = {
    # the workflow's own token; the job needs `permissions: models: read` (docs/action.md)
    "github": Preset("https://models.github.ai/inference", "openai/gpt-4o-mini", "GITHUB_TOKEN"),
    "openai": Preset("https://api.openai.com/v1", "gpt-4o-mini", "OPENAI_API_KEY"),
    "ollama": Preset("http://127.0.0.1:11434/v1", None, None),
    "vllm": Preset("http://127.0.0.1:8000/v1", None, None),
    "llamacpp": Preset("http://127.0.0.1:8080/v1", None, None),
    "litellm": Preset("http://127.0.0.1:4000/v1", None, "LITELLM_API_KEY"),
}


@dataclass(frozen=True)
class LLMConfig:
    """A resolved `model:` block (preset applied). Holds no key, only where to read one."""

    base_url: str
    model: str
    preset: str | None = None
    api_key_env: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    #: requests to the model in one run, across all workers (a retry is a request)
    max_calls: int = DEFAULT_MAX_CALLS
    #: questions per step (one question is a request plus at most one retry on an invalid answer)
    max_calls_per_step: int = DEFAULT_MAX_CALLS_PER_STEP
    max_tokens: int = DEFAULT_MAX_TOKENS
    #: ask the server for a JSON object (`response_format`); the answer is validated locally anyway
    json_mode: bool = True

    @property
    def provider(self) -> str:
        """What the call record names: the preset, else the server's host."""
        if self.preset:
            return self.preset
        return urlsplit(self.base_url).hostname or "custom"

    def record(self) -> dict[str, Any]:
        """For run_started's settings: everything but nothing secret (there is nothing secret here)."""
        return {"provider": self.provider, "base_url": self.base_url, "model": self.model,
                "api_key_env": self.api_key_env, "timeout_s": self.timeout_s, "max_calls": self.max_calls,
                "max_calls_per_step": self.max_calls_per_step, "max_tokens": self.max_tokens}


def build_llm_config(block: Mapping[str, Any] | None) -> LLMConfig | None:
    """The `model:` block (already validated for types by the config model) with its preset applied.

    None when there is no block or it says `enabled: false`. Raises UsageError when a base URL or
    a model name is still missing after the preset.
    """
    if not block:
        return None
    data = {k: v for k, v in block.items() if v is not None}
    if data.pop("enabled", True) is False:
        return None
    preset_name = data.pop("preset", None)
    preset = None
    if preset_name is not None:
        preset = PRESETS.get(str(preset_name))
        if preset is None:
            raise UsageError(f"model.preset '{preset_name}' is not one of {', '.join(PRESETS)}\n"
                             f"  hint: or leave the preset out and set model.base_url")
    base_url = str(data.pop("base_url", None) or (preset.base_url if preset else "")).rstrip("/")
    model = data.pop("model", None) or (preset.model if preset else None)
    if "api_key_env" in data:
        api_key_env = data.pop("api_key_env") or None
    else:
        api_key_env = preset.api_key_env if preset else None
    if not base_url:
        raise UsageError("model: no base_url\n  hint: set model.base_url (for example "
                         "http://127.0.0.1:11434/v1) or a preset: " + ", ".join(PRESETS))
    if not base_url.startswith(("http://", "https://")):
        raise UsageError(f"model.base_url '{base_url}' is not an http(s) URL\n"
                         "  hint: for example http://127.0.0.1:8080/v1")
    if not model:
        raise UsageError(f"model: no model name for {preset_name or base_url}\n"
                         "  hint: set model.model to a model the server serves (for example llama3.1)")
    known = {"timeout_s", "max_calls", "max_calls_per_step", "max_tokens", "json_mode"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise UsageError(f"model: unknown key '{unknown[0]}'\n  hint: valid keys: preset, base_url, model, "
                         "api_key_env, timeout_s, max_calls, max_calls_per_step, max_tokens, json_mode, enabled")
    return LLMConfig(base_url=base_url, model=str(model), preset=str(preset_name) if preset_name else None,
                       api_key_env=str(api_key_env) if api_key_env else None, **data)
