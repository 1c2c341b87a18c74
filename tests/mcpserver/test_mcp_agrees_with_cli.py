"""Every command the MCP server and the CLI both offer gives the same answer through either: validate,
run, propose_heal (`flowwalk heal`), schema and discover, on the same inputs in the same folder.

The CLI runs as a user runs it (`python -m flowwalk`, in the server's working directory); the MCP
tools through the SDK's in-process client.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, with_client, write_healed_report
from mcp import Client

from flowwalk.serve import StaticServer

pytestmark = pytest.mark.browser


def cli(workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "flowwalk", *args], cwd=workdir, env=env, capture_output=True,
                          text=True, timeout=300)


def decided(verdict: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    """What a run decided of each test, without its times."""
    return {t["test_id"]: (t["status"], t["reason"], (t.get("failure") or {}).get("failure_class"),
                           (t.get("failure") or {}).get("runtime_code"), (t.get("failure") or {}).get("step_index"))
            for t in verdict["tests"]}


def test_validate_finds_the_same_problems_and_counts(workdir: Path) -> None:
    bad = workdir / "checks" / "bad.flow.yaml"
    bad.parent.mkdir()
    bad.write_text((ROOT / "tests/corpus/flows/bad/shape-many-errors.flow.yaml").read_text())

    def both(*paths: str) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
        async def body(client: Client) -> Any:
            return await client.call_tool("validate", {"paths": list(paths)})

        return with_client(workdir, body).structured_content, cli(workdir, "validate", *paths)

    for paths in (["checks"], ["examples/flows"]):
        if paths == ["examples/flows"]:   # a bad quarantine file is refused by both
            bad.unlink()
            (workdir / "flowwalk-quarantine.yaml").write_text(
                (ROOT / "tests/corpus/quarantine/bad/bad-dates.yaml").read_text())
        answer, by_cli = both(*paths)
        problems = [p["text"] for p in answer["problems"]]
        assert answer["ok"] is False and len(problems) > 1 and by_cli.returncode == 3
        assert by_cli.stderr.startswith("\n".join(problems) + "\n"), by_cli.stderr

    (workdir / "flowwalk-quarantine.yaml").unlink()
    answer, by_cli = both("examples/flows", "examples/rules")
    assert by_cli.stdout == (f"ok: {answer['files']} files, {answer['scenarios']} scenarios, {answer['rules']} rules; "
                             f"no errors\n")


def test_a_run_walks_to_the_same_verdict(workdir: Path) -> None:
    (workdir / "flowwalk.yaml").write_text((workdir / "examples/projects/flowwalk.yaml").read_text())
    specs = ["examples/projects/browser.flow.yaml", "examples/failing/assertion-failed.flow.yaml"]

    async def body(client: Client) -> Any:
        return await client.call_tool("run", {"paths": specs, "serve": "examples/site", "out_dir": "by-mcp",
                                              "projects": ["iphone-13"]})

    by_mcp = with_client(workdir, body)
    assert by_mcp.is_error is not True, by_mcp.content[0].text
    by_cli = cli(workdir, "run", *specs, "--serve", "examples/site", "--out", "by-cli", "--project", "iphone-13",
                 "--workers", "1")
    answer = by_mcp.structured_content
    mcp_verdict = json.loads((workdir / "by-mcp" / "verdict.json").read_text())
    cli_verdict = json.loads((workdir / "by-cli" / "verdict.json").read_text())
    assert answer["exit_code"] == by_cli.returncode == cli_verdict["exit_code"] == 1
    assert answer["outcome"] == cli_verdict["outcome"] == mcp_verdict["outcome"]
    assert answer["counts"] == cli_verdict["counts"] == mcp_verdict["counts"]
    assert decided(mcp_verdict) == decided(cli_verdict)
    assert all(test_id.startswith("[iphone-13] ") for test_id in decided(cli_verdict))


def test_propose_heal_is_flowwalk_heal_with_its_baselines(workdir: Path) -> None:
    write_healed_report(workdir)
    broken = "examples/snapshots/broken/aria.flow.yaml"
    ran = cli(workdir, "run", broken, "--serve", "examples/snapshots/site", "--out", "snapshots", "--workers", "1")
    assert ran.returncode == 1, ran.stdout + ran.stderr

    async def body(client: Client) -> Any:
        return [await client.call_tool("propose_heal", {"report_dir": name}) for name in ("healed", "snapshots")]

    healed, snapshots = with_client(workdir, body)
    for answer, name in ((healed, "healed"), (snapshots, "snapshots")):
        by_cli = cli(workdir, "heal", "--report", name)
        assert by_cli.returncode == 0, by_cli.stderr
        assert answer.structured_content["diff"] == by_cli.stdout
        assert answer.structured_content["skipped"] == []
    baseline = snapshots.structured_content
    assert baseline["files"] == ["examples/snapshots/broken/aria.flow.yaml.snapshots/plans.yml"]
    assert "+      - paragraph: $16 / seat" in baseline["diff"]
    assert baseline["baselines"] and baseline["baselines"][0].startswith(baseline["files"][0])


def test_schema_gives_the_files_flowwalk_schema_writes(workdir: Path) -> None:
    assert cli(workdir, "schema", "--out", "written").returncode == 0
    written = sorted(p.name for p in (workdir / "written").iterdir())

    async def body(client: Client) -> Any:
        listed = await client.list_resources()
        names = sorted(str(r.uri).rsplit("/", 1)[-1] for r in listed.resources
                       if str(r.uri).startswith("flowwalk://schemas/"))
        texts = {name: (await client.read_resource(f"flowwalk://schemas/{name}")).contents[0].text for name in names}
        tool = await client.call_tool("schema", {"kind": "quarantine"})
        return names, texts, tool

    names, texts, tool = with_client(workdir, body)
    assert names == written
    for name in written:
        assert texts[name] == (workdir / "written" / name).read_text(encoding="utf-8")
    assert tool.structured_content["schema"] == json.loads(texts[tool.structured_content["name"]])


def test_discover_writes_the_same_specs(workdir: Path) -> None:
    def specs(out: Path) -> dict[str, str]:
        return {str(p.relative_to(out)): p.read_text() for p in sorted(out.rglob("*.yaml"))}

    with StaticServer(ROOT / "tests" / "site" / "pages") as site:
        url = f"{site.url}/discover/index.html"

        async def body(client: Client) -> Any:
            return await client.call_tool("discover", {"url": url, "out_dir": "by-mcp", "max_pages": 4,
                                                       "verify": False, "use_model": False})

        by_mcp = with_client(workdir, body)
        by_cli = cli(workdir, "discover", url, "--out", "by-cli", "--max-pages", "4", "--no-verify", "--no-model")
    assert by_mcp.is_error is not True, by_mcp.content[0].text
    assert by_cli.returncode == 0, by_cli.stderr
    data = by_mcp.structured_content
    said = re.search(r"discover: (\d+) pages, (\d+) features; (\d+) specs written, (\d+) need review; crawl (\w+)",
                     by_cli.stdout)
    assert said is not None, by_cli.stdout
    assert said.groups() == (str(data["pages"]), str(data["features"]), str(len(data["specs_written"])),
                             str(len(data["needs_review"])), data["stopped_reason"])
    assert specs(workdir / "by-cli") == specs(workdir / "by-mcp") != {}
