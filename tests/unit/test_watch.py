"""What `flowwalk run --watch` walks again after a save (app/watch.py), on specs loaded from files as
a run loads them: a spec's own file, a steps file it calls (and one that file calls), the setup of a
session it starts from, a new spec, and flowwalk.yaml. No browser."""

from __future__ import annotations

import os
from pathlib import Path

from flowwalk.app.watch import changed_between, depends_on, stamps, to_walk
from flowwalk.model import Suite
from flowwalk.settings import Overrides, build_settings
from flowwalk.spec.loader import load_apart

SETUP = """spec_version: "1.1"
name: sign in
saves_session: member
url: /login.html
steps:
  - {type: act, action: click, selector: "#go"}
"""
MEMBER = """spec_version: "1.1"
name: account
session: member
url: /account.html
steps:
  - {type: expect, kind: visible, selector: h1}
"""
USES = """spec_version: "1.1"
name: %s
url: /index.html
steps:
  - {use: ../steps/outer.steps.yaml, with: {title: x}}
"""
PLAIN = """spec_version: "1.1"
name: plain
url: /index.html
steps:
  - {type: expect, kind: visible, selector: h1}
"""
OUTER = """steps_version: "1"
params:
  title: {type: string}
steps:
  - {use: inner.steps.yaml, with: {title: "{{title}}"}}
"""
INNER = """steps_version: "1"
params:
  title: {type: string}
steps:
  - {type: act, action: fill, selector: "#new", value: "{{title}}"}
"""


def project(root: Path) -> list[Suite]:
    for name, text in {"checks/sign-in.flow.yaml": SETUP, "checks/account.flow.yaml": MEMBER,
                       "checks/one.flow.yaml": USES % "one", "checks/two.flow.yaml": USES % "two",
                       "checks/plain.flow.yaml": PLAIN, "steps/outer.steps.yaml": OUTER,
                       "steps/inner.steps.yaml": INNER}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    settings = build_settings(Overrides(paths=(str(root / "checks"),)), {}, root=str(root))
    suites, problems = load_apart(list(settings.paths), settings)
    assert problems == []
    return suites


def names(suites: list[Suite]) -> set[str]:
    return {sc.name for suite in suites for sc in suite.scenarios}


def test_a_save_walks_its_own_spec_only(tmp_path: Path) -> None:
    suites = project(tmp_path)
    known = {sc.id for suite in suites for sc in suite.scenarios}
    changed = {str(tmp_path / "checks" / "plain.flow.yaml")}
    assert names(to_walk(suites, changed, known, tmp_path)) == {"plain"}


def test_a_steps_file_two_calls_deep_walks_every_spec_that_reaches_it(tmp_path: Path) -> None:
    suites = project(tmp_path)
    known = {sc.id for suite in suites for sc in suite.scenarios}
    changed = {str(tmp_path / "steps" / "inner.steps.yaml")}
    assert names(to_walk(suites, changed, known, tmp_path)) == {"one", "two"}


def test_a_spec_starting_from_a_session_is_walked_with_the_setup_that_saves_it(tmp_path: Path) -> None:
    suites = project(tmp_path)
    known = {sc.id for suite in suites for sc in suite.scenarios}
    changed = {str(tmp_path / "checks" / "account.flow.yaml")}
    assert names(to_walk(suites, changed, known, tmp_path)) == {"account", "sign in"}


def test_a_spec_not_in_the_last_report_is_walked_and_flowwalk_yaml_walks_everything(tmp_path: Path) -> None:
    suites = project(tmp_path)
    known = {sc.id for suite in suites for sc in suite.scenarios if sc.name != "two"}
    assert names(to_walk(suites, set(), known, tmp_path)) == {"two"}
    assert names(to_walk(suites, set(), known, tmp_path, everything=True)) == names(suites)


def test_a_scenario_depends_on_its_file_and_every_steps_file_its_steps_come_from(tmp_path: Path) -> None:
    suites = project(tmp_path)
    (one,) = [sc for suite in suites for sc in suite.scenarios if sc.name == "one"]
    assert depends_on(one, tmp_path) == {str(tmp_path / p) for p in
                                         ("checks/one.flow.yaml", "steps/outer.steps.yaml", "steps/inner.steps.yaml")}


def test_stamps_see_a_rewrite_of_the_same_size_a_new_file_and_a_deleted_one(tmp_path: Path) -> None:
    kept, gone, new = (str(tmp_path / n) for n in ("kept", "gone", "new"))
    Path(kept).write_text("aaaa")
    Path(gone).write_text("x")
    before = stamps([kept, gone, new])
    assert set(before) == {kept, gone}
    Path(kept).write_text("bbbb")
    os.utime(kept, ns=(before[kept][0] + 1_000_000, before[kept][0] + 1_000_000))
    os.remove(gone)
    Path(new).write_text("y")
    assert changed_between(before, stamps([kept, gone, new])) == {kept, gone, new}
