"""discover/values.py: a form filled the way it asks, and corrected the way the server's messages say."""

from __future__ import annotations

from dataclasses import replace

from flowwalk.browser.explored import FieldAsks, FormAsks, Option
from flowwalk.discover.values import corrected, first_values


def _field(name: str, type_: str = "text", **more: object) -> FieldAsks:
    return replace(FieldAsks(name=name, id=f"id_{name}", type=type_, required=True), **more)  # type: ignore[arg-type]


BOOK = FormAsks(fields=(
    _field("title", maxlength=200), _field("author", "select", options=(Option("", "---"), Option("1", "Herbert"), Option("4", "Le Guin"))),
    _field("isbn", maxlength=13, help="13 digits"), _field("published", classes=("vDateField",)),
    _field("pages", "number", min="0"), _field("available", "checkbox", checked=True),
    _field("code", pattern="[A-Z]{2}[0-9]{3}"), _field("when", "date"), _field("notes", "textarea", required=False)), errors=())


def test_the_first_values_follow_types_bounds_patterns_and_carry_the_crawls_text() -> None:
    values = first_values(BOOK, 1)
    assert values == {"title": "Written by flowwalk discover 1", "author": "Le Guin", "isbn": "Written by fl",
                      "published": "2024-01-15", "pages": "1", "code": "FF777", "when": "2024-01-15",
                      "notes": "Written by flowwalk discover 1 notes"}
    assert "available" not in values   # a checkbox keeps its default
    bounded = FormAsks(fields=(_field("rating", "number", min="1", max="5", step="2"),
                               _field("n", "number", min="10", max="12")), errors=())
    assert first_values(bounded, 1) == {"rating": "3", "n": "11"}


def test_a_refused_save_is_corrected_from_what_the_page_said_of_each_field() -> None:
    values = first_values(BOOK, 2)
    refused = FormAsks(fields=tuple(
        replace(f, errors=("An ISBN has 13 digits.",)) if f.name == "isbn" else
        replace(f, errors=("Enter a valid date.",)) if f.name == "published" else
        replace(f, errors=("Ensure this value is greater than or equal to 50.",)) if f.name == "pages" else f
        for f in BOOK.fields), errors=("Please correct the errors below.",))
    fixed = corrected(refused, values, 2)
    assert fixed is not None
    assert (fixed["isbn"], fixed["published"], fixed["pages"]) == ("9780000000002", "01/15/2024", "50")
    assert fixed["title"] == values["title"]                       # what was not refused stays
    # a field refused again with nothing new to try: the bound is reached
    again = FormAsks(fields=tuple(replace(f, errors=("Enter a valid date.",)) if f.name == "published" else f
                                  for f in BOOK.fields), errors=())
    assert corrected(again, {**values, "published": "15.01.2024"}, 2) is None
    assert corrected(BOOK, values, 2) is None                      # nothing refused, nothing to change
