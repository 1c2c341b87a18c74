"""`flowwalk.yaml` (`ConfigModel`, with its model block and projects) and the quarantine file."""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, Literal, Optional

from pydantic import AfterValidator, ConfigDict, Field, model_validator

from flowwalk.model import SETTING_RANGES, TEST_ID_ATTRIBUTE_PATTERN, TEST_ID_ATTRIBUTES_MAX, has_scheme, url_problem
from flowwalk.spec.models.environment import EnvironmentKeys
from flowwalk.spec.models.fields import (DESCRIPTION_MAX, PROJECTS_MAX, URL_MAX, URL_PATTERN, VALUE_MAX, Identifier,
                                         ScalarText, Selector, SecretName, SessionName, StabilizeModel, Strict, Url,
                                         fail, quote)


#: the bounds of flowwalk.yaml's numeric keys: the one table the command line and FLOWWALK_*
#: variables are checked against too (settings.py)
_RANGE = SETTING_RANGES

# --- flowwalk.yaml -----------------------------------------------------------------------------------


#: an HTTP header's name (RFC 9110 token)
HEADER_NAME_PATTERN = r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"


def _absolute_url(value: str) -> str:
    if value.startswith(("/", "{{")):
        raise fail(f"base_url {quote(value)} is not an absolute url",
                   "write the site's root, e.g. 'http://127.0.0.1:8000' or 'https://staging.example.com'")
    return value


def _site_url(value: str) -> str:
    """flowwalk.yaml's `base_url`: the same rule as --base-url's (model.url_problem)."""
    _absolute_url(value)
    problem = url_problem(value)
    if problem:
        raise fail(f"base_url {quote(value)} {problem[0]}", problem[1])
    return value


def _wait_url(value: str) -> str:
    """flowwalk.yaml's `wait_for`: a path resolved against base_url, else the same rule as --wait-for's."""
    problem = url_problem(value, relative_to="base_url") if has_scheme(value) else None
    if problem:
        raise fail(f"wait_for {quote(value)} {problem[0]}", problem[1])
    return value


class ModelBlockModel(Strict):
    """`model:` in flowwalk.yaml: the optional OpenAI-compatible model used only to heal (docs/healing.md)."""

    LABEL: ClassVar[str] = "model block"
    enabled: Optional[bool] = None
    preset: Optional[Literal["github", "openai", "ollama", "vllm", "llamacpp", "litellm"]] = None
    base_url: Optional[Annotated[Url, AfterValidator(_absolute_url)]] = None
    model: Optional[Annotated[str, Field(min_length=1, max_length=200)]] = None
    api_key_env: Optional[Identifier] = None
    timeout_s: Optional[Annotated[float, Field(gt=0, le=600)]] = None
    max_calls: Optional[Annotated[int, Field(ge=0, le=1000)]] = None
    max_calls_per_step: Optional[Annotated[int, Field(ge=1, le=5)]] = None
    max_tokens: Optional[Annotated[int, Field(ge=16, le=8192)]] = None
    json_mode: Optional[bool] = None

    @model_validator(mode="after")
    def _complete(self) -> "ModelBlockModel":
        # the presets of llm.py that name no model (local servers serve what they loaded)
        if self.enabled is False:
            return self
        if self.preset is None and self.base_url is None:
            raise fail("{where} has neither 'preset' nor 'base_url'",
                       "name a preset (github, openai, ollama, vllm, llamacpp, litellm) or the server's base_url, "
                       "e.g. 'base_url: http://127.0.0.1:8080/v1'", key=True)
        if self.model is None and self.preset not in ("github", "openai"):
            raise fail("{where} has no 'model'",
                       "name a model the server serves, e.g. 'model: llama3.1'", key=True)
        return self


class ProjectModel(EnvironmentKeys):
    """One environment profile of `projects`: every spec runs once in each (docs/environment.md)."""

    LABEL: ClassVar[str] = "project"
    name: SessionName


