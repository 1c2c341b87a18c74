"""Pydantic's validation errors rewritten for people: `errors_to_problems(exc, source, root)`.

Each error becomes a `Problem` at the document's own line and column (`path:line:col: error:
what`, then `hint: how to fix`): unknown keys with a "did you mean" and the valid keys of that
step, wrong types and bounds in words, union members by their `type`/`kind` tag. Errors our own
validators raise (`models.fail`) carry their message and hint ready-made. Users never see
pydantic's words.

A pydantic error carries a `loc` through the *models* (field aliases, plus the tag of every
discriminated union on the way, e.g. ("steps", 2, "expect", "count", "equals")). The models'
annotations are walked along that loc to learn which model owns the field (for "valid keys of a
wait step") and to drop the union tags, which leaves the path through the *document*
(("steps", 2, "equals")) that `Source` can locate.
"""

from __future__ import annotations

import re
import types as _types
import typing as _typing
from typing import Annotated, Any, Literal, Union, cast

import annotated_types as _at
import yaml
from pydantic import BaseModel, Discriminator, Tag, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from flowwalk.errors import Location, Problem
from flowwalk.model import EXPECT_KINDS
from flowwalk.spec.models import STEP_TYPES
from flowwalk.spec.source import NAME_SHOWN, escape, quote
from flowwalk.spec.spelling import choices_hint


_ENVIRONMENT_PLACES = ("on a flow spec's top level, a rule file's scenario, a project or flowwalk.yaml's top level "
                       "(docs/environment.md)")
#: keys written where they are not read: the hint says where they go
_READ_ELSEWHERE = {
    **{key: _ENVIRONMENT_PLACES for key in ("viewport", "device", "locale", "timezone", "color_scheme", "geolocation")},
    "session": "on a flow spec's top level or a rule file's scenario (docs/sessions.md)",
    "saves_session": "on a flow spec's top level or a rule of a rule file (docs/sessions.md)",
    "assertions": "on a flow spec's top level only (in a rule file, check in a rule's steps: kind: accessible)",
    "update_snapshots": "on the command line (--update-snapshots) or in the environment (FLOWWALK_UPDATE_SNAPSHOTS=1)",
}

#: model fields whose key is listed last in "valid keys of ..." (the ones every step shares)
_COMMON_KEYS = ("optional", "timeout_ms", "stabilize", "verify")
_TAG_FIELDS = ("type", "kind")


def _strip(ann: Any) -> tuple[Any, list[Any]]:
    """Remove Annotated and Optional wrappers; return the bare type and the metadata seen."""
    metadata: list[Any] = []
    while True:
        origin = _typing.get_origin(ann)
        if origin is Annotated:
            metadata.extend(ann.__metadata__)
            ann = ann.__origin__
            continue
        if origin in (Union, _types.UnionType):
            members = [a for a in _typing.get_args(ann) if a is not type(None)]
            if len(members) == 1:
                ann = members[0]
                continue
        return ann, metadata


def _is_discriminated(metadata: list[Any]) -> bool:
    for item in metadata:
        if isinstance(item, Discriminator):
            return True
        if isinstance(item, FieldInfo) and item.discriminator is not None:
            return True
    return False


def _union_members(ann: Any) -> list[Any]:
    return [a for a in _typing.get_args(ann) if a is not type(None)]


def _discriminator_field(metadata: list[Any]) -> str | None:
    for item in metadata:
        if isinstance(item, FieldInfo) and isinstance(item.discriminator, str):
            return item.discriminator
        if isinstance(item, Discriminator) and isinstance(item.discriminator, str):
            return item.discriminator
    return None


def _member_tags(member: Any, disc: str | None) -> set[str]:
    """The tag values that select `member` in a union discriminated by field `disc` (or by Tag)."""
    if _typing.get_origin(member) is Annotated:
        for item in member.__metadata__:
            if isinstance(item, Tag):
                return {item.tag}
    bare, _ = _strip(member)
    if disc is None:
        return set()
    if _typing.get_origin(bare) in (Union, _types.UnionType):
        tags: set[str] = set()
        for sub in _union_members(bare):
            tags |= _literal_values(_strip(sub)[0], disc)
        return tags
    return _literal_values(bare, disc)


