"""The raw layer: YAML and JSON with positions, and every refusal that comes before any model."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowwalk.spec.source import MAX_BYTES, SourceError, load_source, parse_json, parse_yaml


def refusal(fn, text: str) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(SourceError) as caught:
        fn(text, "f.yaml")
    return caught.value.problem.render()


def test_yaml_values_and_positions_of_keys_and_values() -> None:
    src = parse_yaml("name: x\nsteps:\n  - type: goto\n    url: /a\n  - {type: wait, ms: 5}\n", "f.yaml")
    assert src.data == {"name": "x", "steps": [{"type": "goto", "url": "/a"}, {"type": "wait", "ms": 5}]}
    assert str(src.loc(("steps", 0))) == "f.yaml:3:5"
    assert str(src.loc(("steps", 0, "url"))) == "f.yaml:4:10"
    assert str(src.key_loc(("steps", 0, "url"))) == "f.yaml:4:5"
    assert str(src.loc(("steps", 1, "ms"))) == "f.yaml:5:22"
    # a key that is not there is located at its nearest written ancestor
    assert str(src.loc(("steps", 1, "for"))) == "f.yaml:5:5"


def test_columns_count_characters_not_bytes() -> None:
    src = parse_yaml("café: été\nnext: 1\n", "f.yaml")
    assert str(src.loc(("café",))) == "f.yaml:1:7"


def test_yaml_1_1_scalars_are_typed_as_safe_load_types_them() -> None:
    src = parse_yaml("a: yes\nb: '5'\nc: 0x1F\nd: ~\ne: 1.5\nf: 2024-01-02\ng: \"no\"\n", "f.yaml")
    assert src.data == {"a": True, "b": "5", "c": 31, "d": None, "e": 1.5, "f": "2024-01-02", "g": "no"}
    # the text as written is kept for hints such as 'quote it'
    assert src.raw[("a",)] == "yes"


def test_merge_keys_fill_only_keys_not_written() -> None:
    src = parse_yaml("base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  y: 3\n", "f.yaml")
    assert src.data["c"] == {"y": 3, "x": 1}


@pytest.mark.parametrize("text, expected", [
    ("a: 1\na: 2\n", "f.yaml:2:1: error: duplicate key 'a'\n  hint: 'a' is already set at line 1; a key may appear once per mapping"),
    ("a: b: c\n", "f.yaml:1:5: error: invalid YAML: mapping values are not allowed in this context"),
    ("1: x\n", "f.yaml:1:1: error: key '1' is not a string\n  hint: quote the key: \"1\": ..."),
    ("a: &a [*a]\n", "f.yaml:1:4: error: recursive YAML alias"),
    ("a: !foo x\n", "f.yaml:1:4: error: unsupported YAML tag '!foo' on value 'x'"),
    ("# nothing\n", "f.yaml:1:1: error: file is empty (it holds only comments)"),
    ("a: 1\n---\nb: 2\n", "f.yaml:2:1: error: invalid YAML: expected a single document in the stream but found another document"),
])
def test_yaml_refusals(text: str, expected: str) -> None:
    assert refusal(parse_yaml, text).startswith(expected)


def test_nesting_deeper_than_64_is_refused_at_the_65th_level() -> None:
    parse_yaml("x: " + "[" * 63 + "]" * 63, "f.yaml")  # 64 levels including the root mapping
    assert refusal(parse_yaml, "x: " + "[" * 64 + "]" * 64).startswith(
        "f.yaml:1:67: error: nesting is deeper than 64 levels")


def test_alias_expansion_is_bounded_by_nodes_produced() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdef", "bcdefg"):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    message = refusal(parse_yaml, "\n".join(lines) + "\n")
    assert "document expands to more than 100,000 nodes" in message
    # the same construction a few levels shallower is fine
    src = parse_yaml("\n".join(lines[:3]) + "\n", "f.yaml")
    assert len(src.data["c"]) == 10 and len(src.data["c"][0]) == 10


def test_json_values_positions_and_escapes() -> None:
    src = parse_json('{\n  "a": [1, -2.5, true, null],\n  "b": {"c": "d\\n\\u00e9"}\n}', "f.json")
    assert src.data == {"a": [1, -2.5, True, None], "b": {"c": "d\né"}}
    assert str(src.loc(("a", 1))) == "f.json:2:12"
    assert str(src.key_loc(("b", "c"))) == "f.json:3:9"


@pytest.mark.parametrize("text, expected", [
    ('{"a": 1,\n "a": 2}', "f.yaml:2:2: error: duplicate key 'a'"),
    ('{"a": [1,]}', "f.yaml:1:10: error: invalid JSON: Expecting value\n  hint: JSON allows no trailing comma"),
    ('{"a": 1 "b": 2}', "f.yaml:1:9: error: invalid JSON: Expecting ',' delimiter"),
    ('{"a": 1} {}', "f.yaml:1:10: error: invalid JSON: Extra data"),
    ("[" * 65 + "]" * 65, "f.yaml:1:65: error: nesting is deeper than 64 levels"),
])
def test_json_refusals(text: str, expected: str) -> None:
    assert refusal(parse_json, text).startswith(expected)


def test_files_over_one_mebibyte_are_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "big.flow.yaml"
    path.write_text("a: " + "x" * MAX_BYTES + "\n")
    with pytest.raises(SourceError) as caught:
        load_source(path, "big.flow.yaml")
    assert caught.value.problem.render().startswith("big.flow.yaml:1:1: error: file is too large (1,048,580 bytes")


@pytest.mark.parametrize("data, expected", [
    (b"", "x.yaml:1:1: error: file is empty"),
    (b" \n\t\n", "x.yaml:1:1: error: file is empty"),
    (b"a: 1\nb: \x00\x01", "x.yaml:2:4: error: file is binary (it contains a NUL byte)"),
    (b"a: 1\nname: caf\xe9\n", "x.yaml:2:10: error: file is not valid UTF-8 (byte 0xe9)"),
])
def test_byte_level_refusals(tmp_path: Path, data: bytes, expected: str) -> None:
    path = tmp_path / "x.yaml"
    path.write_bytes(data)
    with pytest.raises(SourceError) as caught:
        load_source(path, "x.yaml")
    assert caught.value.problem.render().startswith(expected)


def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "x.flow.json"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}')
    assert load_source(path, "x.flow.json").data == {"a": 1}


@pytest.mark.parametrize("text, expected", [
    # PyYAML's ReaderError has no mark: the position is found from its offset (libyaml: UTF-8 bytes)
    ('steps:\n  - {type: goto, url: "/é\U0001F600a\x99b"}\n',
     'f.yaml:2:28: error: invalid YAML: control character U+0099 is not allowed\n'
     '  hint: remove it, or write it as the escape "\\x99" inside a double-quoted string'),
    ("a: 1\r\nb: x\x16y\n",
     'f.yaml:2:5: error: invalid YAML: control character U+0016 is not allowed\n'
     '  hint: remove it, or write it as the escape "\\x16" inside a double-quoted string'),
    ("a: \ufffe\n",
     'f.yaml:1:4: error: invalid YAML: character U+FFFE is not allowed\n'
     '  hint: remove it, or write it as the escape "\\ufffe" inside a double-quoted string'),
])
def test_a_character_yaml_does_not_allow_is_refused_on_one_line_where_it_is(text: str, expected: str) -> None:
    assert refusal(parse_yaml, text) == expected


@pytest.mark.parametrize("fn, text, expected", [
    # a key holding a line break (or NEL, LS, PS) is escaped: the problem stays on one line
    (parse_yaml, '"a\\nb": 1\n"a\\nb": 2\n',
     "f.yaml:2:1: error: duplicate key 'a\\nb'\n"
     "  hint: 'a\\nb' is already set at line 1; a key may appear once per mapping"),
    (parse_json, '{"a\\u2028b": 1,\n "a\\u2028b": 2}',
     "f.yaml:2:2: error: duplicate key 'a\\u2028b'\n"
     "  hint: 'a\\u2028b' is already set at line 1; a key may appear once per object"),
    (parse_yaml, 'a: !foo "x\\ny"\n',
     "f.yaml:1:4: error: unsupported YAML tag '!foo' on value 'x\\ny'\n"
     "  hint: remove the tag; specs use plain strings, numbers, booleans, lists and mappings"),
])
def test_keys_and_values_with_line_breaks_are_escaped_in_problems(  # type: ignore[no-untyped-def]
        fn, text: str, expected: str) -> None:
    assert refusal(fn, text) == expected


def test_positions_count_only_the_line_breaks_an_editor_shows() -> None:
    # PyYAML also ends a line at NEL, LS and PS; an editor (and GitHub's diff) does not
    text = 'name: "a\u0085b\u2028c\u2029d"\nsteps:\n  - {type: goto, url: /a}\n'
    src = parse_yaml(text, "f.yaml")
    assert str(src.key_loc(("steps",))) == "f.yaml:2:1"
    assert str(src.loc(("steps", 0, "url"))) == "f.yaml:3:23"
    assert refusal(parse_yaml, text + "steps: 1\n") == (
        "f.yaml:4:1: error: duplicate key 'steps'\n"
        "  hint: 'steps' is already set at line 2; a key may appear once per mapping")
    assert refusal(parse_yaml, text + "x: [\n").startswith("f.yaml:5:1: error: invalid YAML:")
    # a lone CR does end a line, in YAML and in JSON
    assert str(parse_yaml("a: 1\rb: 2\r", "f.yaml").key_loc(("b",))) == "f.yaml:2:1"
    assert str(parse_json('{"a": 1,\r "b": 2}', "f.json").key_loc(("b",))) == "f.json:2:2"
    assert refusal(parse_json, '{"a": 1,\r "b": }').startswith("f.yaml:2:7: error: invalid JSON: Expecting value")
