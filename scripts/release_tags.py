#!/usr/bin/env python3
"""The release's names, from the pushed tag and pyproject.toml: used by .github/workflows/release.yml.

    scripts/release_tags.py --tag v0.1.0 --image ghcr.io/flowwalk/flowwalk

refuses (exit 1, with a hint) a tag that is not `v` + the package version, and action files that
name another release (action.yml's `docker://IMAGE:<version>`, composite/action.yml's pinned
FLOWWALK_VERSION, the `pip install flowwalk==<version>` of examples/workflows/), so the sdist, the wheel, the image and both actions name one release; otherwise prints
`version=…` and a multi-line `tags` value for $GITHUB_OUTPUT: the exact version, plus
MAJOR.MINOR (and MAJOR from 1.0 on) for a final release, so a user may follow a release line.
A pre-release (`0.2.0rc1`) gets its exact tag only.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
_FINAL = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")


def package_version(root: Path = ROOT) -> str:
    with (root / "pyproject.toml").open("rb") as handle:
        return str(tomllib.load(handle)["project"]["version"])


def image_tags(version: str, image: str) -> list[str]:
    """Every `image:tag` the release pushes, the exact version first."""
    names = [version]
    final = _FINAL.match(version)
    if final:
        major, minor = final.group(1), final.group(2)
        names.append(f"{major}.{minor}")
        if major != "0":  # before 1.0 a minor release may break: no floating major tag
            names.append(major)
    return [f"{image.lower()}:{name}" for name in names]


def release_problems(tag: str, image: str, root: Path = ROOT) -> list[str]:
    """What stands between this tag and a consistent release, each with its hint; empty when none."""
    version = package_version(root)
    problems = []
    if tag != f"v{version}":
        problems.append(f"tag '{tag}' does not name the package version {version} (pyproject.toml)\n"
                        f"  hint: tag the commit v{version}, or release the tag's version: pyproject.toml, "
                        "src/flowwalk/__init__.py and both action files")
    docker = yaml.safe_load((root / "action.yml").read_text(encoding="utf-8"))["runs"]["image"]
    wanted = f"docker://{image.lower()}:{version}"
    if docker != wanted:
        problems.append(f"action.yml runs '{docker}', not the image this release pushes ('{wanted}')\n"
                        f"  hint: set runs.image in action.yml to '{wanted}'")
    composite = yaml.safe_load((root / "composite" / "action.yml").read_text(encoding="utf-8"))
    pinned = {str(step.get("env", {}).get("FLOWWALK_VERSION")) for step in composite["runs"]["steps"]
              if "FLOWWALK_VERSION" in step.get("env", {})}
    if pinned != {version}:
        problems.append(f"composite/action.yml installs flowwalk {', '.join(sorted(pinned)) or '(none)'}, "
                        f"not {version}\n  hint: set FLOWWALK_VERSION in its install step to \"{version}\"")
    for workflow in sorted((root / "examples" / "workflows").glob("*.yml")):
        for number, line in enumerate(workflow.read_text(encoding="utf-8").splitlines(), start=1):
            named = re.search(r"pip install flowwalk==(\S+)", line)
            if named and named.group(1) != version:
                problems.append(f"{workflow.relative_to(root)}:{number} installs flowwalk {named.group(1)}, not {version}\n"
                                f"  hint: install flowwalk=={version} there, the release the action runs")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tag", required=True, help="the pushed tag (github.ref_name), e.g. v0.1.0")
    parser.add_argument("--image", required=True, help="the image repository, e.g. ghcr.io/OWNER/flowwalk")
    args = parser.parse_args(argv)
    problems = release_problems(args.tag, args.image)
    for problem in problems:
        print(f"release_tags: error: {problem}", file=sys.stderr)
    if problems:
        return 1
    version = package_version()
    print(f"version={version}")
    print("tags<<EOF")
    print("\n".join(image_tags(version, args.image)))
    print("EOF")
    return 0


if __name__ == "__main__":
    sys.exit(main())
