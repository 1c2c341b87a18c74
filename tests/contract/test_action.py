"""action.yml, composite/action.yml, the inputs table in code, the CLI, docs/action.md and the README
agree on every input and output; both actions name the package's own version."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from flowwalk import __version__
from flowwalk.cli import main as cli
from flowwalk.github.entrypoint import InputError, publish_argv, publish_env, read_input, run_argv
from flowwalk.github.inputs import (
    ACTION_INPUTS, ACTION_OUTPUTS, INPUTS_END, INPUTS_START, OUTPUTS_END, OUTPUTS_START, input_by_name,
    render_inputs_table, render_outputs_table,
)

ROOT = Path(__file__).resolve().parents[2]


def _action(path: str = "action.yml") -> dict[str, Any]:
    return dict(yaml.safe_load((ROOT / path).read_text(encoding="utf-8")))


def _composite() -> dict[str, Any]:
    return _action("composite/action.yml")


def _package_version() -> str:
    import tomllib

    with (ROOT / "pyproject.toml").open("rb") as handle:
        return str(tomllib.load(handle)["project"]["version"])


def _between(text: str, start: str, end: str) -> str | None:
    if start not in text or end not in text:
        return None
    return text.split(start, 1)[1].split(end, 1)[0].strip()


def _options(command: str) -> dict[str, click.Parameter]:
    params: dict[str, click.Parameter] = {}
    for param in cli.commands[command].params:  # type: ignore[attr-defined]
        for name in [*param.opts, *getattr(param, "secondary_opts", [])]:
            params[name] = param
        if isinstance(param, click.Argument):
            params[param.name.upper()] = param  # type: ignore[union-attr]
    return params


def test_action_yml_runs_the_released_image_of_the_package_version() -> None:
    action = _action()
    # ENTRYPOINT comes from the image; release.yml pushes it from the Dockerfile under this tag
    assert action["runs"] == {"using": "docker", "image": f"docker://ghcr.io/flowwalk/flowwalk:{__version__}"}
    assert action["name"] and action["description"] and action["branding"]["icon"]


def test_the_version_is_one_across_the_package_and_both_actions() -> None:
    assert _package_version() == __version__
    pins = [step["env"]["FLOWWALK_VERSION"] for step in _composite()["runs"]["steps"]
            if "FLOWWALK_VERSION" in step.get("env", {})]
    assert pins == [__version__], "composite/action.yml installs the release of this version"
    release = _script("release_tags")  # the release workflow's own check agrees
    assert release.release_problems(f"v{__version__}", "ghcr.io/flowwalk/flowwalk", ROOT) == []
    assert len(release.release_problems("v99.0.0", "ghcr.io/someone/flowwalk", ROOT)) == 2


def _script(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_release_refuses_a_tag_that_is_not_the_version_and_names_the_image_tags(
        capsys: pytest.CaptureFixture[str]) -> None:
    release = _script("release_tags")
    assert release.main(["--tag", "v9.9.9", "--image", "ghcr.io/flowwalk/flowwalk"]) == 1
    assert f"tag 'v9.9.9' does not name the package version {__version__}" in capsys.readouterr().err
    assert release.main(["--tag", f"v{__version__}", "--image", "ghcr.io/FlowWalk/flowwalk"]) == 0
    out = capsys.readouterr().out
    assert f"version={__version__}\n" in out and f"ghcr.io/flowwalk/flowwalk:{__version__}\n" in out
    assert release.image_tags("0.4.2", "ghcr.io/o/flowwalk") == ["ghcr.io/o/flowwalk:0.4.2", "ghcr.io/o/flowwalk:0.4"]
    assert release.image_tags("1.2.0", "ghcr.io/o/flowwalk")[-1] == "ghcr.io/o/flowwalk:1"
    assert release.image_tags("0.5.0rc1", "ghcr.io/o/flowwalk") == ["ghcr.io/o/flowwalk:0.5.0rc1"]


def test_every_file_that_lists_the_inputs_is_in_step_with_the_table() -> None:
    """One command brings them all in step after an input is added to flowwalk.github.inputs."""
    stale = [path.relative_to(ROOT).as_posix() for path in _script("sync_actions").out_of_date()]
    assert stale == [], f"{stale} are out of date: run scripts/sync_actions.py"


@pytest.mark.parametrize("path", ["action.yml", "composite/action.yml"])
def test_action_inputs_are_the_table_in_code(path: str) -> None:
    inputs = _action(path)["inputs"]
    assert list(inputs) == [item.name for item in ACTION_INPUTS]
    for item in ACTION_INPUTS:
        declared = inputs[item.name]
        assert declared["description"] == item.description, item.name
        assert str(declared.get("default", "")) == item.default, item.name
        assert declared.get("required", False) is False, item.name  # the runner does not enforce it anyway
    assert inputs["token"]["default"] == "${{ github.token }}"


@pytest.mark.parametrize("path", ["action.yml", "composite/action.yml"])
def test_action_outputs_are_the_table_in_code_and_what_publish_writes(path: str) -> None:
    from flowwalk.github.actions import verdict_outputs
    from sample_run import whole_verdict

    outputs = _action(path)["outputs"]
    assert {name: value["description"] for name, value in outputs.items()} == dict(ACTION_OUTPUTS)
    written = verdict_outputs(whole_verdict(), "flowwalk-report")
    assert set(written) == set(ACTION_OUTPUTS)


def test_the_composite_action_hands_every_input_to_the_entrypoint_and_every_output_back() -> None:
    """The composite runs the container's entrypoint: each input as the INPUT_ variable it reads."""
    steps = {step["id"]: step for step in _composite()["runs"]["steps"]}
    run = steps["flowwalk"]
    assert run["run"].endswith("-m flowwalk.github.entrypoint'") or run["run"].endswith("-m flowwalk.github.entrypoint")
    handed = {name: value for name, value in run["env"].items() if name.startswith("INPUT_")}
    expected = {item.env_name.replace("-", "_"): f"${{{{ inputs.{item.name} }}}}" for item in ACTION_INPUTS}
    assert handed == expected
    env = {name: f"value of {name}" for name in handed}
    for item in ACTION_INPUTS:  # the entrypoint reads the underscored names a composite step can set
        assert read_input(env, item) == f"value of {item.env_name.replace('-', '_')}"
    assert run["env"]["FLOWWALK_CHROMIUM"] == "${{ steps.browser.outputs.executable }}"
    for name, spec in _composite()["outputs"].items():
        assert spec["value"] == f"${{{{ steps.flowwalk.outputs.{name} }}}}"
    assert _composite()["runs"]["using"] == "composite"


