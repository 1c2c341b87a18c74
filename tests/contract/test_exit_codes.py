"""The exit codes people read (README's table, `flowwalk --help`) are the ExitCode enum's, all of them."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from flowwalk.cli import EXIT_CODES_HELP, main
from flowwalk.exitcodes import ExitCode

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_exit_code_table_is_the_enum() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("### Exit codes", 1)[1].split("\n## ", 1)[0]
    codes = [int(code) for code in re.findall(r"^\| (\d+) \|", table, re.MULTILINE)]
    assert codes == sorted(code.value for code in ExitCode)


def test_the_help_lists_every_exit_code() -> None:
    codes = [int(code) for code in re.findall(r"^  (\d+)  ", EXIT_CODES_HELP, re.MULTILINE)]
    assert codes == sorted(code.value for code in ExitCode)


def test_the_help_says_headers_and_credentials_go_to_the_origin() -> None:
    help_text = " ".join(CliRunner().invoke(main, ["run", "--help"]).output.split())
    for option in ("--http-header", "--http-credentials"):
        words = help_text.split(option, 1)[1].split(" --", 1)[0]
        assert "base URL's origin only" in words and "host" not in words, words
