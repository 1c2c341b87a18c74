"""The bodies of the MCP tools: synchronous, thin over the functions `flowwalk`'s commands call.

Each tool calls its command's one function with the command's own request: `validate` is
`app.run.validate`, `run` is `app.run.execute_run`, `propose_heal` is `app.heal.plan_heal`, `discover`
is `discover.discover`, the schemas are `app.reports.schema_texts`, and the rest read the report folders
those write. Nothing here changes how a spec is checked or walked; this module only confines
paths, builds the typed answers and keeps them within bounds. The server (`mcp/server.py`) calls
these from worker threads.
"""

from __future__ import annotations

import io
import json
import os
import re
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Literal, Mapping, Sequence

import yaml
from pydantic import BaseModel, Field, create_model

from flowwalk.app import heal as app_heal
from flowwalk.app import reports
from flowwalk.app import run as app_run
from flowwalk.agent import candidate_question
from flowwalk.agent.prompt import MAX_ITEMS, InvalidAnswer, build_prompt
from flowwalk.cooperative import CancelToken
from flowwalk.discover import DISCOVER_DIR, DiscoverOptions, discover as crawl
from flowwalk.discover.wall import LoginWall, login_flow, probe_login
from flowwalk.errors import Problem, SpecError, UsageError
from flowwalk.events import Heal, to_json
from flowwalk.heal.decide import choose_recorded
from flowwalk.heal.patch import describe
from flowwalk.mcp.answers import (
    DiscoverAnswer,
    HealAnswer,
    HealQuestionOut,
    ImportAnswer,
    JourneyOut,
    ModelQuestionOut,
    NotConvertedOut,
    ProblemOut,
    ReportOut,
    ReportsAnswer,
    RootCause,
    RunAnswer,
    SchemaAnswer,
    ValidateAnswer,
)
from flowwalk.mcp.bounds import clip
from flowwalk.mcp.explain import failure_label, read_verdict
from flowwalk.mcp.workspace import Workspace, discover_uri, report_uri, spec_leaf
from flowwalk.report.records import read_run
from flowwalk.report.verdict_model import Verdict
from flowwalk.reportfolder import ReportFolder
from flowwalk.settings import Overrides
from flowwalk.spec.loader import display_path
from flowwalk.spec.variables import Redactor
from flowwalk.walk.context import run_variables
from flowwalk.walk.preflight import check_variables

SpecKind = Literal["flow.yaml", "flow.json", "rules.yaml", "robot"]
SchemaKind = Literal["flow_spec", "rules", "config", "quarantine"]
SCHEMA_FILES: dict[str, str] = {
    "flow_spec": "flow-spec.v1.schema.json",
    "rules": "rules.v1.schema.json",
    "config": "config.v1.schema.json",
    "quarantine": "quarantine.v1.schema.json",
}
#: the most characters of console output a run answer carries (its tail)
CONSOLE_TAIL = 3_000
#: an inline spec is refused above this size, like a spec file (spec/source.py refuses 1 MiB)
INLINE_LIMIT = 1_048_576
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_INLINE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class ToolInputError(ValueError):
    """The client's arguments cannot be used; the message says why and how to fix it."""


@dataclass
class ServerLimits:
    """What the server operator fixed when starting `flowwalk mcp`."""

    #: the longest run a client may ask for, in seconds (its own run_timeout_s is capped to it)
    max_run_timeout_s: float = 300.0
    #: report folders with a run in progress (a second run into the same folder is refused)
    busy: set[Path] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @contextmanager
    def holding(self, folder: Path, shown: str) -> Iterator[None]:
        """`folder` (a report or output folder, `shown` to the client) is this call's while the block
        runs; ToolInputError when another call's run, crawl or import writes there now."""
        with self.lock:
            if folder in self.busy:
                raise ToolInputError(f"'{shown}' is busy with another run, crawl or import\n  hint: wait for "
                                     f"it, or give this call another out_dir")
            self.busy.add(folder)
        try:
            yield
        finally:
            with self.lock:
                self.busy.discard(folder)


# --- validate ----------------------------------------------------------------------------------


