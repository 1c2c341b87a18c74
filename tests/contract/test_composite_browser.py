"""composite/browser.sh: which of the runner's browsers the Docker-free action hands to flowwalk.

Run as the composite step runs it, with a PATH and environment the test controls (fake browsers
are small scripts), and its $GITHUB_OUTPUT read back.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "composite" / "browser.sh"
BASH = "/bin/bash"


def fake_browser(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\necho fake\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def pick(tmp_path: Path, path_dirs: list[Path], **env: str) -> tuple[subprocess.CompletedProcess[str], str | None]:
    output = tmp_path / "github-output"
    output.unlink(missing_ok=True)
    done = subprocess.run([BASH, str(SCRIPT)], capture_output=True, text=True, timeout=30,
                          env={"PATH": os.pathsep.join(map(str, path_dirs)), "GITHUB_OUTPUT": str(output), **env})
    written = output.read_text(encoding="utf-8") if output.exists() else ""
    lines = [line.split("=", 1)[1] for line in written.splitlines() if line.startswith("executable=")]
    return done, (lines[0] if lines else None)


def test_the_runners_google_chrome_on_path_is_found(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    chrome = fake_browser(bin_dir, "google-chrome")
    fake_browser(bin_dir, "chromium")
    done, chosen = pick(tmp_path, [bin_dir])
    assert done.returncode == 0 and chosen == str(chrome)
    assert f"flowwalk: browser {chrome}" in done.stdout


def test_chrome_bin_as_githubs_images_set_it_comes_before_path(tmp_path: Path) -> None:
    fake_browser(tmp_path / "bin", "google-chrome")
    chrome_bin = fake_browser(tmp_path / "opt", "chrome")
    _, chosen = pick(tmp_path, [tmp_path / "bin"], CHROME_BIN=str(chrome_bin))
    assert chosen == str(chrome_bin)


@pytest.mark.parametrize("name", ["google-chrome-stable", "chromium", "chromium-browser"])
def test_other_chrome_and_chromium_names_are_found(tmp_path: Path, name: str) -> None:
    browser = fake_browser(tmp_path / "bin", name)
    _, chosen = pick(tmp_path, [tmp_path / "bin"], CHROME_BIN=str(tmp_path / "gone"))  # a stale CHROME_BIN is skipped
    assert chosen == str(browser)


def test_a_pinned_flowwalk_chromium_wins_and_must_exist(tmp_path: Path) -> None:
    fake_browser(tmp_path / "bin", "google-chrome")
    pinned = fake_browser(tmp_path / "opt", "chromium-headless-shell")
    _, chosen = pick(tmp_path, [tmp_path / "bin"], FLOWWALK_CHROMIUM=str(pinned))
    assert chosen == str(pinned)
    done, chosen = pick(tmp_path, [tmp_path / "bin"], FLOWWALK_CHROMIUM=str(tmp_path / "missing"))
    assert done.returncode == 1 and chosen is None
    assert f"FLOWWALK_CHROMIUM is '{tmp_path / 'missing'}', which is not an executable file" in done.stderr
    assert "hint:" in done.stderr and "::error title=flowwalk browser::" in done.stdout


def test_a_runner_without_a_browser_gets_an_error_that_says_how_to_add_one(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done, chosen = pick(tmp_path, [tmp_path / "empty"])
    assert done.returncode == 1 and chosen is None
    assert "no Chrome or Chromium on this runner" in done.stderr
    assert "hint: install one in an earlier step" in done.stderr
