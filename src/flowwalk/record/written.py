"""A transcript as files: the spec (or steps file) through the one writer, and its fingerprints.

`build_tree` turns the transcript's nodes into the authoring tree (spec/models' `FlowSpecModel`,
or `StepsFileModel` for `--steps-file`), validated as any spec is; `render_as` (spec/writer.py)
writes it. `fingerprint_records` pairs each step of the written text with the fingerprints its
node kept: the lines come from reading the text back (ruamel.yaml keeps each item's line, JSON
through the same YAML reader), so they are the lines the run's steps have. The records have the
form of a passed step in `emit.jsonl` (`detail.fingerprint`, and `detail.fingerprints` for a
step's further selectors), so `--fingerprints` (heal/fingerprint.py) reads them as it reads a
report: the first run after a refactor heals from what the recording saw.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from pydantic import BaseModel
from ruamel.yaml import YAML

from flowwalk.heal.fingerprint import bound
from flowwalk.record.transcript import Node
from flowwalk.spec.models import FlowSpecModel, StepsFileModel

__all__ = ["FINGERPRINTS_FILE", "build_tree", "fingerprint_records", "merge_fingerprints", "steps_of"]

#: where a recording keeps its fingerprints, under the project root
FINGERPRINTS_FILE = Path(".flowwalk") / "recorded-fingerprints.jsonl"


def steps_of(nodes: Iterable[Node]) -> list[dict[str, Any]]:
    """The nodes as step data: a frame block's and a popup's steps nested."""
    out: list[dict[str, Any]] = []
    for node in nodes:
        step = {k: v for k, v in node.step.items() if not k.startswith("_")}
        if "frame" in step:
            step["steps"] = steps_of(node.children)
        elif "popup" in step and node.children:
            step["popup"] = {"steps": steps_of(node.children), **step["popup"]}
        out.append(step)
    return out


def build_tree(nodes: Sequence[Node], *, name: str, url: str, steps_file: bool = False,
               before: Sequence[Any] = (), top: Mapping[str, Any] | None = None) -> BaseModel:
    """The authoring tree of a recording: a flow spec at `url`, or with `steps_file` a steps file.
    `before`: steps kept ahead of the recorded ones (an `--append`ed spec's own); `top`: further
    top-level keys (`device`, `session`)."""
    steps = [*before, *steps_of(nodes)]
    if steps_file:
        return StepsFileModel.model_validate({"steps_version": "1", "steps": steps})
    return FlowSpecModel.model_validate({"spec_version": "1.1", "name": name, **(top or {}), "url": url,
                                         "steps": steps})


def _pairs(nodes: Sequence[Node], items: Any, start: int = 0) -> Iterable[tuple[Node, int]]:
    """Each node with the 1-based line of its item in the read-back `items` list, from `start` on."""
    for index, node in enumerate(nodes, start):
        if index >= len(items):
            return
        yield node, items.lc.item(index)[0] + 1
        item = items[index]
        if "frame" in node.step and "steps" in item:
            yield from _pairs(node.children, item["steps"])
        elif node.children and isinstance(item.get("popup"), Mapping) and "steps" in item["popup"]:
            yield from _pairs(node.children, item["popup"]["steps"])


def fingerprint_records(nodes: Sequence[Node], text: str, path: str, skip: int = 0) -> list[dict[str, Any]]:
    """One passed-step record per step that kept a fingerprint, at its line of `text` (the file
    written at `path`, as the run names it). `skip`: the steps ahead of the nodes (`--append`)."""
    tree = YAML().load(io.StringIO(text))
    records = []
    for node, line in _pairs(nodes, tree["steps"], skip):
        kept = [(sel, bound(fp)) for sel, fp in node.fingerprints]
        fps = [{**fp, "pinned": sel, "age": 0} for sel, fp in kept if fp is not None]
        if not fps:
            continue
        detail: dict[str, Any] = {"fingerprint": fps[0]}
        if fps[1:]:
            detail["fingerprints"] = fps[1:]
        records.append({"event": "step_finished", "status": "passed", "path": path, "line": line, "detail": detail})
    return records


def merge_fingerprints(file: Path, path: str, records: Sequence[Mapping[str, Any]], *, replace: bool = True) -> None:
    """`records` into `file`, replacing the ones an earlier recording of `path` left there (with
    `replace`; without, as `--append` does, beside them: the steps they name did not move)."""
    kept: list[str] = []
    if file.is_file():
        for line in file.read_text(encoding="utf-8").splitlines():
            try:
                old = json.loads(line)
            except ValueError:
                continue
            if isinstance(old, dict) and (old.get("path") != path or not replace):
                kept.append(line)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text("".join(f"{line}\n" for line in [*kept, *(json.dumps(r) for r in records)]), encoding="utf-8")
