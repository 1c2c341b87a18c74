"""An import written out: flow specs, the folders' hook files and the helpers' steps files, each
validated into the authoring tree (spec/models/) and rendered by the one writer (spec/writer.py);
the tests that are not whole under `needs-review/` with their ledger rows on top; and the ledger
(`import/ledger.json`, `import/ledger.md`).

The layout: a source file is a folder named after it (`integration.spec.ts` -> `integration/`), a
describe a folder inside it, a test a `<title>.flow.yaml`, a helper `steps/<name>.steps.yaml` in
the file's folder. A goto that starts every test (the file's `beforeEach`) is each flow's `url:`.
"""

from __future__ import annotations

import json
import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from pydantic import ValidationError

from flowwalk.importer.core import FileImport, Folder, ImportedTest, Route, Use, Walk, deps_of, kebab, slug
from flowwalk.importer.ledger import Figures, Ledger, Row, render_markdown
from flowwalk.spec.models import FlowSpecModel, StepsFileModel
from flowwalk.spec.writer import render_as

__all__ = ["Written", "stem_of", "write_file_import", "write_ledger"]

NEEDS_REVIEW = "needs-review"


@dataclass
class Written:
    """What an import wrote: the whole specs, those in needs-review/, every file (relative to out)."""

    specs: list[str] = field(default_factory=list)
    review: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def stem_of(path: str) -> str:
    """`tests/integration.spec.ts` -> `integration`."""
    name = posixpath.basename(path)
    for suffix in (".spec", ".test", ".cy", ".e2e"):
        base = name.split(".")[0]
        if f"{base}{suffix}." in name:
            return slug(base)
    return slug(name.split(".")[0])


def _mapped_url(url: str, urls: Sequence[tuple[str, str]]) -> str:
    for before, after in urls:
        if url.startswith(before):
            return after + url[len(before):] or "/"
    return url


