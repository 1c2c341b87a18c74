"""What the models of every input format share: the limits and patterns of flow-spec v1, `fail`
(a validation error worded for people), the field validators, the constrained strings (`Selector`,
`Url`, `Identifier`, `SecretName`, `Name`, ...), `Strict` (the base of every model),
`StabilizeModel`, and `node`, which builds a node of the tree from values a producer checked.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Optional, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema
from pydantic_core import PydanticCustomError

from flowwalk.model import TAG_MAX, TAG_PATTERN, TAGS_MAX, Stabilize, tag_problem, url_problem
# values go into messages through quote (control characters escaped: one line each)
from flowwalk.spec.source import quote as quote

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
ScalarText = Annotated[str, BeforeValidator(_scalar_text), Field(max_length=VALUE_MAX),
                       WithJsonSchema({"type": ["string", "integer", "number", "boolean"]})]
NonEmptyScalar = Annotated[str, BeforeValidator(_scalar_text), Field(min_length=1, max_length=VALUE_MAX),
                           WithJsonSchema({"type": ["string", "integer", "number", "boolean"]})]
StepTimeout = Annotated[int, Field(ge=1, le=STEP_TIMEOUT_MAX)]
TagWord = Annotated[str, Field(min_length=1, max_length=TAG_MAX, json_schema_extra={"pattern": TAG_PATTERN}),
                AfterValidator(_check_tag)]
#: `tags:` of a flow spec, a rule file, a scenario or a rule: words `--tag` selects by (docs/selection.md)
Tags = Annotated[list[TagWord], Field(max_length=TAGS_MAX)]

class Strict(BaseModel):
    """Base of every input model: unknown keys refused, no type coercion."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=False, regex_engine="python-re",
                              defer_build=True)
    #: how errors name an object of this model ("a wait step", "the rule")
    LABEL: ClassVar[str] = "mapping"


_M = TypeVar("_M", bound=BaseModel)


def node(model: type[_M], **fields: object) -> _M:
    """A step of the tree (or a part of one) from values that a producer's own grammar has checked
    (a `.robot` keyword call): not validated again, since that grammar is not a flow spec's field
    rules. A key given None is left unset, as in a file that does not write it."""
    return model.model_construct(None, **{key: value for key, value in fields.items() if value is not None})


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
