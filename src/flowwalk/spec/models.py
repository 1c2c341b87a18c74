"""Pydantic models of every input format (flow-spec v1/v1.1, rule files, flowwalk.yaml).

These models are the single definition of the formats: `schemas.py` generates the JSON Schemas
from them; `lower.py` (steps), `flow.py` / `rules.py` / `config.py` convert validated models into the
frozen `model.py` objects. Every model refuses unknown keys and validates strictly (a quoted "500" is not
an integer), so that the models and the generated schemas accept the same documents. Rules that
JSON Schema cannot express (cross-field rules, regex validity, trimmed lengths) are model-only and
listed in `docs/flow-spec.md`.

Errors raised by our own validators (`fail`) are `PydanticCustomError("flowwalk", ...)` whose
context carries a ready message and hint; `spec/problems.py` turns every validation error into
located problems worded for people.
"""

from __future__ import annotations

import functools
import re
from typing import Annotated, Any, ClassVar, Literal, Optional, TypeVar, Union, get_args
from urllib.parse import urlsplit

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Discriminator, Field, Tag,
                      ValidationInfo, WithJsonSchema, field_validator, model_validator)
from pydantic_core import PydanticCustomError

from flowwalk.model import (ACT_ACTIONS, EMIT_SOURCES, IMPACTS, SETTING_RANGES, TAG_MAX, TAG_PATTERN, TAGS_MAX,
                            TEST_ID_ATTRIBUTE_PATTERN, TEST_ID_ATTRIBUTES_MAX, Stabilize, has_scheme, tag_problem, url_problem)
from flowwalk.spec.spelling import did_you_mean
from flowwalk.vendor import axe_info, axe_rule_ids, axe_tags
# values go into messages through quote (control characters escaped: one line each)
from flowwalk.spec.source import quote as quote
from flowwalk.spec.spelling import did_you_mean

# --- limits of flow-spec v1 (the contract's "hard ceilings") -------------------------------------

NAME_MAX = 120
DESCRIPTION_MAX = 500
URL_MAX = 2048
ALLOWED_HOSTS_MAX = 10
STEPS_MAX = 30
ASSERTIONS_MAX = 10
SELECTOR_MAX = 512
TARGET_MAX = 200
VALUE_MAX = 2048
WAIT_MS_MAX = 30_000
IDENTIFIER_MAX = 64
VENDOR_MAX = 64
EVENT_MAX = 128
# limits flowwalk adds for v1.x additions and rule files
RULE_STEPS_MAX = 50
RULES_MAX = 200
SCENARIOS_MAX = 50
VERIFY_MAX = 10
EMIT_FIELDS_MAX = 50
STEP_TIMEOUT_MAX = 120_000
RULE_TIMEOUT_MIN, RULE_TIMEOUT_MAX = 100, 600_000
GUARD_TIMEOUT_MAX = 60_000
VIEWPORT_MIN, VIEWPORT_MAX = 100, 10_000
PROJECTS_MAX = 20
RETRY_MAX, RETRY_DELAY_MAX = 10, 60_000
SNAPSHOT_NAME_MAX = 64
MASK_MAX = 20
AXE_RULES_MAX = 50

V1_ACTIONS = ("click", "fill", "press", "hover", "scroll")
V1_EXPECT_KINDS = ("url_contains", "url_matches", "text_contains", "beacon")
#: actions that need a `value` (fill may be empty: it clears the field)
VALUE_REQUIRED = ("fill", "press", "select", "upload", "type")
#: emit sources read from an element (and so need a selector)
ELEMENT_SOURCES = ("text", "attr", "count", "html", "value", "class", "is_visible", "is_enabled", "is_checked")

IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
RULE_NAME_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$"
HOST_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOST_PATTERN = rf"^{HOST_LABEL}(?:\.{HOST_LABEL})*$"
#: XPath in a selector or any part of it: a pipe alternative (`a | b`) or a chained part (`a >> b`)
XPATH_PATTERN = r"(^|\s\|\s|>>)\s*(//|\.\.|\(\s*/|[xX][pP][aA][tT][hH]=)"
#: the pipe-fallback separator of a selector (a space, a pipe, a space), a v1.x addition
PIPE_PATTERN = r"\s\|\s"
URL_PATTERN = r"^(?:[hH][tT][tT][pP][sS]?://[^/?#\s]|/(?!/)|\{\{)"
NAME_PATTERN = r"^\s*\S(?:[\s\S]{0,118}\S)?\s*$"
IDENTIFIER_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
LOCALE_PATTERN = r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$"

_XPATH = re.compile(XPATH_PATTERN)
_RULE_NAME = re.compile(RULE_NAME_PATTERN)
_LOCALE = re.compile(LOCALE_PATTERN)
_PIPE = re.compile(PIPE_PATTERN)
_HOST = re.compile(HOST_PATTERN)


def fail(message: str, hint: str = "", at: str | None = None, key: bool = False) -> PydanticCustomError:
    """A validation error already worded for people; `at` names the key to point at."""
    ctx: dict[str, Any] = {"message": message, "hint": hint}
    if at:
        ctx["at"] = at
        ctx["key"] = key
    return PydanticCustomError("flowwalk", "{message}", ctx)


# --- field validators ----------------------------------------------------------------------------


def split_alternatives(selector: str) -> list[str]:
    """The alternatives of a pipe-fallback selector `a | b | c` (one item for a plain selector)."""
    return [part.strip() for part in _PIPE.split(selector)]


def has_pipe(selector: str) -> bool:
    return bool(_PIPE.search(selector))


def _check_selector(value: str) -> str:
    if not value.strip():
        raise fail("{subject} is blank", "write a CSS or text= selector, e.g. 'button[type=submit]'")
    for part in split_alternatives(value):
        if not part:
            raise fail(f"selector {quote(value)} has an empty alternative",
                       "pipe-fallback selectors read 'a | b | c': remove the extra '|'")
        if _XPATH.search(part):
            raise fail(f"XPath selector {quote(part)} is not allowed",
                       "use a CSS or text= selector instead (flow-spec refuses raw XPath), "
                       "e.g. 'form button.primary' or 'text=Sign up'")
    return value


def _check_url(value: str) -> str:
    if value.startswith("{{"):
        return value
    if value.startswith("/"):
        if value.startswith("//"):
            raise fail(f"url {quote(value)} has no scheme",
                       "write an absolute https:// url, or a path starting with a single '/' "
                       "(resolved against --base-url)")
        return value
    problem = url_problem(value, relative_to="--base-url")
    if problem:
        raise fail(f"url {quote(value)} {problem[0]}", problem[1])
    return value


def _check_host(value: str) -> str:
    if _HOST.match(value) and len(value) <= 253:
        return value
    bare = value
    if "://" in bare:
        bare = bare.split("://", 1)[1]
    bare = bare.split("/", 1)[0].split(":", 1)[0]
    if bare.startswith("*."):
        bare = bare[2:]
        why = "subdomains are admitted already"
    elif "://" in value:
        why = "no scheme"
    elif "/" in value:
        why = "no path"
    elif ":" in value:
        why = "no port"
    else:
        why = "letters, digits, '-' and '.' only"
    hint = f"write a bare hostname ({why})" + (f", e.g. '{bare}'" if bare and _HOST.match(bare) else "")
    raise fail(f"allowed host {quote(value)} is not a bare hostname", hint)


def _check_identifier(value: str) -> str:
    if not IDENTIFIER_RE.match(value):
        raise fail(f"{{subject}} must be an identifier, got {quote(value)}",
                   "use letters, digits and '_' only, not starting with a digit, e.g. ORDER_ID")
    return value


def _check_name(value: str) -> str:
    text = value.strip()
    if not text:
        raise fail("{subject} is blank", "give it a short name people will recognise in the report")
    if len(text) > NAME_MAX:
        raise fail(f"{{subject}} is {len(text)} characters long after trimming; the limit is {NAME_MAX}",
                   "shorten the name; put the detail in 'description'")
    return text


def _check_short_name(value: str) -> str:
    if not _RULE_NAME.match(value):
        raise fail(f"{{subject}} is {quote(value)}, with characters a name here cannot have",
                   "use letters, digits, '_', '.' and '-' (no spaces), e.g. 'admin' or 'iphone-13'")
    return value


