"""The writer (spec/writer.py): every spec, rule file and steps file of the repository rendered and
read back is the same tree, and what it writes is what a person writes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from flowwalk.spec.formats import format_of
from flowwalk.spec.loader import discover
from flowwalk.spec.models import FlowSpecModel, StepsFileModel
from flowwalk.spec.source import SourceError, load_source, parse_json, parse_yaml
from flowwalk.spec.writer import WIDTH, render, render_as

ROOT = Path(__file__).resolve().parents[2]
_PLACEHOLDER = re.compile(r"\{\{\s*[A-Za-z_]\w*\s*\}\}\Z")


def _tree_files() -> list[Path]:
    """Every file of a format with a tree under examples/, tests/ and bench/, as the loader finds
    them, but those of the bad-input folders (`.../bad/...`), those that are not YAML or JSON, and the
    benchmarks' own output (bench/out, not in the repository)."""
    found = discover([ROOT / "examples", ROOT / "tests", ROOT / "bench"], exclude=[str(ROOT / "bench" / "out")])
    return [p for p in found if (f := format_of(p.name)) is not None and f.model is not None
            and "bad" not in p.relative_to(ROOT).parts]


FILES = _tree_files()


def _read(text: str, name: str) -> Any:
    form = format_of(name)
    assert form is not None and form.model is not None
    return form.model.model_validate((parse_json if form.syntax == "json" else parse_yaml)(text, name).data)


def test_the_repository_holds_the_files_the_round_trip_covers() -> None:
    kinds = {format_of(p.name).kind for p in FILES}  # type: ignore[union-attr]
    assert kinds == {"flow", "rules", "steps"} and len(FILES) > 300


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(ROOT).as_posix() for p in FILES])
def test_render_then_load_gives_the_same_tree(path: Path) -> None:
    form = format_of(path.name)
    assert form is not None and form.model is not None
    try:
        source = load_source(path, path.name)
    except SourceError:
        pytest.fail(f"{path} does not parse")
    try:
        tree = form.model.model_validate(source.data)
    except ValidationError as exc:
        # a steps file's parameter or a data table's column written whole into a number, boolean or
        # list field is bound by a call or a row: the file is a tree only then
        unbound = [e for e in exc.errors() if not (isinstance(e["input"], str) and _PLACEHOLDER.match(e["input"]))]
        assert not unbound, f"{path} is not a valid {form.kind} file: {unbound}"
        pytest.skip("a placeholder in a typed field: a tree once a call binds it")
    assert _read(render(tree, form), path.name) == tree


def _flow(**extra: Any) -> FlowSpecModel:
    data = {"steps": [{"type": "goto", "url": "/"}], "url": "/", "name": "n", "spec_version": "1.1", **extra}
    return FlowSpecModel.model_validate(data)


def test_keys_in_the_documented_order_and_a_step_on_a_line_where_it_fits() -> None:
    tree = _flow(session="s", steps=[
        {"value": "a@example.com", "selector": "#email", "action": "fill", "type": "act"},
        {"selector": "#" + "x" * WIDTH, "type": "act", "action": "click", "target": "the long one"},
    ], assertions=[{"kind": "no_console_errors"}], allowed_hosts=["pay.example"])
    assert render_as(tree, "n.flow.yaml").splitlines()[1:] == [
        "spec_version: '1.1'",
        "name: n",
        "session: s",
        "url: /",
        "allowed_hosts: [pay.example]",
        "steps:",
        "  - {type: act, action: fill, selector: '#email', value: a@example.com}",
        "  - type: act",
        "    action: click",
        "    target: the long one",
        f"    selector: '#{'x' * WIDTH}'",
        "assertions:",
        "  - kind: no_console_errors",
    ]


