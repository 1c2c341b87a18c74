"""flowwalk.yaml: validated like every input, and its keys feed the settings builder unchanged."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flowwalk.errors import SpecError
from flowwalk.model import Stabilize
from flowwalk.settings import Overrides, Settings, build_settings
from flowwalk.spec.config import load_config

FULL = """\
base_url: http://127.0.0.1:8000
paths: [specs, rules]
out_dir: build/report
variables:
  EMAIL: qa@example.com
  PORT: 8080
secrets: [PASSWORD, API_TOKEN]
dismiss_selectors: ["#cookie-banner .accept"]
rule_timeout_ms: 20000
guard_timeout_ms: 250
action_timeout_ms: 5000
navigation_timeout_ms: 15000
expect_timeout_ms: 2500
run_timeout_s: 120
retries: 1
flaky_policy: fail
workers: 2
comment_mode: on-failure
stabilize: {window_ms: 1200, stable_reads: 3}
executable: /usr/bin/chromium
screenshots: "on"
trace: on-failure
verifiers_dir: checks/verifiers
test_id_attribute: [data-qa, data-testid]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "flowwalk.yaml"
    path.write_text(text)
    return path


def test_a_full_config_becomes_settings(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, FULL))
    settings = build_settings(Overrides(), env={"PASSWORD": "pw"}, config=config.model_dump(exclude_unset=True))
    assert settings.base_url == "http://127.0.0.1:8000"
    assert settings.paths == ("specs", "rules") and settings.out_dir == "build/report"
    assert settings.variables == {"EMAIL": "qa@example.com", "PORT": "8080"}
    assert settings.secret_names == ("PASSWORD", "API_TOKEN")
    assert settings.secrets.get("PASSWORD") == "pw" and settings.secrets.get("API_TOKEN") is None
    assert settings.dismiss_selectors == ("#cookie-banner .accept",)
    assert (settings.rule_timeout_ms, settings.guard_timeout_ms, settings.run_timeout_s) == (20000, 250, 120.0)
    assert (settings.action_timeout_ms, settings.navigation_timeout_ms) == (5000, 15000)
    assert (settings.retries, settings.flaky_policy, settings.workers) == (1, "fail", 2)
    assert settings.expect_timeout_ms == 2500
    assert settings.stabilize == Stabilize(window_ms=1200, stable_reads=3)
    assert settings.flow_stabilize == Stabilize(window_ms=1200, stable_reads=3)
    assert (settings.executable, settings.screenshots, settings.trace) == ("/usr/bin/chromium", "on", "on-failure")
    assert settings.verifiers_dir == "checks/verifiers"
    assert settings.test_id_attribute == ("data-qa", "data-testid")


def test_only_the_keys_written_are_set(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "base_url: https://staging.example.com\n"))
    assert config.model_dump(exclude_unset=True) == {"base_url": "https://staging.example.com"}


def test_bad_config_is_refused_with_every_problem_located(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "base_url: /relative\nworkers: 0\nflaky_policy: maybe\nsecrets: [API-TOKEN]\n"
                    "stabilize: {window_ms: 3000}\nretires: 2\n")
    with pytest.raises(SpecError) as caught:
        load_config("flowwalk.yaml")
    assert str(caught.value) == """\
flowwalk.yaml:1:11: error: base_url '/relative' is not an absolute url
  hint: write the site's root, e.g. 'http://127.0.0.1:8000' or 'https://staging.example.com'
flowwalk.yaml:2:10: error: 'workers' at the top level is 0, out of range
  hint: use a value from 1 to 64
flowwalk.yaml:3:15: error: unknown flaky_policy 'maybe' at the top level
  hint: valid values of flaky_policy: pass, fail
flowwalk.yaml:4:11: error: entry 1 of 'secrets' must be an identifier, got 'API-TOKEN'
  hint: use letters, digits and '_' only, not starting with a digit, e.g. ORDER_ID
flowwalk.yaml:5:24: error: 'window_ms' in 'stabilize' is 3000, out of range
  hint: use a value from 500 to 1500
flowwalk.yaml:6:1: error: unknown key 'retires' at the top level
  hint: did you mean 'retries'? valid keys of a flowwalk.yaml: base_url, paths, out_dir, variables, secrets, \
dismiss_selectors, test_id_attribute, rule_timeout_ms, guard_timeout_ms, action_timeout_ms, navigation_timeout_ms, expect_timeout_ms, \
run_timeout_s, retries, flaky_policy, heal_policy, workers, comment_mode, executable, screenshots, trace, verifiers_dir, durations_file, fingerprints_file, offline, model, max_failures, \
projects, fail_on, quarantine_file, wait_for, wait_status, wait_text, wait_timeout_s, wait_interval_s, http_headers, http_credentials, browser_endpoint, viewport, device, locale, timezone, color_scheme, geolocation, stabilize"""