def test_every_input_maps_to_a_real_cli_option_that_accepts_its_default() -> None:
    run, publish = _options("run"), _options("publish")
    for item in ACTION_INPUTS:
        for flag, options in ((item.run_flag, run), (item.publish_flag, publish)):
            if not flag:
                continue
            assert flag in options, f"input '{item.name}' maps to {flag}, which the CLI does not have"
            param = options[flag]
            if isinstance(param.type, click.Choice) and item.default:
                assert item.default in param.type.choices, item.name
            if item.kind == "bool":
                assert getattr(param, "is_flag", False), f"{flag} should be a flag"
                if item.default == "true":  # on by default: the entrypoint turns it off with --no-
                    assert f"--no-{flag[2:]}" in getattr(param, "secondary_opts", []), item.name


def test_docs_action_md_carries_the_same_inputs_and_outputs_tables() -> None:
    text = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
    assert _between(text, INPUTS_START, INPUTS_END) == render_inputs_table()
    assert _between(text, OUTPUTS_START, OUTPUTS_END) == render_outputs_table()


def test_the_readme_inputs_table_agrees_when_it_has_one() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = _between(text, INPUTS_START, INPUTS_END)
    if not block:
        pytest.skip("README.md has no inputs table between the markers yet "
                    "(paste flowwalk.github.inputs.render_inputs_table() there)")
    assert block == render_inputs_table()