def _literal_values(model: Any, field_name: str) -> set[str]:
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return set()
    info = model.model_fields.get(field_name)
    if info is None:
        return set()
    bare, _ = _strip(info.annotation)
    if _typing.get_origin(bare) is Literal:
        return {str(v) for v in _typing.get_args(bare)}
    return set()


def _field_by_key(model: type[BaseModel], key: str) -> tuple[str, FieldInfo] | None:
    for name, info in model.model_fields.items():
        if (info.alias or name) == key:
            return name, info
    return None


def valid_keys(model: type[BaseModel]) -> list[str]:
    """The keys a user may write in a mapping of this model, the environment's (an inherited block)
    after the model's own, shared ones last. A tag (`type`, `kind`) the model requires is left out:
    it chose this model, so it is written already; one with a default (a parameter's `type`) is a
    key like any other."""
    from flowwalk.spec.models import ENVIRONMENT_KEYS

    keys = [info.alias or name for name, info in model.model_fields.items()]
    tags = {name for name, info in model.model_fields.items() if name in _TAG_FIELDS and info.is_required()}
    own = [k for k in keys if k not in _COMMON_KEYS and k not in tags and k not in ENVIRONMENT_KEYS]
    return own + [k for k in ENVIRONMENT_KEYS if k in keys] + [k for k in _COMMON_KEYS if k in keys]



class _Resolved:
    """Where a pydantic error points: the document path, the owning model and the field's type."""

    def __init__(self) -> None:
        self.path: list[str | int] = []
        self.owner: type[BaseModel] | None = None
        self.field: str | None = None
        self.ann: Any = None
        self.metadata: list[Any] = []
        self.key_error = False
        self.union: Any = None          # the discriminated union last entered (for tag choices)
        self.disc: str | None = None


def _resolve(root: type[BaseModel], loc: tuple[Any, ...]) -> _Resolved:
    out = _Resolved()
    ann: Any = root
    out.owner = root
    i = 0
    while i < len(loc):
        comp = loc[i]
        bare, metadata = _strip(ann)
        if _typing.get_origin(bare) in (Union, _types.UnionType) and _is_discriminated(metadata):
            out.union = bare
            out.disc = _discriminator_field(metadata)
            chosen = None
            for member in _union_members(bare):
                if str(comp) in _member_tags(member, out.disc):
                    chosen = member
                    break
            if chosen is None:
                return out
            out.ann, out.metadata = _strip(chosen)
            # a nested union (steps -> expect kinds) keeps its own tag in the loc: stay on it
            ann = chosen
            i += 1
            continue
        if isinstance(bare, type) and issubclass(bare, BaseModel):
            out.owner = bare
            out.field = str(comp)
            out.path.append(comp)
            found = _field_by_key(bare, str(comp))
            if found is None:
                out.ann, out.metadata = None, []
                return out
            info = found[1]
            ann = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
            out.ann, out.metadata = _strip(ann)
            out.metadata = list(info.metadata) + out.metadata
            i += 1
            continue
        origin = _typing.get_origin(bare)
        if origin is list:
            out.path.append(comp)
            ann = _typing.get_args(bare)[0]
            out.ann, out.metadata = _strip(ann)
            i += 1
            continue
        if origin is dict:
            out.path.append(comp)
            if i + 1 < len(loc) and loc[i + 1] == "[key]":
                # pydantic names a bad key as (..., "<the key>", "[key]")
                out.key_error = True
                out.ann, out.metadata = _strip(_typing.get_args(bare)[0])
                return out
            ann = _typing.get_args(bare)[1]
            out.ann, out.metadata = _strip(ann)
            i += 1
            continue
        # a scalar or a callable-discriminated member (Tag on a str): the rest is not a path
        i += 1
    return out


