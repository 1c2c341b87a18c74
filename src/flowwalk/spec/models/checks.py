"""The checks: the expect kinds (`ExpectBase` and one model per kind, `ExpectStep`, their
discriminated union by `kind`, `expect_model`) and a flow's end-of-flow assertions."""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal, Optional, Union, get_args

from pydantic import AfterValidator, Field, ValidationInfo, field_validator, model_validator

from flowwalk.model import IMPACTS
from flowwalk.spec.models.fields import (AXE_RULES_MAX, MASK_MAX, RULE_NAME_PATTERN, SNAPSHOT_NAME_MAX, VALUE_MAX,
                                         Event, NonEmptyScalar, NonEmptyValue, Regex, ScalarText, Selector,
                                         StabilizeModel, StepTimeout, Strict, Value, Vendor, fail, quote)
from flowwalk.spec.spelling import did_you_mean
from flowwalk.vendor import axe_info, axe_rule_ids, axe_tags


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


EXPECT_MODELS: tuple[type[ExpectBase], ...] = (
    ExpectUrlContains, ExpectUrlMatches, ExpectTextContains, ExpectBeacon,
    ExpectUrlNotContains, ExpectTextNotContains, ExpectTextMatches, ExpectHasText,
    *_ELEMENT_MODELS.values(), ExpectCount, ExpectAttribute, ExpectInputValue,
    ExpectAriaSnapshot, ExpectScreenshot, ExpectAccessible,
    ExpectTexts, ExpectClasses, ExpectHasClass, ExpectLacksClass,
    *_STATE_MODELS,
)
ExpectStep = Annotated[Union[EXPECT_MODELS], Field(discriminator="kind")]  # type: ignore[valid-type]
_EXPECT_BY_KIND: dict[str, type[ExpectBase]] = {get_args(model.model_fields["kind"].annotation)[0]: model
                                                for model in EXPECT_MODELS}


def expect_model(kind: str) -> type[ExpectBase]:
    """The model of an expect step of `kind` (one of the kinds `ExpectStep` takes)."""
    return _EXPECT_BY_KIND[kind]

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
