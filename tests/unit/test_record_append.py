"""`record --append` without a browser: where the new steps go in a person's text (record/appended.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flowwalk.errors import UsageError
from flowwalk.record.appended import continued, with_steps
from flowwalk.record.transcript import Node

CLICK = Node({"type": "act", "action": "click", "selector": "#go"})


def spec(tmp_path: Path, text: str, name: str = "a.flow.yaml") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode())
    return path


def test_dashes_at_column_zero_and_crlf_are_kept(tmp_path: Path) -> None:
    path = spec(tmp_path, "spec_version: '1.1'\r\nname: a\r\nurl: /\r\nsteps:\r\n- {type: goto, url: /}\r\n"
                          "assertions: []\r\n")
    assert with_steps(continued(path), [CLICK]) == (
        "spec_version: '1.1'\r\nname: a\r\nurl: /\r\nsteps:\r\n- {type: goto, url: /}\r\n"
        "- {type: act, action: click, selector: '#go'}\r\nassertions: []\r\n")


def test_a_block_step_last_and_no_final_line_break(tmp_path: Path) -> None:
    path = spec(tmp_path, "name: a\nurl: /\nsteps:\n  - type: expect\n    kind: visible\n    selector: |-\n"
                          "      #x\n\n  # trailing")
    assert with_steps(continued(path), [CLICK]).endswith(
        "      #x\n  - {type: act, action: click, selector: '#go'}\n\n  # trailing\n")


def test_json_is_written_again_through_the_writer(tmp_path: Path) -> None:
    path = spec(tmp_path, json.dumps({"spec_version": "1.1", "name": "a", "url": "/",
                                      "steps": [{"type": "goto", "url": "/"}]}), "a.flow.json")
    assert json.loads(with_steps(continued(path), [CLICK]))["steps"][-1] == CLICK.step


@pytest.mark.parametrize("text, said", [
    ("name: a\nurl: /\nsteps: [{type: goto, url: /}]\n", "a.flow.yaml:3:1: --append: its `steps` are one flow list"),
    ("name: a\nurl: /\nsteps: []\n", "a.flow.yaml:3:1: --append: its `steps` list is empty"),
    ("name: a\nurl: /\n", "a.flow.yaml:1:1: --append: the spec has no `steps` list"),
    ("name: [a\n", "a.flow.yaml:2:1: --append: not YAML"),
])
def test_what_cannot_be_continued_is_refused_at_its_line(tmp_path: Path, text: str, said: str) -> None:
    with pytest.raises(UsageError) as refused:
        continued(spec(tmp_path, text))
    assert said in str(refused.value)
