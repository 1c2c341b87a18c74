"""Settings are built once, by one pure function, from options, environment and flowwalk.yaml."""

from __future__ import annotations

import pytest

from flowwalk import settings as settings_module
from flowwalk.errors import UsageError
from flowwalk.settings import HEADLESS_SHELL, Overrides, build_settings, parse_assignments, parse_shard


def test_command_line_beats_environment_beats_config() -> None:
    settings = build_settings(Overrides(workers=3), {"FLOWWALK_WORKERS": "2", "FLOWWALK_RETRIES": "1"},
                              {"workers": 1, "retries": 4, "run_timeout_s": 60})
    assert settings.workers == 3
    assert settings.retries == 1
    assert settings.run_timeout_s == 60


def test_variables_merge_with_the_command_line_winning() -> None:
    settings = build_settings(Overrides(variables={"A": "cli", "C": "x=y"}), {}, {"variables": {"A": "file", "B": "file"}})
    assert dict(settings.variables) == {"A": "cli", "B": "file", "C": "x=y"}


def test_secret_values_come_only_from_the_environment_and_never_print() -> None:
    settings = build_settings(Overrides(secret_names=("PW", "ABSENT")), {"PW": "hunter2"}, {"secrets": ["TOKEN"]})
    assert settings.secret_names == ("TOKEN", "PW", "ABSENT")
    assert settings.secrets.get("PW") == "hunter2"
    assert "ABSENT" not in settings.secrets  # named but not set: specs needing it fail credential_rejected
    assert "hunter2" not in repr(settings)
    assert "hunter2" not in str(settings.secrets)


@pytest.mark.parametrize("text, expected", [("1/1", (1, 1)), ("2/4", (2, 4))])
def test_shard_parsing(text: str, expected: tuple[int, int]) -> None:
    assert parse_shard(text) == expected


@pytest.mark.parametrize("text", ["0/2", "3/2", "2", "a/b", "1/0"])
def test_bad_shards_are_refused_with_a_hint(text: str) -> None:
    with pytest.raises(UsageError, match="hint"):
        parse_shard(text)


def test_bad_values_are_usage_errors_not_tracebacks() -> None:
    with pytest.raises(UsageError, match="--var 'novalue' is not NAME=VALUE"):
        parse_assignments(["novalue"])
    with pytest.raises(UsageError, match="workers"):
        build_settings(Overrides(workers=0), {})
    with pytest.raises(UsageError, match="trace 'sometimes'"):
        build_settings(Overrides(trace="sometimes"), {})