def _check_locale(value: str) -> str:
    if not _LOCALE.match(value):
        raise fail(f"locale {quote(value)} is not a language tag",
                   "write a BCP 47 tag: a language, then optionally a region, e.g. 'en-GB', 'fr-FR' or 'de'")
    return value


@functools.lru_cache(maxsize=1)
def _timezones() -> frozenset[str]:
    import zoneinfo

    return frozenset(zoneinfo.available_timezones())


def _check_timezone(value: str) -> str:
    known = _timezones()
    if known and value not in known:
        guess = did_you_mean(value, sorted(known))
        raise fail(f"timezone {quote(value)} is not an IANA time zone",
                   (f"did you mean '{guess}'? " if guess else "") +
                   "write an IANA id, e.g. 'Europe/Paris', 'America/New_York' or 'UTC'")
    return value


def _check_device(value: str) -> str:
    from flowwalk.environment import device_names

    names = device_names()
    if value not in names:
        guess = did_you_mean(value, names)
        raise fail(f"unknown device {quote(value)}",
                   (f"did you mean '{guess}'? " if guess else "") +
                   "a device is one of Playwright's device descriptors by name, e.g. 'iPhone 13', "
                   "'Pixel 7', 'iPad Mini', 'Desktop Chrome' (docs/environment.md lists where to find them all)")
    return value


def _check_regex(value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise fail(f"invalid regular expression {quote(value)}{{in_where}}: {exc}",
                   "fix the pattern (Python syntax); escape a literal '.', '?', '(' or '[' with a backslash")
    return value


def _check_tag(value: str) -> str:
    problem = tag_problem(value, quote(value))
    if problem is not None:
        raise fail(quote_free(problem[0]), problem[1])
    return value


def quote_free(text: str) -> str:
    """A message for `fail`, whose text is a format string: braces doubled."""
    return text.replace("{", "{{").replace("}", "}}")


def _scalar_text(value: Any) -> Any:
    """YAML writes `PORT: 8080` and `DEBUG: true`; a variable's value is text either way."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return value


# --- constrained strings ---------------------------------------------------------------------------

Selector = Annotated[str, Field(min_length=1, max_length=SELECTOR_MAX,
                                json_schema_extra={"not": {"pattern": XPATH_PATTERN}}),
                     AfterValidator(_check_selector)]
Url = Annotated[str, Field(min_length=1, max_length=URL_MAX, json_schema_extra={"pattern": URL_PATTERN}),
                AfterValidator(_check_url)]
Host = Annotated[str, Field(min_length=1, max_length=253, json_schema_extra={"pattern": HOST_PATTERN}),
                 AfterValidator(_check_host)]
Identifier = Annotated[str, Field(min_length=1, max_length=IDENTIFIER_MAX,
                                  json_schema_extra={"pattern": IDENTIFIER_PATTERN}),
                       AfterValidator(_check_identifier)]


def _check_secret_name(value: str) -> str:
    if len(value) > IDENTIFIER_MAX or not IDENTIFIER_RE.match(value):
        # what is written here instead of a name may be the secret itself: it is not repeated
        raise fail("{subject} must name the environment variable that holds the value, not hold the value",
                   "write the variable's name (letters, digits and '_', e.g. PREVIEW_AUTH) and set the value in the "
                   "environment or with --secret")
    return value


#: the name of the environment variable holding a secret (a header's value, credentials)
SecretName = Annotated[str, Field(min_length=1, json_schema_extra={"pattern": IDENTIFIER_PATTERN,
                                                                   "maxLength": IDENTIFIER_MAX}),
                       AfterValidator(_check_secret_name)]
Name = Annotated[str, Field(min_length=1, json_schema_extra={"pattern": NAME_PATTERN}),
                 AfterValidator(_check_name)]
Description = Annotated[str, Field(max_length=DESCRIPTION_MAX)]
Target = Annotated[str, Field(min_length=1, max_length=TARGET_MAX)]
Value = Annotated[str, Field(max_length=VALUE_MAX)]
NonEmptyValue = Annotated[str, Field(min_length=1, max_length=VALUE_MAX)]
Regex = Annotated[str, Field(min_length=1, max_length=VALUE_MAX, json_schema_extra={"format": "regex"}),
                  AfterValidator(_check_regex)]
Vendor = Annotated[str, Field(min_length=1, max_length=VENDOR_MAX)]
Event = Annotated[str, Field(min_length=1, max_length=EVENT_MAX)]
RuleName = Annotated[str, Field(min_length=1, max_length=IDENTIFIER_MAX, pattern=RULE_NAME_PATTERN)]
#: a saved session's or a project's name (`session: admin`, `name: iphone-13`): written like a rule's name
SessionName = Annotated[str, Field(min_length=1, max_length=IDENTIFIER_MAX,
                                   json_schema_extra={"pattern": RULE_NAME_PATTERN}),
                        AfterValidator(_check_short_name)]
ColorScheme = Literal["light", "dark", "no-preference"]
Locale = Annotated[str, Field(min_length=2, max_length=35, json_schema_extra={"pattern": LOCALE_PATTERN}),
                   AfterValidator(_check_locale)]
Timezone = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(_check_timezone)]
DeviceName = Annotated[str, Field(min_length=1, max_length=80), AfterValidator(_check_device)]
ScalarText = Annotated[str, BeforeValidator(_scalar_text), Field(max_length=VALUE_MAX),
                       WithJsonSchema({"type": ["string", "integer", "number", "boolean"]})]
StepTimeout = Annotated[int, Field(ge=1, le=STEP_TIMEOUT_MAX)]
TagWord = Annotated[str, Field(min_length=1, max_length=TAG_MAX, json_schema_extra={"pattern": TAG_PATTERN}),
                AfterValidator(_check_tag)]
#: `tags:` of a flow spec, a rule file, a scenario or a rule: words `--tag` selects by (docs/selection.md)
Tags = Annotated[list[TagWord], Field(max_length=TAGS_MAX)]


#: the bounds of flowwalk.yaml's numeric keys: the one table the command line and FLOWWALK_*
#: variables are checked against too (settings.py)
_RANGE = SETTING_RANGES


class Strict(BaseModel):
    """Base of every input model: unknown keys refused, no type coercion."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=False, regex_engine="python-re",
                              defer_build=True)
    #: how errors name an object of this model ("a wait step", "the rule")
    LABEL: ClassVar[str] = "mapping"


# --- stabilize (RFC 010) ------------------------------------------------------------------------------

_SB = Stabilize.BOUNDS


class StabilizeModel(Strict):
    """Overrides of the verify-until-stable settings of one check, each within its bounds."""

    LABEL: ClassVar[str] = "stabilize block"
    window_ms: Optional[Annotated[int, Field(ge=_SB["window_ms"][0], le=_SB["window_ms"][1])]] = None
    stable_reads: Optional[Annotated[int, Field(ge=_SB["stable_reads"][0], le=_SB["stable_reads"][1])]] = None
    interval_ms: Optional[Annotated[int, Field(ge=_SB["interval_ms"][0], le=_SB["interval_ms"][1])]] = None
    max_rechecks: Optional[Annotated[int, Field(ge=_SB["max_rechecks"][0], le=_SB["max_rechecks"][1])]] = None
    stale_ms: Optional[Annotated[int, Field(ge=_SB["stale_ms"][0], le=_SB["stale_ms"][1])]] = None

    def overrides(self) -> dict[str, int]:
        return {k: v for k, v in self.model_dump().items() if v is not None}


# --- expect kinds ---------------------------------------------------------------------------------


class ExpectBase(Strict):
    """What every expect step has: its type, `optional`, `timeout_ms`, `stabilize` (spec/flow.py
    checks a v1 spec's expect steps against it)."""

    type: Literal["expect"]
    optional: bool = False
    timeout_ms: Optional[StepTimeout] = None
    stabilize: Optional[StabilizeModel] = None


class ExpectUrlContains(ExpectBase):
    LABEL: ClassVar[str] = "expect url_contains step"
    kind: Literal["url_contains"]
    value: NonEmptyValue