class ConfigModel(EnvironmentKeys):
    """`flowwalk.yaml`: run defaults. Command-line options and environment variables win over it."""

    model_config = ConfigDict(title="flowwalk.yaml")
    LABEL: ClassVar[str] = "flowwalk.yaml"
    base_url: Optional[Annotated[str, Field(min_length=1, max_length=URL_MAX, json_schema_extra={"pattern": URL_PATTERN}),
                                 AfterValidator(_site_url)]] = None
    paths: Optional[Annotated[list[Annotated[str, Field(min_length=1, max_length=4096)]],
                              Field(min_length=1, max_length=100)]] = None
    out_dir: Optional[Annotated[str, Field(min_length=1, max_length=4096)]] = None
    variables: dict[Identifier, ScalarText] = Field(default_factory=dict)
    secrets: Annotated[list[Identifier], Field(max_length=50)] = Field(default_factory=list)
    dismiss_selectors: Annotated[list[Selector], Field(max_length=20)] = Field(default_factory=list)
    #: the attributes an element's test id is read from, first found first (docs/config.md)
    test_id_attribute: Optional[Annotated[list[Annotated[str, Field(min_length=1, max_length=100,
                                                                    pattern=TEST_ID_ATTRIBUTE_PATTERN)]],
                                          Field(min_length=1, max_length=TEST_ID_ATTRIBUTES_MAX)]] = None
    rule_timeout_ms: Optional[Annotated[int, Field(ge=_RANGE["rule_timeout_ms"][0], le=_RANGE["rule_timeout_ms"][1])]] = None
    guard_timeout_ms: Optional[Annotated[int, Field(ge=_RANGE["guard_timeout_ms"][0], le=_RANGE["guard_timeout_ms"][1])]] = None
    action_timeout_ms: Optional[Annotated[int, Field(ge=_RANGE["action_timeout_ms"][0], le=_RANGE["action_timeout_ms"][1])]] = None
    navigation_timeout_ms: Optional[Annotated[int, Field(ge=_RANGE["navigation_timeout_ms"][0], le=_RANGE["navigation_timeout_ms"][1])]] = None
    expect_timeout_ms: Optional[Annotated[int, Field(ge=_RANGE["expect_timeout_ms"][0], le=_RANGE["expect_timeout_ms"][1])]] = None
    run_timeout_s: Optional[Annotated[float, Field(gt=_RANGE["run_timeout_s"][0], le=_RANGE["run_timeout_s"][1])]] = None
    retries: Optional[Annotated[int, Field(ge=_RANGE["retries"][0], le=_RANGE["retries"][1])]] = None
    flaky_policy: Optional[Literal["pass", "fail"]] = None
    heal_policy: Optional[Literal["pass", "fail"]] = None
    workers: Optional[Annotated[int, Field(ge=_RANGE["workers"][0], le=_RANGE["workers"][1])]] = None
    comment_mode: Optional[Literal["always", "on-failure", "on-change", "off"]] = None
    stabilize: Optional[StabilizeModel] = None
    executable: Optional[Annotated[str, Field(min_length=1, max_length=4096)]] = None
    screenshots: Optional[Literal["off", "on-failure", "on"]] = None
    trace: Optional[Literal["off", "on-failure", "retain-on-failure", "on"]] = None
    verifiers_dir: Optional[Annotated[str, Field(min_length=1, max_length=4096)]] = None
    durations_file: Optional[Annotated[str, Field(min_length=1, max_length=4096)]] = None
    fingerprints_file: Optional[Annotated[str, Field(min_length=1, max_length=4096)]] = None
    offline: Optional[bool] = None
    model: Optional[ModelBlockModel] = None
    #: stop starting scenarios after this many failures (docs/selection.md)
    max_failures: Optional[Annotated[int, Field(ge=_RANGE["max_failures"][0], le=_RANGE["max_failures"][1])]] = None
    projects: Optional[Annotated[list[ProjectModel], Field(min_length=1, max_length=PROJECTS_MAX)]] = None
    #: which failures fail the job: any, or only those new against the base report (docs/quarantine.md)
    fail_on: Optional[Literal["any", "new"]] = None
    #: the quarantine file (docs/quarantine.md) [flowwalk-quarantine.yaml when present]
    quarantine_file: Optional[Annotated[str, Field(min_length=1, max_length=4096)]] = None
    #: the readiness wait before walking (docs/preview.md): a URL, absolute or relative to base_url
    wait_for: Optional[Annotated[str, Field(min_length=1, max_length=URL_MAX), AfterValidator(_wait_url)]] = None
    #: the status it expects: 200, 2xx, 200-399, several separated by commas [2xx]
    wait_status: Optional[Annotated[str, Field(min_length=1, max_length=100)]] = None
    #: a text its page must hold
    wait_text: Optional[Annotated[str, Field(min_length=1, max_length=VALUE_MAX)]] = None
    wait_timeout_s: Optional[Annotated[float, Field(gt=_RANGE["wait_timeout_s"][0], le=_RANGE["wait_timeout_s"][1])]] = None
    wait_interval_s: Optional[Annotated[float, Field(gt=_RANGE["wait_interval_s"][0],
                                                     le=_RANGE["wait_interval_s"][1])]] = None
    #: extra HTTP headers for the base URL's origin: header name -> the secret (environment variable)
    #: holding its value; never the value itself
    http_headers: Optional[Annotated[dict[Annotated[str, Field(min_length=1, max_length=100,
                                                                pattern=HEADER_NAME_PATTERN)],
                                          SecretName], Field(max_length=20)]] = None
    #: the secret (environment variable) holding HTTP credentials as username:password
    http_credentials: Optional[SecretName] = None
    #: a running Playwright browser server to connect to instead of launching Chromium (docs/remote-browsers.md)
    browser_endpoint: Optional[Annotated[str, Field(min_length=6, max_length=URL_MAX, pattern=r"^wss?://")]] = None


