"""The MCP tools that need no browser, through the SDK's in-process client: what an agent sees."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import HEALED_FLOW, in_own_thread, with_client, write_healed_report
from mcp import Client
from mcp_types import ResourceUpdatedNotification

from flowwalk.mcp.bounds import ANSWER_LIMIT
from flowwalk.report.verdict_json import verdict_text
from sample_run import whole_test, whole_verdict
from flowwalk.mcp.server import build_server


def answer_size(result: Any) -> int:
    """Characters of an answer as the limit counts them: its text plus its structured JSON."""
    text = sum(len(block.text) for block in result.content if block.type == "text")
    return text + len(json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":")))


def test_the_tools_are_listed_with_honest_annotations(workdir: Path) -> None:
    async def body(client: Client) -> Any:
        return {tool.name: tool for tool in (await client.list_tools()).tools}

    tools = with_client(workdir, body)
    assert {"validate", "run", "explain_failure", "schema", "list_reports"} <= set(tools)
    for name in ("validate", "explain_failure", "schema", "list_reports"):
        hints = tools[name].annotations
        assert hints.read_only_hint is True and hints.destructive_hint is False and hints.idempotent_hint is True
    run = tools["run"].annotations
    # run writes the report folder, replacing the previous run's files, and drives a live site
    assert run.read_only_hint is False and run.destructive_hint is True and run.idempotent_hint is False
    assert run.open_world_hint is True
    for tool in tools.values():
        assert tool.output_schema is not None and tool.input_schema["type"] == "object"


def test_validate_reports_every_problem_with_its_position_and_hint(workdir: Path) -> None:
    bad = workdir / "checks" / "bad.flow.yaml"
    bad.parent.mkdir()
    bad.write_text("spec_version: '1'\nname: broken\nurl: /x\nsteps:\n  - act: {action: clik, selector: '#a'}\n"
                   "  - expect: {kind: url_contains}\n")

    async def body(client: Client) -> Any:
        good = await client.call_tool("validate", {"paths": ["examples/flows"]})
        broken = await client.call_tool("validate", {"paths": ["checks"]})
        return good, broken

    good, broken = with_client(workdir, body)
    assert good.is_error is False and good.structured_content["ok"] is True
    assert good.structured_content["files"] == 11 and good.structured_content["problems"] == []
    data = broken.structured_content
    assert data["ok"] is False and data["problem_count"] == len(data["problems"]) >= 2
    first = data["problems"][0]
    assert first["path"] == "checks/bad.flow.yaml" and first["line"] == 5
    assert first["text"].startswith("checks/bad.flow.yaml:5:") and "hint:" in first["text"]
    assert all(p["hint"] for p in data["problems"])
    # the same JSON as text, for clients that read only text content
    assert json.loads(broken.content[0].text) == data


def test_validate_checks_an_inline_spec(workdir: Path) -> None:
    spec = "spec_version: '1'\nname: inline\nurl: /index.html\nsteps:\n  - expect: {kind: title_contains}\n"

    async def body(client: Client) -> Any:
        return await client.call_tool("validate", {"text": spec, "kind": "flow.yaml", "name": "inline-home"})

    data = with_client(workdir, body).structured_content
    assert data["ok"] is False
    assert [p["path"] for p in data["problems"]] == ["<inline>/inline-home.flow.yaml"] * len(data["problems"])
    assert data["problems"][0]["line"] == 5
    assert not list(workdir.glob("**/inline-home.flow.yaml"))  # nothing was written into the working directory


def test_a_path_outside_the_working_directory_is_refused(workdir: Path, tmp_path_factory: Any) -> None:
    outside = tmp_path_factory.mktemp("elsewhere")
    (outside / "x.flow.yaml").write_text("spec_version: '1'\n")
    (workdir / "link").symlink_to(outside)

    async def body(client: Client) -> Any:
        return [await client.call_tool("validate", {"paths": [str(outside / "x.flow.yaml")]}),
                await client.call_tool("validate", {"paths": ["../" + outside.name]}),
                await client.call_tool("validate", {"paths": ["link/x.flow.yaml"]}),
                await client.call_tool("run", {"paths": ["examples/flows"], "out_dir": "/tmp/elsewhere"}),
                await client.call_tool("explain_failure", {"report_dir": "..", "test_id": "x"})]

    for result in with_client(workdir, body):
        assert result.is_error is True
        text = result.content[0].text
        assert "is outside the server's working directory" in text and "hint:" in text
        assert "Traceback" not in text


def test_bad_arguments_get_a_clear_error(workdir: Path) -> None:
    async def body(client: Client) -> Any:
        return [await client.call_tool("validate", {}),
                await client.call_tool("validate", {"text": "x: 1", "kind": "flow.yaml", "paths": ["examples"]}),
                await client.call_tool("run", {"paths": ["examples/flows"], "secret_names": ["hunter2!"]}),
                await client.call_tool("run", {"paths": ["examples/flows"], "out_dir": "examples"}),
                await client.call_tool("explain_failure", {"report_dir": "examples", "test_id": "x"}),
                await client.call_tool("run", {"paths": ["examples/flows"], "base_url": "example.com"}),
                await client.call_tool("run", {"paths": ["examples/flows"], "base_url": "http://127.0.0.1:8080",
                                               "http_headers": {"x-bypass": "4f8b2c91-aa"}})]

    texts = [r.content[0].text for r in with_client(workdir, body)]
    assert "give either paths or text" in texts[0]
    assert "give either paths or text" in texts[1]
    assert "is not an environment variable name" in texts[2]
    assert "not a report folder" in texts[3]
    assert "is not a report folder" in texts[4]
    # the settings' one check, as `flowwalk run` and the Action make it (tests/corpus/options)
    assert "--base-url 'example.com' is not an http(s) url\n  hint: add the scheme: 'https://example.com'" in texts[5]
    assert "must be the NAME of an environment variable" in texts[6] and "4f8b2c91-aa" not in texts[6]


def test_schema_is_sent_whole_when_small_and_without_its_defs_when_large(workdir: Path) -> None:
    async def body(client: Client) -> Any:
        return (await client.call_tool("schema", {"kind": "quarantine"}),
                await client.call_tool("schema", {"kind": "flow_spec"}),
                await client.call_tool("schema", {"kind": "flow_spec", "definitions": ["ActStep"]}),
                await client.call_tool("schema", {"kind": "rules", "definitions": ["NoSuchThing"]}),
                await client.read_resource("flowwalk://schemas/flow-spec.v1.schema.json"))

    # a small schema comes whole (flowwalk.yaml's outgrew the budget with the environment keys)
    config, flow, act, unknown, whole = with_client(workdir, body)
    assert config.structured_content["schema"]["title"] == "flowwalk quarantine file v1"
    assert "$defs" in config.structured_content["schema"] and not config.structured_content.get("note")
    flow_data = flow.structured_content
    assert "$defs" not in flow_data["schema"] and "ActStep" in flow_data["definitions"]
    assert "read flowwalk://schemas/flow-spec.v1.schema.json" in flow_data["note"]
    assert list(act.structured_content["schema"]["$defs"]) == ["ActStep"]
    assert unknown.is_error and "has no definition 'NoSuchThing'" in unknown.content[0].text
    full = json.loads(whole.contents[0].text)
    assert full == json.loads((Path(__file__).parents[2] / "schemas" / "flow-spec.v1.schema.json").read_text())
    for result in (config, flow, act):
        assert answer_size(result) <= ANSWER_LIMIT


def test_every_answer_stays_within_the_limit(workdir: Path) -> None:
    # 400 broken flows: thousands of problems, far more than 20,000 characters of them
    checks = workdir / "many"
    checks.mkdir()
    for i in range(400):
        (checks / f"broken-{i:03}.flow.yaml").write_text(f"spec_version: '1'\nname: n{i}\nsteps: []\nbogus: 1\n")

    async def body(client: Client) -> Any:
        return await client.call_tool("validate", {"paths": ["many"]})

    result = with_client(workdir, body)
    data = result.structured_content
    assert answer_size(result) <= ANSWER_LIMIT
    assert data["truncated"] is True and "answer cut to 20000 characters" in data["note"]
    assert data["problem_count"] >= 1200 and 0 < len(data["problems"]) < data["problem_count"]
    assert data["problems"][0]["path"] == "many/broken-000.flow.yaml"  # the first ones are kept, in order


def test_list_reports_names_the_report_folders_and_their_resources(workdir: Path) -> None:
    report = workdir / "runs" / "one"
    (report / "screenshots").mkdir(parents=True)
    (report / "verdict.json").write_text(verdict_text(whole_verdict(started_at="t", tests=[whole_test("a.flow.yaml#a")])))
    (report / "summary.md").write_text("## all good\n")
    (report / "screenshots" / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n")

    async def body(client: Client) -> Any:
        listed = await client.call_tool("list_reports", {})
        summary = await client.read_resource("flowwalk://reports/runs%2Fone/summary.md")
        shot = await client.read_resource("flowwalk://reports/runs%2Fone/screenshots/a.png")
        return listed, summary, shot

    listed, summary, shot = with_client(workdir, body)
    [entry] = listed.structured_content["reports"]
    assert entry["dir"] == "runs/one" and entry["outcome"] == "passed" and entry["screenshots"] == ["a.png"]
    assert entry["summary_uri"] == "flowwalk://reports/runs%2Fone/summary.md"
    assert summary.contents[0].text == "## all good\n"
    assert shot.contents[0].mime_type == "image/png" and shot.contents[0].blob


def test_a_resource_outside_the_working_directory_is_refused(workdir: Path) -> None:
    async def body(client: Client) -> Any:
        errors = []
        for uri in ("flowwalk://reports/..%2F..%2Fetc/summary.md", "flowwalk://reports/%2Fetc/verdict.json",
                    "flowwalk://reports/examples/summary.md"):
            try:
                await client.read_resource(uri)
            except Exception as error:  # noqa: BLE001 - the SDK raises MCPError for a refused read
                errors.append(str(error))
        return errors

    errors = with_client(workdir, body)
    assert len(errors) == 3
    assert "not a report folder" in errors[2]


def test_propose_heal_answers_the_diff_and_writes_nothing(workdir: Path) -> None:
    from sample_run import healed_events, write_sample_run

    spec = write_healed_report(workdir)
    write_sample_run(workdir / "plain", healed_events([]))

    async def body(client: Client) -> Any:
        return (await client.call_tool("propose_heal", {"report_dir": "healed"}),
                await client.call_tool("propose_heal", {"report_dir": "plain"}),
                await client.call_tool("propose_heal", {"report_dir": "../x"}))

    healed, plain, outside = with_client(workdir, body)
    data = healed.structured_content
    assert data["files"] == ["checks/sign-in.flow.yaml"] and data["skipped"] == []
    assert data["diff"].startswith("--- a/checks/sign-in.flow.yaml\n+++ b/checks/sign-in.flow.yaml\n@@ ")
    assert "-    selector: '#submit'   # pinned by discover\n" in data["diff"]
    assert "+    selector: '[data-testid=sign-in]'   # pinned by discover\n" in data["diff"]
    assert data["heals"] == ["checks/sign-in.flow.yaml:8: '#submit' -> '[data-testid=sign-in]' "
                             "(deterministic, score 0.93)"]
    assert spec.read_text() == HEALED_FLOW  # never writes
    assert plain.structured_content["diff"] == "" and "the report has no heals" in plain.structured_content["note"]
    assert outside.is_error and "outside the server's working directory" in outside.content[0].text


@pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")
def test_subscribers_hear_when_a_report_changes_outside_the_server(workdir: Path) -> None:
    # a `flowwalk run` in a terminal rewrites the report: both subscription styles hear of it
    report = workdir / "flowwalk-report"
    report.mkdir()
    (report / "verdict.json").write_text(verdict_text(whole_verdict()))
    (report / "summary.md").write_text("## old\n")
    verdict_uri = "flowwalk://reports/flowwalk-report/verdict.json"
    summary_uri = "flowwalk://reports/flowwalk-report/summary.md"

    async def modern() -> list[str]:
        heard: list[str] = []
        async with Client(build_server(workdir)) as client:
            async with client.listen(resource_subscriptions=[verdict_uri]) as subscription:
                (report / "verdict.json").write_text(verdict_text(whole_verdict(outcome="site_misbehaved", exit_code=1)))
                with anyio.move_on_after(10):
                    async for event in subscription:
                        heard.append(event.uri)
                        break
        return heard

    async def legacy() -> list[str]:
        heard: list[str] = []

        async def on_message(message: Any) -> None:
            message = getattr(message, "root", message)
            if isinstance(message, ResourceUpdatedNotification):
                heard.append(str(message.params.uri))

        async with Client(build_server(workdir), mode="legacy", message_handler=on_message) as client:
            await client.session.subscribe_resource(summary_uri)
            (report / "summary.md").write_text("## new, and longer\n")
            with anyio.move_on_after(10):
                while not heard:
                    await anyio.sleep(0.05)
        return heard

    assert in_own_thread(lambda: anyio.run(modern)) == [verdict_uri]
    assert in_own_thread(lambda: anyio.run(legacy)) == [summary_uri]


def test_run_takes_projects_and_refuses_one_flowwalk_yaml_does_not_name(workdir: Path) -> None:
    async def body(client: Client) -> Any:
        without = await client.call_tool("run", {"paths": ["examples/projects"], "projects": ["phone"]})
        (workdir / "flowwalk.yaml").write_text((workdir / "examples/projects/flowwalk.yaml").read_text())
        misspelt = await client.call_tool("run", {"paths": ["examples/projects"], "projects": ["iphone13"]})
        return without, misspelt

    without, misspelt = with_client(workdir, body)
    assert without.is_error and "flowwalk.yaml names no projects" in without.content[0].text
    assert misspelt.is_error and "did you mean 'iphone-13'?" in misspelt.content[0].text


#: each command of the CLI and the tool that offers it; the commands without one, and why
TOOL_OF = {"validate": "validate", "run": "run", "discover": "discover", "heal": "propose_heal", "schema": "schema",
           "import": "import"}
NO_TOOL = {
    "plan": "run answers with what it selected; a plan of shards is a CI job's",
    "merge": "shards' report folders are a CI job's", "report": "a CI job's rebuild of its report folder",
    "publish": "posts to a pull request from a CI job", "mcp": "the server itself",
    "record": "a person's hands in a headed browser, not an agent's",
}
#: the CLI's options a tool leaves out, and why
LEFT_OUT = {
    "validate": {"config_path": "the server reads the flowwalk.yaml of its working directory",
                 "root": "the server's working directory is the project root"},
    "run": {
        "config_path": "the server reads the flowwalk.yaml of its working directory",
        "root": "the server's working directory is the project root",
        "shard": "one CI job's share of a run; an agent walks the whole selection",
        "durations_file": "balances shards across CI jobs",
        "flaky_policy": "the job's gate, kept in flowwalk.yaml; the answer counts flaky tests either way",
        "heal_policy": "the job's gate, kept in flowwalk.yaml; the answer lists healed tests either way",
        "full_page_screenshots": "kept in flowwalk.yaml",
        "executable": "the server's browser: FLOWWALK_CHROMIUM in its environment",
        "browser_endpoint": "the server's browser: FLOWWALK_BROWSER_ENDPOINT in its environment",
        "watch": "a person's loop over saves; an agent's call walks once and answers",
    },
    "discover": {"config_path": "the server reads the flowwalk.yaml of its working directory",
                 "executable": "the server's browser: FLOWWALK_CHROMIUM in its environment"},
    "heal": {"root": "the server's working directory is the root",
             "apply": "propose_heal never writes: the agent applies the diff as an edit its person sees"},
    "schema": {"out_dir": "the tool answers with a schema's text; every file is a flowwalk://schemas/ resource"},
}
#: the CLI's option name -> the tool's argument, where they differ
RENAMED = {"walk": "run", "serve_dir": "serve", "quarantine_file": "quarantine", "fingerprints_file": "fingerprints",
           "budget_min": "budget_s", "no_verify": "verify", "no_model": "use_model"}


def test_each_tool_takes_every_option_of_its_command_that_fits(workdir: Path) -> None:
    from flowwalk.cli import main

    async def body(client: Client) -> Any:
        return {tool.name: set(tool.input_schema["properties"]) for tool in (await client.list_tools()).tools}

    tools = with_client(workdir, body)
    assert set(main.commands) == set(TOOL_OF) | set(NO_TOOL)
    for command, tool in TOOL_OF.items():
        options = {p.name for p in main.commands[command].params if p.name}
        left_out = LEFT_OUT.get(command, {})
        assert set(left_out) <= options and not {RENAMED.get(o, o) for o in left_out} & tools[tool], command
        missing = sorted(o for o in options - set(left_out) if RENAMED.get(o, o) not in tools[tool])
        assert missing == [], f"the {tool} tool lacks {command}'s {missing}"


SUITE = """\
import { test, expect } from '@playwright/test';