class ExpectUrlNotContains(ExpectBase):
    LABEL: ClassVar[str] = "expect url_not_contains step"
    kind: Literal["url_not_contains"]
    value: NonEmptyValue


class ExpectUrlMatches(ExpectBase):
    LABEL: ClassVar[str] = "expect url_matches step"
    kind: Literal["url_matches"]
    value: Regex


class ExpectTextContains(ExpectBase):
    LABEL: ClassVar[str] = "expect text_contains step"
    kind: Literal["text_contains"]
    value: NonEmptyValue
    selector: Optional[Selector] = None
    #: v1.x: compare with case (flow-spec v1's text_contains ignores case)
    match_case: bool = False


class ExpectTextNotContains(ExpectBase):
    LABEL: ClassVar[str] = "expect text_not_contains step"
    kind: Literal["text_not_contains"]
    value: NonEmptyValue
    selector: Optional[Selector] = None
    match_case: bool = False


class ExpectTextMatches(ExpectBase):
    LABEL: ClassVar[str] = "expect text_matches step"
    kind: Literal["text_matches"]
    value: Regex
    selector: Optional[Selector] = None


class ExpectHasText(ExpectBase):
    LABEL: ClassVar[str] = "expect has_text step"
    kind: Literal["has_text"]
    selector: Selector
    value: Value
    #: compare the element's textContent exactly as the DOM holds it: no trimming, no collapsing
    keep_whitespace: bool = False


# --- lists, item by item, and classes (v1.1, issue 36) --------------------------------------------


def equals_or_contains(check: Any, hint: str) -> None:
    """Refuse a check (attribute, texts, classes) that has both or neither of `equals`, `contains`."""
    if (check.equals is None) == (check.contains is None):
        both = check.equals is not None
        raise fail("{where} has " + ("both 'equals' and 'contains'" if both else "neither 'equals' nor 'contains'"),
                   hint, at="contains" if both else None, key=True)

ITEMS_MAX = 100
Items = Annotated[list[Value], Field(max_length=ITEMS_MAX)]
SomeItems = Annotated[list[NonEmptyValue], Field(min_length=1, max_length=ITEMS_MAX)]


def _check_classes(value: str) -> str:
    if not value.split():
        raise fail("{subject} is blank", "write one class name, or several separated by spaces, e.g. 'completed'")
    return value


#: one class name or several separated by spaces (`completed editing`)
ClassNames = Annotated[str, Field(min_length=1, max_length=VALUE_MAX), AfterValidator(_check_classes)]


class _ItemsCheck(ExpectBase):
    """What texts and classes share: the items' selector and exactly one of equals / contains."""

    selector: Selector
    equals: Optional[Items] = None
    contains: Optional[SomeItems] = None

    @model_validator(mode="after")
    def _one_list(self) -> "_ItemsCheck":
        equals_or_contains(self, f"a {getattr(self, 'kind', '')} expect takes exactly one list: 'equals' (every "
                                 "item, in order) or 'contains' (these items among them, in order), e.g. "
                                 "'equals: [buy milk, walk the dog]'")
        return self


class ExpectTexts(_ItemsCheck):
    LABEL: ClassVar[str] = "expect texts step"
    kind: Literal["texts"]
    keep_whitespace: bool = False


class ExpectClasses(_ItemsCheck):
    LABEL: ClassVar[str] = "expect classes step"
    kind: Literal["classes"]
    #: an empty entry asks nothing of its item (it may have any class, or none)
    contains: Optional[Annotated[list[Value], Field(min_length=1, max_length=ITEMS_MAX)]] = None


class ExpectInputValue(ExpectBase):
    LABEL: ClassVar[str] = "expect input_value step"
    kind: Literal["input_value"]
    selector: Selector
    value: Value


class ExpectBeacon(ExpectBase):
    LABEL: ClassVar[str] = "expect beacon step"
    kind: Literal["beacon"]
    vendor: Vendor
    event: Optional[Event] = None


def _element_expect(kind: str, value: Any = None) -> type[ExpectBase]:
    """The expect kinds that name an element (selector_exists, visible, checked, ...), and with
    `value` the type of a `value` they take too (has_class)."""
    annotations: dict[str, Any] = {"kind": Literal[kind], "selector": Selector}
    if value is not None:
        annotations["value"] = value
    return type(f"Expect{''.join(p.title() for p in kind.split('_'))}", (ExpectBase,), {
        "__annotations__": annotations,
        "LABEL": f"expect {kind} step",
        "__module__": __name__,
    })


ELEMENT_STATE_KINDS = ("selector_exists", "selector_absent", "visible", "hidden", "enabled", "disabled",
                       "checked", "unchecked")
_ELEMENT_MODELS = {kind: _element_expect(kind) for kind in ELEMENT_STATE_KINDS}

#: the element's classes: has every one named in `value` / none of them
ExpectHasClass = _element_expect("has_class", ClassNames)
ExpectLacksClass = _element_expect("lacks_class", ClassNames)


class ExpectCount(ExpectBase):
    LABEL: ClassVar[str] = "expect count step"
    kind: Literal["count"]
    selector: Selector
    equals: Optional[Annotated[int, Field(ge=0)]] = None
    at_least: Optional[Annotated[int, Field(ge=0)]] = None
    at_most: Optional[Annotated[int, Field(ge=0)]] = None

    @model_validator(mode="after")
    def _one_bound(self) -> "ExpectCount":
        one_bound(self, "a count expect takes exactly one of equals, at_least, at_most, e.g. 'at_least: 1'")
        return self


def one_bound(check: Any, hint: str) -> None:
    """Refuse a count (of elements, of storage keys) with none or several of equals, at_least, at_most."""
    given = [k for k in ("equals", "at_least", "at_most") if getattr(check, k) is not None]
    if len(given) != 1:
        what = "none of 'equals', 'at_least', 'at_most'" if not given else "both " + " and ".join(
            f"'{g}'" for g in given)
        raise fail(f"{{where}} has {what}", hint, at=given[1] if len(given) > 1 else None, key=True)


class ExpectAttribute(ExpectBase):
    LABEL: ClassVar[str] = "expect attribute step"
    kind: Literal["attribute"]
    selector: Selector
    name: Annotated[str, Field(min_length=1, max_length=128)]
    equals: Optional[Value] = None
    contains: Optional[NonEmptyValue] = None

    @model_validator(mode="after")
    def _one_match(self) -> "ExpectAttribute":
        equals_or_contains(self, "an attribute expect takes exactly one of them, e.g. 'name: href' with "
                                 "'contains: /checkout'")
        return self


# --- baselines and accessibility (v1.1, issue 28) ----------------------------------------------------

_SNAPSHOT_NAME = re.compile(RULE_NAME_PATTERN)


def _check_snapshot_name(value: str) -> str:
    if not _SNAPSHOT_NAME.match(value):
        raise fail(f"baseline name {quote(value)} is not a plain file name",
                   "use letters, digits, '_', '.' and '-' (no spaces or '/'), e.g. 'cart-after-add'; the baseline "
                   "is <spec>.snapshots/<name>.yml or .png")
    return value


SnapshotName = Annotated[str, Field(min_length=1, max_length=SNAPSHOT_NAME_MAX,
                                    json_schema_extra={"pattern": RULE_NAME_PATTERN}),
                         AfterValidator(_check_snapshot_name)]
Impact = Literal[IMPACTS]  # type: ignore[valid-type]


def _axe_hint(value: str, choices: tuple[str, ...], what: str) -> str:
    guess = did_you_mean(value, list(choices))
    return (f"did you mean '{guess}'? " if guess else "") + (
        f"{what} of axe-core {axe_info()['version']}, e.g. color-contrast, image-alt, label"
        f"{' or a tag: wcag2a, wcag2aa, wcag21aa, best-practice' if what.endswith('tag') else ''} "
        "(docs/flow-spec.md, 'Accessibility checks')")