# --- the quarantine file ---------------------------------------------------------------------------

QUARANTINE_MAX = 500
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"


def _check_date(value: str) -> str:
    import datetime

    if not re.fullmatch(DATE_PATTERN, value):
        day = f"{value[:4]}-{value[4:6]}-{value[6:]}" if re.fullmatch(r"\d{8}", value) else "2026-12-31"
        raise fail(f"{{subject}} is {quote(value)}, not a date",
                   f"write the day it expires as YYYY-MM-DD, e.g. '{day}' (quoted or not)")
    try:
        datetime.date.fromisoformat(value)
    except ValueError as error:
        raise fail(f"{{subject}} is {quote(value)}, not a day of the calendar ({error})",
                   "write a real day as YYYY-MM-DD, e.g. '2026-12-31'")
    return value


class QuarantineEntryModel(Strict):
    """One quarantined test: it still runs and is reported, but does not fail the job until `expires`."""

    LABEL: ClassVar[str] = "quarantine entry"
    #: a test id (`<file>#<scenario>` or `<file>#<scenario>/<rule>`), or a scenario id for all its tests
    id: Annotated[str, Field(min_length=1, max_length=1000)]
    owner: Annotated[str, Field(min_length=1, max_length=100)]
    reason: Annotated[str, Field(min_length=1, max_length=DESCRIPTION_MAX)]
    #: the last day the quarantine holds (UTC); from the day after, the test fails the job again
    expires: Annotated[str, Field(min_length=1, max_length=32, json_schema_extra={"pattern": DATE_PATTERN}),
                       AfterValidator(_check_date)]


class QuarantineFileModel(Strict):
    """`flowwalk-quarantine.yaml`: known-flaky tests that run and are reported but do not fail the job
    until their expiry (docs/quarantine.md)."""

    model_config = ConfigDict(title="flowwalk quarantine file v1")
    LABEL: ClassVar[str] = "quarantine file"
    quarantine_version: Literal["1"]
    tests: Annotated[list[QuarantineEntryModel], Field(max_length=QUARANTINE_MAX)] = Field(default_factory=list)
