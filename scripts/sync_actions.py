#!/usr/bin/env python3
"""Write the Action's inputs and outputs from the one table into every file that lists them.

    scripts/sync_actions.py           rewrite what is out of date, print what changed
    scripts/sync_actions.py --check   change nothing; exit 1 and name the files that are out of date

The table is `flowwalk.github.inputs` (ACTION_INPUTS, ACTION_OUTPUTS). It fills the `inputs:` and
`outputs:` blocks of action.yml and composite/action.yml, the composite's `INPUT_*` variables of
its `flowwalk` step, and the tables between the markers in docs/action.md and README.md. Everything
else in those files is left as written. tests/contract/test_action.py runs `--check`.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from flowwalk.github.inputs import (  # noqa: E402  (the checkout's own package, not an installed one)
    ACTION_INPUTS, ACTION_OUTPUTS, INPUTS_END, INPUTS_START, OUTPUTS_END, OUTPUTS_START, render_inputs_table,
    render_outputs_table,
)

COMPOSITE_STEP = "flowwalk"  # the composite step that runs the entrypoint


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def render_inputs_block() -> str:
    lines = ["inputs:"]
    for item in ACTION_INPUTS:
        lines += [f"  {item.name}:", f"    description: {_quoted(item.description)}", "    required: false",
                  f"    default: {_quoted(item.default)}"]
    return "\n".join(lines) + "\n"


def render_outputs_block(composite: bool) -> str:
    lines = ["outputs:"]
    for name, description in ACTION_OUTPUTS.items():
        lines += [f"  {name}:", f"    description: {_quoted(description)}"]
        if composite:
            lines.append(f"    value: ${{{{ steps.{COMPOSITE_STEP}.outputs.{name} }}}}")
    return "\n".join(lines) + "\n"


def render_composite_env(indent: str) -> str:
    """The composite step's INPUT_ variables: underscores, which the entrypoint reads as well."""
    return "".join(f"{indent}{item.env_name.replace('-', '_')}: ${{{{ inputs.{item.name} }}}}\n"
                   for item in ACTION_INPUTS)


def _replace_block(text: str, key: str, block: str, path: Path) -> str:
    """Replace the top-level mapping `key:` (up to the next top-level key) with `block`."""
    match = re.search(rf"^{key}:\n(?:(?:[ #].*)?\n)*", text, re.M)
    if not match:
        raise SystemExit(f"sync_actions: error: {path.relative_to(ROOT)} has no top-level '{key}:'")
    return text[:match.start()] + block + text[match.end():]


def _replace_between(text: str, start: str, end: str, body: str) -> str:
    if start not in text or end not in text:
        return text  # the README may not carry a table
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{body}\n{end}{tail}"


def synced(path: Path) -> str:
    """The file's text as the table says it should be."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        text = _replace_between(text, INPUTS_START, INPUTS_END, render_inputs_table())
        return _replace_between(text, OUTPUTS_START, OUTPUTS_END, render_outputs_table())
    composite = path.parent.name == "composite"
    text = _replace_block(text, "inputs", render_inputs_block(), path)
    text = _replace_block(text, "outputs", render_outputs_block(composite), path)
    if composite:
        env = re.search(r"^( +)INPUT_[A-Z_]+: .*\n(?:\1INPUT_[A-Z_]+: .*\n)*", text, re.M)
        if not env:
            raise SystemExit("sync_actions: error: composite/action.yml has no INPUT_ variables in its flowwalk step")
        text = text[:env.start()] + render_composite_env(env.group(1)) + text[env.end():]
    return text


FILES = (ROOT / "action.yml", ROOT / "composite" / "action.yml", ROOT / "docs" / "action.md", ROOT / "README.md")


def out_of_date() -> list[Path]:
    return [path for path in FILES if synced(path) != path.read_text(encoding="utf-8")]


def main(argv: list[str]) -> int:
    stale = out_of_date()
    if "--check" in argv:
        for path in stale:
            print(f"sync_actions: {path.relative_to(ROOT)} is out of date with flowwalk.github.inputs", file=sys.stderr)
        if stale:
            print("  hint: run scripts/sync_actions.py", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.write_text(synced(path), encoding="utf-8")
        print(f"sync_actions: wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