def _check_axe_rule(value: str) -> str:
    """A rule id of the vendored axe-core, or a tag standing for its rules (wcag2aa, best-practice)."""
    if value in axe_rule_ids() or value in axe_tags():
        return value
    raise fail(f"unknown axe-core rule or tag {quote(value)}",
               _axe_hint(value, axe_rule_ids() + axe_tags(), "write a rule id or a tag"))


def _check_axe_skip(value: str) -> str:
    if value in axe_rule_ids():
        return value
    raise fail(f"unknown axe-core rule {quote(value)}", _axe_hint(value, axe_rule_ids(), "write a rule id"))


AxeRuleOrTag = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(_check_axe_rule)]
AxeRuleId = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(_check_axe_skip)]


class AxeRulesModel(Strict):
    """`rules:` of an accessibility check: run only some rules, or skip some."""

    LABEL: ClassVar[str] = "rules block"
    include: Annotated[list[AxeRuleOrTag], Field(max_length=AXE_RULES_MAX)] = Field(default_factory=list)
    skip: Annotated[list[AxeRuleId], Field(max_length=AXE_RULES_MAX)] = Field(default_factory=list)

    @model_validator(mode="after")
    def _not_both(self) -> "AxeRulesModel":
        for index, rule in enumerate(self.skip):
            if rule in self.include:
                raise fail(f"rule {quote(rule)} is both included and skipped",
                           "keep it in one list: 'include' runs only the rules named, 'skip' leaves rules out",
                           at=f"skip.{index}")
        return self


class _AxeCheck(Strict):
    """The options every axe-core check takes."""

    impact: Impact = "minor"
    rules: Optional[AxeRulesModel] = None
    exclude: Annotated[list[Selector], Field(max_length=MASK_MAX)] = Field(default_factory=list)


class ExpectAriaSnapshot(ExpectBase):
    LABEL: ClassVar[str] = "expect aria_snapshot step"
    kind: Literal["aria_snapshot"]
    selector: Optional[Selector] = None
    name: Optional[SnapshotName] = None


class ExpectScreenshot(ExpectBase):
    LABEL: ClassVar[str] = "expect screenshot step"
    kind: Literal["screenshot"]
    selector: Optional[Selector] = None
    name: Optional[SnapshotName] = None
    threshold: Optional[Annotated[float, Field(ge=0, le=1)]] = None
    max_diff_pixels: Optional[Annotated[int, Field(ge=0)]] = None
    max_diff_ratio: Optional[Annotated[float, Field(ge=0, le=1)]] = None
    mask: Annotated[list[Selector], Field(max_length=MASK_MAX)] = Field(default_factory=list)
    full_page: bool = False

    @field_validator("full_page")
    @classmethod
    def _page_or_element(cls, full_page: bool, info: ValidationInfo) -> bool:
        # a field's validator runs whatever else of the step is wrong (a model validator would not)
        if full_page and info.data.get("selector") is not None:
            raise fail("{where} has both 'selector' and 'full_page'",
                       "full_page takes the whole scrollable page; an element's screenshot is the element's box: "
                       "remove one")
        return full_page


class ExpectAccessible(ExpectBase, _AxeCheck):
    LABEL: ClassVar[str] = "expect accessible step"
    kind: Literal["accessible"]
    selector: Optional[Selector] = None


# --- state beyond the DOM: storage, cookies, a JS value, requests (v1.1, issue 36 phase B) ---------
# docs/flow-spec.md, "State beyond the page". Each is polled like any check, within its timeout.

#: a JSON path into a stored value or a request body: keys by dots, list items by index
#: (`title`, `items.0.sku`, `[0].title`, `items[2]`)
JSON_PATH_PATTERN = r"^(?:[^.\[\]\s]+|\[\d+\])(?:\.[^.\[\]\s]+|\[\d+\])*$"
_JSON_PATH = re.compile(JSON_PATH_PATTERN)
STATE_FIELDS_MAX = 10


def _check_json_path(value: str) -> str:
    if not _JSON_PATH.match(value):
        raise fail(f"{{subject}} {quote(value)} is not a JSON path",
                   "name keys by dots and list items by their index from 0, e.g. 'title', 'items.0.sku' or "
                   "'[0].title'")
    return value


JsonPath = Annotated[str, Field(min_length=1, max_length=256, json_schema_extra={"pattern": JSON_PATH_PATTERN}),
                     AfterValidator(_check_json_path)]
StorageKey = Annotated[str, Field(min_length=1, max_length=512)]
#: what a JSON path must hold: compared as text (a JSON number or boolean as JSON writes it)
Fields = Annotated[dict[JsonPath, ScalarText], Field(min_length=1, max_length=STATE_FIELDS_MAX)]
NonEmptyScalar = Annotated[str, BeforeValidator(_scalar_text), Field(min_length=1, max_length=VALUE_MAX),
                           WithJsonSchema({"type": ["string", "integer", "number", "boolean"]})]
COMPARISONS = ("equals", "contains", "matches")


class _Compared(ExpectBase):
    """A value compared one way: `equals` (the whole text), `contains` (case kept) or `matches` (a regex)."""

    equals: Optional[ScalarText] = None
    contains: Optional[NonEmptyScalar] = None
    matches: Optional[Regex] = None

    def comparisons(self) -> list[str]:
        return [k for k in COMPARISONS if getattr(self, k) is not None]

    def one_comparison(self, hint: str, *, optional: bool = False) -> None:
        given = self.comparisons()
        if len(given) > 1:
            raise fail(f"{{where}} has both '{given[0]}' and '{given[1]}'", hint, at=given[1], key=True)
        if not given and not optional:
            raise fail("{where} has none of 'equals', 'contains', 'matches'", hint)

    def refuse_with_absent(self, *keys: str) -> None:
        """`absent: true` asks that nothing be there: it takes no comparison and none of `keys`."""
        for key in (*COMPARISONS, *keys):
            if getattr(self, key, None) not in (None, {}):
                raise fail(f"{{where}} has 'absent: true' and '{key}'",
                           "'absent: true' checks that there is none; remove one of them", at=key, key=True)


class ExpectStorage(_Compared):
    """A key of localStorage or sessionStorage: its value, or the value at a JSON path in it."""

    LABEL: ClassVar[str] = "expect storage step"
    kind: Literal["storage"]
    area: Literal["local", "session"] = "local"
    key: StorageKey
    path: Optional[JsonPath] = None
    absent: bool = False

    @model_validator(mode="after")
    def _one_condition(self) -> "ExpectStorage":
        if self.absent:
            self.refuse_with_absent("path")
        else:
            self.one_comparison("a storage expect compares one way: 'equals', 'contains' or 'matches' (or "
                                "'absent: true'), e.g. 'key: theme' with 'equals: dark'")
        return self


class ExpectStorageCount(ExpectBase):
    """How many keys of a storage area start with `prefix` (and, with `where`, hold these JSON fields)."""

    LABEL: ClassVar[str] = "expect storage_count step"
    kind: Literal["storage_count"]
    area: Literal["local", "session"] = "local"
    prefix: Annotated[str, Field(max_length=512)]
    where: Optional[Fields] = None
    equals: Optional[Annotated[int, Field(ge=0)]] = None
    at_least: Optional[Annotated[int, Field(ge=0)]] = None
    at_most: Optional[Annotated[int, Field(ge=0)]] = None

    @model_validator(mode="after")
    def _one_bound(self) -> "ExpectStorageCount":
        one_bound(self, "a storage_count expect takes exactly one of equals, at_least, at_most, e.g. 'equals: 3'")
        return self


SAME_SITE = ("Strict", "Lax", "None")


class ExpectCookie(_Compared):
    """A cookie of the page's URL: its attributes, and its value (never shown in a report)."""

    LABEL: ClassVar[str] = "expect cookie step"
    kind: Literal["cookie"]
    name: Annotated[str, Field(min_length=1, max_length=256)]
    http_only: Optional[bool] = None
    secure: Optional[bool] = None
    same_site: Optional[Literal[SAME_SITE]] = None  # type: ignore[valid-type]
    #: `session`: gone when the browser closes; `persistent`: has an expiry
    expires: Optional[Literal["session", "persistent"]] = None
    #: the cookie outlives this many seconds from the check at least (a persistent cookie)
    expires_after_s: Optional[Annotated[int, Field(ge=1)]] = None
    absent: bool = False

    @model_validator(mode="after")
    def _conditions(self) -> "ExpectCookie":
        if self.absent:
            self.refuse_with_absent("http_only", "secure", "same_site", "expires", "expires_after_s")
        else:
            self.one_comparison("compare a cookie's value one way: 'equals', 'contains' or 'matches'", optional=True)
        if self.expires == "session" and self.expires_after_s is not None:
            raise fail("{where} has 'expires: session' and 'expires_after_s'",
                       "a session cookie has no expiry: keep one of them", at="expires_after_s", key=True)
        return self