def test_the_first_line_names_the_formats_json_schema_by_its_id() -> None:
    def schema_id(name: str) -> str:
        return str(json.loads((ROOT / "schemas" / name).read_text())["$id"])

    assert render_as(_flow(), "n.flow.yaml").splitlines()[0] == \
        f"# yaml-language-server: $schema={schema_id('flow-spec.v1.schema.json')}"
    steps = StepsFileModel.model_validate({"steps_version": "1", "steps": [{"type": "goto", "url": "/"}]})
    assert render_as(steps, "x.steps.yaml", header=["what it does"]).splitlines()[:2] == [
        f"# yaml-language-server: $schema={schema_id('steps.v1.schema.json')}", "# what it does"]


def test_a_string_yaml_1_1_reads_as_another_type_is_quoted_and_a_line_break_is_a_block() -> None:
    tree = _flow(description="first line\nsecond line\n", steps=[
        {"type": "expect", "kind": "storage", "key": "paid", "equals": "yes"},
        {"type": "act", "action": "fill", "selector": "#n", "value": "0x1F"}])
    text = render_as(tree, "n.flow.yaml")
    assert "equals: 'yes'" in text and "value: '0x1F'" in text and "description: |\n  first line\n" in text
    assert _read(text, "n.flow.yaml") == tree


@pytest.mark.parametrize("loader", ["SafeLoader", "CSafeLoader"])
def test_a_string_a_yaml_1_1_reader_stops_at_in_flow_style_is_quoted_there(loader: str) -> None:
    import yaml

    pattern = r"^http://127\.0\.0\.1:8000/?(\?.*)?$"
    tree = _flow(steps=[
        {"type": "expect", "kind": "url_matches", "value": pattern},
        {"type": "act", "action": "click", "selector": "text=Why? Because"},
        {"type": "goto", "url": "http://127.0.0.1:8000/a"},
        {"type": "expect", "kind": "texts", "selector": "li", "equals": ["why?", "a?b"]}])
    text = render_as(tree, "n.flow.yaml")
    assert f"- {{type: expect, kind: url_matches, value: '{pattern}'}}" in text
    assert "- {type: goto, url: http://127.0.0.1:8000/a}" in text     # what both read plain stays plain
    reader = getattr(yaml, loader, None)
    if reader is None:
        pytest.skip("PyYAML was built without libyaml")
    data = yaml.load(text, Loader=reader)
    assert data["steps"][0]["value"] == pattern and data["steps"][1]["selector"] == "text=Why? Because"
    assert data["steps"][3]["equals"] == ["why?", "a?b"]
    assert _read(text, "n.flow.yaml") == tree


def test_json_is_written_in_the_same_order_without_comments() -> None:
    tree = _flow(steps=[{"selector": "#go", "type": "act", "action": "click"}])
    text = render_as(tree, "n.flow.json", header=["not in JSON"])
    assert list(json.loads(text)) == ["spec_version", "name", "url", "steps"]
    assert '"type": "act",\n      "action": "click",\n      "selector": "#go"' in text
    assert _read(text, "n.flow.json") == tree


def test_a_tree_of_another_format_and_a_name_flowwalk_does_not_write_are_refused() -> None:
    with pytest.raises(TypeError):
        render_as(_flow(), "x.steps.yaml")
    with pytest.raises(ValueError):
        render_as(_flow(), "suite.robot")


def _mappings(node: Any) -> Any:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _mappings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _mappings(value)


def test_a_steps_width_in_flow_style_is_its_length_as_the_yaml_library_writes_it() -> None:
    # the writer sums its scalars' flow text instead of dumping each step to measure it
    from ruamel.yaml.comments import CommentedMap

    from flowwalk.spec import writer

    seen = 0
    for path in FILES:
        for node in _mappings(load_source(path, path.name).data):
            if writer._has_break(node):
                continue
            flowed = writer._flowed(writer._plain(node))
            text = writer._dump(CommentedMap({"k": flowed})).rstrip("\n")
            if "\n" not in text:
                assert writer._flow_width(flowed) == len(text) - len("k: "), (path, node)
                seen += 1
    assert seen > 3000