def _problem_out(problem: Problem) -> ProblemOut:
    return ProblemOut(path=problem.loc.path, line=problem.loc.line, col=problem.loc.col,
                      message=problem.message, hint=problem.hint, text=problem.render())


def _names(secret_names: Sequence[str]) -> tuple[str, ...]:
    for name in secret_names:
        if not _ENV_NAME.match(name):
            raise ToolInputError(f"secret name '{name}' is not an environment variable name\n  hint: give the "
                                 f"NAME of the variable that holds the secret (letters, digits, _), never its value")
    return tuple(secret_names)


def validate(ws: Workspace, *, paths: list[str], text: str | None, kind: SpecKind | None, name: str,
             variables: Mapping[str, str], secret_names: list[str], base_url: str | None,
             quarantine: str | None = None) -> ValidateAnswer:
    """Every problem of the named files, or of the inline spec `text`, as `flowwalk validate` finds them."""
    if (text is None) == (not paths):
        raise ToolInputError("give either paths or text (an inline spec), not both and not neither\n  hint: "
                             "paths: [\"checks/login.flow.yaml\"], or text: \"<the spec>\" with kind: \"flow.yaml\"")
    told = Overrides(variables=dict(variables), secret_names=_names(secret_names), base_url=base_url,
                     quarantine_file=os.path.relpath(ws.confine(quarantine, "quarantine")) if quarantine else None)
    if text is None:
        return _validated(replace(told, paths=tuple(str(ws.confine(p, "spec path")) for p in paths),
                                  root=str(ws.root)), rename=None)
    if kind is None:
        raise ToolInputError("an inline spec needs its kind\n  hint: kind is one of flow.yaml, flow.json, "
                             "rules.yaml, robot")
    if len(text.encode("utf-8")) > INLINE_LIMIT:
        raise ToolInputError(f"the inline spec is over {INLINE_LIMIT} bytes\n  hint: split it into several files")
    if not _INLINE_NAME.match(name):
        raise ToolInputError(f"name '{name}' is not a plain file name stem\n  hint: letters, digits, '.', '_', "
                             f"'-', for example 'login'")
    shown = f"{name}.{kind}"
    with tempfile.TemporaryDirectory(prefix="flowwalk-mcp-") as tmp:
        path = Path(tmp) / shown
        path.write_text(text, encoding="utf-8")
        return _validated(replace(told, paths=(str(path),), root=tmp), rename=(display_path(path, tmp),
                                                                                f"<inline>/{shown}"))


def _validated(told: Overrides, rename: tuple[str, str] | None) -> ValidateAnswer:
    try:
        loaded = app_run.validate(app_run.RunRequest(told))
    except SpecError as error:
        problems = [_problem_out(p) for p in error.problems]
        if rename is not None:
            for problem in problems:
                if problem.path == rename[0]:
                    problem.path = rename[1]
                problem.text = problem.text.replace(rename[0], rename[1])
                problem.message = problem.message.replace(rename[0], rename[1])
        return ValidateAnswer(ok=False, files=len({p.path for p in problems}), problem_count=len(problems),
                              problems=problems)
    except UsageError as error:
        raise ToolInputError(str(error)) from None
    return ValidateAnswer(ok=True, files=len(loaded.suites), scenarios=loaded.scenarios, rules=loaded.rules,
                          steps_files=loaded.steps_files)


# --- run ----------------------------------------------------------------------------------------


def _out_dir(ws: Workspace, given: str) -> Path:
    out = ws.confine(given, "out_dir")
    if out == ws.root:
        raise ToolInputError("out_dir is the working directory itself\n  hint: name a folder for the report, "
                             "for example flowwalk-report")
    if out.is_dir() and any(out.iterdir()) and not ReportFolder(out).is_report():
        raise ToolInputError(f"out_dir '{given}' is a folder with other files in it, not a report folder: a run "
                             f"replaces the report files in its out_dir\n  hint: name a new or empty folder, "
                             f"or an earlier report folder")
    return out


def scrub(data: Any, secrets: list[str]) -> Any:
    """`data` with every secret value replaced (a last guard: reports are redacted by the run)."""
    if not secrets:
        return data
    if isinstance(data, str):
        for value in secrets:
            data = data.replace(value, "***")
        return data
    if isinstance(data, list):
        return [scrub(item, secrets) for item in data]
    if isinstance(data, dict):
        return {key: scrub(item, secrets) for key, item in data.items()}
    return data