def _is_model(ann: Any) -> bool:
    return isinstance(ann, type) and issubclass(ann, BaseModel)


def _article(label: str) -> str:
    return ("an " if label[:1] in "aeiou" else "a ") + label


def _choices_hint(word: str, choices: list[str] | tuple[str, ...], what: str) -> str:
    return choices_hint(word, choices, f"valid {what}")


_TYPE_NAMES = {str: "text", bool: "a boolean", int: "a number", float: "a number", list: "a list",
               dict: "a mapping", type(None): "nothing (null)"}


def _type_name(value: Any) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _shown(value: Any, raw: str | None) -> str:
    if raw is not None:
        return quote(raw)
    if isinstance(value, (dict, list)):
        return ""
    if isinstance(value, bool):
        return quote("true" if value else "false")
    return quote(value)


class _Describer:
    """Names places in a document for messages: "step 3", "'retry' of rule 'login'"."""

    def __init__(self, data: Any):
        self.data = data

    def get(self, path: tuple[Any, ...]) -> Any:
        node = self.data
        for part in path:
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
                node = node[part]
            else:
                return None
        return node

    def name_of(self, path: tuple[Any, ...]) -> str:
        node = self.get(path)
        name = node.get("name") if isinstance(node, dict) else None
        return name if isinstance(name, str) else ""

    def where(self, path: tuple[Any, ...]) -> str:
        """The object at `path`, for people."""
        if not path:
            return "the file"
        last = path[-1]
        parent = path[:-1]
        if isinstance(last, int):
            owner = parent[-1] if parent else ""
            outer = parent[:-1]
            n = last + 1
            if owner == "rules":
                name = self.name_of(path)
                return f"rule {quote(name, NAME_SHOWN)}" if name else f"rule {n}"
            if owner == "scenarios":
                name = self.name_of(path)
                return f"scenario {quote(name, NAME_SHOWN)}" if name else f"scenario {n}"
            own = {"steps": f"step {n}", "assertions": f"assertion {n}", "verify": f"verifier {n}",
                   "fields": f"emit field {n}", "before_each": f"step {n} of 'before_each'",
                   "after_each": f"step {n} of 'after_each'"}.get(str(owner), f"entry {n} of {quote(owner, NAME_SHOWN)}")
            if outer and owner in ("steps", "verify", "fields") or (outer and owner not in own):
                return f"{own} of {self.where(outer)}"
            return own
        if not parent:
            return quote(last, NAME_SHOWN)
        return f"{quote(last, NAME_SHOWN)} of {self.where(parent)}"

    def in_where(self, path: tuple[Any, ...]) -> str:
        return "at the top level" if not path else f"in {self.where(path)}"

    def subject(self, path: tuple[Any, ...]) -> str:
        """A value for people: "'ms' in step 3", "entry 2 of 'allowed_hosts'"."""
        if not path:
            return "the document"
        last = path[-1]
        if isinstance(last, int):
            return self.where(path)
        return f"{quote(last, NAME_SHOWN)} {self.in_where(path[:-1])}"


def _bounds(metadata: list[Any]) -> tuple[Any, Any]:
    low = high = None
    for item in metadata:
        for sub in getattr(item, "metadata", None) or [item]:
            if isinstance(sub, _at.Ge):
                low = sub.ge
            elif isinstance(sub, _at.Gt):
                low = f"above {sub.gt}"
            elif isinstance(sub, _at.Le):
                high = sub.le
            elif isinstance(sub, _at.Lt):
                high = f"below {sub.lt}"
    return low, high