def test_inputs_arrive_with_hyphens_kept_as_the_runner_sets_them() -> None:
    assert input_by_name("base-url").env_name == "INPUT_BASE-URL"
    assert input_by_name("secret-names").env_name == "INPUT_SECRET-NAMES"
    env = {"INPUT_PATHS": "checks/\nmore/x.flow.yaml", "INPUT_BASE-URL": "https://shop.example",
           "INPUT_VARIABLES": "LOCALE=en-GB\n# a comment\n\nGREETING=hello world",
           "INPUT_SECRET-NAMES": "DEMO_PASSWORD, API_KEY", "INPUT_SHARD": "2/4", "INPUT_WORKERS": "",
           "INPUT_DURATIONS": "last/emit.jsonl", "INPUT_FINGERPRINTS": "main-report/",
           "INPUT_OUTPUT-DIR": "out", "INPUT_CHECK-RUN": "true", "INPUT_COMMIT-STATUS": "false",
           "INPUT_COMMENT-MODE": "on-change", "INPUT_TOKEN": "ghs_secret"}
    assert run_argv(env) == [
        "run", "--base-url", "https://shop.example", "--var", "LOCALE=en-GB", "--var", "GREETING=hello world",
        "--secret", "DEMO_PASSWORD", "--secret", "API_KEY", "--shard", "2/4", "--durations", "last/emit.jsonl",
        "--fingerprints", "main-report/", "--retries", "0",
        "--flaky-policy", "pass", "--heal-policy", "pass", "--run-timeout", "300", "--out", "out",
        "checks/", "more/x.flow.yaml"]
    assert publish_argv(env) == ["publish", "--report", "out", "--comment-mode", "on-change", "--check-run",
                                 "--heal-suggestions"]
    # an input that is on by default is turned off with the flag's --no- form
    assert publish_argv({**env, "INPUT_HEAL-SUGGESTIONS": "false"})[-1] == "--no-heal-suggestions"
    # the token goes through the environment, never argv
    assert "ghs_secret" not in publish_argv(env) and publish_env(env)["GITHUB_TOKEN"] == "ghs_secret"


def test_a_preview_job_waits_and_names_its_header_secrets_never_their_values() -> None:
    env = {"INPUT_BASE-URL": "https://pr-12.example.com", "INPUT_WAIT-FOR": "/", "INPUT_WAIT-TEXT": "abc1234",
           "INPUT_HTTP-HEADERS": "x-vercel-protection-bypass=VERCEL_BYPASS\n# on every request\n"
                                 "x-vercel-set-bypass-cookie=SET_COOKIE",
           "INPUT_HTTP-CREDENTIALS": "PREVIEW_AUTH", "INPUT_BROWSER-ENDPOINT": "ws://browsers:3000/"}
    argv = run_argv(env)
    assert argv[argv.index("--wait-for"):argv.index("--out")] == [
        "--wait-for", "/", "--wait-text", "abc1234", "--http-header", "x-vercel-protection-bypass=VERCEL_BYPASS",
        "--http-header", "x-vercel-set-bypass-cookie=SET_COOKIE", "--http-credentials", "PREVIEW_AUTH",
        "--browser-endpoint", "ws://browsers:3000/"]


def test_unset_inputs_fall_back_to_the_action_defaults() -> None:
    assert run_argv({}) == ["run", "--retries", "0", "--flaky-policy", "pass", "--heal-policy", "pass",
                            "--run-timeout", "300", "--out", "flowwalk-report", "."]
    assert read_input({}, input_by_name("token")) == ""  # an unexpanded expression is not a token


@pytest.mark.parametrize("env,message", [
    ({"INPUT_CHECK-RUN": "yes please"}, "input 'check-run' is 'yes please'"),
    ({"INPUT_VARIABLES": "LOCALE"}, "input 'variables' line 1 'LOCALE' is not NAME=VALUE"),
    ({"INPUT_SECRET-NAMES": "API-KEY"}, "input 'secret-names' has 'API-KEY'"),
    ({"INPUT_HTTP-HEADERS": "x-bypass=s3cr3t-value"}, "input 'http-headers' line 1 is not Header-Name=SECRET_NAME"),
])
def test_bad_inputs_are_refused_with_a_hint(env: dict[str, str], message: str) -> None:
    with pytest.raises(InputError) as caught:
        run_argv(env), publish_argv(env)
    assert message in str(caught.value) and "hint:" in str(caught.value)


def test_the_release_refuses_an_example_workflow_that_installs_another_version(tmp_path: Path) -> None:
    for name in ("pyproject.toml", "action.yml", "composite/action.yml", "examples/workflows"):
        source, target = ROOT / name, tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copy(source, target)
    stale = tmp_path / "examples" / "workflows" / "sharded.yml"
    stale.write_text(stale.read_text().replace(f"flowwalk=={__version__}", "flowwalk==0.0.9"))
    release = _script("release_tags")
    (problem,) = release.release_problems(f"v{__version__}", "ghcr.io/flowwalk/flowwalk", tmp_path)
    assert problem.startswith("examples/workflows/sharded.yml:") and "installs flowwalk 0.0.9, not" in problem