def test_flows_take_one_read_and_rule_files_two_unless_the_config_says_otherwise(tmp_path: Path) -> None:
    def settings_from(text: str) -> Settings:
        return build_settings(Overrides(), env={}, config=load_config(write(tmp_path, text)).model_dump(exclude_unset=True))

    plain = settings_from("workers: 1\n")
    assert plain.stabilize_for("flow") == Stabilize(stable_reads=1)
    assert plain.stabilize_for("rules") == plain.stabilize_for("robot") == Stabilize(stable_reads=2)
    assert plain.expect_timeout_ms == 5000 and plain.rule_timeout_ms == 30000 and plain.guard_timeout_ms == 200
    # `stable_reads: 2` turns verify-until-stable on for flows too
    both = settings_from("stabilize: {stable_reads: 2}\n")
    assert both.stabilize_for("flow") == both.stabilize_for("rules") == Stabilize(stable_reads=2)
    # a key the config leaves out keeps each form's default
    interval = settings_from("stabilize: {interval_ms: 150}\n")
    assert interval.stabilize_for("flow") == Stabilize(stable_reads=1, interval_ms=150)
    assert interval.stabilize_for("rules") == Stabilize(stable_reads=2, interval_ms=150)
    assert settings_from("expect_timeout_ms: 800\n").expect_timeout_ms == 800


def test_expect_timeout_ms_is_refused_out_of_range(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "expect_timeout_ms: 50\n")
    with pytest.raises(SpecError) as caught:
        load_config("flowwalk.yaml")
    assert str(caught.value) == """\
flowwalk.yaml:1:20: error: 'expect_timeout_ms' at the top level is 50, out of range
  hint: use a value from 100 to 600000"""


def test_a_broken_config_file_is_refused_not_crashed_on(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as caught:
        load_config(write(tmp_path, "base_url: [\n"))
    assert "invalid YAML" in str(caught.value)


def test_a_model_block_becomes_the_model_settings(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "model:\n  preset: ollama\n  model: llama3.1\n  max_calls: 4\n"))
    settings = build_settings(Overrides(), env={}, config=config.model_dump(exclude_unset=True))
    assert settings.llm is not None
    assert (settings.llm.base_url, settings.llm.model, settings.llm.max_calls) == (
        "http://127.0.0.1:11434/v1", "llama3.1", 4)
    assert settings.llm.max_calls_per_step == 1 and settings.llm.api_key_env is None
    assert build_settings(Overrides(), env={}, config={}).llm is None   # off by default


def test_an_incomplete_model_block_is_refused_at_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "workers: 1\nmodel:\n  preset: vllm\n  max_calls: -1\n  api_key: sk-123\n")
    with pytest.raises(SpecError) as caught:
        load_config("flowwalk.yaml")
    text = str(caught.value)
    assert "flowwalk.yaml:4:14: error: 'max_calls' in 'model' is -1, out of range" in text
    assert "flowwalk.yaml:5:3: error: unknown key 'api_key' in 'model'" in text
    assert "api_key_env" in text   # the hint lists the valid keys


@pytest.mark.parametrize("block, says", [
    ("  preset: vllm\n", "error: 'model' has no 'model'"),
    ("  model: llama3.1\n", "error: 'model' has neither 'preset' nor 'base_url'"),
])
def test_a_model_block_needs_a_server_and_a_model(tmp_path: Path, block: str, says: str) -> None:
    with pytest.raises(SpecError) as caught:
        load_config(write(tmp_path, "model:\n" + block))
    assert says in str(caught.value) and "hint: " in str(caught.value)


def test_the_issue_27_keys_are_checked_like_the_rest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "max_failures: 0\nfail_on: changed\nquarantine_file: ''\nretries: 9\n")
    with pytest.raises(SpecError) as caught:
        load_config("flowwalk.yaml")
    rendered = str(caught.value)
    assert "flowwalk.yaml:1:15: error: 'max_failures' at the top level is 0, out of range" in rendered
    assert "flowwalk.yaml:2:10: error: unknown fail_on 'changed' at the top level\n  hint: valid values of fail_on: any, new" in rendered
    assert "flowwalk.yaml:3:18: error: 'quarantine_file' at the top level is empty" in rendered
    assert "flowwalk.yaml:4:10: error: 'retries' at the top level is 9, out of range" in rendered


CONFIG_CORPUS = Path(__file__).resolve().parents[2] / "tests" / "corpus" / "config" / "bad"


@pytest.mark.parametrize("path", sorted(CONFIG_CORPUS.glob("*.yaml")), ids=lambda p: p.name)
def test_a_bad_config_file_is_refused_with_the_expected_messages(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """tests/corpus/config/bad: every key of flowwalk.yaml issues 27 and 30 added, each with a bad
    value; the exact messages are kept beside it (FLOWWALK_UPDATE_CORPUS=1 rewrites them)."""
    repo = CONFIG_CORPUS.parents[3]
    monkeypatch.chdir(repo)
    with pytest.raises(SpecError) as caught:
        load_config(path.relative_to(repo))
    rendered = "\n".join(p.render() for p in caught.value.problems) + "\n"
    expected = path.with_name(path.name + ".expected")
    if os.environ.get("FLOWWALK_UPDATE_CORPUS") == "1":
        expected.write_text(rendered, encoding="utf-8")
    assert rendered == expected.read_text(encoding="utf-8")
    assert all(p.loc.line >= 1 and p.loc.col >= 1 and p.hint for p in caught.value.problems)
    assert "not-repeated" not in rendered and "not repeated" not in rendered   # the corpus marks secrets so