def errors_to_problems(exc: ValidationError, source: Any, root: type[BaseModel],
                       prefix: tuple[Any, ...] = ()) -> list[Problem]:
    """Every error of one validation, worded for people and located at the node it concerns.

    `source` is a `source.Source`; `prefix` is where the validated value sits inside it.
    """
    problems: list[Problem] = []
    seen: set[tuple[Any, ...]] = set()
    describe = _Describer(source.data)
    for error in exc.errors(include_url=False):
        res = _resolve(root, tuple(error["loc"]))
        path = prefix + tuple(res.path)
        problem = _problem_for(error, res, path, source, describe)
        key = (problem.loc, problem.message)
        if key not in seen:
            seen.add(key)
            problems.append(problem)
    return problems


def repeats(entries: Any, key: str) -> list[tuple[int, int, str]]:
    """(index, index of the first, value) of each mapping in the list `entries` (a file's data as
    written) whose text `key` an earlier one has: a check that spans entries, run whether or not
    the entries are valid, so it comes in the same pass as what else is wrong."""
    first: dict[str, int] = {}
    out = []
    for index, entry in enumerate(entries if isinstance(entries, list) else ()):
        value = entry.get(key) if isinstance(entry, dict) else None
        if isinstance(value, str):
            if value in first:
                out.append((index, first[value], value))
            first.setdefault(value, index)
    return out


def merged(problems: list[Problem], found: list[Problem]) -> list[Problem]:
    """A file's validation problems and those `found` beside them (the checks that span entries,
    run on the file as written so that they come in the same pass), in the order they are written."""
    return sorted(problems + found, key=lambda p: (p.loc.line, p.loc.col)) if found else problems


