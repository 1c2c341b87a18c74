"""The corpus of bad command-line options: each is refused before anything runs, with the message
kept beside it.

Each `tests/corpus/options/bad/<name>.yaml` holds the `argv` of a `flowwalk run` (after `run`), the
`env` it runs in and, optionally, texts the message must `never_shown` (a value pasted where the
name of its variable goes); `<name>.yaml.expected` holds what `flowwalk run` prints. The options go
through click's own parser and the settings a run builds, then the run's own check of them, as
`flowwalk run` does before it loads a spec. FLOWWALK_UPDATE_CORPUS=1 rewrites the expected files.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from flowwalk import cli
from flowwalk.app.run import check_preview_settings
from flowwalk.errors import UsageError
from flowwalk.spec.config import settings_for

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "options" / "bad"
CASES = sorted(CORPUS.glob("*.yaml"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_a_bad_option_is_refused_with_the_expected_message(path: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)   # no flowwalk.yaml
    case = yaml.safe_load(path.read_text(encoding="utf-8"))
    context = cli.run.make_context("run", [str(a) for a in case.get("argv") or []])
    request = cli._run_request(dict(context.params))
    with pytest.raises(UsageError) as refused:
        check_preview_settings(settings_for(request.overrides, dict(case.get("env") or {}), request.config_path))
    rendered = f"flowwalk: error: {refused.value}\n"
    expected = path.with_name(path.name + ".expected")
    if os.environ.get("FLOWWALK_UPDATE_CORPUS") == "1":
        expected.write_text(rendered, encoding="utf-8")
    assert rendered == expected.read_text(encoding="utf-8")
    assert "\n  hint: " in rendered
    for text in case.get("never_shown") or ():
        assert text not in rendered


def test_every_case_has_an_expected_file_and_no_expected_file_is_orphaned() -> None:
    assert {p.name for p in CASES} == {p.name[: -len(".expected")] for p in CORPUS.glob("*.expected")}