def test_the_headless_shell_is_preferred_and_can_be_pinned(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pinned = build_settings(Overrides(), {"FLOWWALK_CHROMIUM": "/usr/bin/chromium"})
    assert pinned.executable == "/usr/bin/chromium"
    assert build_settings(Overrides(executable="/x/chrome"), {}).executable == "/x/chrome"
    import os

    if os.path.exists(HEADLESS_SHELL):
        assert build_settings(Overrides(), {}).executable == HEADLESS_SHELL


def test_offline_is_off_unless_asked_for() -> None:
    assert not build_settings(Overrides(), {}).offline
    assert build_settings(Overrides(), {"FLOWWALK_OFFLINE": "1"}).offline
    assert build_settings(Overrides(), {}, {"offline": True}).offline
    assert not build_settings(Overrides(offline=False), {"FLOWWALK_OFFLINE": "1"}).offline


def test_github_actions_is_detected() -> None:
    assert build_settings(Overrides(), {"GITHUB_ACTIONS": "true"}).on_github_actions
    assert not build_settings(Overrides(), {}).on_github_actions


def test_heal_policy_comes_from_the_command_line_environment_or_config() -> None:
    assert build_settings(Overrides(), {}).heal_policy == "pass"
    assert build_settings(Overrides(), {}, {"heal_policy": "fail"}).heal_policy == "fail"
    assert build_settings(Overrides(), {"FLOWWALK_HEAL_POLICY": "fail"}, {"heal_policy": "pass"}).heal_policy == "fail"
    assert build_settings(Overrides(heal_policy="pass"), {"FLOWWALK_HEAL_POLICY": "fail"}).heal_policy == "pass"
    with pytest.raises(UsageError, match="FLOWWALK_HEAL_POLICY='never' is not one of pass, fail"):
        build_settings(Overrides(), {"FLOWWALK_HEAL_POLICY": "never"})


@pytest.mark.parametrize("cpus, workers", [(1, 2), (2, 4), (4, 8), (40, 64)])
def test_workers_default_to_two_per_cpu_within_the_configs_bound(monkeypatch: pytest.MonkeyPatch, cpus: int,
                                                                 workers: int) -> None:
    monkeypatch.setattr(settings_module, "cpu_count", lambda: cpus)
    assert build_settings(Overrides(), {}).workers == workers
    assert build_settings(Overrides(), {"FLOWWALK_WORKERS": "1"}).workers == 1


@pytest.mark.parametrize("name", ["FLOWWALK_UPDATE_SNAPSHOTS", "FLOWWALK_OFFLINE"])
def test_a_switch_in_the_environment_is_on_off_or_refused(name: str) -> None:
    key = name.removeprefix("FLOWWALK_").lower()
    assert getattr(build_settings(Overrides(), {name: "yes"}, {}), key) is True
    assert getattr(build_settings(Overrides(), {name: "0"}, {}), key) is False
    # a typo must not silently turn the switch off
    with pytest.raises(UsageError) as caught:
        build_settings(Overrides(), {name: "ture"}, {})
    assert str(caught.value).startswith(f"{name}=ture: not on or off")
    assert "hint: write" in str(caught.value)


@pytest.mark.parametrize("env,expected", [
    ({}, "off"), ({"CI": "true"}, "retain-on-failure"), ({"GITHUB_ACTIONS": "true"}, "retain-on-failure"),
    ({"CI": "false"}, "off"), ({"CI": "true", "FLOWWALK_TRACE": "on"}, "on"),
])
def test_traces_are_kept_for_failures_by_default_on_a_ci(env: dict[str, str], expected: str) -> None:
    assert build_settings(Overrides(), env).trace == expected
    assert build_settings(Overrides(trace="off"), {**env, "CI": "true"}).trace == "off"
    assert build_settings(Overrides(), env, {"trace": "on-failure"}).trace == \
        ("on" if "FLOWWALK_TRACE" in env else "on-failure")


def test_test_id_attributes_default_to_the_common_five_and_are_set_in_one_place_each() -> None:
    assert build_settings(Overrides(), {}, {}).test_id_attribute == (
        "data-testid", "data-test-id", "data-test", "data-qa", "data-cy")
    from_config = build_settings(Overrides(), {}, {"test_id_attribute": ["data-qa"]})
    assert from_config.test_id_attribute == ("data-qa",)
    from_env = build_settings(Overrides(), {"FLOWWALK_TEST_ID_ATTRIBUTE": "data-e2e, data-qa"},
                              {"test_id_attribute": ["data-qa"]})
    assert from_env.test_id_attribute == ("data-e2e", "data-qa")
    assert from_env.origin("test_id_attribute") == "FLOWWALK_TEST_ID_ATTRIBUTE"
    told = build_settings(Overrides(test_id_attribute=("data-pw", "data-cy,data-qa")),
                          {"FLOWWALK_TEST_ID_ATTRIBUTE": "data-e2e"}, {})
    assert told.test_id_attribute == ("data-pw", "data-cy", "data-qa")


@pytest.mark.parametrize("given", ["[data-testid]", "data-testid=x", "data qa"])
def test_a_test_id_attribute_that_is_no_attribute_name_is_refused(given: str) -> None:
    with pytest.raises(UsageError, match=r"--test-id-attribute '.*': not an attribute name\n  hint: "):
        build_settings(Overrides(test_id_attribute=(given,)), {}, {})