def _problem_for(error: Any, res: _Resolved, path: tuple[Any, ...], source: Any,
                 describe: _Describer) -> Problem:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    value = describe.get(path)
    raw = source.raw.get(path)
    field = path[-1] if path and isinstance(path[-1], str) else None
    subject = describe.subject(path)
    loc: Location = source.loc(path)

    if kind == "flowwalk" and res.key_error:
        container = describe.where(path[:-1])
        what = "variable name" if path[-2:-1] == ("variables",) else f"key in {container}"
        # a key is an identifier, or a JSON path (storage_count's where, a request's body)
        wanted = "a JSON path" if "JSON path" in str(ctx.get("message", "")) else "an identifier"
        return Problem(source.key_loc(path), f"{what} {quote(path[-1], NAME_SHOWN)} is not {wanted}",
                       ctx.get("hint", ""))

    if kind == "flowwalk":
        at = ctx.get("at")
        if at:
            sub = path + tuple(int(p) if p.isdigit() else p for p in str(at).split("."))
            if describe.get(sub) is not None or sub in source.keys:
                loc = source.key_loc(sub) if ctx.get("key") else source.loc(sub)
        # a model validator speaks about the object at `path`, a field validator about one value
        is_object = _is_model(res.ann) or not path or isinstance(path[-1], int)
        obj = path if is_object else path[:-1]
        message = str(ctx["message"])
        if "{" in message and any(t in message for t in ("{where}", "{in_where}", "{subject}")):
            message = (message.replace("{where}", describe.where(obj))
                       .replace("{in_where}", f" {describe.in_where(obj)}" if obj else "")
                       .replace("{subject}", subject))
        elif obj:
            message += f" {describe.in_where(obj)}"
        return Problem(loc, message, ctx.get("hint", ""))

    if kind == "extra_forbidden":
        owner = res.owner or BaseModel
        keys = valid_keys(owner) if owner is not BaseModel else []
        label = getattr(owner, "LABEL", "mapping")
        key = str(path[-1]) if path else "?"
        hint = _choices_hint(key, keys, f"keys of {_article(label)}")
        if key in _READ_ELSEWHERE:  # no did-you-mean: the key is right, its place is not
            hint = (f"{quote(key, NAME_SHOWN)} belongs {_READ_ELSEWHERE[key]}; valid keys of {_article(label)}: "
                    + ", ".join(keys))
        return Problem(source.key_loc(path), f"unknown key {quote(key, NAME_SHOWN)} {describe.in_where(path[:-1])}",
                       hint)

    if kind == "missing":
        owner = res.owner or BaseModel
        label = getattr(owner, "LABEL", "mapping")
        return Problem(source.loc(path[:-1]), f"missing key {quote(field, NAME_SHOWN)} {describe.in_where(path[:-1])}",
                       f"{_article(label)} needs {quote(field, NAME_SHOWN)}; its keys: {', '.join(valid_keys(owner))}")

    if kind in ("union_tag_invalid", "union_tag_not_found"):
        disc = str(ctx.get("discriminator", "'type'")).strip("'")
        union = res.ann if _typing.get_origin(res.ann) in (Union, _types.UnionType) else res.union
        choices = sorted(set().union(*(_member_tags(m, disc) for m in _union_members(union))),
                         key=_tag_order) if union is not None else []
        noun = _tag_noun(disc, path)
        if kind == "union_tag_invalid":
            tag = str(ctx.get("tag"))
            return Problem(source.loc(path + (disc,)),
                           f"unknown {noun} {quote(tag, NAME_SHOWN)} {describe.in_where(path)}",
                           _choices_hint(tag, choices, f"{noun}s"))
        if not isinstance(value, dict):
            return _not_a_mapping(path, value, raw, describe, source, f"with a '{disc}' key")
        return Problem(loc, f"{describe.where(path)} has no '{disc}'",
                       f"add {disc}: <one of {', '.join(choices)}>")

    if kind == "step_tag":
        if not isinstance(value, dict):
            return _not_a_mapping(path, value, raw, describe, source, "")
        if "type" in value:
            tag = value["type"]
            shown = quote(tag, NAME_SHOWN) if isinstance(tag, str) else _shown(tag, source.raw.get(path + ("type",)))
            return Problem(source.loc(path + ("type",)), f"unknown step type {shown} {describe.in_where(path)}",
                           _choices_hint(str(tag), list(STEP_TYPES), "step types")
                           + "; or a call (use: <file>.steps.yaml) or a group (group: <title>, steps: [...])")
        return Problem(loc, f"{describe.where(path)} has no 'type'",
                       f"add type: <one of {', '.join(STEP_TYPES)}>; or call a steps file (use: <file>.steps.yaml, "
                       "with: {...}), or group steps (group: <title>, steps: [...])")

    if kind == "verify_tag":
        if isinstance(value, dict):
            written = ", ".join(quote(k, NAME_SHOWN) for k in value) or "no keys"
            return Problem(loc, f"{describe.where(path)} is not a verifier (it has {written})",
                           "write a verifier name (read_after_write, or a module in verifiers/), or a mapping "
                           "with one of read_after_write, invariant_check, verifier")
        return Problem(loc, f"{describe.where(path)} must be a verifier name or a mapping, got {_type_name(value)}",
                       "for example '- read_after_write' or '- invariant_check: {http: {url: /health}}'")

    if kind == "interrupts_tag":
        return Problem(loc, f"{subject} must be 'pause' or a mapping with 'override', got {_type_name(value)}",
                       "write 'interrupts: pause', or 'interrupts: {override: [\"#banner .close\"]}'")

    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return _not_a_mapping(path, value, raw, describe, source, "", res.ann if _is_model(res.ann) else None)

    if kind == "list_type":
        item = _shown(value, raw) or "..."
        one = _one_key(_entry_model(res.ann))
        if one is not None:   # a list of mappings that need one key: the value as that key's (`[{name: 'desktop'}]`)
            item = "{" + f"{one}: {item}" + "}"
        item = _flow_mapping(value) or _LIST_EXAMPLES.get(field or "", item)
        return Problem(loc, f"{subject} must be a list, got {_type_name(value)} {_shown(value, raw)}".rstrip(),
                       f"write it as a list, e.g. {escape(field or 'key')}: [{item}]")

    if kind == "literal_error":
        choices = [str(c) for c in _typing.get_args(res.ann)] if _typing.get_origin(res.ann) is Literal else []
        shown = _shown(value, raw)
        if field in ("spec_version", "rules_version", "steps_version"):
            if field == "spec_version":
                hint = 'write "1" (flow-spec v1) or "1.1" (v1 plus the documented v1.x additions)'
            else:
                hint = f'write {field}: "1"'
            if not isinstance(value, str):
                return Problem(loc, f"{field} must be a string, got {_type_name(value)} {shown}",
                               "quote the version: " + hint.replace("write ", "", 1))
            return Problem(loc, f"unsupported {field} {shown}", hint)
        if field == "interrupts":
            return Problem(loc, f"{subject} must be 'pause' or a mapping with 'override', got {shown}",
                           "write 'interrupts: pause', or 'interrupts: {override: [\"#banner .close\"]}'")
        if not isinstance(value, str) and value is not None:
            if str(value) in choices and field:  # `quarantine_version: 1`: the version is text
                return Problem(loc, f"{subject} must be the text {quote(str(value))}, got {_type_name(value)}",
                               f"quote it: {escape(field)}: \"{escape(str(value))}\"")
            return Problem(loc, f"{subject} must be one of {', '.join(choices)}, got {_type_name(value)} {shown}",
                           f"valid values: {', '.join(choices)}")
        noun = escape(field) if field else "value"
        return Problem(loc, f"unknown {noun} {shown} {describe.in_where(path[:-1])}",
                       _choices_hint(str(value), choices, f"values of {noun}" if noun != "action" else "actions"))

    if kind in ("string_type", "str_type"):
        shown = _shown(value, raw)
        hint = "put the value in quotes" + (f": {escape(field)}: \"{escape(raw if raw is not None else value)}\""
                                            if field and not isinstance(value, (dict, list)) and value is not None
                                            else "")
        if isinstance(value, (dict, list)) or value is None:
            hint = "write a single text value here"
        elif path and isinstance(path[-1], int):
            hint = f"put it in quotes: \"{escape(raw if raw is not None else value)}\""
        else:   # quoted as the hint says, the text may still be refused (`expires: 20991231`): say what passes
            hint = _still_refused(res, str(raw if raw is not None else value)) or hint
        return Problem(loc, f"{subject} must be text, got {_type_name(value)} {shown}".rstrip(), hint)

    if kind in ("int_type", "int_parsing", "int_from_float"):
        shown = _shown(value, raw)
        if isinstance(value, str) and value.strip().isdigit():
            hint = f"remove the quotes: {escape(field)}: {value.strip()}"
        elif isinstance(value, str) and re.fullmatch(r"\s*\d+\s*(ms|s)\s*", value):
            hint = "write a plain number of milliseconds, without a unit"
        else:
            hint = f"write a whole number, e.g. {_example(res.metadata, 500, whole=True)}"
        return Problem(loc, f"{subject} must be a whole number, got {_type_name(value)} {shown}".rstrip(), hint)

    if kind in ("float_type", "float_parsing"):
        if isinstance(value, str) and _is_number(value):
            hint = f"remove the quotes: {escape(field or 'it')}: {value.strip()}"
        else:
            hint = f"write a number without quotes, e.g. {_example(res.metadata, 300, whole=False)}"
        return Problem(loc, f"{subject} must be a number, got {_type_name(value)} {_shown(value, raw)}".rstrip(),
                       hint)

    if kind in ("bool_type", "bool_parsing"):
        return Problem(loc, f"{subject} must be true or false, got {_type_name(value)} {_shown(value, raw)}".rstrip(),
                       f"write {escape(field or 'it')}: true or {escape(field or 'it')}: false")

    if kind == "string_too_long":
        limit = ctx.get("max_length")
        return Problem(loc, f"{subject} is {len(value) if isinstance(value, str) else '?'} characters long; "
                            f"the limit is {limit}", _too_long_hint(field, limit))

    if kind == "string_too_short":
        need = ctx.get("min_length", 1)
        if isinstance(value, str) and value and need > 1:
            return Problem(loc, f"{subject} is {_shown(value, raw)}, shorter than {need} characters",
                           f"write at least {need} characters")
        if path and isinstance(path[-1], int):
            return Problem(loc, f"{subject} is empty", "write a value, or remove the entry")
        required = bool(res.owner is not None and res.field is not None and res.field in res.owner.model_fields
                        and res.owner.model_fields[res.field].is_required())
        return Problem(loc, f"{subject} is empty",
                       "write a value" + ("" if required else ", or remove the key (it is optional)"))

    if kind == "too_long":
        limit = ctx.get("max_length")
        count = len(value) if isinstance(value, list) else ctx.get("actual_length")
        hint = {"steps": "a spec stays reviewable: split it into smaller flows or rules"}.get(
            str(field), f"keep at most {limit}")
        return Problem(loc, f"{subject} has {count} entries; the limit is {limit}", hint)

    if kind == "too_short":
        need = ctx.get("min_length", 1)
        return Problem(loc, f"{subject} is empty", f"add at least {need} entr{'y' if need == 1 else 'ies'}")

    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        low, high = _bounds(res.metadata)
        if isinstance(low, str) and high is not None:
            rng = f"{low} and at most {high}"
        elif low is not None and high is not None:
            rng = f"from {low} to {high}"
        elif low is not None:
            rng = f"{low} or more" if not isinstance(low, str) else low
        else:
            rng = f"{high} or less" if not isinstance(high, str) else str(high)
        return Problem(loc, f"{subject} is {value}, out of range", f"use a value {rng}")

    if kind == "string_pattern_mismatch":
        if res.key_error and path[:-1] == ("http_headers",):
            return Problem(source.key_loc(path), f"{quote(path[-1], NAME_SHOWN)} in 'http_headers' is not an HTTP "
                           "header name", "letters, digits and - _ . ! # $ % & ' * + ^ ` | ~, no spaces, e.g. "
                           "x-vercel-protection-bypass")
        if res.key_error and path[-2:-1] == ("examples",):
            return Problem(source.key_loc(path), f"row name {quote(path[-1], NAME_SHOWN)} of 'examples' is not one word",
                           "use letters, digits, '_', '.' and '-', e.g. 'active': it ends the row's test id, "
                           "<name>[<row>]")
        if res.key_error:
            key = path[-1] if path else "?"
            return Problem(source.key_loc(path),
                           f"key {quote(key, NAME_SHOWN)} {describe.in_where(path[:-1])} is not an identifier",
                           "use letters, digits and '_' only, not starting with a digit")
        hint = "use letters, digits, '_', '.' and '-' (no spaces, '/' or '#'), e.g. 'open_cart'"
        if len(path) > 1 and path[-2] == "parents":
            return Problem(loc, f"parent {_shown(value, raw)} {describe.in_where(path[:-2])} is not a valid rule name",
                           hint)
        if field == "name":
            return Problem(loc, f"rule name {_shown(value, raw)} uses characters a rule name cannot", hint)
        return Problem(loc, f"{subject} {_shown(value, raw)} has the wrong form", f"it must match {ctx.get('pattern')}")

    # anything else: pydantic's own words are short for these, keep the location and subject
    return Problem(loc, f"{subject}: {error['msg']}", "")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _example(metadata: list[Any], usual: int, whole: bool) -> int | float:
    """A number to show in a hint: `usual` when the field's bounds admit it, else one within them."""
    low, high = _bounds(metadata)
    low = None if isinstance(low, str) else low
    high = None if isinstance(high, str) else high
    if (low is None or low <= usual) and (high is None or usual <= high):
        return usual
    if low is not None and high is not None:
        middle = (low + high) / 2
        return int(middle) if whole or middle == int(middle) else round(middle, 2)
    bound = low if low is not None else high
    return bound if isinstance(bound, (int, float)) else usual


