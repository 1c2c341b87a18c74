"""The steps other than expect: goto, act (with its dialog and popup), wait, extract, emit, the
history moves, and the blocks (a call of a steps file, a group, a frame); `Step`, the union of
them all, and the parameters a steps file takes."""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal, Optional, Union

from pydantic import AfterValidator, BeforeValidator, Discriminator, Field, Tag, WithJsonSchema, model_validator

from flowwalk.model import ACT_ACTIONS, EMIT_SOURCES
from flowwalk.spec.models.checks import ITEMS_MAX, ExpectStep
from flowwalk.spec.models.fields import (ELEMENT_SOURCES, EMIT_FIELDS_MAX, EVENT_MAX, IDENTIFIER_MAX, SELECTOR_MAX,
                                         VALUE_MAX, VALUE_REQUIRED, WAIT_MS_MAX, Description, Identifier, Name,
                                         Selector, Strict, Target, Url, Value, fail, quote)
from flowwalk.spec.models.verifiers import VerifyList


# --- other steps ---------------------------------------------------------------------------------------


#: the history steps (v1.1): the browser's back and forward buttons, and its reload
HISTORY_MOVES = ("go_back", "go_forward", "reload")


class GotoStep(Strict):
    LABEL: ClassVar[str] = "goto step"
    type: Literal["goto"]
    url: Url
    optional: bool = False


# --- act: typing key by key, drag and drop, dispatched events, dialogs (v1.1, issue 36) -----------------

#: type: the longest pause between two keys
TYPE_DELAY_MAX = 1000
#: the keys only one action takes: action -> keys
ACTION_KEYS = {"type": ("delay_ms",), "drag": ("to",), "dispatch": ("event", "detail")}
#: an event's type: a DOM event name or a custom one (`blur`, `input`, `todo:saved`)
EVENT_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_.:-]*$"
_EVENT_NAME = re.compile(EVENT_NAME_PATTERN)
EVENT_NAME_HINT = "write the type as the page listens for it, without 'on': e.g. blur, input, change or cart:add"


def _check_event_name(value: str) -> str:
    if not _EVENT_NAME.match(value):
        raise fail(f"{{subject}} {quote(value)} is not an event type", EVENT_NAME_HINT)
    return value


EventName = Annotated[str, Field(min_length=1, max_length=EVENT_MAX, json_schema_extra={"pattern": EVENT_NAME_PATTERN}),
                      AfterValidator(_check_event_name)]


def _check_detail(value: Any) -> Any:
    """A CustomEvent's detail: any JSON value, at most VALUE_MAX characters written as JSON."""
    import json

    size = len(json.dumps(value))
    if size > VALUE_MAX:
        raise fail(f"{{subject}} is {size} characters long as JSON; the limit is {VALUE_MAX}", "send less")
    return value


Detail = Annotated[Any, AfterValidator(_check_detail), WithJsonSchema({})]


class DialogModel(Strict):
    """`dialog:` of an act: the alert, confirm or prompt the act opens, checked and answered."""

    LABEL: ClassVar[str] = "dialog"
    accept: bool = True
    message: Optional[Value] = None
    answer: Optional[Value] = None

    @model_validator(mode="after")
    def _answer_needs_accept(self) -> "DialogModel":
        if self.answer is not None and not self.accept:
            raise fail("{where} answers a prompt it dismisses",
                       "a dismissed prompt returns null: remove 'answer', or set accept: true", at="answer", key=True)
        return self


#: the most steps a group, a frame block or a popup holds
GROUP_STEPS_MAX = 50


class PopupModel(Strict):
    """`popup:` of an act: the new tab or window the act opens, the steps run in it, and whether it
    is closed when they are done."""

    LABEL: ClassVar[str] = "popup"
    steps: Annotated[list["Step"], Field(max_length=GROUP_STEPS_MAX)] = Field(default_factory=list)
    close: bool = True

    @model_validator(mode="before")
    @classmethod
    def _steps_written_as_the_popup(cls, value: Any) -> Any:
        if isinstance(value, list):
            raise fail("{where} is a list; the popup's steps go under its 'steps'",
                       "write popup: {steps: [...]} (and close: false to leave it open), or popup: {} to only "
                       "check that one opens")
        return value