def secret_values(names: list[str]) -> list[str]:
    """The values of the named environment variables, longest first (so no value hides in another)."""
    values = [os.environ[n] for n in names if os.environ.get(n)]
    return sorted(set(values), key=len, reverse=True)


def run_secret_names(told: Overrides) -> list[str]:
    """The environment variables a run reads secrets from: `secret_names`, and those its HTTP headers
    and credentials name."""
    return [*told.secret_names, *told.http_headers.values(), *([told.http_credentials] if told.http_credentials
                                                              else [])]


def run(ws: Workspace, limits: ServerLimits, request: app_run.RunRequest, *, cancel: CancelToken,
        on_event: Callable[[Any], None] | None = None, on_start: Callable[[Path], None] | None = None) -> RunAnswer:
    """Walk the specs as `flowwalk run` does and answer with the verdict and its root causes."""
    told = request.overrides
    if not told.paths:
        raise ToolInputError("paths is empty\n  hint: name spec files or folders, for example [\"checks/\"]")
    # relative to the working directory, as `flowwalk run` there would print them
    paths = tuple(os.path.relpath(ws.confine(p, "spec path")) for p in told.paths)
    out = _out_dir(ws, told.out_dir or "flowwalk-report")
    timeout = limits.max_run_timeout_s if told.run_timeout_s is None else told.run_timeout_s
    if timeout <= 0:
        raise ToolInputError("run_timeout_s must be above 0 seconds")
    notes: list[str] = []
    if timeout > limits.max_run_timeout_s:
        notes.append(f"run_timeout_s {timeout:g} is above this server's limit; the run had "
                     f"{limits.max_run_timeout_s:g} s (flowwalk mcp --run-timeout)")
        timeout = limits.max_run_timeout_s
    wait = told.wait_timeout_s
    if wait is not None and wait > limits.max_run_timeout_s:
        notes.append(f"wait_timeout_s {wait:g} is above this server's limit; the wait had at most "
                     f"{limits.max_run_timeout_s:g} s")
        wait = limits.max_run_timeout_s

    def inside(given: str | None, what: str) -> str | None:
        return os.path.relpath(ws.confine(given, what)) if given else None

    # the workspace is the project root, wherever the specs are in it
    told = replace(told, paths=paths, root=str(ws.root), out_dir=os.path.relpath(out), run_timeout_s=timeout,
                   wait_timeout_s=wait,
                   secret_names=_names(told.secret_names), last_failed=inside(told.last_failed, "last_failed"),
                   base_report=inside(told.base_report, "base_report"),
                   quarantine_file=inside(told.quarantine_file, "quarantine"),
                   fingerprints_file=inside(told.fingerprints_file, "fingerprints"))
    served = ws.confine(request.serve_dir, "serve") if request.serve_dir else None
    if served is not None and not served.is_dir():
        raise ToolInputError(f"serve '{request.serve_dir}' is not a folder\n  hint: name the folder of the site "
                             f"to serve on 127.0.0.1")
    request = replace(request, overrides=told, serve_dir=os.path.relpath(served) if served else None)
    console = io.StringIO()
    with limits.holding(out, ws.relative(out)):
        if on_start is not None:
            on_start(out)
        try:
            verdict = app_run.execute_run(request, console=console, cancel=cancel, on_event=on_event, color=False)
        except UsageError as error:
            raise ToolInputError(str(error)) from None
    name = ws.relative(out)
    tests = {t.test_id: t for t in verdict.tests}
    causes = []
    for cause in verdict.root_causes:
        test = tests.get(cause.test_id)
        failure = test.failure if test is not None else None
        index = failure.step_index if failure is not None else None
        step = cause.step_text
        causes.append(RootCause(
            test_id=cause.test_id, failure_class=cause.failure_class,
            label=failure_label(failure), runtime_code=failure.runtime_code if failure is not None else "",
            step=f"step {index} ({step})" if index is not None and step else step,
            step_index=index, path=cause.path, line=cause.line,
            expected=cause.expected, observed=cause.observed, message=cause.message,
            screenshot=failure.screenshot if failure is not None else None, dependents=list(cause.dependents)))
    printed = console.getvalue()
    return RunAnswer(
        outcome=verdict.outcome, exit_code=verdict.exit_code, counts=to_json(verdict.counts),
        duration_ms=verdict.duration_ms,
        report_dir=name, summary_uri=report_uri(name, ReportFolder.SUMMARY),
        verdict_uri=report_uri(name, ReportFolder.VERDICT),
        root_causes=causes,
        console=printed if len(printed) <= CONSOLE_TAIL else "…" + printed[-CONSOLE_TAIL:],
        note="; ".join(notes))


