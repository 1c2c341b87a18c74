"""The files a person writes: a flow spec (with its data table, routes and assertions), a rule
file, a steps file."""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal, Optional, Union

from pydantic import AfterValidator, ConfigDict, Discriminator, Field, Tag, model_validator

from flowwalk.spec.models.checks import HTTP_METHODS, AssertionModel
from flowwalk.spec.models.environment import EnvironmentKeys
from flowwalk.spec.models.fields import (ALLOWED_HOSTS_MAX, ASSERTIONS_MAX, GUARD_TIMEOUT_MAX, IDENTIFIER_MAX,
                                         RETRY_DELAY_MAX, RETRY_MAX, RULE_NAME_PATTERN, RULE_STEPS_MAX,
                                         RULE_TIMEOUT_MAX, RULE_TIMEOUT_MIN, RULES_MAX, SCENARIOS_MAX, SELECTOR_MAX,
                                         STEPS_MAX, URL_MAX, Description, Host, Identifier, Name, RuleName,
                                         ScalarText, Selector, SessionName, StabilizeModel, Strict, Tags, Url,
                                         Value, fail, quote)
from flowwalk.spec.models.steps import GROUP_STEPS_MAX, PARAMS_MAX, ArgValue, Detail, ParamModel, Step
from flowwalk.spec.models.verifiers import VerifyList


# --- steps files ----------------------------------------------------------------------------------------


class StepsFileModel(Strict):
    """A steps file (`*.steps.yaml`): steps a flow or a rule runs with `use:`, and the parameters they take."""

    model_config = ConfigDict(title="flowwalk steps file v1")
    LABEL: ClassVar[str] = "steps file"
    steps_version: Literal["1"]
    description: Optional[Description] = None
    params: Annotated[dict[Identifier, ParamModel], Field(max_length=PARAMS_MAX)] = Field(default_factory=dict)
    steps: Annotated[list[Step], Field(min_length=1, max_length=GROUP_STEPS_MAX)]


# --- flow spec ------------------------------------------------------------------------------------------

ROWS_MAX = 100
COLUMNS_MAX = 20
HookSteps = Annotated[list[Step], Field(min_length=1, max_length=GROUP_STEPS_MAX)]
#: a row of a data table: its name (its test's id ends in `[name]`) and its cells by column
RowName = Annotated[str, Field(min_length=1, max_length=IDENTIFIER_MAX, pattern=RULE_NAME_PATTERN)]


