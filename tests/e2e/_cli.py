"""Running the flowwalk CLI as a user does, for the end-to-end tests (imported by them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FLOWWALK = [sys.executable, "-m", "flowwalk"]  # the console script's entry (entry.py)
DEMO_ENV = {"DEMO_PASSWORD": "correct-horse-battery"}
DEMO_ARGS = ["--var", "DEMO_USER=ada@example.com", "--secret", "DEMO_PASSWORD"]


def flowwalk(*args: str, env: dict[str, str] | None = None, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **DEMO_ENV, **(env or {})}
    full_env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([*FLOWWALK, *args], cwd=ROOT, env=full_env, capture_output=True, text=True,
                          timeout=timeout)


def verdict(out: Path) -> dict[str, Any]:
    """The verdict.json of the report folder `out`."""
    return dict(json.loads((out / "verdict.json").read_text()))
