"""The MCP prompts and the concrete resource list, through the SDK's own client: what an agent sees."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import HEALED_FLOW, with_client, write_healed_report
from mcp import Client

def sample_report(folder: Path) -> str:
    """A report with an assertion_failed flow (no browser: the sample corpus); its failed test id."""
    from flowwalk.plan.shard import plan_run
    from flowwalk.report.build import build_reports
    from sample_run import sample_events, sample_suites, write_sample_run
    from flowwalk.settings import Settings

    suites = sample_suites()
    write_sample_run(folder, sample_events(suites, plan_run(suites, Settings()).record()))
    build_reports(folder, warn=False)
    verdict = json.loads((folder / "verdict.json").read_text())
    return next(t["test_id"] for t in verdict["tests"]
                if (t.get("failure") or {}).get("failure_class") == "assertion_failed")


def test_the_prompts_are_listed_with_typed_arguments_and_give_their_messages(workdir: Path) -> None:
    failed = sample_report(workdir / "runs" / "nightly")
    write_healed_report(workdir)

    async def body(client: Client) -> Any:
        listed = {p.name: p for p in (await client.list_prompts()).prompts}
        got = {
            "check-my-app": await client.get_prompt("check-my-app", {"url": "https://staging.example.com"}),
            "fix-failing-check": await client.get_prompt("fix-failing-check", {
                "report_dir": "runs/nightly", "test_id": failed}),
            "review-heals": await client.get_prompt("review-heals", {"report_dir": "healed"}),
            "write-a-check": await client.get_prompt("write-a-check", {
                "what": "a visitor can sign up with an e-mail address", "url": "http://127.0.0.1:8000"}),
        }
        return listed, got

    listed, got = with_client(workdir, body)
    assert set(listed) == {"check-my-app", "fix-failing-check", "review-heals", "write-a-check"}
    args = {name: [(a.name, a.required) for a in p.arguments] for name, p in listed.items()}
    assert args == {"check-my-app": [("url", True)],
                    "fix-failing-check": [("report_dir", True), ("test_id", True)],
                    "review-heals": [("report_dir", True)],
                    "write-a-check": [("what", True), ("url", True)]}
    assert all(a.description for p in listed.values() for a in p.arguments)
    texts = {name: "\n".join(m.content.text for m in result.messages) for name, result in got.items()}
    assert all(m.role == "user" for result in got.values() for m in result.messages)

    app = texts["check-my-app"]
    # the workflow, in the order the tools are used, with the arguments to pass
    order = [app.index(tool) for tool in ("`discover`", "`run`", "`explain_failure`", "Propose the fixes")]
    assert order == sorted(order)
    assert '{"url":"https://staging.example.com","out_dir":"checks"}' in app
    assert "NAME of the environment variable that holds the password (never the password)" in " ".join(app.split())

    fix = texts["fix-failing-check"]
    explained = json.loads(got["fix-failing-check"].messages[1].content.text.split("\n", 1)[1])
    assert explained["test_id"] == failed and explained["failure_class"] == "assertion_failed"
    assert explained["label"] == "assertion_mismatch" and explained["expected"]
    spec = failed.split("#", 1)[0]
    rerun = json.loads(fix.split("call `run` with ", 1)[1].split(", and check", 1)[0])
    assert rerun["paths"] == [spec] and rerun["out_dir"] == "runs/nightly"
    assert re.fullmatch(rerun["grep"], failed) and not re.fullmatch(rerun["grep"], failed + "x")

    heals = texts["review-heals"]
    assert "checks/sign-in.flow.yaml:8: '#submit' -> '[data-testid=sign-in]' (deterministic, score 0.93)" in heals
    assert "+    selector: '[data-testid=sign-in]'" in heals and "HEAL_CONTRADICTED" in heals

    write = texts["write-a-check"]
    # the closest example is the working directory's own sign-up flow, and the format comes from the schema
    assert "The closest example (examples/flows/signup" in write
    kinds = next(line for line in write.splitlines() if line.startswith("- expect kinds: "))
    assert "text_contains" in kinds and "no_console_errors" not in kinds  # an assertion kind is not a step's
    assert "checks/visitor-can-sign-up-mail.flow.yaml" in write


def test_a_prompt_with_a_bad_argument_is_refused_with_a_hint(workdir: Path) -> None:
    failed = sample_report(workdir / "runs" / "nightly")

    async def body(client: Client) -> list[str]:
        errors = []
        for name, arguments in (("check-my-app", {"url": "ftp://example.com"}),
                                ("fix-failing-check", {"report_dir": "runs/nightly", "test_id": failed + "x"}),
                                ("review-heals", {"report_dir": "../elsewhere"}),
                                ("write-a-check", {"what": "  ", "url": "http://127.0.0.1:8000"})):
            try:
                await client.get_prompt(name, arguments)
            except Exception as error:  # noqa: BLE001 - the SDK raises MCPError for a refused prompt
                errors.append(str(error))
        return errors

    errors = with_client(workdir, body)
    assert len(errors) == 4
    assert "'ftp://example.com' is not an http(s) URL" in errors[0] and "hint:" in errors[0]
    assert failed in errors[1]  # the closest test id
    assert "outside the server's working directory" in errors[2]
    assert "what is empty" in errors[3]


def test_resources_list_names_every_report_file_and_schema(workdir: Path) -> None:
    sample_report(workdir / "runs" / "nightly")

    async def body(client: Client) -> Any:
        listed = (await client.list_resources()).resources
        read = await client.read_resource(next(r.uri for r in listed if str(r.uri).endswith("/summary.md")))
        return listed, read

    listed, read = with_client(workdir, body)
    uris = {str(r.uri): r for r in listed}
    assert "flowwalk://reports/runs%2Fnightly/summary.md" in uris
    assert uris["flowwalk://reports/runs%2Fnightly/verdict.json"].mime_type == "application/json"
    shots = [u for u in uris if u.startswith("flowwalk://reports/runs%2Fnightly/screenshots/")]
    assert shots and all(uris[u].mime_type == "image/png" for u in shots)
    assert "flowwalk://schemas/flow-spec.v1.schema.json" in uris
    assert read.contents[0].text.startswith("## ")


@pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")
def test_a_crawl_is_listed_with_its_specs_as_resources(workdir: Path) -> None:
    crawl = workdir / "checks" / "discover"
    crawl.mkdir(parents=True)
    (workdir / "checks" / "home").mkdir()
    (workdir / "checks" / "home" / "page.flow.yaml").write_text(HEALED_FLOW)
    (crawl / "index.md").write_text("# found\n")
    (crawl / "crawl.json").write_text(json.dumps({"specs": [{"path": "home/page.flow.yaml", "feature": "home/page",
                                                             "status": "written"}]}))

    async def body(client: Client) -> Any:
        listed = {str(r.uri) for r in (await client.list_resources()).resources}
        spec = await client.read_resource("flowwalk://discover/checks/spec/home%2Fpage.flow.yaml")
        index = await client.read_resource("flowwalk://discover/checks/index.md")
        errors = []
        for uri in ("flowwalk://discover/checks/spec/..%2F..%2Fetc%2Fpasswd", "flowwalk://discover/nowhere/index.md",
                    "flowwalk://discover/checks/spec/other.flow.yaml"):
            try:
                await client.read_resource(uri)
            except Exception as error:  # noqa: BLE001
                errors.append(str(error))
        return listed, spec, index, errors

    listed, spec, index, errors = with_client(workdir, body)
    assert {"flowwalk://discover/checks/index.md", "flowwalk://discover/checks/crawl.json",
            "flowwalk://discover/checks/spec/home%2Fpage.flow.yaml"} <= listed
    assert spec.contents[0].text == HEALED_FLOW and index.contents[0].text == "# found\n"
    assert len(errors) == 3 and "wrote no spec 'other.flow.yaml'" in errors[2] and "root:" not in errors[0] and "holds no crawl" in errors[1]


def test_discover_answers_its_journeys_first_then_every_other_spec(workdir: Path) -> None:
    from flowwalk.discover.options import JourneySummary
    from flowwalk.mcp.operations import journeys_of
    from flowwalk.mcp.workspace import Workspace

    out = workdir / "checks"
    (out / "discover").mkdir(parents=True)
    (out / "discover" / "crawl.json").write_text(json.dumps({
        "features": [{"id": "home/page", "name": "Home", "kind": "page", "reason": "every page: answers at /"}],
        "specs": [{"path": "home/page.flow.yaml", "feature": "home/page", "status": "written"},
                  {"path": "home/add-todo.flow.yaml", "feature": "home/journey-1", "status": "written"}]}))
    typed = [JourneySummary(id="home/journey-1", name="add, complete, filter", page="/", why="the page can add items",
                            spec="home/add-todo.flow.yaml", status="written",
                            covers=("add 'Written by flowwalk discover 1': the list shows 1 row",)),
             JourneySummary(id="home/journey-2", name="reload", page="/", why="storage changed", spec="",
                            status="not_written", covers=())]
    found = journeys_of(Workspace.at(workdir), out, typed)
    assert [(j.kind, j.path, j.status) for j in found] == [
        ("journey", "checks/home/add-todo.flow.yaml", "written"), ("journey", "", "not_written"),
        ("page", "checks/home/page.flow.yaml", "written")]
    assert found[0].covers == "the page can add items. add 'Written by flowwalk discover 1': the list shows 1 row"
    assert found[0].uri == "flowwalk://discover/checks/spec/home%2Fadd-todo.flow.yaml" and found[1].uri == ""