def _same_columns(rows: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    names = list(rows)
    columns = list(rows[names[0]]) if names else []
    for name in names[1:]:
        missing = [c for c in columns if c not in rows[name]]
        extra = [c for c in rows[name] if c not in columns]
        if missing or extra:
            what = (f"has no {', '.join(repr(c) for c in missing)}" if missing else
                    f"has {', '.join(repr(c) for c in extra)}, which row {quote(names[0])} has not")
            raise fail(f"row {quote(name)} of 'examples' {what}",
                       f"every row names the same columns, as the first does: {', '.join(columns)}", at=name, key=True)
    return rows


Examples = Annotated[dict[RowName, Annotated[dict[Identifier, ArgValue], Field(min_length=1, max_length=COLUMNS_MAX)]],
                     Field(min_length=1, max_length=ROWS_MAX), AfterValidator(_same_columns)]


# --- network control (v1.1, issue 36: docs/flow-spec.md, "Network control") -----------------------------

ROUTES_MAX = 30
ROUTE_DELAY_MAX = 30_000
ROUTE_URL_PATTERN = r"^(?:[hH][tT][tT][pP][sS]?://[^/?#\s*]+|/|\*\*)"
#: what a route does with a request: the keys of each answer
ROUTE_ANSWERS = ("status/json/body/file", "abort", "har")


def _check_route_url(value: str) -> str:
    if "{{" in value:
        raise fail(f"route url {quote(value)} holds a placeholder",
                   "write the URL as it is: routes are installed before the first step, e.g. '/api/todos'")
    if not re.match(ROUTE_URL_PATTERN, value):
        raise fail(f"route url {quote(value)} is neither a path nor an absolute http(s) URL",
                   "write a path on the site ('/api/todos', '/api/**'), an absolute URL "
                   "('https://api.example.com/v1/*'), or '**/todos' for any allowed host")
    return value


RouteUrl = Annotated[str, Field(min_length=1, max_length=URL_MAX, json_schema_extra={"pattern": ROUTE_URL_PATTERN}),
                     AfterValidator(_check_route_url)]
FilePath = Annotated[str, Field(min_length=1, max_length=SELECTOR_MAX)]


class RouteModel(Strict):
    """One entry of `routes:`: which requests, and how the spec answers them."""

    LABEL: ClassVar[str] = "route"
    url: RouteUrl
    method: Optional[Literal[HTTP_METHODS]] = None  # type: ignore[valid-type]
    status: Optional[Annotated[int, Field(ge=100, le=599)]] = None
    json_: Optional[Detail] = Field(default=None, alias="json")
    body: Optional[Value] = None
    file: Optional[FilePath] = None
    headers: Optional[Annotated[dict[Annotated[str, Field(min_length=1, max_length=128)], Value],
                                Field(max_length=PARAMS_MAX)]] = None
    delay_ms: Optional[Annotated[int, Field(ge=0, le=ROUTE_DELAY_MAX)]] = None
    abort: bool = False
    har: Optional[FilePath] = None

    @model_validator(mode="after")
    def _one_answer(self) -> "RouteModel":
        given = self.model_fields_set
        bodies = [k for k, f in (("json", "json_"), ("body", "body"), ("file", "file")) if f in given]
        if len(bodies) > 1:
            raise fail(f"{{where}} has both '{bodies[0]}' and '{bodies[1]}'",
                       "a route answers with one body: json, body (text) or file", at=bodies[1], key=True)
        answers = [k for k, on in (("abort", self.abort), ("har", "har" in given),
                                   ("status", bool(bodies) or "status" in given or "headers" in given)) if on]
        if len(answers) > 1:
            raise fail(f"{{where}} {' and also '.join(_ANSWER_WORDS[a] for a in answers[:2])}",
                       "a route either answers (status, json, body or file, headers), aborts (abort: true) or "
                       "replays a HAR file (har:): keep one", at=answers[1], key=True)
        if not answers:
            raise fail("{where} does not say how to answer",
                       "add json: <the body>, body: <text>, file: <path>, status: <code>, abort: true, "
                       "or har: <file>.har")
        if "har" in given and not (self.har or "").endswith(".har"):
            raise fail(f"{{where}} replays {quote(self.har or '')}, which is not a .har file",
                       "record one with Playwright (recordHar) or the browser's developer tools", at="har")
        return self


_ANSWER_WORDS = {"abort": "aborts", "har": "replays a HAR file", "status": "answers"}
Routes = Annotated[list[RouteModel], Field(max_length=ROUTES_MAX)]


class FlowSpecModel(EnvironmentKeys):
    """flow-spec v1 (`spec_version: "1"`) and v1 plus the documented v1.x additions (`"1.1"`)."""

    model_config = ConfigDict(title="flow-spec v1")
    LABEL: ClassVar[str] = "flow spec"
    spec_version: Literal["1", "1.1"]
    name: Name
    description: Optional[Description] = None
    url: Url
    allowed_hosts: Annotated[list[Host], Field(max_length=ALLOWED_HOSTS_MAX)] = Field(default_factory=list)
    steps: Annotated[list[Step], Field(min_length=1, max_length=STEPS_MAX)]
    assertions: Annotated[list[AssertionModel], Field(max_length=ASSERTIONS_MAX)] = Field(default_factory=list)
    #: v1.x: this flow signs in; its end state is saved under this name (docs/sessions.md)
    saves_session: Optional[SessionName] = None
    #: v1.x: start from the state a setup saved under this name
    session: Optional[SessionName] = None
    #: v1.x: words `--tag` selects by
    tags: Optional[Tags] = None
    #: v1.x: steps run before the steps (of each row), and after them even when one failed
    before_each: Optional[HookSteps] = None
    after_each: Optional[HookSteps] = None
    #: v1.x: a data table: the flow runs once per row, its placeholders bound to the row's cells
    examples: Optional[Examples] = None
    #: v1.x: requests the flow answers itself (docs/flow-spec.md, "Network control")
    routes: Optional[Routes] = None

    @model_validator(mode="after")
    def _one_test_per_row(self) -> "FlowSpecModel":
        if self.examples is not None and self.saves_session is not None:
            raise fail("{where} saves a session and runs once per row of 'examples'",
                       "a session is saved by one flow: move the sign-in into a flow of its own",
                       at="saves_session", key=True)
        return self


# --- rule files -----------------------------------------------------------------------------------------


class RetryModel(Strict):
    LABEL: ClassVar[str] = "retry block"
    max: Annotated[int, Field(ge=0, le=RETRY_MAX)]
    delay_ms: Annotated[int, Field(ge=0, le=RETRY_DELAY_MAX)] = 1000


class ScreenshotModel(Strict):
    LABEL: ClassVar[str] = "screenshot block"
    on_enter: bool = False
    on_fail: bool = True


class InterruptOverride(Strict):
    LABEL: ClassVar[str] = "interrupts block"
    override: Annotated[list[Selector], Field(min_length=1, max_length=20)]


def _interrupts_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return "pause"
    if isinstance(value, (dict, InterruptOverride)):
        return "override"
    return None


Interrupts = Annotated[
    Union[Annotated[Literal["pause"], Tag("pause")], Annotated[InterruptOverride, Tag("override")]],
    Discriminator(_interrupts_tag, custom_error_type="interrupts_tag", custom_error_message="bad interrupts")]


class RuleModel(Strict):
    LABEL: ClassVar[str] = "rule"
    name: RuleName
    parents: Annotated[list[RuleName], Field(max_length=20)] = Field(default_factory=list)
    steps: Annotated[list[Step], Field(min_length=1, max_length=RULE_STEPS_MAX)]
    retry: Optional[RetryModel] = None
    guard_policy: Literal["skip", "abort"] = "skip"
    timeout_ms: Optional[Annotated[int, Field(ge=RULE_TIMEOUT_MIN, le=RULE_TIMEOUT_MAX)]] = None
    guard_timeout_ms: Optional[Annotated[int, Field(ge=1, le=GUARD_TIMEOUT_MAX)]] = None
    child_scope: Optional[Selector] = None
    interrupts: Optional[Interrupts] = None
    screenshot: Optional[ScreenshotModel] = None
    verify: Optional[VerifyList] = None
    saves_session: Optional[SessionName] = None
    tags: Tags = Field(default_factory=list)


class ScenarioModel(EnvironmentKeys):
    LABEL: ClassVar[str] = "scenario"
    name: Name
    description: Optional[Description] = None
    url: Optional[Url] = None
    allowed_hosts: Annotated[list[Host], Field(max_length=ALLOWED_HOSTS_MAX)] = Field(default_factory=list)
    tags: Tags = Field(default_factory=list)
    rules: Annotated[list[RuleModel], Field(min_length=1, max_length=RULES_MAX)]
    session: Optional[SessionName] = None


class DefaultsModel(Strict):
    LABEL: ClassVar[str] = "defaults block"
    timeout_ms: Optional[Annotated[int, Field(ge=RULE_TIMEOUT_MIN, le=RULE_TIMEOUT_MAX)]] = None
    guard_timeout_ms: Optional[Annotated[int, Field(ge=1, le=GUARD_TIMEOUT_MAX)]] = None
    retry: Optional[RetryModel] = None
    screenshot: Optional[ScreenshotModel] = None
    stabilize: Optional[StabilizeModel] = None


class RulesFileModel(Strict):
    """A rule file (`*.rules.yaml`): scenarios, each an entry URL and a DAG of rules."""

    model_config = ConfigDict(title="flowwalk rule file v1")
    LABEL: ClassVar[str] = "rule file"
    rules_version: Literal["1"]
    verification: Name
    description: Optional[Description] = None
    variables: dict[Identifier, ScalarText] = Field(default_factory=dict)
    secrets: Annotated[list[Identifier], Field(max_length=50)] = Field(default_factory=list)
    dismiss: Annotated[list[Selector], Field(max_length=20)] = Field(default_factory=list)
    defaults: Optional[DefaultsModel] = None
    #: tags of every scenario of the file
    tags: Tags = Field(default_factory=list)
    scenarios: Annotated[list[ScenarioModel], Field(min_length=1, max_length=SCENARIOS_MAX)]