class _Writer:
    """One file's import written under `out`."""

    def __init__(self, walk: Walk, imported: FileImport, out: Path, urls: Sequence[tuple[str, str]],
                 written: Written, ledger: Ledger, held: Mapping[str, str]):
        self.walk, self.imported, self.out, self.urls = walk, imported, out, urls
        self.written, self.ledger, self.held = written, ledger, held
        self.stem = stem_of(imported.source.path)
        self.names: set[str] = set()
        self.helpers_used: set[str] = set()
        #: the folders whose hook opens every test under them (the outermost hooks with steps, whose
        #: first step is a goto), by id, with that goto's URL: each of those flows' url
        self.openers: dict[int, str] = {}
        for folder in imported.folders:
            if not folder.before.steps or any(f.before.steps for f in imported.folders
                                              if f is not folder and folder.titles[:len(f.titles)] == f.titles):
                continue
            first = next((s for s in folder.before.steps if not isinstance(s, Route)), None)
            if isinstance(first, dict) and first.get("type") == "goto":
                self.openers[id(folder)] = _mapped_url(first["url"], urls)

    def before_of(self, folder: Folder) -> list[Any]:
        """The folder's before_each steps as written: its opening goto is the flows' url instead, its
        routes each flow's `routes:`."""
        steps = [s for s in folder.before.steps if not isinstance(s, Route)]
        return steps[1:] if id(folder) in self.openers else steps

    def url_of(self, test: ImportedTest) -> str:
        return next((self.openers[id(f)] for f in test.folders if id(f) in self.openers), "")

    def folder_dir(self, folder: Folder) -> str:
        return posixpath.join(self.stem, *(slug(t) for t in folder.titles))

    def _resolve(self, steps: list[Any], at: str) -> list[Any]:
        """Steps as the tree takes them: `Use` as `use:` relative to the folder `at`, URLs mapped."""
        out: list[Any] = []
        for step in steps:
            if isinstance(step, Use):
                self.helpers_used.add(step.helper)
                target = posixpath.join(self.stem, "steps", f"{kebab(step.helper)}.steps.yaml")
                call: dict[str, Any] = {"use": posixpath.relpath(target, at)}
                if step.args:
                    call["with"] = dict(step.args)
                out.append(call)
            elif isinstance(step, dict) and "group" in step:
                out.append({"group": step["group"], "steps": self._resolve(step["steps"], at)})
            elif isinstance(step, dict) and step.get("type") == "goto":
                out.append({**step, "url": _mapped_url(step["url"], self.urls)})
            else:
                out.append(step)
        return out

    def _write(self, rel: str, tree: Any, header: Sequence[str]) -> None:
        target = self.out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_as(tree, target.name, header), encoding="utf-8")
        self.written.files.append(rel)

    def test(self, test: ImportedTest, rows: list[Row], figures: Figures) -> None:
        where = f"{self.imported.source.path}:{test.line}:{test.col}"
        bad = [r for r in rows if r.outcome == "not_converted"]
        reasons = [f"marked {m} upstream" for m in test.marks if m in ("skip", "fixme")]
        if where in self.held:
            reasons.append(self.held[where])
        whole = not bad and not reasons
        checks = test.block.checks + sum(f.before.checks + f.after.checks for f in test.folders)
        kept = test.block.kept + sum(f.before.kept + f.after.kept for f in test.folders)
        folder = self.folder_dir(test.folders[-1])
        name = slug(test.title)
        while posixpath.join(folder, name) in self.names:
            name += "-2"
        self.names.add(posixpath.join(folder, name))
        at = folder if whole else posixpath.join(NEEDS_REVIEW, folder)
        rel = posixpath.join(at, f"{name}.flow.yaml")
        steps = [s for s in test.block.steps if not isinstance(s, Route)]
        routes = [s.route for f in test.folders for s in f.before.steps if isinstance(s, Route)] + \
            [s.route for s in test.block.steps if isinstance(s, Route)]
        url = self.url_of(test)
        if not url and steps and isinstance(steps[0], dict) and steps[0].get("type") == "goto":
            url = _mapped_url(steps[0]["url"], self.urls)
            steps = steps[1:] or steps
        data: dict[str, Any] = {"spec_version": "1.1", "name": test.title, "url": url or "/",
                                "steps": self._resolve(steps, at)}
        if routes:
            data["routes"] = routes
        if not whole:
            before = [s for f in test.folders for s in self.before_of(f)]
            after = [s for f in reversed(test.folders) for s in f.after.steps]
            if before:
                data["before_each"] = self._resolve(before, at)
            if after:
                data["after_each"] = self._resolve(after, at)
        header = [f"imported by flowwalk import from {where}"]
        if not whole:
            header += ["needs review: " + "; ".join(reasons) if reasons else "needs review: calls not converted"]
            header += [f"  {r.where}: {r.call} -- {r.detail}" for r in bad]
        error = "" if steps else "no call of the test became a step (see its rows in the ledger)"
        try:
            tree = FlowSpecModel.model_validate(data)
        except ValidationError as invalid:
            error = error or f"the imported steps are not a valid flow spec: {invalid.errors()[0]['msg']}"
        figures.tests += 1
        figures.checks += checks
        if error:
            self.ledger.tests.append({"title": test.title, "at": where, "file": "", "whole": False, "why": error})
            return
        self._write(rel, tree, header)
        (self.written.specs if whole else self.written.review).append(rel)
        if whole:
            figures.tests_whole += 1
            figures.checks_kept += kept
        record: dict[str, Any] = {"title": test.title, "at": where, "file": rel, "whole": whole,
                                  "checks": checks, "kept": kept if whole else 0}
        if reasons:
            record["why"] = "; ".join(reasons)
        self.ledger.tests.append(record)

    def hooks(self, whole_dirs: set[str]) -> None:
        for folder in self.imported.folders:
            at = self.folder_dir(folder)
            if not any(d == at or d.startswith(at + "/") for d in whole_dirs):
                continue
            before = self.before_of(folder)
            for kind, steps in (("before_each", before), ("after_each", folder.after.steps)):
                if steps:
                    tree = StepsFileModel.model_validate({"steps_version": "1", "steps": self._resolve(steps, at)})
                    self._write(posixpath.join(at, f"{kind}.steps.yaml"), tree,
                                [f"imported by flowwalk import from {self.imported.source.path}"])

    def helpers(self) -> None:
        done: set[str] = set()
        while self.helpers_used - done:
            name = sorted(self.helpers_used - done)[0]
            done.add(name)
            helper = self.walk.helper_named(name)
            if helper.block is None:
                continue
            at = posixpath.join(self.stem, "steps")
            line, col = helper.node.start_point
            tree = StepsFileModel.model_validate({
                "steps_version": "1", "description": f"{name}() of {helper.path}",
                "params": {p: {"type": t} for p, t in helper.params.items()},
                "steps": self._resolve(helper.block.steps, at)})
            self._write(posixpath.join(at, f"{kebab(name)}.steps.yaml"), tree,
                        [f"imported by flowwalk import from {helper.path}:{line + 1}:{col + 1}"])


def write_file_import(walk: Walk, imported: FileImport, out: Path, urls: Sequence[tuple[str, str]],
                      written: Written, ledger: Ledger, held: Mapping[str, str]) -> None:
    """One file's tests, hooks and helpers written under `out`; its rows and figures into `ledger`.
    `held`: why a test (by its `path:line:col`) goes to needs-review/ though it converted whole."""
    writer = _Writer(walk, imported, out, urls, written, ledger, held)
    whole_dirs: set[str] = set()
    for test in imported.tests:
        rows = [walk.row(key) for key in sorted(deps_of(walk, test))]
        before = len(written.specs)
        writer.test(test, rows, ledger.figures)
        if len(written.specs) > before:
            whole_dirs.add(posixpath.dirname(written.specs[-1]))
    writer.hooks(whole_dirs)
    writer.helpers()
    ledger.rows.extend(sorted(imported.rows.values(), key=lambda r: (r.line, r.col, r.kind)))


def write_ledger(ledger: Ledger, out: Path) -> list[str]:
    """`import/ledger.json` and `import/ledger.md` under `out`."""
    folder = out / "import"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ledger.json").write_text(json.dumps(ledger.as_json(), indent=2, ensure_ascii=False) + "\n",
                                        encoding="utf-8")
    (folder / "ledger.md").write_text(render_markdown(ledger), encoding="utf-8")
    return [os.path.join("import", "ledger.json"), os.path.join("import", "ledger.md")]