# --- reports and schemas --------------------------------------------------------------------------


def report_entry(ws: Workspace, folder: Path) -> ReportOut:
    name = ws.relative(folder)
    entry = ReportOut(dir=name, summary_uri=report_uri(name, ReportFolder.SUMMARY),
                      verdict_uri=report_uri(name, ReportFolder.VERDICT))
    try:
        verdict: Verdict | None = read_verdict(folder)
    except (OSError, ValueError, UsageError):
        verdict = None
    if verdict is not None:
        entry.outcome, entry.exit_code = verdict.outcome, verdict.exit_code
        entry.counts, entry.started_at = to_json(verdict.counts), verdict.started_at
    shots = folder / ReportFolder.SCREENSHOTS
    if shots.is_dir():
        entry.screenshots = sorted(p.name for p in shots.iterdir() if p.is_file())[:50]
    return entry


def list_reports(ws: Workspace) -> ReportsAnswer:
    return ReportsAnswer(reports=[report_entry(ws, folder) for folder in ws.reports()])


def schema_names() -> list[str]:
    """The file names `flowwalk schema` writes (each a `flowwalk://schemas/{name}` resource)."""
    return sorted(reports.schema_texts())


def schema_text(name: str) -> str:
    """The schema `flowwalk schema` writes as `name`, as JSON text."""
    schemas = reports.schema_texts()
    if name not in schemas:
        raise ToolInputError(f"no schema named '{name}'\n  hint: one of {', '.join(sorted(schemas))}")
    return schemas[name]


def schema(kind: SchemaKind, definitions: list[str], budget: int) -> SchemaAnswer:
    """The JSON Schema of one input format; when it is larger than `budget`, its $defs are left out
    except those asked for by name (the whole schema is the resource schema_uri)."""
    name = SCHEMA_FILES[kind]
    whole = json.loads(schema_text(name))
    defs = dict(whole.get("$defs") or {})
    uri = f"flowwalk://schemas/{name}"
    answer = SchemaAnswer(name=name, schema_uri=uri, definitions=sorted(defs), schema=whole)
    unknown = [d for d in definitions if d not in defs]
    if unknown:
        raise ToolInputError(f"the {kind} schema has no definition {', '.join(repr(u) for u in unknown)}\n"
                             f"  hint: the definitions are {clip(', '.join(sorted(defs)), 1500)}")
    if len(json.dumps(whole, separators=(",", ":"))) <= budget and not definitions:
        return answer
    trimmed = {k: v for k, v in whole.items() if k != "$defs"}
    if definitions:
        trimmed["$defs"] = {d: defs[d] for d in definitions}
    answer.schema_ = trimmed
    left_out = len(defs) - len(definitions)
    answer.note = (f"{left_out} of {len(defs)} $defs left out to stay small; ask again with definitions: "
                   f"[names] for the ones a $ref needs, or read {uri} for the whole schema")
    return answer


# --- heals -----------------------------------------------------------------------------------------


