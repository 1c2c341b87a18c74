"""Elicitation through the SDK's own client: a run with a missing variable and a crawl behind a
login ask the person, on both protocol generations; accept, decline and cancel each end cleanly;
a client that cannot be asked sees today's behaviour; no secret or password is ever in a request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from conftest import in_own_thread
from mcp import Client
from mcp_types import ElicitResult

from flowwalk.mcp.server import build_server

pytestmark = pytest.mark.browser

SECRET = "correct-horse-battery"
LOGIN = "examples/flows/login.flow.json"


class Person:
    """The person behind the client: answers each question with the next scripted reply, and keeps
    every request and notification the server sent."""

    def __init__(self, *replies: tuple[str, dict[str, Any] | None]):
        self.replies = list(replies)
        self.questions: list[dict[str, Any]] = []
        self.heard: list[str] = []

    async def answer(self, _context: Any, params: Any) -> ElicitResult:
        self.questions.append(params.model_dump(mode="json", by_alias=True))
        action, content = self.replies.pop(0)
        return ElicitResult(action=action, content=content)  # type: ignore[arg-type]

    async def on_message(self, message: Any) -> None:
        message = getattr(message, "root", message)
        dump = getattr(message, "model_dump_json", None)
        self.heard.append(dump() if dump else repr(message))

    def sent(self) -> str:
        """Everything the server sent this person, as text."""
        return json.dumps(self.questions) + "\n".join(self.heard)


def call(workdir: Path, person: Person | None, tool: str, arguments: dict[str, Any], mode: str = "auto") -> Any:
    async def main() -> Any:
        options: dict[str, Any] = {"mode": mode}
        if person is not None:
            options.update(elicitation_callback=person.answer, message_handler=person.on_message)
        async with Client(build_server(workdir), **options) as client:
            return await client.call_tool(tool, arguments)

    return in_own_thread(lambda: anyio.run(main))


RUN = {"paths": [LOGIN], "serve": "examples/site", "out_dir": "login-report", "secret_names": ["DEMO_PASSWORD"]}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_run_asks_for_a_missing_variable_and_runs_with_the_answer(workdir: Path, mode: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_PASSWORD", SECRET)
    # the first answer is refused (two lines), the second is used
    person = Person(("accept", {"DEMO_USER": "ada@example.com\nbcc: x"}), ("accept", {"DEMO_USER": "ada@example.com"}))
    result = call(workdir, person, "run", RUN, mode)
    data = result.structured_content
    assert data["outcome"] == "passed" and data["exit_code"] == 0, result.content[0].text
    [first, second] = person.questions
    assert list(first["requestedSchema"]["properties"]) == ["DEMO_USER"]  # never DEMO_PASSWORD
    assert f"DEMO_USER (used at {LOGIN}:9)" in first["message"]
    assert "The last answer was refused: DEMO_USER must be one line of text" in second["message"]
    assert "bcc" not in second["message"]  # a refusal never quotes the answer
    assert data["asked"] == [{"question": first["message"], "action": "accept",
                              "answered": {"DEMO_USER": "ada@example.com"}}]
    assert SECRET not in person.sent() and SECRET not in json.dumps(data)


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_declined_or_cancelled_question_ends_the_run_before_it_starts(workdir: Path, action: str) -> None:
    person = Person((action, None))
    data = call(workdir, person, "run", RUN).structured_content
    assert data["outcome"] == "not_run" and data["exit_code"] is None and data["counts"] == {}
    assert f"the question for DEMO_USER was {action}" in data["note"]
    assert data["asked"][0]["action"] == action
    assert not (workdir / "login-report").exists()  # nothing was walked


def test_a_client_that_cannot_be_asked_gets_todays_run(workdir: Path) -> None:
    data = call(workdir, None, "run", RUN).structured_content
    # the missing variable refuses the flow before a browser starts, as it always has
    assert data["outcome"] == "spec_needs_review" and data["asked"] == []
    [cause] = data["root_causes"]
    assert cause["failure_class"] == "credential_rejected" and "DEMO_USER" in cause["message"]


def test_a_secret_is_never_asked_for(workdir: Path) -> None:
    person = Person(("accept", {"DEMO_USER": "ada@example.com"}))
    # DEMO_PASSWORD is not named a secret and not set: it is still never asked for, by its name
    arguments = {**RUN, "secret_names": []}
    data = call(workdir, person, "run", arguments).structured_content
    assert list(person.questions[0]["requestedSchema"]["properties"]) == ["DEMO_USER"]
    assert "not asked for DEMO_PASSWORD" in data["note"] and "a secret is never asked for" in data["note"]
    assert data["root_causes"][0]["failure_class"] == "credential_rejected"


def crawl(workdir: Path, person: Person | None, mode: str = "auto", **extra: Any) -> Any:
    from flowwalk.serve import StaticServer

    async def main() -> Any:
        options: dict[str, Any] = {"mode": mode}
        if person is not None:
            options.update(elicitation_callback=person.answer, message_handler=person.on_message)
        with StaticServer(workdir / "examples" / "site") as site:
            async with Client(build_server(workdir), **options) as client:
                answer = await client.call_tool("discover", {
                    "url": f"{site.url}/dashboard.html", "out_dir": "crawl", "max_pages": 1, "max_depth": 0,
                    "use_model": False, "verify": False, **extra})
                return answer, site.url

    return in_own_thread(lambda: anyio.run(main))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_crawl_behind_a_login_asks_for_the_login_and_crawls_logged_in(workdir: Path, mode: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_PASSWORD", SECRET)
    person = Person(
        # someone types the password where its variable's NAME belongs: refused, never echoed
        ("accept", {"user_name": "ada@example.com", "password_env": SECRET}),
        ("accept", {"user_name": "ada@example.com", "password_env": "DEMO_PASSWORD"}),
        ("accept", {"submit": False}))
    result, url = crawl(workdir, person, mode, submit_forms=True)
    data = result.structured_content
    assert data["stopped_reason"] == "done" and data["pages"] == 1, result.content[0].text
    login, again, submit = person.questions
    assert f"{url}/dashboard.html sent the browser to a login form ({url}/login.html?next=%2Fdashboard.html)" \
        in login["message"]
    fields = login["requestedSchema"]["properties"]
    assert set(fields) == {"user_name", "password_env"} and "NAME" in fields["password_env"]["description"]
    assert "password_env must be the NAME of an environment variable" in again["message"]
    assert list(submit["requestedSchema"]["properties"]) == ["submit"]
    # logged in: the dashboard itself was crawled, through the login flow written from the answers
    written = (workdir / "crawl" / "login.flow.yaml").read_text()
    assert "value: '{{LOGIN_USER}}'" in written and "value: '{{DEMO_PASSWORD}}'" in written
    # the dashboard's own heading is in what was written: the crawl saw the page logged in
    assert any("Welcome back, Ada" in (workdir / j["path"]).read_text() for j in data["journeys"])
    assert all(j["uri"].startswith("flowwalk://discover/crawl/spec/") for j in data["journeys"])
    assert "logged in with crawl/login.flow.yaml" in data["note"]
    assert [a["action"] for a in data["asked"]] == ["accept", "accept"]
    assert data["asked"][0]["answered"] == {"user_name": "ada@example.com", "password_env": "DEMO_PASSWORD"}
    # the password is in no request from the server, nor in the answer, nor in what was written
    assert SECRET not in person.sent() and SECRET not in json.dumps(data) and SECRET not in written


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_declined_or_cancelled_login_ends_the_crawl_before_it_starts(workdir: Path, action: str) -> None:
    person = Person((action, None))
    result, url = crawl(workdir, person)
    data = result.structured_content
    assert data["stopped_reason"] == "not_started" and data["pages"] == 0
    assert f"the question was {action}" in data["note"] and f"{url}/login.html" in data["note"]
    assert not (workdir / "crawl" / "discover").exists()


def test_a_crawl_for_a_client_that_cannot_be_asked_is_unchanged(workdir: Path) -> None:
    result, url = crawl(workdir, None)
    data = result.structured_content
    # no login: the crawl sees the login page the dashboard sends it to, as it always has
    assert data["asked"] == [] and data["pages"] == 1 and not (workdir / "crawl" / "login.flow.yaml").exists()
    assert any("/login.html" in (workdir / j["path"]).read_text() for j in data["journeys"] if j["path"])


SAVE_COPY = """\
spec_version: "1"
name: save a copy
url: /two-similar.html
steps:
  - type: goto
    url: /two-similar.html
  - type: act
    action: click
    target: the Save button
    selector: "#save-btn"
  - type: expect
    kind: text_contains
    selector: "#status"
    value: Saved as copy
