"""A page that needs shared memory, in the 64 MB /dev/shm a Docker action gets.

The heavy page (tests/container/heavy/) makes Chromium's renderer use far more shared memory than
64 MB. flowwalk launches Chromium with --disable-dev-shm-usage (settings.CHROMIUM_ARGS), so the
walk does not crash: the flow fails where it means to (its last expectation), and the full-page
screenshot of that failure is taken. The control shows the page is heavy enough to matter: in the
same container, Chromium left to use /dev/shm crashes on it.
"""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

from conftest import Image

from engine import Podman

HEAVY = Path(__file__).parent / "heavy"


def png_size(path: Path) -> tuple[int, int]:
    width, height = struct.unpack(">II", path.read_bytes()[16:24])
    return width, height


def workspace(tmp_path: Path) -> Path:
    shutil.copytree(HEAVY, tmp_path / "workspace")
    return tmp_path / "workspace"


def in_container(podman: Podman, image: Image, ws: Path, *command: str) -> tuple[int, str]:
    """`command` in the image, in the workspace, with Docker's default /dev/shm of 64 MB (podman's
    own default is 64,000 kB)."""
    proc = podman("run", "--rm", "--network=host", "--shm-size=64m", "--workdir", "/github/workspace",
                  "-v", f"{ws}:/github/workspace", "--entrypoint", "sh", image.id, "-c",
                  "df -k /dev/shm | tail -1; exec \"$@\"", "sh", *command, check=False, timeout=600)
    return proc.returncode, proc.stdout + proc.stderr


def test_the_heavy_page_does_not_crash_the_browser_in_64_mb_of_shm(podman: Podman, image: Image,
                                                                 tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    code, output = in_container(podman, image, ws, "flowwalk", "run", "checks", "--serve", "site",
                                "--full-page-screenshots", "--workers", "1", "--out", "report")
    shm_kb = int(output.splitlines()[0].split()[1])
    assert shm_kb == 65536, f"/dev/shm is {shm_kb} kB, not Docker's default 64 MB"
    assert code == 1, output[-3000:]  # the site misbehaved: the expectation, not the browser
    verdict = json.loads((ws / "report" / "verdict.json").read_text())
    (test,) = verdict["tests"]
    assert test["status"] == "failed"
    failure = test["failure"]
    assert failure["failure_class"] == "assertion_failed" and failure["step_index"] == 3, failure
    assert failure["context"]["crashed"] is False
    shots = sorted((ws / "report").rglob("*.png"))
    assert shots, "the failure's screenshot"
    width, height = png_size(shots[0])
    assert height > 6_000, f"a full-page screenshot of the ~7,000 px page, got {width}x{height}"


def test_the_control_chromium_using_dev_shm_crashes_on_the_same_page(podman: Podman, image: Image,
                                                                    tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    code, output = in_container(podman, image, ws, "python", "/github/workspace/shm_control.py", "site")
    assert code == 0, output[-3000:]
    assert "crashed" in output.splitlines(), output[-3000:]