test.beforeEach(async ({ page }) => {
  await page.goto('%s/index.html');
});

test('the headline is shown', async ({ page }) => {
  await expect(page.locator('h1')).toBeVisible();
});

test('a missing banner', async ({ page }) => {
  await expect(page.locator('#no-such-banner')).toBeVisible();
});

test('reads the total', async ({ page }) => {
  await page.locator('h1').click();
  const total = await page.locator('.total').textContent();
  await expect(page.locator('.sum')).toHaveText(total);
});
"""


def test_import_writes_specs_and_the_ledger_and_run_holds_back_what_fails(workdir: Path) -> None:
    """The import tool is `flowwalk import`: a spec per test, a test with a call not converted in
    needs-review/ with the call named, and with run, a spec that fails on the site held back too."""
    from flowwalk.serve import StaticServer

    (workdir / "suite").mkdir()
    with StaticServer(workdir / "examples" / "site") as site:
        (workdir / "suite" / "shop.spec.ts").write_text(SUITE % site.url)

        async def body(client: Client) -> Any:
            told = {"sources": ["suite"], "base_url": site.url}
            plain = await client.call_tool("import", {**told, "out_dir": "imported"})
            walked = await client.call_tool("import", {**told, "out_dir": "walked", "run": True})
            outside = await client.call_tool("import", {"sources": ["../elsewhere"], "out_dir": "x"})
            return plain, walked, outside

        plain, walked, outside = with_client(workdir, body)
    data = plain.structured_content
    assert plain.is_error is False and data["exit_code"] == 0
    assert (data["tests"], data["tests_whole"]) == (3, 2)
    assert data["specs_written"] == ["imported/shop/the-headline-is-shown.flow.yaml",
                                     "imported/shop/a-missing-banner.flow.yaml"]
    assert data["needs_review"] == ["imported/needs-review/shop/reads-the-total.flow.yaml"]
    assert data["not_converted"][0]["at"].startswith("suite/shop.spec.ts:17:")
    assert (workdir / "imported" / "import" / "ledger.md").is_file() and data["ledger"] == "imported/import/ledger.md"
    run = walked.structured_content
    assert walked.is_error is False
    assert run["walked"].startswith(f"walked 2 spec(s) against {site.url}: 1 passed, 1 moved"), run
    assert run["specs_written"] == ["walked/shop/the-headline-is-shown.flow.yaml"]
    assert "walked/needs-review/shop/a-missing-banner.flow.yaml" in run["needs_review"]
    assert outside.is_error and "outside" in outside.content[0].text