class ActStep(Strict):
    LABEL: ClassVar[str] = "act step"
    type: Literal["act"]
    action: Literal[ACT_ACTIONS]  # type: ignore[valid-type]
    selector: Optional[Selector] = None
    target: Optional[Target] = None
    value: Optional[Value] = None
    await_: Optional[Selector] = Field(default=None, alias="await")
    verify: Optional[VerifyList] = None
    optional: bool = False
    delay_ms: Optional[Annotated[int, Field(ge=0, le=TYPE_DELAY_MAX)]] = None
    to: Optional[Selector] = None
    event: Optional[EventName] = None
    detail: Optional[Detail] = None
    dialog: Optional[DialogModel] = None
    popup: Optional[PopupModel] = None

    @model_validator(mode="after")
    def _cross_fields(self) -> "ActStep":
        if self.selector is None and self.target is None:
            raise fail(f"act {self.action}{{in_where}} needs a selector or a target",
                       "add selector: <CSS or text= selector>, or target: <a short description such as "
                       "'the submit button'>, or both")
        if self.action in VALUE_REQUIRED:
            if self.value is None:
                example = {"fill": "'{{EMAIL}}'", "press": "Enter", "select": "<option value>",
                           "upload": "<file path>", "type": "'buy some cheese'"}[self.action]
                raise fail(f"act {self.action}{{in_where}} needs a value", f"add value: {example}")
            if self.action != "fill" and self.value == "":
                raise fail(f"act {self.action}{{in_where}} has an empty value", "write the value to use", at="value")
        elif self.value is not None:
            raise fail(f"act {self.action}{{in_where}} does not take a value",
                       f"remove 'value'; only {', '.join(VALUE_REQUIRED)} take one", at="value", key=True)
        for action, keys in ACTION_KEYS.items():
            for key in keys:
                if action != self.action and key in self.model_fields_set:
                    raise fail(f"act {self.action}{{in_where}} does not take '{key}'",
                               f"'{key}' belongs to act {action}: remove it, or set action: {action}", at=key, key=True)
        if self.action == "drag" and self.to is None:
            raise fail("act drag{in_where} needs 'to'", "add to: <the selector of where the element is dropped>")
        if self.action == "dispatch" and self.event is None:
            raise fail("act dispatch{in_where} needs 'event'",
                       "add event: <an event type such as blur, input or a custom one>")
        return self


class WaitStep(Strict):
    LABEL: ClassVar[str] = "wait step"
    type: Literal["wait"]
    ms: Optional[Annotated[int, Field(ge=1, le=WAIT_MS_MAX)]] = None
    for_: Optional[Selector] = Field(default=None, alias="for")
    optional: bool = False

    @model_validator(mode="after")
    def _exactly_one(self) -> "WaitStep":
        if self.ms is not None and self.for_ is not None:
            raise fail("{where} has both 'ms' and 'for'",
                       "a wait step takes exactly one: keep 'ms' to sleep, or 'for' to wait for a selector",
                       at="for", key=True)
        if self.ms is None and self.for_ is None:
            raise fail("{where} has neither 'ms' nor 'for'",
                       "a wait step takes exactly one: ms: <1-30000>, or for: <selector to wait for>")
        return self


class ExtractStep(Strict):
    LABEL: ClassVar[str] = "extract step"
    type: Literal["extract"]
    selector: Selector
    into: Identifier
    optional: bool = False


class EmitFieldModel(Strict):
    LABEL: ClassVar[str] = "emit field"
    name: Identifier
    source: Literal[EMIT_SOURCES] = "text"  # type: ignore[valid-type]
    selector: Optional[Selector] = None
    attr: Optional[Annotated[str, Field(min_length=1, max_length=128)]] = None
    expr: Optional[Annotated[str, Field(min_length=1, max_length=VALUE_MAX)]] = None

    @model_validator(mode="after")
    def _source_fields(self) -> "EmitFieldModel":
        if self.source in ELEMENT_SOURCES and self.selector is None:
            raise fail(f"{{where}} ('{self.name}', source {self.source}) needs a selector",
                       "add selector: <the element to read>")
        if self.source not in ELEMENT_SOURCES and self.selector is not None:
            raise fail(f"{{where}} ('{self.name}', source {self.source}) does not read an element",
                       "remove 'selector'", at="selector", key=True)
        if (self.source == "attr") != (self.attr is not None):
            if self.attr is None:
                raise fail(f"{{where}} ('{self.name}', source attr) needs attr", "add attr: <attribute name>")
            raise fail(f"{{where}} ('{self.name}') has 'attr', which only source attr takes",
                       "remove 'attr', or set source: attr", at="attr", key=True)
        if (self.source == "js") != (self.expr is not None):
            if self.expr is None:
                raise fail(f"{{where}} ('{self.name}', source js) needs expr", "add expr: <a JavaScript expression>")
            raise fail(f"{{where}} ('{self.name}') has 'expr', which only source js takes",
                       "remove 'expr', or set source: js", at="expr", key=True)
        return self