class ExpectJs(_Compared):
    """A JavaScript expression's value in the page, for what no other check reaches."""

    LABEL: ClassVar[str] = "expect js step"
    kind: Literal["js"]
    expr: Annotated[str, Field(min_length=1, max_length=VALUE_MAX)]

    @model_validator(mode="after")
    def _one_condition(self) -> "ExpectJs":
        self.one_comparison("a js expect compares the value one way: 'equals', 'contains' or 'matches', e.g. "
                            "'expr: window.cart.items.length' with 'equals: 2'")
        return self


HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")


class ExpectRequest(ExpectBase):
    """A request the page made since it opened: its URL (a part of it), method, JSON body fields and
    response status; or, with `absent: true`, that no such request was made."""

    LABEL: ClassVar[str] = "expect request step"
    kind: Literal["request"]
    url: NonEmptyValue
    method: Optional[Literal[HTTP_METHODS]] = None  # type: ignore[valid-type]
    body: Optional[Fields] = None
    status: Optional[Annotated[int, Field(ge=100, le=599)]] = None
    absent: bool = False

    @model_validator(mode="after")
    def _absent_alone(self) -> "ExpectRequest":
        for key in ("body", "status"):
            if self.absent and getattr(self, key) is not None:
                raise fail(f"{{where}} has 'absent: true' and '{key}'",
                           "'absent: true' checks that no request matching url (and method) was made; "
                           f"remove '{key}'", at=key, key=True)
        return self


STATE_KINDS = ("storage", "storage_count", "cookie", "js", "request")
_STATE_MODELS: tuple[type[ExpectBase], ...] = (ExpectStorage, ExpectStorageCount, ExpectCookie, ExpectJs,
                                               ExpectRequest)


_EXPECT_MODELS: tuple[type[ExpectBase], ...] = (
    ExpectUrlContains, ExpectUrlMatches, ExpectTextContains, ExpectBeacon,
    ExpectUrlNotContains, ExpectTextNotContains, ExpectTextMatches, ExpectHasText,
    *_ELEMENT_MODELS.values(), ExpectCount, ExpectAttribute, ExpectInputValue,
    ExpectAriaSnapshot, ExpectScreenshot, ExpectAccessible,
    ExpectTexts, ExpectClasses, ExpectHasClass, ExpectLacksClass,
    *_STATE_MODELS,
)
ExpectStep = Annotated[Union[_EXPECT_MODELS], Field(discriminator="kind")]  # type: ignore[valid-type]
_EXPECT_BY_KIND: dict[str, type[ExpectBase]] = {get_args(model.model_fields["kind"].annotation)[0]: model
                                                for model in _EXPECT_MODELS}


def expect_model(kind: str) -> type[ExpectBase]:
    """The model of an expect step of `kind` (one of the kinds `ExpectStep` takes)."""
    return _EXPECT_BY_KIND[kind]


_M = TypeVar("_M", bound=BaseModel)


def node(model: type[_M], **fields: object) -> _M:
    """A step of the tree (or a part of one) from values that a producer's own grammar has checked
    (a `.robot` keyword call): not validated again, since that grammar is not a flow spec's field
    rules. A key given None is left unset, as in a file that does not write it."""
    return model.model_construct(None, **{key: value for key, value in fields.items() if value is not None})


# --- verifiers (v1.x) --------------------------------------------------------------------------------


def _invariant_expect(cls: type[ExpectBase]) -> type[ExpectBase]:
    """The same expect kind with `type` optional: `invariant_check: {expect: {kind: ...}}`."""
    return type(f"Invariant{cls.__name__}", (cls,), {
        "__annotations__": {"type": Literal["expect"]},
        "type": "expect",
        "__module__": __name__,
    })


#: a verifier re-reads state: baselines and page-wide audits are steps of their own
_PAGE_CHECKS = (ExpectAriaSnapshot, ExpectScreenshot, ExpectAccessible)
InvariantExpect = Annotated[Union[tuple(_invariant_expect(c) for c in _EXPECT_MODELS  # type: ignore[valid-type]
                                        if c not in _PAGE_CHECKS)],
                            Field(discriminator="kind")]


class ReadAfterWriteOptions(Strict):
    LABEL: ClassVar[str] = "read_after_write verifier"
    selector: Optional[Selector] = None
    expected: Optional[Value] = None
    timeout_ms: Optional[StepTimeout] = None


class ReadAfterWriteItem(Strict):
    LABEL: ClassVar[str] = "read_after_write verifier"
    read_after_write: Optional[ReadAfterWriteOptions]


class HttpCheck(Strict):
    LABEL: ClassVar[str] = "http check"
    url: Url
    status: Annotated[int, Field(ge=100, le=599)] = 200
    json_field: Optional[Annotated[str, Field(min_length=1, max_length=256)]] = None
    equals: Optional[ScalarText] = None

    @model_validator(mode="after")
    def _equals_needs_field(self) -> "HttpCheck":
        if self.equals is not None and self.json_field is None:
            raise fail("'equals' compares a JSON field, but no 'json_field' is named",
                       "add json_field: <top-level field of the response>", at="equals", key=True)
        return self


class InvariantOptions(Strict):
    LABEL: ClassVar[str] = "invariant_check verifier"
    expect: Optional[InvariantExpect] = None  # type: ignore[valid-type]
    http: Optional[HttpCheck] = None
    timeout_ms: Optional[StepTimeout] = None

    @model_validator(mode="after")
    def _one_condition(self) -> "InvariantOptions":
        if (self.expect is None) == (self.http is None):
            both = self.expect is not None
            raise fail("{where} has " + ("both 'expect' and 'http'" if both else "neither 'expect' nor 'http'"),
                       "an invariant_check takes exactly one condition, for example 'expect: {kind: text_contains, value: Saved}' or "
                       "'http: {url: /api/health, status: 200}'", at="http" if both else None, key=True)
        return self


class InvariantItem(Strict):
    LABEL: ClassVar[str] = "invariant_check verifier"
    invariant_check: InvariantOptions


class UserVerifierItem(Strict):
    LABEL: ClassVar[str] = "user verifier"
    verifier: Identifier
    options: dict[Annotated[str, Field(min_length=1, max_length=64)], ScalarText] = Field(default_factory=dict)
    timeout_ms: Optional[StepTimeout] = None


BUILTIN_VERIFIERS = ("read_after_write", "invariant_check")


def _verifier_name(value: str) -> str:
    if value == "invariant_check":
        raise fail("invariant_check needs a condition",
                   "write '- invariant_check: {expect: {kind: ..., ...}}' or '- invariant_check: {http: {url: ...}}'")
    return value


VerifierName = Annotated[Identifier, AfterValidator(_verifier_name),
                         Field(json_schema_extra={"not": {"const": "invariant_check"}})]


def _verify_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return "name"
    if isinstance(value, dict):
        for key in ("read_after_write", "invariant_check", "verifier"):
            if key in value:
                return key
        return None
    for cls, tag in ((ReadAfterWriteItem, "read_after_write"), (InvariantItem, "invariant_check"),
                     (UserVerifierItem, "verifier")):
        if isinstance(value, cls):
            return tag
    return None


VerifyItem = Annotated[
    Union[Annotated[VerifierName, Tag("name")], Annotated[ReadAfterWriteItem, Tag("read_after_write")],
          Annotated[InvariantItem, Tag("invariant_check")], Annotated[UserVerifierItem, Tag("verifier")]],
    Discriminator(_verify_tag, custom_error_type="verify_tag",
                  custom_error_message="unknown verifier form")]