def propose_heal(ws: Workspace, report_name: str, answers: Mapping[str, Any] | None = None) -> HealAnswer:
    """The report's heals and baselines as the diff `flowwalk heal --report DIR --root .` prints
    (`app.heal.plan_heal`); nothing is written. Spec paths in a report are relative to the folder the run
    ran in: the working directory.

    A step that did not heal although the page had candidates a model could have been asked about
    carries that question in its record (`detail.heal_question`, with no model configured); it comes
    back as `questions`. `answers` (question id -> the JSON object the model would have replied) is
    held to the model's own rule (`heal.decide.choose_recorded`), and a chosen candidate joins the
    diff as a heal of method `agent`."""
    folder = ws.report_dir(report_name)
    open_questions = heal_questions(folder)
    by_id = {q.id: q for q in open_questions}
    extra: list[tuple[Heal, tuple[str, ...]]] = []
    declined: list[str] = []
    for qid, reply in (answers or {}).items():
        question = by_id.get(qid)
        if question is None:
            known = ", ".join(by_id) or "none (call propose_heal without answers to see them)"
            raise ToolInputError(f"the report has no open question '{qid}'\n  hint: the questions are {known}")
        try:
            chosen = choose_recorded(question.recorded, reply)
        except InvalidAnswer as error:
            raise ToolInputError(f"the answer to {qid} is refused: {error}\n  hint: answer with "
                                 f"{question.answer_format}") from None
        if chosen is None:
            declined.append(f"{qid}: none of the {len(question.items)} candidates fits (your answer)")
            continue
        extra.append((Heal(old_selector=question.old_selector, new_selector=str(chosen["selector"]), method="agent",
                           score=float(chosen.get("score") or 0.0), target=question.target,
                           step_index=question.step_index, path=question.path, line=question.line),
                      (question.test_id,)))
    plan = app_heal.plan_heal(app_heal.HealRequest(folder, ws.root, tuple(extra)))
    answer = HealAnswer(report_dir=ws.relative(folder), diff=plan.diff, files=plan.files, heals=describe(plan.patch.edits),
                        baselines=[c.render() for c in plan.baselines.changes],
                        skipped=plan.skipped + declined, already_applied=len(plan.patch.kept),
                        questions=[q.out() for q in open_questions if q.id not in (answers or {})])
    notes = []
    if plan.baselines.written:
        notes.append(f"{len(plan.baselines.written)} baseline(s) --update-snapshots already wrote (review them with "
                     f"git diff): {', '.join(plan.baselines.written)}")
    if plan.nothing:
        notes.append(f"nothing to change: {plan.nothing}")
        if answer.questions:
            notes[-1] += (f"; {len(answer.questions)} step(s) did not heal: answer the model's question for each "
                          f"(questions) through answers")
    answer.note = "; ".join(notes)
    return answer


_PINNED = re.compile(r"pinned selector '(.+?)' matched nothing")


@dataclass(frozen=True)
class OpenHeal:
    """A step that did not heal, and the question a model would have been asked about it (as recorded)."""

    id: str
    test_id: str
    path: str
    line: int
    step_index: int
    step: str
    old_selector: str
    recorded: dict[str, Any]
    context: str

    @property
    def target(self) -> str:
        return str(self.recorded.get("target") or "")

    @property
    def items(self) -> list[str]:
        return [str(c.get("element") or c.get("selector")) for c in self.recorded.get("candidates") or ()
                if isinstance(c, dict)]

    @property
    def answer_format(self) -> str:
        return str(self.recorded.get("answer_format") or "")

    def out(self) -> HealQuestionOut:
        question = candidate_question(str(self.recorded.get("action") or ""), self.target, self.items, self.context)
        prompt = build_prompt(question, Redactor(()))
        return HealQuestionOut(id=self.id, test_id=self.test_id, step=self.step, target=self.target,
                               old_selector=self.old_selector, candidates=self.items,
                               answer_format=self.answer_format, messages=[dict(m) for m in prompt.messages])


def heal_questions(folder: Path) -> list[OpenHeal]:
    """Every step of the report's final attempts that recorded the question a model would have been
    asked (walk/healing.py, with no model configured), with the pinned selector it replaces."""
    try:
        run = read_run(folder)
    except (OSError, ValueError, UsageError):
        return []   # no readable emit.jsonl: nothing to ask
    found: dict[str, OpenHeal] = {}
    for test in run.tests:
        failure = test.final.failure if test.final is not None else None
        snapshot = failure.evidence().a11y_snapshot if failure is not None else ""
        for step in test.steps:
            recorded = step.detail["heal_question"] if "heal_question" in step.detail else None
            pinned = _PINNED.search(step.failure.message if step.failure is not None else "")
            if not isinstance(recorded, dict) or not recorded.get("candidates") or pinned is None:
                continue
            qid = f"{step.path}:{step.line}"
            found.setdefault(qid, OpenHeal(
                id=qid, test_id=test.test_id, path=step.path, line=step.line, step_index=step.index,
                step=f"step {step.index} ({step.text})", old_selector=pinned.group(1), recorded=dict(recorded),
                context=snapshot))
    return list(found.values())