def _tag_order(tag: str) -> tuple[int, str]:
    order = list(STEP_TYPES) + list(EXPECT_KINDS)
    return (order.index(tag), tag) if tag in order else (len(order), tag)


def _tag_noun(disc: str, path: tuple[Any, ...]) -> str:
    owner = next((p for p in reversed(path) if isinstance(p, str)), "")
    if disc == "type":
        return "step type"
    if owner == "assertions":
        return "assertion kind"
    return "expect kind"


#: a valid entry of the lists whose entries are one of several kinds, for "write it as a list"
_LIST_EXAMPLES = {"steps": "{type: goto, url: /}", "assertions": "{kind: no_console_errors}"}


def _flow_mapping(value: Any) -> str | None:
    """A short mapping of plain values in YAML's flow style (`{type: wait, ms: 1}`): a list's one entry
    written where the list goes, to be wrapped in `[...]`. None for anything else."""
    if not isinstance(value, dict) or not value or not all(
            isinstance(k, str) and isinstance(v, (str, int, float, bool)) for k, v in value.items()):
        return None
    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=1000).strip()
    return text if len(text) <= 80 else None


def _entry_model(ann: Any) -> type[BaseModel] | None:
    """The model of each entry of a list field (`Optional[Annotated[list[ProjectModel], ...]]`), or None."""
    while _typing.get_origin(ann) in (Annotated, Union, _types.UnionType, list):
        args = [a for a in _typing.get_args(ann) if a is not type(None)]
        ann = args[0] if args else None
    return ann if _is_model(ann) else None


