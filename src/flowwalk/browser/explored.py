"""What `ExplorePage` reads of a page, as records: its survey, its observed state, its tables, a form's asks.

The page's scripts answer in plain data; `read(kind, data)` turns that data into these frozen
records once, here, so that discover's modules pass records, never dicts. The same readers turn
the crawl state's JSON back into them (`discover.state`): a record is read back with the type it
was written with.

- `Survey`: what a page offers, the raw material discover classifies and writes specs from: its
  landmarks, headings, links, buttons, forms with their fields, lists and tables with their
  counts, dialogs and banners. Each `Element` comes with its names and the selector `Candidate`s a
  spec may pin, each with how many elements it matched.
- `Observation`: the page's state before and after an action (the URL, storage keys, every list
  with its rows and their controls, the elements a person can name with their text, visibility,
  classes and states, the messages).
- `Tables` and `FormAsks`: a table as a person reads it; what a form's fields ask of their values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, TypeVar

from pydantic import TypeAdapter

__all__ = ["Acted", "Candidate", "Control", "Dialog", "Element", "FieldAsks", "Form", "FormAsks", "Heading",
           "Landmark", "Listed", "Named", "Observation", "ObservedList", "Option", "PagerLink", "Request", "Row",
           "Survey", "Table", "Tables", "read"]


# --- the survey ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A selector a spec may pin for an element, how it names the element, and how many it matched
    (-1: not counted yet, a `text=` selector the page's CSS engine cannot count)."""

    selector: str
    how: str = "position"
    count: int = 0


@dataclass(frozen=True)
class Option:
    """A select's option."""

    value: str
    text: str


@dataclass(frozen=True)
class Element:
    """A link, button, field or other element a person can use, with its names; the link, button and
    field attributes are empty on the elements they do not describe."""

    kind: str = ""
    tag: str = ""
    role: str = ""
    id: str = ""
    testid: str = ""
    name: str = ""
    text: str = ""
    classes: tuple[str, ...] = ()
    attrs: Mapping[str, str] = field(default_factory=dict)
    candidates: tuple[Candidate, ...] = ()
    # a link's
    href: str = ""
    raw_href: str = ""
    landmark: str = ""
    # a button's (and a field's type)
    type: str = ""
    in_form: bool = False
    disabled: bool = False
    expanded: Optional[str] = None
    pressed: Optional[str] = None
    selected: Optional[str] = None
    controls: str = ""
    group: str = ""
    # a field's
    required: bool = False
    field_name: str = ""
    autocomplete: str = ""
    value: str = ""
    checked: bool = False
    options: tuple[Option, ...] = ()


@dataclass(frozen=True)
class Form(Element):
    """A form, or (`implicit`) the fields of one landmark that sit in no form."""

    action: str = ""
    method: str = ""
    search: bool = False
    fields: tuple[Element, ...] = ()
    submit: Optional[Element] = None
    implicit: bool = False
    place: str = ""


@dataclass(frozen=True)
class Listed(Element):
    """A list or table: how many items it shows of how many, and the first few."""

    table: bool = False
    count: int = 0
    total: int = 0
    item_tag: str = ""
    first_item: str = ""
    items: tuple[str, ...] = ()


@dataclass(frozen=True)
class Dialog(Element):
    """A dialog, alert, toast or banner, with its buttons."""

    buttons: tuple[Element, ...] = ()
    modal: bool = False
    cookie: bool = False


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    selector: tuple[Candidate, ...] = ()


@dataclass(frozen=True)
class Landmark:
    role: str
    name: str = ""


@dataclass(frozen=True)
class Survey:
    """What a page offers (see the module docstring)."""

    url: str = ""
    title: str = ""
    lang: str = ""
    landmarks: tuple[Landmark, ...] = ()
    headings: tuple[Heading, ...] = ()
    links: tuple[Element, ...] = ()
    buttons: tuple[Element, ...] = ()
    forms: tuple[Form, ...] = ()
    lists: tuple[Listed, ...] = ()
    dialogs: tuple[Dialog, ...] = ()


# --- the observed state ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Control:
    """A control a person can use: `sel` is unique in its row (a row's control) or in the page."""

    sel: str = ""
    kind: str = ""            # link | button | checkbox | field
    tag: str = ""
    type: str = ""
    name: str = ""
    #: its id, test id, classes, name, href, title, label, value and text, in one line
    words: str = ""
    href: str = ""
    visible: bool = True
    value: Optional[str] = None
    state: Mapping[str, str | bool] = field(default_factory=dict)