# --- discover --------------------------------------------------------------------------------------


def _spec_name(path: Path) -> str:
    """The `name:` a written spec carries (what a model or an agent named it), or ''."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError):
        return ""
    return str(data.get("name") or "") if isinstance(data, dict) else ""


def journeys_of(ws: Workspace, out: Path, typed: Sequence[Any] = ()) -> list[JourneyOut]:
    """The flows a crawl wrote under `out`: first its journeys as the crawl returned them
    (`DiscoverResult.journeys`, each with why it was chosen and what each move checks; one not
    written has no path), then every other spec its crawl.json lists, with the feature it checks
    (a journey only crawl.json knows, from an earlier crawl, is read from there the same way)."""
    name = ws.relative(out)
    found: list[JourneyOut] = []
    for journey in typed:
        path = ws.relative(out / journey.spec) if journey.spec else ""
        found.append(JourneyOut(
            name=journey.name, path=path, covers=clip(f"{journey.why}. " + "; ".join(journey.covers), 2000),
            kind="journey", status=journey.status,
            uri=discover_uri(name, spec_leaf(journey.spec)) if journey.spec else ""))
    listed = {j.path for j in found if j.path}
    try:
        record = json.loads((out / DISCOVER_DIR / "crawl.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return found
    features = {f.get("id"): f for f in record.get("features") or () if isinstance(f, dict)}
    # a journey (discover --submit-forms) is a feature too: its name, why, and each move with its checks
    for journey in record.get("journeys") or ():
        if isinstance(journey, dict) and journey.get("id"):
            moves = "; ".join(f"{m.get('name')}: {', '.join(m.get('checks') or ()) or 'nothing to check'}"
                              for m in journey.get("moves") or () if isinstance(m, dict))
            features[journey["id"]] = {"name": journey.get("name"), "kind": "journey",
                                       "reason": f"{journey.get('why')}. {moves}"[:2000]}
    for spec in record.get("specs") or ():
        if not isinstance(spec, dict) or not isinstance(spec.get("path"), str):
            continue
        if ws.relative(out / spec["path"]) in listed:
            continue
        feature = features.get(spec.get("feature")) or {}
        covers = str(spec.get("covers") or feature.get("reason") or "")
        found.append(JourneyOut(
            name=str(spec.get("name") or _spec_name(out / spec["path"]) or feature.get("name") or spec["path"]),
            path=ws.relative(out / spec["path"]), covers=covers,
            kind=str(spec.get("kind") or feature.get("kind") or ""), status=str(spec.get("status") or ""),
            uri=discover_uri(name, spec_leaf(spec["path"]))))
    return found



def discover(ws: Workspace, limits: ServerLimits, options: DiscoverOptions, *, cancel: CancelToken,
             progress: Callable[[str], None]) -> DiscoverAnswer:
    """Crawl and write starter specs as `flowwalk discover` does (`discover.discover`), within the
    working directory and this server's time limit."""
    out = ws.confine(options.out_dir, "out_dir")
    if out == ws.root:
        raise ToolInputError("out_dir is the working directory itself\n  hint: name a folder for the specs, "
                             "for example checks")
    budget = options.budget_s
    note = ""
    if budget > limits.max_run_timeout_s:
        note = (f"budget_s {budget:g} is above this server's limit; the crawl had {limits.max_run_timeout_s:g} s "
                f"(flowwalk mcp --run-timeout)")
        budget = limits.max_run_timeout_s
    options = replace(options, out_dir=out, budget_s=budget,
                      login=ws.confine(options.login, "login") if options.login else None,
                      secret_names=_names(options.secret_names))
    with limits.holding(out, ws.relative(out)):
        try:
            result = crawl(options, progress=progress, cancel=cancel)
        except UsageError as error:
            raise ToolInputError(str(error)) from None

    def shown(path: str | Path) -> str:
        return ws.relative(Path(os.path.realpath(path)))

    out_name = shown(result.out_dir)
    return DiscoverAnswer(
        out_dir=out_name, pages=result.pages, features=result.features,
        index_uri=discover_uri(out_name, "index.md"), crawl_uri=discover_uri(out_name, "crawl.json"),
        journeys=journeys_of(ws, Path(os.path.realpath(result.out_dir)), result.journeys),
        specs_written=[shown(p) for p in result.specs_written], needs_review=[shown(p) for p in result.needs_review],
        duration_s=result.duration_s, stopped_reason=result.stopped_reason,
        index=shown(Path(result.discover_dir) / "index.md"), crawl=shown(Path(result.discover_dir) / "crawl.json"),
        dropped=list(result.dropped), note=note,
        model_question=_question_out(result.model_question, secret_values(list(options.secret_names))))


