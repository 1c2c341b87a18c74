"""Values for a form, the way the form asks: its field types, patterns, bounds and the server's messages.

`first_values(form, n)` proposes a value for each field a person would fill (a checkbox keeps its
default): the crawl's own text in text fields (`Written by flowwalk discover N`, cut to the
field's `maxlength`), so every row the crawl creates is recognisable; a select's last real option (its label);
a number within `min`/`max` on its `step`; a date, a time or a moment in the format the field
takes (ISO for `type=date`; a text field that looks like a date gets ISO first); an e-mail, a URL,
a phone number; a value that matches a simple `pattern`. `corrected(form, values, n)` reads what
the page said about each field after a refused save ("An ISBN has 13 digits.", "Enter a valid
date.", "Ensure this value is less than or equal to 9.") and its help text, and proposes another
value for each field that was refused; None when it has nothing new to try. Pure functions.
"""

from __future__ import annotations

import re
from typing import Mapping

from flowwalk.browser.explored import FieldAsks, FormAsks

__all__ = ["CRAWL_TEXT", "DATE_FORMATS", "corrected", "crawl_text", "fillable", "first_values", "from_pattern"]

#: what the crawl types: every item it creates carries it, so its own rows are recognisable
CRAWL_TEXT = "Written by flowwalk discover"
#: the date formats tried in turn when a date is refused (ISO, then US, then European)
DATE_FORMATS = ("2024-01-15", "01/15/2024", "15/01/2024", "15.01.2024")
TIME_FORMATS = ("12:30", "12:30:00", "12:30 PM")
_TEXT = ("text", "textarea", "search", "")
_SKIP = ("checkbox", "radio", "file", "hidden", "color", "range", "password", "submit", "button", "image", "reset")
_DATEISH = re.compile(r"\b(date|day|published|born|birth|dob|due|deadline|expires?)\b|_(on|date)$|vDateField", re.I)
_TIMEISH = re.compile(r"\b(time|hour)\b|vTimeField", re.I)


def crawl_text(n: int) -> str:
    return f"{CRAWL_TEXT} {n}"


def fillable(field: FieldAsks) -> bool:
    """A field a person types or picks a value in (a checkbox or a radio keeps its default)."""
    return field.type not in _SKIP and bool(field.name or field.id)


def _words(field: FieldAsks) -> str:
    return " ".join((field.name, field.id, field.placeholder, field.help, " ".join(field.classes)))


def _number(field: FieldAsks, want: float | None = None) -> str:
    low = _float(field.min)
    high = _float(field.max)
    step = _float(field.step) or 1.0
    value = want if want is not None else (low + step if low is not None else 1.0)
    if high is not None and value > high:
        value = high
    if low is not None and value < low:
        value = low
    if low is not None:
        value = low + round((value - low) / step) * step
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def from_pattern(pattern: str) -> str | None:
    """A value for a simple pattern (character classes with counts: `[0-9]{13}`, `\\d{5}`, `[A-Z]{2}\\d{4}`)."""
    out = ""
    for piece, count in re.findall(r"(\\d|\[0-9\]|\[A-Z\]|\[a-z\]|\[A-Za-z\]|[A-Za-z0-9-])(?:\{(\d+)\})?", pattern.strip("^$")):
        n = int(count or 1)
        out += {"\\d": "7", "[0-9]": "7", "[A-Z]": "F", "[a-z]": "f", "[A-Za-z]": "f"}.get(piece, piece) * n
    return out if out and re.fullmatch(pattern.strip("^$"), out) else None


def _option(field: FieldAsks) -> str | None:
    """A select's last real option, by its label (an id-like value differs between databases), not
    one the crawl created itself."""
    labels = [o.text for o in field.options if o.value and o.text and CRAWL_TEXT not in o.text]
    return labels[-1] if labels else None


def first_values(form: FormAsks, n: int) -> dict[str, str]:
    """field name -> the first value to try (see the module docstring); fields without one are left out."""
    out: dict[str, str] = {}
    first_text = True
    text = crawl_text(n)
    for field in form.fields:
        if not fillable(field):
            continue
        key = field.name or field.id
        if field.type == "select":
            option = _option(field)
            if option:
                out[key] = option
        elif field.type == "number":
            out[key] = _number(field)
        elif field.type == "date" or (field.type in _TEXT and _DATEISH.search(_words(field))):
            out[key] = DATE_FORMATS[0]
        elif field.type == "time" or (field.type in _TEXT and _TIMEISH.search(_words(field))):
            out[key] = TIME_FORMATS[0]
        elif field.type == "datetime-local":
            out[key] = f"{DATE_FORMATS[0]}T{TIME_FORMATS[0]}"
        elif field.type == "email":
            out[key] = f"flowwalk-discover-{n}@example.com"
        elif field.type == "url":
            out[key] = f"https://example.com/flowwalk-discover-{n}"
        elif field.type == "tel":
            out[key] = "+1 555 0100"
        elif field.pattern and from_pattern(field.pattern):
            out[key] = str(from_pattern(field.pattern))
        elif field.type in _TEXT:
            value = text if first_text else f"{text} {re.sub(r'[^a-z0-9]+', ' ', key.lower()).strip()}"
            first_text = False
            out[key] = value[:field.maxlength] if field.maxlength else value
    return out


def corrected(form: FormAsks, values: Mapping[str, str], n: int) -> dict[str, str] | None:
    """The values to try after a refused save: each field the page refused gets another value
    (from what its message and its help text say); None when no field's value can change."""
    out = dict(values)
    changed = False
    for field in form.fields:
        key = field.name or field.id
        if not field.errors or not fillable(field):
            continue
        said = " ".join(field.errors) + " " + field.help
        old = values.get(key, "")
        new = _answer(field, said, old, n)
        if new is not None and new != old:
            out[key] = new
            changed = True
    return out if changed else None


def _answer(field: FieldAsks, said: str, old: str, n: int) -> str | None:
    lower = said.lower()
    digits = re.search(r"(\d+)\s+digits", lower)
    if digits:
        return ("978" + "0" * 20)[:int(digits.group(1)) - len(str(n))] + str(n)
    if "date" in lower and ("valid" in lower or "format" in lower):
        tried = [f for f in DATE_FORMATS if f == old]
        following = DATE_FORMATS[DATE_FORMATS.index(tried[0]) + 1:] if tried else DATE_FORMATS
        return following[0] if following else None
    if "time" in lower and ("valid" in lower or "format" in lower):
        following = TIME_FORMATS[TIME_FORMATS.index(old) + 1:] if old in TIME_FORMATS else TIME_FORMATS
        return following[0] if following else None
    bound = re.search(r"(greater|less) than or equal to\s+(-?[\d.]+)", lower)
    if bound:
        return _number(field, float(bound.group(2)))
    if "number" in lower or "integer" in lower:
        return _number(field)
    most = re.search(r"at most (\d+) characters", lower)
    if most:
        return old[:int(most.group(1))]
    least = re.search(r"at least (\d+) characters", lower)
    if least:
        return (old + f" {CRAWL_TEXT} {n}" * 4)[:max(int(least.group(1)), len(old))]
    if "email" in lower:
        return f"flowwalk-discover-{n}@example.com"
    if "url" in lower:
        return f"https://example.com/flowwalk-discover-{n}"
    if "already exists" in lower or "unique" in lower:
        return f"{old} {n}{n}"
    if "required" in lower and not old:
        if field.type == "select":
            return _option(field)
        return crawl_text(n)[:field.maxlength] if field.maxlength else crawl_text(n)
    return None