class EmitStep(Strict):
    LABEL: ClassVar[str] = "emit step"
    type: Literal["emit"]
    name: Annotated[str, Field(min_length=1, max_length=IDENTIFIER_MAX)]
    fields: Annotated[list[EmitFieldModel], Field(min_length=1, max_length=EMIT_FIELDS_MAX)]
    optional: bool = False

    @model_validator(mode="after")
    def _unique_fields(self) -> "EmitStep":
        seen: set[str] = set()
        for index, item in enumerate(self.fields):
            if item.name in seen:
                raise fail(f"emit field name '{item.name}' is used twice{{in_where}}",
                           "give every field its own name", at=f"fields.{index}.name")
            seen.add(item.name)
        return self


# --- calls of steps files and named groups (v1.1, issue 36: docs/flow-spec.md, "Reusable steps") -------

#: the names a steps file may have
STEPS_SUFFIXES = (".steps.yaml", ".steps.yml", ".steps.json")
STEPS_PATH_PATTERN = r"^(?![/\\])(?!.*\{\{).*\.steps\.(yaml|yml|json)$"
PARAMS_MAX = 20
#: a steps file: parameters; an argument of a call, a parameter's default, a data table's cell
PARAM_TYPES = ("string", "integer", "number", "boolean", "list")
_SCALARS = (str, int, float, bool)


def _check_arg(value: Any) -> Any:
    """An argument, a default, a data table's cell: text, a number, a boolean, or a list of those."""
    if isinstance(value, list):
        if len(value) > ITEMS_MAX:
            raise fail(f"{{subject}} has {len(value)} entries; the limit is {ITEMS_MAX}", f"keep at most {ITEMS_MAX}")
        for item in value:
            if not isinstance(item, _SCALARS) or isinstance(item, str) and len(item) > VALUE_MAX:
                raise fail("{subject} holds an entry that is not a short text",
                           "a list parameter takes a list of texts, e.g. [buy some cheese, feed the cat]")
        return value
    if isinstance(value, str) and len(value) > VALUE_MAX:
        raise fail(f"{{subject}} is {len(value)} characters long; the limit is {VALUE_MAX}", "shorten it")
    if not isinstance(value, _SCALARS):
        got = "a mapping" if isinstance(value, dict) else "nothing (null)" if value is None else type(value).__name__
        raise fail(f"{{subject}} must be text, a number, true or false, or a list, got {got}",
                   "write one value: text, a number, true or false, or a list of texts, e.g. 'buy some cheese' "
                   "or [a, b]")
    return value


_SCALAR_SCHEMA = [{"type": "string", "maxLength": VALUE_MAX}, {"type": "number"}, {"type": "boolean"}]
ArgValue = Annotated[Any, BeforeValidator(_check_arg), WithJsonSchema({"anyOf": [
    *_SCALAR_SCHEMA, {"type": "array", "maxItems": ITEMS_MAX, "items": {"anyOf": _SCALAR_SCHEMA}}]})]


def _check_steps_path(value: str) -> str:
    if value.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", value):
        raise fail(f"steps file {quote(value)} is an absolute path",
                   "write the path relative to the file that calls it, e.g. 'steps/add-todo.steps.yaml'")
    if "{{" in value:
        raise fail(f"steps file {quote(value)} holds a placeholder",
                   "name the steps file as written: a call's steps are known when the spec is loaded")
    if not value.endswith(STEPS_SUFFIXES):
        raise fail(f"{{subject}} names {quote(value)}, which is not a steps file",
                   "a steps file's name ends in .steps.yaml (or .steps.yml, .steps.json), e.g. 'steps/add-todo.steps.yaml'")
    return value