# --- import ----------------------------------------------------------------------------------------


def import_suite(ws: Workspace, limits: ServerLimits, *, sources: list[str], out_dir: str, base_url: str,
                 test_id_attribute: str, run: bool, cancel: CancelToken) -> ImportAnswer:
    """Import a suite's test files into flow specs as `flowwalk import` does (`app.imports.run_import`),
    within the working directory; with `run`, walked once against base_url first."""
    from flowwalk.app.imports import NEEDS_REVIEW, ImportCommand, run_import

    if not sources:
        raise ToolInputError("sources is empty\n  hint: name the suite's test files or folders, for example "
                             "[\"tests/\"]")
    paths = tuple(ws.confine(p, "source") for p in sources)
    out = ws.confine(out_dir, "out_dir")
    if out == ws.root:
        raise ToolInputError("out_dir is the working directory itself\n  hint: name a folder for the specs, "
                             "for example checks")
    with limits.holding(out, ws.relative(out)):
        try:
            answer = run_import(ImportCommand(paths, out, base_url, test_id_attribute, run=run),
                                console=io.StringIO(), cancel=cancel)
        except UsageError as error:
            raise ToolInputError(str(error)) from None
    ledger, written = answer.result.ledger, answer.result.written
    figures = ledger.figures
    name = ws.relative(out)
    return ImportAnswer(
        out_dir=name, files=figures.files, files_refused=figures.files_refused, tests=figures.tests,
        tests_whole=figures.tests_whole, checks=figures.checks, checks_kept=figures.checks_kept,
        counts=ledger.counts(), specs_written=[f"{name}/{rel}" for rel in written.specs],
        needs_review=[f"{name}/{rel}" for rel in written.review],
        not_converted=[NotConvertedOut(at=r.where, call=r.call, why=r.detail)
                       for r in ledger.rows if r.outcome == "not_converted"],
        refused=list(ledger.refused), ledger=f"{name}/import/ledger.md",
        walked=next((line for line in answer.lines if line.startswith("walked ")), ""),
        exit_code=answer.exit_code,
        note=f"tests not imported whole are in {name}/{NEEDS_REVIEW}/" if written.review else "")


def _question_out(question: Any, secrets: list[str]) -> ModelQuestionOut | None:
    """The question a model would have been sent, as the messages agent/prompt.py builds."""
    if question is None:
        return None
    prompt = build_prompt(question, Redactor(secrets))
    return ModelQuestionOut(purpose=question.purpose, answer_format=question.answer_format,
                            items=list(question.items)[:MAX_ITEMS], messages=[dict(m) for m in prompt.messages])


# --- what a run or a crawl may ask the person first (mcp/ask.py carries the questions) -------------

#: the longest value a variable may be given through a question
VALUE_LIMIT = 1_000
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Needed:
    """A `{{NAME}}` the specs use that nobody gave, and where it is first used."""

    name: str
    where: str
    #: a secret (declared, or a name that says so): never asked for, only named in the answer
    secret: bool


#: words in a variable's name that mark it as a secret wherever it is not declared one
SECRET_WORDS = ("PASS", "PWD", "SECRET", "TOKEN", "APIKEY", "API_KEY", "PRIVATE", "CREDENTIAL", "AUTH", "SESSION",
                "COOKIE")


def looks_secret(name: str) -> bool:
    upper = name.upper()
    return any(word in upper for word in SECRET_WORDS) or upper.endswith("PIN")


