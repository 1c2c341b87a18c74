"""The browser's environment without a browser: layers merge key by key, devices expand, projects
multiply scenarios (each pair its own id, shard unit and duration), --project selects them."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowwalk.environment import context_options, describe, device_names
from flowwalk.errors import UsageError
from flowwalk.model import Environment, Project
from flowwalk.plan.shard import plan_run
from flowwalk.settings import Overrides, Settings, build_settings
from flowwalk.spec.loader import load_suites

FLOW = """spec_version: "1.1"
name: {name}
url: /
{extra}steps:
  - {{type: expect, kind: url_contains, value: /}}
"""


def test_a_device_expands_and_a_higher_layer_wins_key_by_key() -> None:
    config = Environment(locale="en-GB", viewport=(1280, 720))
    project = Environment(device="iPhone 13")
    spec = Environment(color_scheme="dark", geolocation=(48.85, 2.35, 0.0))
    options = context_options([config, project, spec])
    # the project's device replaces the config's viewport; the config's locale stays
    assert options["viewport"] == {"width": 390, "height": 664}
    assert options["is_mobile"] is True and options["has_touch"] is True and "iPhone" in options["user_agent"]
    assert "default_browser_type" not in options   # always Chromium
    assert options["locale"] == "en-GB" and options["color_scheme"] == "dark"
    assert options["geolocation"] == {"latitude": 48.85, "longitude": 2.35, "accuracy": 0.0}
    assert options["permissions"] == ["geolocation"]
    # a spec's own viewport wins over its project's device
    assert context_options([project, Environment(viewport=(400, 800))])["viewport"] == {"width": 400, "height": 800}
    assert context_options([Environment()]) == {}
    assert describe([config, project]) == {"locale": "en-GB", "device": "iPhone 13",
                                           "viewport": {"width": 390, "height": 664}}
    assert "Desktop Chrome" in device_names() and "Pixel 7" in device_names()


def test_flowwalk_yaml_projects_become_settings() -> None:
    settings = build_settings(Overrides(projects=("iphone-13",)), env={}, config={
        "timezone": "Europe/London", "geolocation": {"latitude": 51.5, "longitude": -0.12},
        "projects": [{"name": "desktop", "viewport": {"width": 1280, "height": 720}},
                     {"name": "iphone-13", "device": "iPhone 13"}]})
    assert settings.environment == Environment(timezone="Europe/London", geolocation=(51.5, -0.12, 0.0))
    assert settings.projects == (Project("desktop", Environment(viewport=(1280, 720))),
                                 Project("iphone-13", Environment(device="iPhone 13")))
    assert settings.project_filter == ("iphone-13",)
    assert build_settings(Overrides(), env={"FLOWWALK_PROJECT": "a, b"}).project_filter == ("a", "b")


@pytest.fixture()
def specs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs/login.flow.yaml").write_text(FLOW.format(name="login", extra="saves_session: user\n"))
    for i in range(3):
        (tmp_path / f"specs/page{i}.flow.yaml").write_text(FLOW.format(name=f"page{i}", extra="session: user\n"))
    (tmp_path / "specs/dark.flow.yaml").write_text(FLOW.format(name="dark", extra="color_scheme: dark\n"))
    return tmp_path


PROJECTS = (Project("desktop", Environment(viewport=(1280, 720))), Project("phone", Environment(device="Pixel 7")))


def test_each_spec_runs_once_per_project_with_the_project_in_its_id(specs: Path) -> None:
    suites = load_suites(["specs"], Settings(projects=PROJECTS))
    ids = sorted(sc.id for suite in suites for sc in suite.scenarios)
    assert len(ids) == 10
    assert "[desktop] specs/dark.flow.yaml#dark" in ids and "[phone] specs/dark.flow.yaml#dark" in ids
    plan = plan_run(suites, Settings(projects=PROJECTS))
    record = {s["id"]: s for s in plan.record()["scenarios"]}
    phone = record["[phone] specs/dark.flow.yaml#dark"]
    assert phone["project"] == "phone" and phone["test_ids"] == ["[phone] specs/dark.flow.yaml#dark"]
    assert phone["environment"] == {"device": "Pixel 7", "viewport": {"width": 412, "height": 839},
                                    "color_scheme": "dark"}


def test_each_shard_walks_the_setup_of_each_project_whose_dependants_it_holds(specs: Path) -> None:
    settings = Settings(projects=PROJECTS)
    suites = load_suites(["specs"], settings)
    for total in (2, 3, 4):
        shards = [plan_run(suites, Settings(projects=PROJECTS, shard_index=k, shard_total=total)).assigned
                  for k in range(1, total + 1)]
        for project in ("desktop", "phone"):
            setup = f"[{project}] specs/login.flow.yaml#login"
            dependants = {f"[{project}] specs/page{i}.flow.yaml#page{i}" for i in range(3)}
            for ids in shards:
                assert (setup in ids) == bool(dependants & set(ids))
        walked = sorted(sid for ids in shards for sid in ids if "login" not in sid)
        assert walked == sorted(sc.id for s in suites for sc in s.scenarios if "login" not in sc.id)


def test_project_selects_projects_and_a_wrong_name_is_refused_with_a_guess(specs: Path) -> None:
    suites = load_suites(["specs"], Settings(projects=PROJECTS, project_filter=("phone",)))
    assert {sc.project for s in suites for sc in s.scenarios} == {"phone"}
    with pytest.raises(UsageError) as caught:
        load_suites(["specs"], Settings(projects=PROJECTS, project_filter=("phnoe",)))
    assert str(caught.value) == ("--project 'phnoe' is not a project of flowwalk.yaml\n"
                                 "  hint: did you mean 'phone'? projects of flowwalk.yaml: desktop, phone")
    with pytest.raises(UsageError, match="flowwalk.yaml names no projects"):
        load_suites(["specs"], Settings(project_filter=("phone",)))


def test_a_bad_project_in_flowwalk_yaml_is_refused_at_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from flowwalk.errors import SpecError
    from flowwalk.spec.config import load_config

    monkeypatch.chdir(tmp_path)
    (tmp_path / "flowwalk.yaml").write_text(
        "projects:\n  - name: desktop\n  - name: phone\n    device: Pixle 7\n  - name: desktop\n"
        "    color_scheme: dark\n")
    with pytest.raises(SpecError) as caught:
        load_config("flowwalk.yaml")
    assert str(caught.value) == (
        "flowwalk.yaml:4:13: error: unknown device 'Pixle 7' in entry 2 of 'projects'\n"
        "  hint: did you mean 'Pixel 7'? a device is one of Playwright's device descriptors by name, e.g. "
        "'iPhone 13', 'Pixel 7', 'iPad Mini', 'Desktop Chrome' (docs/environment.md lists where to find them all)\n"
        "flowwalk.yaml:5:11: error: project 'desktop' is named twice\n  hint: give each project its own name")
    (tmp_path / "flowwalk.yaml").write_text("projects:\n  - name: desktop\n  - name: desktop\n")
    with pytest.raises(SpecError) as caught:
        load_config("flowwalk.yaml")
    assert str(caught.value) == ("flowwalk.yaml:3:11: error: project 'desktop' is named twice\n"
                                 "  hint: give each project its own name")