def _one_key(model: type[BaseModel] | None) -> str | None:
    """The one key a mapping of `model` needs (a project's `name`), or None when it needs more or none."""
    required = [name for name, info in (model.model_fields.items() if model is not None else ()) if info.is_required()]
    return required[0] if len(required) == 1 else None


def _still_refused(res: _Resolved, text: str) -> str | None:
    """The hint of the field's own check when `text` would not pass it either, else None."""
    info = res.owner.model_fields.get(res.field) if res.owner is not None and res.field else None
    if info is None:
        return None
    checked: Any = cast(Any, Annotated)[(info.annotation, *info.metadata)] if info.metadata else info.annotation
    try:
        TypeAdapter(checked).validate_python(text)
    except ValidationError as error:
        return next((str(e["ctx"]["hint"]) for e in error.errors(include_url=False)
                     if e["type"] == "flowwalk" and (e.get("ctx") or {}).get("hint")), None)
    return None


def _not_a_mapping(path: tuple[Any, ...], value: Any, raw: str | None, describe: _Describer, source: Any,
                   extra: str, entry: type[BaseModel] | None = None) -> Problem:
    what = describe.where(path) if path and isinstance(path[-1], int) else describe.subject(path)
    shown = _shown(value, raw)
    got = f"{_type_name(value)} {shown}".rstrip()
    hint = "write it as 'key: value' lines (a mapping)"
    key = _one_key(entry)
    if isinstance(value, str) and key is not None:   # `projects: [desktop]`: the text as the one key's value
        hint = f"write it as a mapping, e.g. {{{key}: {_shown(value, raw)}}}"
    if isinstance(value, str) and path and path[-2:-1] == ("steps",):
        hint = f"write a step as a mapping, e.g. '- type: goto' and 'url: ...' on the next line"
    if not path:
        what = "the file"
        hint = "a spec is a mapping at the top level (spec_version, name, url, steps, ...)"
    return Problem(source.loc(path), f"{what} must be a mapping{(' ' + extra) if extra else ''}, got {got}", hint)


def _too_long_hint(field: str | None, limit: Any) -> str:
    return {"name": "shorten the name; put the detail in 'description'",
            "selector": "use a shorter, more specific selector (an id or data-testid)",
            "target": "describe the element in a few words, e.g. 'the submit button'"}.get(
        str(field), f"shorten it to at most {limit} characters")
