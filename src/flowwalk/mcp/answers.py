"""The structured answers of the MCP tools: one pydantic model per tool, published as its output schema.

Every answer carries `truncated` and `note`: when `bounds.fit` had to cut it to ANSWER_LIMIT, the
note says so and names the files that hold everything.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class Bounded(BaseModel):
    truncated: bool = Field(default=False, description="the answer was cut to the size limit; see note")
    note: str = Field(default="", description="what was cut and where the full artifact is, or other remarks")


class ProblemOut(BaseModel):
    """One refused input, as `flowwalk validate` prints it."""

    path: str
    line: int
    col: int
    message: str
    hint: str = ""
    text: str = Field(description="the problem as the CLI prints it: path:line:col: error: ... / hint: ...")


class ValidateAnswer(Bounded):
    ok: bool = Field(description="true when every file loaded without a problem")
    files: int = 0
    scenarios: int = 0
    rules: int = 0
    #: the steps files among the named files, each checked on its own (they make no scenario)
    steps_files: int = 0
    problem_count: int = 0
    problems: list[ProblemOut] = Field(default_factory=list)


class RootCause(BaseModel):
    """A failed test that did not fail because of a parent (verdict.json `root_causes`)."""

    test_id: str
    failure_class: str | None
    label: str | None = Field(description="not_found | ambiguous(n) | timeout | assertion_mismatch | "
                                          "off_allowlist, or null for any other failure")
    runtime_code: str = ""
    step: str = Field(default="", description="the failing step as written, e.g. step 5 (expect text_contains 'x')")
    step_index: int | None = None
    path: str
    line: int | None
    expected: str = ""
    observed: str = ""
    message: str = ""
    screenshot: str | None = Field(default=None, description="relative to the report folder")
    dependents: list[str] = Field(default_factory=list, description="tests skipped because this one failed")


class AskedOut(BaseModel):
    """A question the server asked the person through the client (elicitation), and the outcome."""

    question: str = Field(description="what was asked (the elicitation's message)")
    action: str = Field(description="accept | decline | cancel")
    answered: dict[str, Any] = Field(default_factory=dict, description="the accepted answer; never a secret "
                                                                        "value (a secret is asked for by name)")


class RunAnswer(Bounded):
    outcome: str = Field(description="passed | site_misbehaved | spec_needs_review | infrastructure_failed | "
                                     "cancelled | site_not_ready | not_run (a question was declined or cancelled before the run)")
    exit_code: int | None = Field(description="flowwalk run's exit code; null when the run did not start")
    counts: dict[str, int] = Field(default_factory=dict)
    duration_ms: float = 0.0
    report_dir: str = Field(description="the report folder, relative to the server's working directory")
    summary_uri: str
    verdict_uri: str
    root_causes: list[RootCause] = Field(default_factory=list)
    console: str = Field(default="", description="what `flowwalk run` printed (the tail when long)")
    asked: list[AskedOut] = Field(default_factory=list, description="what the server asked the person, if anything")


class ExplainAnswer(Bounded):
    report_dir: str
    test_id: str
    status: str
    failure_class: str | None = None
    runtime_code: str | None = None
    label: str | None = Field(default=None, description="not_found | ambiguous(n) | timeout | assertion_mismatch | "
                                                "off_allowlist, or null for any other failure")
    message: str = ""
    step: str = ""
    step_index: int | None = None
    path: str | None = None
    line: int | None = None
    col: int | None = None
    expected: str = ""
    observed: str = ""
    url: str = ""
    title: str = ""
    console: list[dict[str, Any]] = Field(default_factory=list)
    page_errors: list[Any] = Field(default_factory=list)
    network: list[dict[str, Any]] = Field(default_factory=list, description="failed requests first, then the "
                                                                            "most recent")
    blocked: list[Any] = Field(default_factory=list, description="requests the allowlist or offline mode stopped")
    snapshot: str = Field(default="", description="the accessibility snapshot, trimmed around the failure")
    snapshot_trimmed: bool = False
    candidates: list[dict[str, Any]] = Field(default_factory=list)
    recovery: list[dict[str, Any]] = Field(default_factory=list)
    last_click: dict[str, Any] | None = None
    skipped_steps: list[str] = Field(default_factory=list)
    screenshot: str | None = Field(default=None, description="path relative to the server's working directory")
    screenshot_uri: str | None = None


class ReportOut(BaseModel):
    dir: str = Field(description="relative to the server's working directory; the {dir} of the resource URIs")
    outcome: str | None = Field(default=None, description="null while the run is going or when it never finished")
    exit_code: int | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    started_at: str | None = None
    summary_uri: str
    verdict_uri: str
    screenshots: list[str] = Field(default_factory=list, description="file names under screenshots/")


class ReportsAnswer(Bounded):
    reports: list[ReportOut] = Field(default_factory=list)


class SchemaAnswer(Bounded):
    name: str = Field(description="the schema file name, as in schemas/")
    schema_uri: str = Field(description="resource with the whole schema")
    schema_: dict[str, Any] = Field(alias="schema", description="the schema; $defs only as asked when it is large")
    definitions: list[str] = Field(default_factory=list, description="every $defs name the schema has")


class HealQuestionOut(BaseModel):
    """The question a configured model would have been asked about one step that could not heal."""

    id: str = Field(description="answer it under this id: the step's path:line")
    test_id: str
    step: str = Field(description="the step as written")
    target: str = Field(description="what the step's target describes")
    old_selector: str = Field(description="the pinned selector that matched nothing")
    candidates: list[str] = Field(description="the numbered candidates (1 is the first), as the model sees them")
    answer_format: str = Field(description="the JSON object to answer with")
    messages: list[dict[str, str]] = Field(description="the chat messages the model would have been sent "
                                                       "(page text fenced as data)")


class HealAnswer(Bounded):
    report_dir: str
    diff: str = Field(description="the diff of the selector changes and the new or changed baselines (git apply "
                                  "/ patch -p1 from the working directory); empty when there is nothing to change")
    files: list[str] = Field(default_factory=list, description="the spec and baseline files the diff changes")
    heals: list[str] = Field(default_factory=list, description="one line per change: path:line: 'old' -> 'new' "
                                                               "(method, score)")
    baselines: list[str] = Field(default_factory=list, description="one line per baseline the diff adds or changes")
    skipped: list[str] = Field(default_factory=list, description="heals left out of the diff, each with why")
    already_applied: int = Field(default=0, description="heals the spec files already have")
    questions: list[HealQuestionOut] = Field(default_factory=list, description="steps that did not heal: the "
                                             "question a model would have been asked, for you to answer "
                                             "through `answers`")


class JourneyOut(BaseModel):
    """One flow the crawl wrote, with what it covers and the resource that reads it."""

    name: str = Field(description="the flow's name")
    path: str = Field(description="the spec file, relative to the working directory")
    covers: str = Field(default="", description="what the flow checks: the feature or journey it walks, and why")
    kind: str = Field(default="", description="the feature kind (page, login, form, search, ...) or journey")
    status: str = Field(default="", description="written (passed twice) | needs_review | not_verified")
    uri: str = Field(description="resource with the spec's text (empty for a journey that was not written)")


class ModelQuestionOut(BaseModel):
    """The question a configured model would have been asked (none is configured): answer it yourself."""

    purpose: str
    answer_format: str = Field(description="the JSON object to answer with")
    items: list[str] = Field(description="the numbered items the question is about (1 is the first)")
    messages: list[dict[str, str]] = Field(description="the chat messages the model would have been sent "
                                                       "(page text fenced as data)")


class NotConvertedOut(BaseModel):
    """A call of the imported suite that became no step."""

    at: str = Field(description="path:line:col of the call in the source")
    call: str
    why: str


class ImportAnswer(Bounded):
    out_dir: str = Field(description="where the specs went, relative to the working directory")
    files: int = Field(description="source files read")
    files_refused: int
    tests: int
    tests_whole: int = Field(description="tests written whole (outside needs-review/)")
    checks: int = Field(description="upstream's explicit checks")
    checks_kept: int = Field(description="of them, kept in tests written whole")
    counts: dict[str, int] = Field(description="ledger rows by outcome: converted, approximated, not_converted")
    specs_written: list[str] = Field(default_factory=list, description="specs written whole (run them)")
    needs_review: list[str] = Field(default_factory=list, description="tests not imported whole: each starts with "
                                                                      "why")
    not_converted: list[NotConvertedOut] = Field(default_factory=list, description="each call that became no step")
    refused: list[str] = Field(default_factory=list, description="files not imported, each at path:line:col with "
                                                                 "a hint")
    ledger: str = Field(description="import/ledger.md: every call and what it became")
    walked: str = Field(default="", description="with run: how many specs passed against base_url and how many "
                                                "went to needs-review/")
    exit_code: int = Field(description="0: every file imported; 3: a file was refused (the others were imported)")


class DiscoverAnswer(Bounded):
    out_dir: str = Field(description="where the specs went, relative to the working directory")
    pages: int
    features: int
    specs_written: list[str] = Field(default_factory=list, description="specs that passed twice (run them)")
    needs_review: list[str] = Field(default_factory=list, description="specs that did not pass: each starts with "
                                                                      "why")
    duration_s: float
    stopped_reason: str = Field(description="done | max_pages | max_actions | budget | cancelled | unreachable | "
                                            "not_started (a question was declined or cancelled first)")
    index: str = Field(description="index.md: what was found, page by page")
    crawl: str = Field(description="crawl.json: the same as data")
    dropped: list[str] = Field(default_factory=list, description="model proposals that were dropped, and why")
    index_uri: str = Field(default="", description="resource with index.md")
    crawl_uri: str = Field(default="", description="resource with crawl.json")
    journeys: list[JourneyOut] = Field(default_factory=list, description="the flows the crawl wrote, with what "
                                                                         "each covers")
    asked: list[AskedOut] = Field(default_factory=list, description="what the server asked the person, if anything")
    model_question: ModelQuestionOut | None = Field(default=None, description=(
        "with no model configured: the question a model would have been asked about the specs (names, "
        "descriptions, which checks to keep); answer it by calling discover again with advice"))