VerifyList = Annotated[list[VerifyItem], Field(min_length=1, max_length=VERIFY_MAX)]


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


class StepsFileModel(Strict):
    """A steps file (`*.steps.yaml`): steps a flow or a rule runs with `use:`, and the parameters they take."""

    model_config = ConfigDict(title="flowwalk steps file v1")
    LABEL: ClassVar[str] = "steps file"
    steps_version: Literal["1"]
    description: Optional[Description] = None
    params: Annotated[dict[Identifier, ParamModel], Field(max_length=PARAMS_MAX)] = Field(default_factory=dict)
    steps: Annotated[list[Step], Field(min_length=1, max_length=GROUP_STEPS_MAX)]


# --- assertions -----------------------------------------------------------------------------------------

Severity = Literal["critical", "warning", "info"]


class NoConsoleErrors(Strict):
    LABEL: ClassVar[str] = "no_console_errors assertion"
    kind: Literal["no_console_errors"]
    severity: Severity = "warning"


class BeaconFires(Strict):
    LABEL: ClassVar[str] = "beacon_fires assertion"
    kind: Literal["beacon_fires"]
    vendor: Vendor
    event: Optional[Event] = None
    severity: Severity = "warning"


class NoAccessibilityViolations(_AxeCheck):
    LABEL: ClassVar[str] = "no_accessibility_violations assertion"
    kind: Literal["no_accessibility_violations"]
    severity: Severity = "warning"


AssertionModel = Annotated[Union[NoConsoleErrors, BeaconFires, NoAccessibilityViolations],
                           Field(discriminator="kind")]


# --- the browser's environment (docs/environment.md) ------------------------------------------------


class ViewportModel(Strict):
    LABEL: ClassVar[str] = "viewport"
    width: Annotated[int, Field(ge=VIEWPORT_MIN, le=VIEWPORT_MAX)]
    height: Annotated[int, Field(ge=VIEWPORT_MIN, le=VIEWPORT_MAX)]


class GeolocationModel(Strict):
    LABEL: ClassVar[str] = "geolocation"
    latitude: Annotated[float, Field(ge=-90, le=90)]
    longitude: Annotated[float, Field(ge=-180, le=180)]
    #: metres
    accuracy: Annotated[float, Field(ge=0, le=100_000)] = 0


class EnvironmentKeys(Strict):
    """The keys of an environment, wherever one is written: a flow's top level (v1.x), a rule file's
    scenario, flowwalk.yaml's top level, a project. Problems list them after a model's own keys."""

    viewport: Optional[ViewportModel] = None
    device: Optional[DeviceName] = None
    locale: Optional[Locale] = None
    timezone: Optional[Timezone] = None
    color_scheme: Optional[ColorScheme] = None
    geolocation: Optional[GeolocationModel] = None


ENVIRONMENT_KEYS = tuple(EnvironmentKeys.model_fields)


# --- flow spec ------------------------------------------------------------------------------------------

ROWS_MAX = 100
COLUMNS_MAX = 20
HookSteps = Annotated[list[Step], Field(min_length=1, max_length=GROUP_STEPS_MAX)]
#: a row of a data table: its name (its test's id ends in `[name]`) and its cells by column
RowName = Annotated[str, Field(min_length=1, max_length=IDENTIFIER_MAX, pattern=RULE_NAME_PATTERN)]


