"""What can be checked about the Action's image without a container engine.

No `docker build` can run here, so the Dockerfile is parsed (continuation lines joined, comments
dropped) and held to the facts the Action depends on: a Debian-based Python image, the README's
own install script, an entrypoint that exists and is the one action.yml implies, none of the
instructions GitHub says break container actions (USER, WORKDIR), and a build context that leaves
out local environments and reports. A few hadolint-style rules catch the usual mistakes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
KNOWN = {"FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME", "USER",
         "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL"}


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, in order."""
    logical: list[str] = []
    pending = ""
    for raw in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):
            continue  # a comment inside a continued instruction
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        logical.append(pending + line)
        pending = ""
    assert not pending, "the Dockerfile ends inside a continued line"
    out = []
    for line in logical:
        keyword, _, args = line.partition(" ")
        out.append((keyword.upper(), args.strip()))
    return out


def _all(keyword: str) -> list[str]:
    return [args for kw, args in instructions() if kw == keyword]


def test_every_instruction_is_a_dockerfile_instruction() -> None:
    unknown = [kw for kw, _ in instructions() if kw not in KNOWN]
    assert unknown == []


def test_the_base_image_is_debian_based_python_with_a_pinned_tag() -> None:
    (image,) = _all("FROM")  # one stage
    name, _, tag = image.split()[0].partition(":")
    assert name == "python" and tag, "an official Python image with an explicit tag"
    assert tag != "latest" and "alpine" not in tag
    assert re.search(r"(bookworm|trixie|bullseye)", tag), f"a Debian release in the tag, not '{tag}'"


def test_it_installs_with_the_same_script_as_the_readme() -> None:
    script = ROOT / "scripts" / "install.sh"
    assert script.is_file()
    assert "scripts/install.sh" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "--system)" in script.read_text(encoding="utf-8"), "install.sh accepts --system"
    # Debian's packages first, in a layer that only install.sh invalidates; then the repository
    script_copy, repo_copy = _all("COPY")
    assert script_copy.split() == ["scripts/install.sh", "/opt/flowwalk/scripts/install.sh"]
    source, destination = repo_copy.split()
    assert source == "." and destination == "/opt/flowwalk"
    installing = [r for r in _all("RUN") if "scripts/install.sh" in r]
    assert len(installing) == 2
    packages, package = installing
    assert "/opt/flowwalk/scripts/install.sh --system --headless-only --packages-only" in packages
    assert "rm -rf /var/lib/apt/lists/*" in packages, "apt's lists stay out of the layer"
    assert "/opt/flowwalk/scripts/install.sh --system --headless-only" in package and "--packages-only" not in package
    # the image forbids runs to write bytecode (PYTHONDONTWRITEBYTECODE): the build writes it once
    assert "python -m compileall -q /opt/flowwalk/src" in package
    order = [(kw, "packages-only" in args if kw == "RUN" else args.split()[0])
             for kw, args in instructions() if kw == "COPY" or (kw == "RUN" and "install.sh" in args)]
    assert order == [("COPY", "scripts/install.sh"), ("RUN", True), ("COPY", "."), ("RUN", False)]
    text = script.read_text(encoding="utf-8")
    assert "--headless-only)" in text and "--packages-only)" in text


def test_the_entrypoint_exists_and_is_the_one_action_yml_implies() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    # the released image, built from this Dockerfile by .github/workflows/release.yml
    assert action["runs"]["image"].startswith("docker://ghcr.io/") and "entrypoint" not in action["runs"]
    (entrypoint,) = _all("ENTRYPOINT")
    argv = json.loads(entrypoint)  # exec form: no shell, signals reach Python
    assert isinstance(argv, list) and argv[0].startswith("/"), "an absolute program path"
    assert argv[1:] == ["-m", "flowwalk.github.entrypoint"]
    module = ROOT / "src" / "flowwalk" / "github" / "entrypoint.py"
    assert module.is_file() and 'if __name__ == "__main__":' in module.read_text(encoding="utf-8")
    assert _all("CMD") == [], "args from action.yml would replace CMD anyway"


def test_no_user_and_no_workdir_as_github_asks_of_container_actions() -> None:
    assert _all("USER") == [] and _all("WORKDIR") == []


def test_hadolint_style_sanity() -> None:
    assert _all("ADD") == [], "COPY for local files"
    for run in _all("RUN"):
        assert not re.search(r"(^|&&\s*)cd\s", run), "no `RUN cd` (and no WORKDIR either)"
        assert "sudo" not in run
        if "apt-get install" in run:
            assert "-y" in run and "--no-install-recommends" in run
    script = (ROOT / "scripts" / "install.sh").read_text(encoding="utf-8")
    installs = [line for line in script.splitlines() if re.search(r"^\s*\$sudo apt-get install|^\s*apt-get install", line)]
    assert installs, "install.sh installs Chromium with apt-get"
    for line in installs:
        assert "-y" in line and "--no-install-recommends" in line
    # the packages go through the one apt-get line, by name
    assert re.search(r"^\s*apt_install chromium chromium-headless-shell\b", script, re.M)
    env = " ".join(_all("ENV")).upper()
    assert "TOKEN" not in env and "PASSWORD" not in env and "SECRET" not in env


def test_the_build_context_leaves_out_environments_history_and_reports() -> None:
    lines = {line.strip() for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")}
    for needed in (".venv", ".git", "flowwalk-report", "reports"):
        assert needed in lines, needed
    # and nothing the image needs
    for kept in ("src", "scripts", "pyproject.toml", "README.md", "*", "**"):
        assert kept not in lines, kept
