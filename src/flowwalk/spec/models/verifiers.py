"""The verifiers an act or a rule runs after it (`verify:`): read_after_write, invariant_check
(an expect kind or an HTTP check) and the project's own."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Optional, Union

from pydantic import AfterValidator, Discriminator, Field, Tag, model_validator

from flowwalk.spec.models.checks import (EXPECT_MODELS, ExpectAccessible, ExpectAriaSnapshot, ExpectBase,
                                         ExpectScreenshot)
from flowwalk.spec.models.fields import (VERIFY_MAX, Identifier, ScalarText, Selector, StepTimeout, Strict, Url,
                                         Value, fail)


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
InvariantExpect = Annotated[Union[tuple(_invariant_expect(c) for c in EXPECT_MODELS  # type: ignore[valid-type]
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
