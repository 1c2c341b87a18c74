"""What the MCP server asks the person before a run or a crawl starts (elicitation, see mcp/ask.py):
the values of plain variables nobody gave, the login in front of a site (a user name and the NAME
of the variable holding the password, never the password), and whether forms may be submitted.
Each returns the request to go on with, or the answer that ends the call cleanly.
"""

from __future__ import annotations

from dataclasses import replace

import anyio
import anyio.to_thread
from pydantic import BaseModel, Field

from flowwalk.app.run import RunRequest
from flowwalk.discover import DiscoverOptions
from flowwalk.mcp import operations
from flowwalk.mcp.answers import AskedOut, DiscoverAnswer, RunAnswer
from flowwalk.mcp.ask import Asked, Asker
from flowwalk.mcp.workspace import Workspace

__all__ = ["LoginAnswer", "SubmitAnswer", "ask_for_discover", "ask_for_run", "asked_out"]


class LoginAnswer(BaseModel):
    """The login a crawl behind a login asks for: a user name and the NAME of a variable, never a password."""

    user_name: str = Field(title="User name", min_length=1, max_length=200,
                           description="the user name or e-mail address to log in with")
    password_env: str = Field(title="Password variable (its NAME)", min_length=1, max_length=100,
                              description="the NAME of the flowwalk server's environment variable that holds the "
                                          "password, e.g. DEMO_PASSWORD; not the password itself")


class SubmitAnswer(BaseModel):
    submit: bool = Field(title="Submit forms", description="fill in and submit the forms the crawl finds")


def asked_out(asked: Asked) -> AskedOut:
    """An answer's record of one question asked and how it was answered."""
    answered = asked.data.model_dump(mode="json", by_alias=True) if asked.data is not None else {}
    return AskedOut(question=asked.message, action=asked.action, answered=answered)


async def ask_for_run(ws: Workspace, asker: Asker, request: RunRequest) -> tuple[RunRequest, RunAnswer | None, str]:
    """Ask for the values of the variables the specs need and nobody gave: (the request with
    them, or the answer that ends the call; a note on what was not asked)."""
    needed = await anyio.to_thread.run_sync(lambda: operations.needed_variables(ws, request))
    secrets = [n for n in needed if n.secret]
    plain = [n for n in needed if not n.secret]
    note = ""
    if secrets:
        note = ("not asked for " + ", ".join(f"{n.name} ({n.where})" for n in secrets) + ": a secret is never "
                "asked for; set the server's environment variable and name it in secret_names")
    if not plain:
        return request, None, note
    listed = "\n".join(f"- {n.name} (used at {n.where})" for n in plain)
    message = (f"flowwalk run: the specs use variables nobody gave a value for:\n{listed}\n"
               f"Give a value for each (they are plain values, written into the pages; a password or "
               f"token is never typed here: it is a secret, named in secret_names). Decline to stop "
               f"without running.")
    form = operations.variables_form(plain)

    def check(answer: BaseModel) -> str | None:
        return operations.value_problem(answer.model_dump(by_alias=True), asker.hidden)

    outcome = await asker.ask("run.variables", message, form, check)
    if outcome.action != "accept" or outcome.data is None:
        name = ws.relative(ws.confine(request.overrides.out_dir or "flowwalk-report", "out_dir"))
        stop = RunAnswer(
            outcome="not_run", exit_code=None, report_dir=name, summary_uri="", verdict_uri="",
            asked=[asked_out(a) for a in asker.asked],
            note=(f"the run did not start: the question for {', '.join(n.name for n in plain)} was "
                  f"{outcome.action}{'d' if outcome.action == 'decline' else 'led'}; the specs loaded and "
                  f"nothing was walked. Give the values with variables, or run without them (the tests that "
                  f"need them end credential_rejected). {note}").strip())
        return request, stop, note
    values = outcome.data.model_dump(by_alias=True)
    told = request.overrides
    return replace(request, overrides=replace(told, variables={**told.variables, **values})), None, note


async def ask_for_discover(ws: Workspace, asker: Asker, request: DiscoverOptions
                            ) -> tuple[DiscoverOptions, DiscoverAnswer | None]:
    """Before the crawl: the login when the start URL leads to one, then whether forms may be
    submitted (when asked to). (The request to crawl with, or the answer that ends the call.)"""
    done: list[str] = []

    def stopped(outcome: Asked) -> DiscoverAnswer:
        verb = "declined" if outcome.action == "decline" else "cancelled"
        return DiscoverAnswer(
            out_dir=str(request.out_dir), pages=0, features=0, duration_s=0.0, stopped_reason="not_started",
            index="", crawl="", asked=[asked_out(a) for a in asker.asked],
            note=" ".join([f"the crawl did not start: the question was {verb}.", *done]))

    if request.login is None:
        wall = await anyio.to_thread.run_sync(lambda: operations.login_wall(ws, request))
        if wall is not None:
            done.append(f"{request.url} leads to a login form at {wall.url}.")
            how = "sent the browser to" if wall.redirected else "is"
            message = (
                f"flowwalk discover: {request.url} {how} a login form ({wall.url}). To crawl the site "
                f"logged in, give the user name to type into {wall.user_target}, and the NAME of the "
                f"environment variable of the flowwalk server that holds the password (for example "
                f"APP_PASSWORD). Never type the password itself here: flowwalk reads it from that "
                f"variable when it logs in. Decline to stop without crawling.")

            def check(answer: LoginAnswer) -> str | None:
                return operations.login_problem(answer.user_name, answer.password_env, asker.hidden)

            outcome = await asker.ask("discover.login", message, LoginAnswer, check)
            if outcome.action != "accept" or not isinstance(outcome.data, LoginAnswer):
                return request, stopped(outcome)
            login = outcome.data
            request = await anyio.to_thread.run_sync(lambda: operations.write_login(
                ws, request, wall, login.user_name.strip(), login.password_env))
            done.append(f"The login flow was written to {request.login}.")
    if request.submit_forms:
        message = (f"flowwalk discover will fill in and submit the forms it finds on {request.url} with "
                   f"sample values (search, sign-up, contact and the like; never a form or button whose "
                   f"words say delete, pay, log out and the like). Submit forms?")
        outcome = await asker.ask("discover.submit_forms", message, SubmitAnswer, lambda _answer: None)
        if outcome.action != "accept" or not isinstance(outcome.data, SubmitAnswer):
            return request, stopped(outcome)
        request = replace(request, submit_forms=outcome.data.submit)
    return request, None