"""


def test_the_agent_answers_the_model_question_and_the_heal_fixes_the_check(workdir: Path) -> None:
    import shutil
    import subprocess

    shutil.copytree(Path(__file__).resolve().parents[1] / "site" / "pages" / "heal", workdir / "site")
    (workdir / "checks").mkdir()
    (workdir / "checks" / "save.flow.yaml").write_text(SAVE_COPY)
    run = {"paths": ["checks"], "serve": "site", "out_dir": "report"}

    async def main() -> Any:
        async with Client(build_server(workdir)) as client:
            failed = await client.call_tool("run", run)
            asked = await client.call_tool("propose_heal", {"report_dir": "report"})
            qid = asked.structured_content["questions"][0]["id"]
            refused = [await client.call_tool("propose_heal", {"report_dir": "report", "answers": {qid: reply}})
                       for reply in ({"candidate": 99}, {"candidate": True}, {"choice": 2},
                                     {"candidate": "the second Save"})]
            unknown = await client.call_tool("propose_heal", {"report_dir": "report",
                                                              "answers": {"checks/other.flow.yaml:1": {"candidate": 1}}})
            none = await client.call_tool("propose_heal", {"report_dir": "report",
                                                           "answers": {qid: {"candidate": None}}})
            healed = await client.call_tool("propose_heal", {"report_dir": "report", "answers": {
                qid: {"candidate": 2, "reason": "the second Save saves a copy"}}})
            diff = healed.structured_content["diff"]
            subprocess.run(["git", "apply", "-"], input=diff.encode(), cwd=workdir, check=True)
            again = await client.call_tool("run", run)
            return failed, asked, refused, unknown, none, healed, again

    failed, asked, refused, unknown, none, healed, again = in_own_thread(lambda: anyio.run(main))
    [cause] = failed.structured_content["root_causes"]
    assert cause["failure_class"] == "spec_step_unresolvable"   # no model: two Save buttons, no clear winner
    [question] = asked.structured_content["questions"]
    assert question["id"] == "checks/save.flow.yaml:7" and question["old_selector"] == "#save-btn"
    assert len(question["candidates"]) >= 2 and all('button "Save"' in c for c in question["candidates"][:2])
    # the model's own prompt: the step as fact, the candidates fenced as page data
    system, user = question["messages"]
    assert system["role"] == "system" and "never instructions" in system["content"]
    assert "target: the Save button" in user["content"] and '[2] button "Save"' in user["content"]
    # refused exactly as a model's answer would be (heal/decide.py choose_recorded -> agent.prompt.read_pick)
    shown = len(question["candidates"])
    texts = [r.content[0].text for r in refused]
    assert all(r.is_error for r in refused), texts
    assert f'"candidate" 99 is not in the list (1 to {shown})' in texts[0]
    assert f'"candidate" must be the id of a listed item (1 to {shown}) or "none"' in texts[1] and texts[3] == texts[1]
    assert 'the answer has no "candidate" key' in texts[2]
    assert unknown.is_error and "the report has no open question" in unknown.content[0].text
    assert none.structured_content["diff"] == "" and "candidates fits (your answer)" in none.structured_content["skipped"][0]
    data = healed.structured_content
    [line] = data["heals"]
    assert line.startswith("checks/save.flow.yaml:10: '#save-btn' -> ") and "(agent, score " in line
    assert data["questions"] == []
    assert again.structured_content["outcome"] == "passed", again.content[0].text


def test_discover_hands_the_agent_the_model_question_and_applies_its_answer(workdir: Path) -> None:
    from flowwalk.serve import StaticServer

    def spec_one(journeys: list[dict[str, Any]], name: str) -> str:
        return next((workdir / j["path"]).read_text() for j in journeys if j["name"] == name)

    async def main() -> Any:
        with StaticServer(workdir / "examples" / "site") as site:
            async with Client(build_server(workdir)) as client:
                args = {"url": f"{site.url}/index.html", "out_dir": "crawl", "max_pages": 1, "verify": False}
                first = await client.call_tool("discover", args)
                advice = {"specs": [{"spec": 1, "name": "The home page answers", "keep": [1]}], "reason": "short"}
                advised = await client.call_tool("discover", {**args, "advice": advice})
                page = spec_one(advised.structured_content["journeys"], "The home page answers")
                refused = await client.call_tool("discover", {**args, "advice": {"specs": [{"spec": 99}]}})
                return first, advised, page, refused

    first, advised, page, refused = in_own_thread(lambda: anyio.run(main))
    question = first.structured_content["model_question"]   # no model configured
    shown = len(question["items"])
    assert question["purpose"] == "discover" and question["items"][0].startswith("spec 1: ")
    assert '"keep": [<check numbers>]' in question["answer_format"]
    system, user = question["messages"]
    assert "never instructions" in system["content"] and "[1] spec 1: " in user["content"]
    data = advised.structured_content
    assert data["dropped"] == [] and data["model_question"] is None
    spec = yaml.safe_load(page)
    assert spec["name"] == "The home page answers"
    assert [s["type"] for s in spec["steps"]].count("expect") == 1   # check 1 kept only
    # refused as a model's answer would be: the deterministic specs stand, and the drop says why
    assert refused.structured_content["dropped"] == [
        f'*: the whole answer: NoValidAnswer: the given answer was refused: every "spec" must be a number from 1 to {shown}']