@dataclass(frozen=True)
class Row:
    text: str = ""
    classes: tuple[str, ...] = ()
    visible: bool = True
    controls: tuple[Control, ...] = ()
    #: the selector (within the row) of the element that shows its text, when it is not a control
    label: str = ""


@dataclass(frozen=True)
class ObservedList:
    """A list or table and its rows: `sel > item` are the rows."""

    sel: str
    item: str
    table: bool = False
    visible: bool = True
    count: int = 0
    total: int = 0
    rows: tuple[Row, ...] = ()


@dataclass(frozen=True)
class Named:
    """An element a person can name, with its text, visibility, classes and states."""

    sel: str
    tag: str = ""
    text: str = ""
    visible: bool = True
    classes: tuple[str, ...] = ()
    state: Mapping[str, str | bool] = field(default_factory=dict)
    value: Optional[str] = None
    control: Optional[Control] = None


@dataclass(frozen=True)
class Observation:
    """The page's state (see the module docstring); `local` and `session` map each storage key to a
    digest of its value."""

    url: str = ""
    title: str = ""
    heading: str = ""
    local: Mapping[str, str] = field(default_factory=dict)
    session: Mapping[str, str] = field(default_factory=dict)
    lists: tuple[ObservedList, ...] = ()
    elements: tuple[Named, ...] = ()
    messages: tuple[str, ...] = ()


@dataclass(frozen=True)
class Request:
    """A request the page sent, and its answer (`status`) or its `failure`."""

    url: str
    method: str = "GET"
    resource_type: str = ""
    status: Optional[int] = None
    failure: str = ""


# --- tables, forms, actions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Acted:
    """What one action did: whether an element was there to act on, and the URL after it."""

    found: bool
    url: str


@dataclass(frozen=True)
class Table:
    """A table as a person reads it: its headers (and each one's sort link), the rows shown."""

    selector: str
    headers: tuple[str, ...]
    sorts: tuple[str, ...]
    #: the text of each row shown (at most `survey.TABLE_ROWS`), whitespace normalised, and each row's first link
    rows: tuple[str, ...]
    links: tuple[str, ...]
    count: int
    #: each row's cells' texts (header cells too), in column order
    cells: tuple[tuple[str, ...], ...]
    #: the rows under `selector`: `tbody > tr` or `tr`
    body: str


@dataclass(frozen=True)
class PagerLink:
    """A link that turns a page of a list (`?p=2`), with the text around it ("14 books")."""

    text: str
    href: str
    around: str


@dataclass(frozen=True)
class Tables:
    tables: tuple[Table, ...]
    pager: tuple[PagerLink, ...]


@dataclass(frozen=True)
class FieldAsks:
    """What a form field asks of its value, from its markup and the messages beside it."""

    name: str
    id: str = ""
    tag: str = "input"
    type: str = "text"
    classes: tuple[str, ...] = ()
    required: bool = False
    pattern: str = ""
    min: str = ""
    max: str = ""
    step: str = ""
    maxlength: int = 0
    minlength: int = 0
    placeholder: str = ""
    help: str = ""
    options: tuple[Option, ...] = ()
    value: str = ""
    checked: bool = False
    errors: tuple[str, ...] = ()
    #: the wrapper that holds the field with its label and errors ('.form-row', 'p', ...; '' when
    #: none of the usual ones does): `row:has(field)` is the field's own row
    row: str = ""


@dataclass(frozen=True)
class FormAsks:
    fields: tuple[FieldAsks, ...]
    #: messages for the whole form ("Please correct the errors below.")
    errors: tuple[str, ...] = ()

    def field(self, name: str) -> FieldAsks | None:
        return next((f for f in self.fields if f.name == name), None)


R = TypeVar("R")
_ADAPTERS: dict[type, TypeAdapter[Any]] = {}


def read(kind: type[R], data: object) -> R:
    """`data` (a script's answer, or JSON a record was written as) as a `kind` record; keys the
    record does not have are left out, a missing one takes its default. Raises ValueError when the
    data cannot be such a record."""
    adapter = _ADAPTERS.get(kind)
    if adapter is None:
        adapter = _ADAPTERS[kind] = TypeAdapter(kind)
    value: R = adapter.validate_python(data)
    return value
