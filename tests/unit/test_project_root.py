"""The project root (settings.find_root) and what is relative to it: flowwalk.yaml's paths, test
ids, and a path outside a root that was named."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowwalk.errors import UsageError
from flowwalk.settings import Overrides, find_root
from flowwalk.spec.config import settings_for
from flowwalk.spec.loader import load_suites

FLOW = 'spec_version: "1"\nname: a\nurl: http://127.0.0.1:8000/\nsteps:\n  - {type: goto, url: /}\n'


def put(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_nearest_flowwalk_yaml_above_the_paths_wins_over_the_repository_top(tmp_path: Path) -> None:
    put(tmp_path / "repo/.git", "gitdir: /elsewhere/worktrees/x\n")   # a worktree's .git is a file
    put(tmp_path / "repo/app/flowwalk.yaml")
    put(tmp_path / "repo/app/specs/a.flow.yaml", FLOW)
    put(tmp_path / "repo/lib/b.flow.yaml", FLOW)
    repo = tmp_path / "repo"
    assert find_root(["app/specs/a.flow.yaml"], cwd=str(repo)) == repo / "app"
    assert find_root(["specs"], cwd=str(repo / "app")) == repo / "app"
    # a folder named flowwalk.yaml is no config
    (repo / "lib/flowwalk.yaml").mkdir()
    assert find_root(["repo/lib"], cwd=str(tmp_path)) == repo
    # the common ancestor of both is the repository's top, which holds no flowwalk.yaml
    assert find_root(["app/specs", "lib"], cwd=str(repo)) == repo
    assert find_root([], cwd=str(repo / "app/specs")) == repo / "app"


def test_without_a_config_or_repository_the_root_is_the_current_folder_or_the_specs_folder(tmp_path: Path) -> None:
    put(tmp_path / "work/specs/a.flow.yaml", FLOW)
    put(tmp_path / "elsewhere/keep")
    assert find_root(["specs"], cwd=str(tmp_path / "work")) == tmp_path / "work"
    # named from a folder that does not hold them: the root is theirs, never above them
    assert find_root([str(tmp_path / "work/specs/a.flow.yaml")], cwd=str(tmp_path / "elsewhere")) == \
        tmp_path / "work/specs"


def test_a_named_root_must_be_a_folder(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="FLOWWALK_ROOT 'nope' is not a folder"):
        find_root([], "nope", "FLOWWALK_ROOT", cwd=str(tmp_path))
    (tmp_path / "sub").mkdir()
    assert find_root(["x"], "sub/..", cwd=str(tmp_path)) == tmp_path


def test_ids_are_relative_to_the_root_and_config_paths_to_the_config(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    put(tmp_path / "repo/.git/HEAD")
    put(tmp_path / "repo/e2e/flowwalk.yaml", "paths: [specs]\nout_dir: build/report\n")
    put(tmp_path / "repo/e2e/specs/shop/a.flow.yaml", FLOW)
    monkeypatch.chdir(tmp_path / "repo/e2e/specs/shop")
    settings = settings_for(Overrides(), {}, None)
    assert settings.root == str(tmp_path / "repo/e2e")
    assert settings.paths == ("..",) and settings.out_dir == "../../build/report"
    [suite] = load_suites([], settings)
    assert [sc.id for sc in suite.scenarios] == ["specs/shop/a.flow.yaml#a"]
    # a spec outside a root that was named is refused, not given an id with ../
    monkeypatch.chdir(tmp_path)
    named = settings_for(Overrides(paths=("repo/e2e/specs",), root="repo/e2e/specs/shop"), {}, None)
    with pytest.raises(UsageError, match=r"'repo/e2e/specs' is outside the project root .*/shop \(--root\)"):
        load_suites([], named)
