"""An act's `dialog:` against real Chromium: what the page's prompt returns for each answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flowwalk.model import DialogAnswer
from flowwalk.serve import StaticServer

from test_walker import click, expect, flow, make_settings, rules_of, walk  # the walker's builders

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("answer", "returned"), [
    (DialogAnswer(), '"Milk"'),                    # accepted without an answer: the prompt's default text
    (DialogAnswer(answer="Oat milk"), '"Oat milk"'),
    (DialogAnswer(answer=""), '""'),               # an empty answer is an answer
    (DialogAnswer(accept=False), "null"),
], ids=["default-text", "answer", "empty-answer", "dismissed"])
def test_a_prompt_returns_what_the_act_answers(flowwalk_browser: Any, tmp_path: Path, site: StaticServer,
                                               answer: DialogAnswer, returned: str) -> None:
    sc = flow("prompt", [click("#ask", dialog=answer), expect("has_text", returned, "#answer")],
              f"{site.url}/walker/prompt.html")
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report"))
    result = rules_of(events)["prompt"]
    assert result.status == "passed", result.failure