def needed_variables(ws: Workspace, request: app_run.RunRequest) -> list[Needed]:
    """Every `{{NAME}}` the run's specs need that the run cannot supply, first use each, in file
    order: the walker's own check (walk/preflight.py), before any browser. A secret is one declared
    (config, the spec) or named like one. A folder to serve supplies BASE_URL when the run starts.
    Specs that do not load need none: the run itself reports them."""
    told = request.overrides
    told = replace(told, paths=tuple(str(ws.confine(p, "spec path")) for p in told.paths),
                   secret_names=_names(told.secret_names))
    try:
        loaded = app_run.load(replace(request, overrides=told))
    except (SpecError, UsageError):
        return []
    available = run_variables(loaded.settings)
    if request.serve_dir:
        available.setdefault("BASE_URL", "http://127.0.0.1")
    found: dict[str, Needed] = {}
    for suite in loaded.suites:
        for scenario in suite.scenarios:
            declared = set(loaded.settings.secret_names) | set(scenario.secrets)
            for loc, name in check_variables(scenario, loaded.settings, available):
                if name not in found:
                    found[name] = Needed(name, f"{ws.relative(Path(os.path.realpath(loc.path)))}:{loc.line}",
                                         name in declared or looks_secret(name))
    return list(found.values())


def variables_form(needed: list[Needed]) -> type[BaseModel]:
    """The form asking for the values of `needed` (no secret among them): one text field each."""
    fields: dict[str, Any] = {}
    for i, item in enumerate(needed):
        fields[f"v{i}"] = (str, Field(alias=item.name, title=item.name, min_length=1, max_length=VALUE_LIMIT,
                                       description=f"the value of {{{{{item.name}}}}} (used at {item.where})"))
    form: type[BaseModel] = create_model("RunVariables", **fields)
    return form


def value_problem(values: Mapping[str, str], hidden: list[str]) -> str | None:
    """Why answered variable values cannot be used (never quoting them), or None."""
    for name, value in values.items():
        if not value.strip():
            return f"{name} is empty"
        if _CONTROL.search(value):
            return f"{name} must be one line of text"
        if any(secret and secret == value for secret in hidden):
            return f"{name} was given a secret's value; secrets are given by the NAME of an environment variable"
    return None


def login_wall(ws: Workspace, options: DiscoverOptions) -> LoginWall | None:
    """The login form discover's start URL leads to (discover/wall.py), or None."""
    try:
        return probe_login(DiscoverOptions(url=options.url, out_dir=ws.confine(options.out_dir, "out_dir"),
                                           allow_hosts=options.allow_hosts))
    except UsageError as error:
        raise ToolInputError(str(error)) from None


#: the run variable the written login flow takes the user name from
LOGIN_USER = "LOGIN_USER"


def login_problem(user: str, password_env: str, hidden: list[str]) -> str | None:
    """Why a login answer cannot be used (never quoting `password_env`: it may be a password), or None."""
    if not user.strip() or _CONTROL.search(user):
        return "the user name must be one line of text"
    if any(secret and secret == user for secret in hidden):
        return "the user name is a secret's value"
    if not _ENV_NAME.match(password_env):
        return ("password_env must be the NAME of an environment variable (letters, digits and _), "
                "not the password itself")
    if not os.environ.get(password_env):
        return (f"the flowwalk server has no environment variable {password_env} (or it is empty): set it where "
                f"the server starts (the client's env block) and answer with its name")
    return None


def write_login(ws: Workspace, options: DiscoverOptions, wall: LoginWall, user: str, password_env: str
                ) -> DiscoverOptions:
    """Write the login flow into out_dir/login.flow.yaml and the options that crawl through it."""
    out = ws.confine(options.out_dir, "out_dir")
    out.mkdir(parents=True, exist_ok=True)
    path = out / "login.flow.yaml"
    path.write_text(login_flow(wall, LOGIN_USER, password_env), encoding="utf-8")
    return replace(options, login=Path(ws.relative(path)),
                   variables=tuple({**dict(options.variables), LOGIN_USER: user}.items()),
                   secret_names=tuple(dict.fromkeys([*options.secret_names, password_env])))