def _same_columns(rows: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    names = list(rows)
    columns = list(rows[names[0]]) if names else []
    for name in names[1:]:
        missing = [c for c in columns if c not in rows[name]]
        extra = [c for c in rows[name] if c not in columns]
        if missing or extra:
            what = (f"has no {', '.join(repr(c) for c in missing)}" if missing else
                    f"has {', '.join(repr(c) for c in extra)}, which row {quote(names[0])} has not")
            raise fail(f"row {quote(name)} of 'examples' {what}",
                       f"every row names the same columns, as the first does: {', '.join(columns)}", at=name, key=True)
    return rows


Examples = Annotated[dict[RowName, Annotated[dict[Identifier, ArgValue], Field(min_length=1, max_length=COLUMNS_MAX)]],
                     Field(min_length=1, max_length=ROWS_MAX), AfterValidator(_same_columns)]


# --- network control (v1.1, issue 36: docs/flow-spec.md, "Network control") -----------------------------

ROUTES_MAX = 30
ROUTE_DELAY_MAX = 30_000
ROUTE_URL_PATTERN = r"^(?:[hH][tT][tT][pP][sS]?://[^/?#\s*]+|/|\*\*)"
#: what a route does with a request: the keys of each answer
ROUTE_ANSWERS = ("status/json/body/file", "abort", "har")


def _check_route_url(value: str) -> str:
    if "{{" in value:
        raise fail(f"route url {quote(value)} holds a placeholder",
                   "write the URL as it is: routes are installed before the first step, e.g. '/api/todos'")
    if not re.match(ROUTE_URL_PATTERN, value):
        raise fail(f"route url {quote(value)} is neither a path nor an absolute http(s) URL",
                   "write a path on the site ('/api/todos', '/api/**'), an absolute URL "
                   "('https://api.example.com/v1/*'), or '**/todos' for any allowed host")
    return value


RouteUrl = Annotated[str, Field(min_length=1, max_length=URL_MAX, json_schema_extra={"pattern": ROUTE_URL_PATTERN}),
                     AfterValidator(_check_route_url)]
FilePath = Annotated[str, Field(min_length=1, max_length=SELECTOR_MAX)]


class RouteModel(Strict):
    """One entry of `routes:`: which requests, and how the spec answers them."""

    LABEL: ClassVar[str] = "route"
    url: RouteUrl
    method: Optional[Literal[HTTP_METHODS]] = None  # type: ignore[valid-type]
    status: Optional[Annotated[int, Field(ge=100, le=599)]] = None
    json_: Optional[Detail] = Field(default=None, alias="json")
    body: Optional[Value] = None
    file: Optional[FilePath] = None
    headers: Optional[Annotated[dict[Annotated[str, Field(min_length=1, max_length=128)], Value],
                                Field(max_length=PARAMS_MAX)]] = None
    delay_ms: Optional[Annotated[int, Field(ge=0, le=ROUTE_DELAY_MAX)]] = None
    abort: bool = False
    har: Optional[FilePath] = None

    @model_validator(mode="after")
    def _one_answer(self) -> "RouteModel":
        given = self.model_fields_set
        bodies = [k for k, f in (("json", "json_"), ("body", "body"), ("file", "file")) if f in given]
        if len(bodies) > 1:
            raise fail(f"{{where}} has both '{bodies[0]}' and '{bodies[1]}'",
                       "a route answers with one body: json, body (text) or file", at=bodies[1], key=True)
        answers = [k for k, on in (("abort", self.abort), ("har", "har" in given),
                                   ("status", bool(bodies) or "status" in given or "headers" in given)) if on]
        if len(answers) > 1:
            raise fail(f"{{where}} {' and also '.join(_ANSWER_WORDS[a] for a in answers[:2])}",
                       "a route either answers (status, json, body or file, headers), aborts (abort: true) or "
                       "replays a HAR file (har:): keep one", at=answers[1], key=True)
        if not answers:
            raise fail("{where} does not say how to answer",
                       "add json: <the body>, body: <text>, file: <path>, status: <code>, abort: true, "
                       "or har: <file>.har")
        if "har" in given and not (self.har or "").endswith(".har"):
            raise fail(f"{{where}} replays {quote(self.har or '')}, which is not a .har file",
                       "record one with Playwright (recordHar) or the browser's developer tools", at="har")
        return self


_ANSWER_WORDS = {"abort": "aborts", "har": "replays a HAR file", "status": "answers"}
Routes = Annotated[list[RouteModel], Field(max_length=ROUTES_MAX)]


class FlowSpecModel(EnvironmentKeys):
    """flow-spec v1 (`spec_version: "1"`) and v1 plus the documented v1.x additions (`"1.1"`)."""

    model_config = ConfigDict(title="flow-spec v1")
    LABEL: ClassVar[str] = "flow spec"
    spec_version: Literal["1", "1.1"]
    name: Name
    description: Optional[Description] = None
    url: Url
    allowed_hosts: Annotated[list[Host], Field(max_length=ALLOWED_HOSTS_MAX)] = Field(default_factory=list)
    steps: Annotated[list[Step], Field(min_length=1, max_length=STEPS_MAX)]
    assertions: Annotated[list[AssertionModel], Field(max_length=ASSERTIONS_MAX)] = Field(default_factory=list)
    #: v1.x: this flow signs in; its end state is saved under this name (docs/sessions.md)
    saves_session: Optional[SessionName] = None
    #: v1.x: start from the state a setup saved under this name
    session: Optional[SessionName] = None
    #: v1.x: words `--tag` selects by
    tags: Optional[Tags] = None
    #: v1.x: steps run before the steps (of each row), and after them even when one failed
    before_each: Optional[HookSteps] = None
    after_each: Optional[HookSteps] = None
    #: v1.x: a data table: the flow runs once per row, its placeholders bound to the row's cells
    examples: Optional[Examples] = None
    #: v1.x: requests the flow answers itself (docs/flow-spec.md, "Network control")
    routes: Optional[Routes] = None

    @model_validator(mode="after")
    def _one_test_per_row(self) -> "FlowSpecModel":
        if self.examples is not None and self.saves_session is not None:
            raise fail("{where} saves a session and runs once per row of 'examples'",
                       "a session is saved by one flow: move the sign-in into a flow of its own",
                       at="saves_session", key=True)
        return self


# --- rule files -----------------------------------------------------------------------------------------


class RetryModel(Strict):
    LABEL: ClassVar[str] = "retry block"
    max: Annotated[int, Field(ge=0, le=RETRY_MAX)]
    delay_ms: Annotated[int, Field(ge=0, le=RETRY_DELAY_MAX)] = 1000


class ScreenshotModel(Strict):
    LABEL: ClassVar[str] = "screenshot block"
    on_enter: bool = False
    on_fail: bool = True


class InterruptOverride(Strict):
    LABEL: ClassVar[str] = "interrupts block"
    override: Annotated[list[Selector], Field(min_length=1, max_length=20)]


def _interrupts_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return "pause"
    if isinstance(value, (dict, InterruptOverride)):
        return "override"
    return None


Interrupts = Annotated[
    Union[Annotated[Literal["pause"], Tag("pause")], Annotated[InterruptOverride, Tag("override")]],
    Discriminator(_interrupts_tag, custom_error_type="interrupts_tag", custom_error_message="bad interrupts")]


class RuleModel(Strict):
    LABEL: ClassVar[str] = "rule"
    name: RuleName
    parents: Annotated[list[RuleName], Field(max_length=20)] = Field(default_factory=list)
    steps: Annotated[list[Step], Field(min_length=1, max_length=RULE_STEPS_MAX)]
    retry: Optional[RetryModel] = None
    guard_policy: Literal["skip", "abort"] = "skip"
    timeout_ms: Optional[Annotated[int, Field(ge=RULE_TIMEOUT_MIN, le=RULE_TIMEOUT_MAX)]] = None
    guard_timeout_ms: Optional[Annotated[int, Field(ge=1, le=GUARD_TIMEOUT_MAX)]] = None
    child_scope: Optional[Selector] = None
    interrupts: Optional[Interrupts] = None
    screenshot: Optional[ScreenshotModel] = None
    verify: Optional[VerifyList] = None
    saves_session: Optional[SessionName] = None
    tags: Tags = Field(default_factory=list)


class ScenarioModel(EnvironmentKeys):
    LABEL: ClassVar[str] = "scenario"
    name: Name
    description: Optional[Description] = None
    url: Optional[Url] = None
    allowed_hosts: Annotated[list[Host], Field(max_length=ALLOWED_HOSTS_MAX)] = Field(default_factory=list)
    tags: Tags = Field(default_factory=list)
    rules: Annotated[list[RuleModel], Field(min_length=1, max_length=RULES_MAX)]
    session: Optional[SessionName] = None


class DefaultsModel(Strict):
    LABEL: ClassVar[str] = "defaults block"
    timeout_ms: Optional[Annotated[int, Field(ge=RULE_TIMEOUT_MIN, le=RULE_TIMEOUT_MAX)]] = None
    guard_timeout_ms: Optional[Annotated[int, Field(ge=1, le=GUARD_TIMEOUT_MAX)]] = None
    retry: Optional[RetryModel] = None
    screenshot: Optional[ScreenshotModel] = None
    stabilize: Optional[StabilizeModel] = None


class RulesFileModel(Strict):
    """A rule file (`*.rules.yaml`): scenarios, each an entry URL and a DAG of rules."""

    model_config = ConfigDict(title="flowwalk rule file v1")
    LABEL: ClassVar[str] = "rule file"
    rules_version: Literal["1"]
    verification: Name
    description: Optional[Description] = None
    variables: dict[Identifier, ScalarText] = Field(default_factory=dict)
    secrets: Annotated[list[Identifier], Field(max_length=50)] = Field(default_factory=list)
    dismiss: Annotated[list[Selector], Field(max_length=20)] = Field(default_factory=list)
    defaults: Optional[DefaultsModel] = None
    #: tags of every scenario of the file
    tags: Tags = Field(default_factory=list)
    scenarios: Annotated[list[ScenarioModel], Field(min_length=1, max_length=SCENARIOS_MAX)]


# --- flowwalk.yaml -----------------------------------------------------------------------------------


#: an HTTP header's name (RFC 9110 token)
HEADER_NAME_PATTERN = r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"


def _absolute_url(value: str) -> str:
    if value.startswith(("/", "{{")):
        raise fail(f"base_url {quote(value)} is not an absolute url",
                   "write the site's root, e.g. 'http://127.0.0.1:8000' or 'https://staging.example.com'")
    return value


def _site_url(value: str) -> str:
    """flowwalk.yaml's `base_url`: the same rule as --base-url's (model.url_problem)."""
    _absolute_url(value)
    problem = url_problem(value)
    if problem:
        raise fail(f"base_url {quote(value)} {problem[0]}", problem[1])
    return value


def _wait_url(value: str) -> str:
    """flowwalk.yaml's `wait_for`: a path resolved against base_url, else the same rule as --wait-for's."""
    problem = url_problem(value, relative_to="base_url") if has_scheme(value) else None
    if problem:
        raise fail(f"wait_for {quote(value)} {problem[0]}", problem[1])
    return value


class ModelBlockModel(Strict):
    """`model:` in flowwalk.yaml: the optional OpenAI-compatible model used only to heal (docs/healing.md)."""

    LABEL: ClassVar[str] = "model block"
    enabled: Optional[bool] = None
    preset: Optional[Literal["github", "openai", "ollama", "vllm", "llamacpp", "litellm"]] = None
    base_url: Optional[Annotated[Url, AfterValidator(_absolute_url)]] = None
    model: Optional[Annotated[str, Field(min_length=1, max_length=200)]] = None
    api_key_env: Optional[Identifier] = None
    timeout_s: Optional[Annotated[float, Field(gt=0, le=600)]] = None
    max_calls: Optional[Annotated[int, Field(ge=0, le=1000)]] = None
    max_calls_per_step: Optional[Annotated[int, Field(ge=1, le=5)]] = None
    max_tokens: Optional[Annotated[int, Field(ge=16, le=8192)]] = None
    json_mode: Optional[bool] = None

    @model_validator(mode="after")
    def _complete(self) -> "ModelBlockModel":
        # the presets of llm.py that name no model (local servers serve what they loaded)
        if self.enabled is False:
            return self
        if self.preset is None and self.base_url is None:
            raise fail("{where} has neither 'preset' nor 'base_url'",
                       "name a preset (github, openai, ollama, vllm, llamacpp, litellm) or the server's base_url, "
                       "e.g. 'base_url: http://127.0.0.1:8080/v1'", key=True)
        if self.model is None and self.preset not in ("github", "openai"):
            raise fail("{where} has no 'model'",
                       "name a model the server serves, e.g. 'model: llama3.1'", key=True)
        return self


class ProjectModel(EnvironmentKeys):
    """One environment profile of `projects`: every spec runs once in each (docs/environment.md)."""

    LABEL: ClassVar[str] = "project"
    name: SessionName


class ConfigModel(EnvironmentKeys):
    """`flowwalk.yaml`: run defaults. Command-line options and environment variables win over it."""

    model_config = ConfigDict(title="flowwalk.yaml")
    LABEL: ClassVar[str] = "flowwalk.yaml"
    base_url: Optional[Annotated[str, Field(min_length=1, max_length=URL_MAX, json_schema_extra={"pattern": URL_PATTERN}),
                                 AfterValidator(_site_url)]] = None
    paths: Optional[Annotated[list[Annotated[str, Field(min_length=1, max_length=4096)]],
                              Field(min_length=1, max_length=100)]] = None
    out_dir: Optional[Annotated[str, Field(min_length=1, max_length=4096)]] = None
    variables: dict[Identifier, ScalarText] = Field(default_factory=dict)
    secrets: Annotated[list[Identifier], Field(max_length=50)] = Field(default_factory=list)
    dismiss_selectors: Annotated[list[Selector], Field(max_length=20)] = Field(default_factory=list)
    #: the attributes an element's test id is read from, first found first (docs/config.md)
    test_id_attribute: Optional[Annotated[list[Annotated[str, Field(min_length=1, max_length=100,
                                                                    pattern=TEST_ID_ATTRIBUTE_PATTERN)]],
                                          Field(min_length=1, max_length=TEST_ID_ATTRIBUTES_MAX)]] = None
    rule_timeout_ms: Optional[Annotated[int, Field(ge=_RANGE["rule_timeout_ms"][0], le=_RANGE["rule_timeout_ms"][1])]] = None
    guard_timeout_ms: Optional[Annotated[int, Field(ge=_RANGE["guard_timeout_ms"][0], le=_RANGE["guard_timeout_ms"][1])]] = None
    action_timeout_ms: Optional[Annotated[int, Field(ge=_RANGE["action_timeout_ms"][0], le=_RANGE["action_timeout_ms"][1])]] = None
    navigation_timeout_ms: Optional[Annotated[int, Field(ge=_RANGE["navigation_timeout_ms"][0], le=_RANGE["navigation_timeout_ms"][1])]] = None
    expect_timeout_ms: Optional[Annotated[int, Field(ge=_RANGE["expect_timeout_ms"][0], le=_RANGE["expect_timeout_ms"][1])]] = None
    run_timeout_s: Optional[Annotated[float, Field(gt=_RANGE["run_timeout_s"][0], le=_RANGE["run_timeout_s"][1])]] = None
    retries: Optional[Annotated[int, Field(ge=_RANGE["retries"][0], le=_RANGE["retries"][1])]] = None
    flaky_policy: Optional[Literal["pass", "fail"]] = None
    heal_policy: Optional[Literal["pass", "fail"]] = None
    workers: Optional[Annotated[int, Field(ge=_RANGE["workers"][0], le=_RANGE["workers"][1])]] = None
    comment_mode: Optional[Literal["always", "on-failure", "on-change", "off"]] = None
    stabilize: Optional[StabilizeModel] = None
    executable: Optional[Annotated[str, Field(min_length=1, max_length=4096)]] = None
    screenshots: Optional[Literal["off", "on-failure", "on"]] = None
    trace: Optional[Literal["off", "on-failure", "retain-on-failure", "on"]] = None
    verifiers_dir: Optional[Annotated[str, Field(min_length=1, max_length=4096)]] = None
    durations_file: Optional[Annotated[str, Field(min_length=1, max_length=4096)]] = None
    fingerprints_file: Optional[Annotated[str, Field(min_length=1, max_length=4096)]] = None
    offline: Optional[bool] = None
    model: Optional[ModelBlockModel] = None
    #: stop starting scenarios after this many failures (docs/selection.md)
    max_failures: Optional[Annotated[int, Field(ge=_RANGE["max_failures"][0], le=_RANGE["max_failures"][1])]] = None
    projects: Optional[Annotated[list[ProjectModel], Field(min_length=1, max_length=PROJECTS_MAX)]] = None
    #: which failures fail the job: any, or only those new against the base report (docs/quarantine.md)
    fail_on: Optional[Literal["any", "new"]] = None
    #: the quarantine file (docs/quarantine.md) [flowwalk-quarantine.yaml when present]
    quarantine_file: Optional[Annotated[str, Field(min_length=1, max_length=4096)]] = None
    #: the readiness wait before walking (docs/preview.md): a URL, absolute or relative to base_url
    wait_for: Optional[Annotated[str, Field(min_length=1, max_length=URL_MAX), AfterValidator(_wait_url)]] = None
    #: the status it expects: 200, 2xx, 200-399, several separated by commas [2xx]
    wait_status: Optional[Annotated[str, Field(min_length=1, max_length=100)]] = None
    #: a text its page must hold
    wait_text: Optional[Annotated[str, Field(min_length=1, max_length=VALUE_MAX)]] = None
    wait_timeout_s: Optional[Annotated[float, Field(gt=_RANGE["wait_timeout_s"][0], le=_RANGE["wait_timeout_s"][1])]] = None
    wait_interval_s: Optional[Annotated[float, Field(gt=_RANGE["wait_interval_s"][0],
                                                     le=_RANGE["wait_interval_s"][1])]] = None
    #: extra HTTP headers for the base URL's origin: header name -> the secret (environment variable)
    #: holding its value; never the value itself
    http_headers: Optional[Annotated[dict[Annotated[str, Field(min_length=1, max_length=100,
                                                                pattern=HEADER_NAME_PATTERN)],
                                          SecretName], Field(max_length=20)]] = None
    #: the secret (environment variable) holding HTTP credentials as username:password
    http_credentials: Optional[SecretName] = None
    #: a running Playwright browser server to connect to instead of launching Chromium (docs/remote-browsers.md)
    browser_endpoint: Optional[Annotated[str, Field(min_length=6, max_length=URL_MAX, pattern=r"^wss?://")]] = None


# --- the quarantine file ---------------------------------------------------------------------------

QUARANTINE_MAX = 500
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"


def _check_date(value: str) -> str:
    import datetime

    if not re.fullmatch(DATE_PATTERN, value):
        day = f"{value[:4]}-{value[4:6]}-{value[6:]}" if re.fullmatch(r"\d{8}", value) else "2026-12-31"
        raise fail(f"{{subject}} is {quote(value)}, not a date",
                   f"write the day it expires as YYYY-MM-DD, e.g. '{day}' (quoted or not)")
    try:
        datetime.date.fromisoformat(value)
    except ValueError as error:
        raise fail(f"{{subject}} is {quote(value)}, not a day of the calendar ({error})",
                   "write a real day as YYYY-MM-DD, e.g. '2026-12-31'")
    return value


class QuarantineEntryModel(Strict):
    """One quarantined test: it still runs and is reported, but does not fail the job until `expires`."""

    LABEL: ClassVar[str] = "quarantine entry"
    #: a test id (`<file>#<scenario>` or `<file>#<scenario>/<rule>`), or a scenario id for all its tests
    id: Annotated[str, Field(min_length=1, max_length=1000)]
    owner: Annotated[str, Field(min_length=1, max_length=100)]
    reason: Annotated[str, Field(min_length=1, max_length=DESCRIPTION_MAX)]
    #: the last day the quarantine holds (UTC); from the day after, the test fails the job again
    expires: Annotated[str, Field(min_length=1, max_length=32, json_schema_extra={"pattern": DATE_PATTERN}),
                       AfterValidator(_check_date)]


class QuarantineFileModel(Strict):
    """`flowwalk-quarantine.yaml`: known-flaky tests that run and are reported but do not fail the job
    until their expiry (docs/quarantine.md)."""

    model_config = ConfigDict(title="flowwalk quarantine file v1")
    LABEL: ClassVar[str] = "quarantine file"
    quarantine_version: Literal["1"]
    tests: Annotated[list[QuarantineEntryModel], Field(max_length=QUARANTINE_MAX)] = Field(default_factory=list)