StepsPath = Annotated[str, Field(min_length=1, max_length=SELECTOR_MAX, json_schema_extra={"pattern": STEPS_PATH_PATTERN}),
                      AfterValidator(_check_steps_path)]


class CallStep(Strict):
    """`use: <file>.steps.yaml` with `with: {param: value}`: the steps file's steps, run here."""

    LABEL: ClassVar[str] = "call"
    use: StepsPath
    with_: Annotated[dict[Identifier, ArgValue], Field(max_length=PARAMS_MAX)] = Field(default_factory=dict,
                                                                                       alias="with")


class GroupStep(Strict):
    """`group: <title>` with `steps: [...]`: steps reported together under the title (Playwright's test.step)."""

    LABEL: ClassVar[str] = "group step"
    group: Name
    steps: Annotated[list["Step"], Field(min_length=1, max_length=GROUP_STEPS_MAX)]


class FrameStep(Strict):
    """`frame: <selector of an iframe>` with `steps: [...]`: steps run inside that iframe's document."""

    LABEL: ClassVar[str] = "frame step"
    frame: Selector
    steps: Annotated[list["Step"], Field(min_length=1, max_length=GROUP_STEPS_MAX)]


#: the steps that hold steps, written without a `type`: their key -> their model
BLOCK_STEPS: dict[str, type[Strict]] = {"use": CallStep, "group": GroupStep, "frame": FrameStep}


def _step_tag(value: Any) -> str | None:
    """Which step model reads `value`: its `type`, or a call (`use`), group (`group`) or frame
    block (`frame`) without one."""
    if isinstance(value, dict):
        if "type" not in value:
            return next((key for key in BLOCK_STEPS if key in value), None)
        tag = value["type"]
        return tag if isinstance(tag, str) else None
    for key, model in BLOCK_STEPS.items():
        if isinstance(value, model):
            return key
    return getattr(value, "type", None)


class HistoryStep(Strict):
    """`go_back`, `go_forward`, `reload`: the browser's own buttons (v1.1, issue 36 phase B)."""

    LABEL: ClassVar[str] = "history step"
    type: Literal[HISTORY_MOVES]  # type: ignore[valid-type]
    optional: bool = False


Step = Annotated[Union[Annotated[GotoStep, Tag("goto")], Annotated[ActStep, Tag("act")],
                       Annotated[ExpectStep, Tag("expect")], Annotated[WaitStep, Tag("wait")],
                       Annotated[ExtractStep, Tag("extract")], Annotated[EmitStep, Tag("emit")],
                       Annotated[CallStep, Tag("use")], Annotated[GroupStep, Tag("group")],
                       Annotated[FrameStep, Tag("frame")],
                       Annotated[HistoryStep, Tag("go_back")], Annotated[HistoryStep, Tag("go_forward")],
                       Annotated[HistoryStep, Tag("reload")]],
                 Discriminator(_step_tag, custom_error_type="step_tag", custom_error_message="unknown step")]
STEP_TYPES = ("goto", "act", "expect", "wait", "extract", "emit", *HISTORY_MOVES)
GroupStep.model_rebuild()
FrameStep.model_rebuild()
PopupModel.model_rebuild()
ActStep.model_rebuild()


def _type_of(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "list" if isinstance(value, list) else "string"


def fits_type(value: Any, wanted: str) -> bool:
    """Whether `value` (an argument, a default, a data table's cell) is of the parameter type `wanted`."""
    got = _type_of(value)
    return got == wanted or (wanted == "number" and got == "integer")


class ParamModel(Strict):
    """One parameter of a steps file: its type and, when it may be left out, its default."""

    LABEL: ClassVar[str] = "parameter"
    type: Literal[PARAM_TYPES] = "string"  # type: ignore[valid-type]
    default: Optional[ArgValue] = None
    description: Optional[Description] = None

    @model_validator(mode="after")
    def _default_fits(self) -> "ParamModel":
        if self.default is not None and not fits_type(self.default, self.type):
            words = {"string": "text", "integer": "a whole number", "number": "a number", "boolean": "true or false",
                     "list": "a list"}
            raise fail(f"the default of {{where}} is {words[_type_of(self.default)]}, not {words[self.type]}",
                       f"write a default of type {self.type}, or change 'type'", at="default")
        return self
