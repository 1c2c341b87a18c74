"""Playwright Test's calls as flow-spec steps: one table (`TABLE`) of what each call becomes, which
docs/import.md is generated from (`render_table`, held equal to the page by a test).

A row names a call as people write it (`locator.fill(value)`, `expect(locator).toHaveText(text)`),
the step it becomes, and whether that step does exactly what the call does (`converted`) or
nearly (`approximated`, with how it differs). A call no row names, or whose arguments do not fit
its row (a selector built at run time, an option the step has no equivalent of), is
`not_converted` with why: the core's ledger keeps it.

Locators are values: `page.locator('.todo-list li').nth(1)` is the selector
`.todo-list li >> nth=1`, and a `const` bound to one stands for it wherever it is used.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from tree_sitter import Node

from flowwalk.importer.core import Mapped, Walk
from flowwalk.importer.ledger import Outcome
from flowwalk.importer.syntax import Source, children, text
from flowwalk.importer.values import Param, Regex, Unevaluable, spelled, value_of

__all__ = ["TABLE", "Locator", "PageRef", "PlaywrightTest", "Unfit", "quoted", "render_table"]


@dataclass(frozen=True)
class PageRef:
    """The `page` fixture."""


@dataclass(frozen=True)
class Locator:
    """A locator as a flowwalk selector (Playwright's selector syntax, `>>` chains)."""

    selector: str
    #: how the selector differs from the locator, when it does
    approx: str = ""


@dataclass(frozen=True)
class Segment:
    """One link of a call chain: `.name` or `.name(args)`."""

    name: str
    args: Node | None
    node: Node


@dataclass(frozen=True)
class Entry:
    """A row of the table: the call, what it becomes, and how well."""

    group: str
    call: str
    becomes: str
    outcome: Outcome
    note: str = ""


def quoted(value: str) -> str:
    """A double-quoted string for a selector (`"a \\"b\\""`)."""
    return json.dumps(value, ensure_ascii=False)


class Unfit(Exception):
    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


# --- locators ---------------------------------------------------------------------------------------------


def _options(walk: Walk, args: list[Node], at: int, scope: Mapping[str, Any]) -> dict[str, Any]:
    if len(args) <= at:
        return {}
    value = value_of(walk.source, args[at], scope)
    if not isinstance(value, dict):
        raise Unfit(f"'{text(walk.source, args[at])}' is not an options object")
    return value


def _text_arg(walk: Walk, args: list[Node], scope: Mapping[str, Any], what: str) -> Any:
    if not args:
        raise Unfit(f"{what} needs an argument")
    value = value_of(walk.source, args[0], scope)
    if isinstance(value, Param):
        return spelled(value)
    if not isinstance(value, (str, Regex)):
        raise Unfit(f"{what} takes a text or a regular expression")
    return value


def _by_text(value: Any, exact: bool) -> str:
    if isinstance(value, Regex):
        return f"text=/{value.pattern}/{value.flags}"
    return f"text={quoted(value)}" if exact else f"text={value}" if re.fullmatch(r"[\w .,:;!?'-]+", value) and \
        value == value.strip() else f"text={quoted(value)}"


def _attribute(name: str, value: Any, exact: bool) -> str:
    if isinstance(value, Regex):
        raise Unfit(f"a regular expression for the {name} has no CSS equivalent")
    return f"[{name}={quoted(value)}]" if exact else f"[{name}*={quoted(value)} i]"


def _role(walk: Walk, args: list[Node], scope: Mapping[str, Any]) -> str:
    role = _text_arg(walk, args, scope, "getByRole")
    if not isinstance(role, str):
        raise Unfit("getByRole takes a role name")
    options = _options(walk, args, 1, scope)
    out = f"role={role}"
    exact = options.pop("exact", False) is True
    name = options.pop("name", None)
    if isinstance(name, Regex):
        out += f"[name=/{name.pattern}/{name.flags}]"
    elif isinstance(name, str):
        out += f"[name={quoted(name)}{'s' if exact else 'i'}]"
    for key in ("checked", "disabled", "expanded", "pressed", "selected", "level", "includeHidden"):
        if key in options:
            value = options.pop(key)
            attr = "include-hidden" if key == "includeHidden" else key
            out += f"[{attr}={str(value).lower() if isinstance(value, bool) else value}]"
    if options:
        raise Unfit(f"getByRole's option(s) {', '.join(sorted(options))} have no selector equivalent")
    return out


class _Locators:
    """`page.X(...)` and `locator.X(...)` links that narrow a locator."""

    def __init__(self, test_id_attribute: str):
        self.test_id = test_id_attribute

    def link(self, walk: Walk, base: Locator | None, seg: Segment, scope: Mapping[str, Any]) -> Locator:
        args = children(seg.args) if seg.args is not None else []
        name = seg.name
        prefix = f"{base.selector} >> " if base is not None else ""
        approx = base.approx if base is not None else ""
        if name == "locator":
            selector = _text_arg(walk, args, scope, "locator")
            if not isinstance(selector, str):
                raise Unfit("locator takes a selector")
            located = Locator(prefix + selector, approx)
            return self._filtered(walk, located, _options(walk, args, 1, scope)) if len(args) > 1 else located
        if name in ("first", "last", "nth"):
            index = 0 if name == "first" else -1 if name == "last" else value_of(walk.source, args[0], scope) \
                if args else None
            if base is None or not isinstance(index, int):
                raise Unfit(f"{name} needs a locator and a literal index")
            return Locator(f"{base.selector} >> nth={index}", approx)
        if name == "filter":
            if base is None:
                raise Unfit("filter needs a locator")
            return self._filtered(walk, base, _options(walk, args, 0, scope))
        return Locator(prefix + self._get_by(walk, name, args, scope), approx)

    def _get_by(self, walk: Walk, name: str, args: list[Node], scope: Mapping[str, Any]) -> str:
        if name == "getByRole":
            return _role(walk, args, scope)
        if not name.startswith("getBy"):
            raise Unfit(f"'{name}' reads the page when the test runs; a flow spec has no variables: check the "
                         "value with an expect instead")
        value = _text_arg(walk, args, scope, name)
        exact = _options(walk, args, 1, scope).get("exact") is True
        if name == "getByText":
            return _by_text(value, exact)
        if name == "getByTestId":
            if isinstance(value, Regex):
                raise Unfit("a regular expression for a test id has no CSS equivalent")
            return f"[{self.test_id}={quoted(value)}]"
        attributes = {"getByPlaceholder": "placeholder", "getByAltText": "alt", "getByTitle": "title"}
        if name in attributes:
            return _attribute(attributes[name], value, exact)
        if name == "getByLabel":
            raise Unfit("flowwalk has no selector for a control by its label's text (Playwright's own is "
                         "internal); give the control a test id, a placeholder or a role and name")
        raise Unfit(f"'{name}' is not a locator method the table maps")

    def _filtered(self, walk: Walk, base: Locator, options: dict[str, Any]) -> Locator:
        selector = base.selector
        last = selector.rsplit(" >> ", 1)[-1]
        if re.match(r"^(text|role|nth|visible|id|data-[\w-]+)=", last):
            raise Unfit("filter after a text, role or nth part has no CSS pseudo-class to add")
        for key, value in options.items():
            if key in ("hasText", "hasNotText") and isinstance(value, (str, Regex)):
                shown = f"/{value.pattern}/{value.flags}" if isinstance(value, Regex) else quoted(value)
                selector += f":has-text({shown})" if key == "hasText" else f":not(:has-text({shown}))"
            elif key in ("has", "hasNot") and isinstance(value, Locator) and " >> " not in value.selector:
                selector += f":has({value.selector})" if key == "has" else f":not(:has({value.selector}))"
            else:
                raise Unfit(f"filter's '{key}' has no selector equivalent here")
        return Locator(selector, base.approx)


# --- the chain of a call ------------------------------------------------------------------------------------


def chain_of(source: Source, node: Node) -> tuple[Node, list[Segment]]:
    """`a.b(1).c.d(2)` -> (a, [b(1), c, d(2)]); a call of a plain name (`expect(x)`) stays the root."""
    segments: list[Segment] = []
    while True:
        if node.type == "call_expression":
            function = node.child_by_field_name("function")
            if function is not None and function.type == "member_expression":
                prop = function.child_by_field_name("property")
                segments.append(Segment(text(source, prop) if prop else "", node.child_by_field_name("arguments"),
                                        node))
                node = function.child_by_field_name("object")  # type: ignore[assignment]
                continue
            break
        if node.type == "member_expression":
            prop = node.child_by_field_name("property")
            segments.append(Segment(text(source, prop) if prop else "", None, node))
            node = node.child_by_field_name("object")  # type: ignore[assignment]
            continue
        if node.type in ("await_expression", "parenthesized_expression", "non_null_expression"):
            node = children(node)[0]
            continue
        break
    return node, segments[::-1]


# --- the table -----------------------------------------------------------------------------------------------

Make = Callable[["_Call"], tuple[list[dict[str, Any]], Outcome, str]]


@dataclass
class _Call:
    """A call being mapped: the walk, its scope, its arguments, the locator it is on (if any), `.not`."""

    walk: Walk
    scope: Mapping[str, Any]
    args: list[Node]
    on: Locator | None
    negated: bool = False

    def value(self, i: int) -> Any:
        if i >= len(self.args):
            raise Unfit("an argument is missing")
        return value_of(self.walk.source, self.args[i], self.scope)

    def text(self, i: int) -> str:
        value = self.value(i)
        if isinstance(value, Param):
            return spelled(value)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return spelled(value)
        raise Unfit(f"'{text(self.walk.source, self.args[i])}' is not a text")

    @property
    def selector(self) -> str:
        if self.on is None:
            raise Unfit("the call is not on a locator")
        return self.on.selector


def _act(action: str, value: int | None = None, **extra: str) -> Make:
    def make(call: _Call) -> tuple[list[dict[str, Any]], Outcome, str]:
        step: dict[str, Any] = {"type": "act", "action": action, "selector": call.selector, **extra}
        if value is not None:
            step["value"] = call.text(value)
        return [step], "converted", f"act {action}"
    return make


def _dispatch(call: _Call) -> tuple[list[dict[str, Any]], Outcome, str]:
    return [{"type": "act", "action": "dispatch", "selector": call.selector, "event": call.text(0)}], "converted", \
        "act dispatch"


def _clear(call: _Call) -> tuple[list[dict[str, Any]], Outcome, str]:
    return [{"type": "act", "action": "fill", "selector": call.selector, "value": ""}], "converted", "act fill ''"


def _goto(call: _Call) -> tuple[list[dict[str, Any]], Outcome, str]:
    return [{"type": "goto", "url": call.text(0)}], "converted", "goto"


def _history(move: str) -> Make:
    return lambda call: ([{"type": move}], "converted", move)


def _wait_ms(call: _Call) -> tuple[list[dict[str, Any]], Outcome, str]:
    ms = call.value(0)
    if not isinstance(ms, int) or ms < 1:
        raise Unfit("waitForTimeout takes a literal number of milliseconds")
    return [{"type": "wait", "ms": ms}], "converted", "wait ms"


def _check(kind: str, negated: str | None = None, **fields: Any) -> Make:
    """A check of the locator's element; with `negated`, `.not` is that kind instead."""
    def make(call: _Call) -> tuple[list[dict[str, Any]], Outcome, str]:
        chosen = kind
        if call.negated:
            if negated is None:
                raise Unfit("this matcher's .not has no check here")
            chosen = negated
        return [{"type": "expect", "kind": chosen, "selector": call.selector, **fields}], "converted", \
            f"expect {chosen}"
    return make


def _has_text(call: _Call) -> tuple[list[dict[str, Any]], Outcome, str]:
    value = call.value(0)
    if isinstance(value, list):
        if call.negated or not all(isinstance(v, (str, Param)) for v in value):
            raise Unfit("a list of texts is compared as texts: each a literal text, no .not")
        items = [spelled(v) for v in value]
        return [{"type": "expect", "kind": "texts", "selector": call.selector, "equals": items}], "converted", \
            "expect texts equals"
    if isinstance(value, Regex):
        if call.negated or value.flags.replace("i", ""):
            raise Unfit("a regular expression with .not or flags other than i")
        pattern = f"(?i){value.pattern}" if "i" in value.flags else value.pattern
        return [{"type": "expect", "kind": "text_matches", "selector": call.selector, "value": pattern}], \
            "converted", "expect text_matches"
    if call.negated:
        raise Unfit(".not.toHaveText has no check here")
    return [{"type": "expect", "kind": "has_text", "selector": call.selector, "value": call.text(0)}], "converted", \
        "expect has_text"


def _contains_text(call: _Call) -> tuple[list[dict[str, Any]], Outcome, str]:
    kind = "text_not_contains" if call.negated else "text_contains"
    step: dict[str, Any] = {"type": "expect", "kind": kind, "selector": call.selector, "value": call.text(0)}
    if not call.negated:
        step["match_case"] = True
        return [step], "converted", "expect text_contains, match_case"
    return [step], "approximated", "expect text_not_contains: it ignores case, Playwright's .not.toContainText does not"


def _has_class(call: _Call) -> tuple[list[dict[str, Any]], Outcome, str]:
    value = call.value(0)
    if isinstance(value, list):
        if call.negated or not all(isinstance(v, str) for v in value):
            raise Unfit("a list of classes is compared as classes: each a literal text, no .not")
        how: Outcome = "approximated" if "" in value else "converted"
        return [{"type": "expect", "kind": "classes", "selector": call.selector, "equals": value}], how, \
            "expect classes equals" + ("; an empty entry asks nothing of its item, where Playwright asks for no "
                                       "class" if how == "approximated" else "")
    names = call.text(0)
    if call.negated:
        return [{"type": "expect", "kind": "lacks_class", "selector": call.selector, "value": names}], \
            "approximated", "expect lacks_class: the element lacks the class, where Playwright's .not asks that the " \
                            "class attribute is not exactly this"
    return [{"type": "expect", "kind": "attribute", "selector": call.selector, "name": "class", "equals": names}], \
        "converted", "expect attribute class equals"


def _value(call: _Call) -> tuple[list[dict[str, Any]], Outcome, str]:
    if call.negated:
        raise Unfit(".not.toHaveValue has no check here")
    return [{"type": "expect", "kind": "input_value", "selector": call.selector, "value": call.text(0)}], \
        "converted", "expect input_value"


def _empty(call: _Call) -> tuple[list[dict[str, Any]], Outcome, str]:
    if call.negated:
        raise Unfit(".not.toBeEmpty has no check here")
    return [{"type": "expect", "kind": "input_value", "selector": call.selector, "value": ""}], "approximated", \
        "expect input_value '': the input's value is empty (Playwright's toBeEmpty also takes an element with no text)"


def _count(call: _Call) -> tuple[list[dict[str, Any]], Outcome, str]:
    count = call.value(0)
    if call.negated or not isinstance(count, int):
        raise Unfit("toHaveCount takes a literal number (and no .not)")
    return [{"type": "expect", "kind": "count", "selector": call.selector, "equals": count}], "converted", \
        "expect count equals"


def _attribute_check(call: _Call) -> tuple[list[dict[str, Any]], Outcome, str]:
    if call.negated or len(call.args) < 2:
        raise Unfit("toHaveAttribute with a name and a value (no .not)")
    return [{"type": "expect", "kind": "attribute", "selector": call.selector, "name": call.text(0),
             "equals": call.text(1)}], "converted", "expect attribute equals"


def _url(call: _Call) -> tuple[list[dict[str, Any]], Outcome, str]:
    value = call.value(0)
    if isinstance(value, Regex):
        if call.negated:
            raise Unfit(".not.toHaveURL of a regular expression has no check here")
        return [{"type": "expect", "kind": "url_matches", "value": value.pattern}], "converted", "expect url_matches"
    kind = "url_not_contains" if call.negated else "url_contains"
    return [{"type": "expect", "kind": kind, "value": call.text(0)}], "approximated", \
        f"expect {kind}: the URL contains the text, where Playwright compares the whole URL"


def _title(call: _Call) -> tuple[list[dict[str, Any]], Outcome, str]:
    value = call.value(0)
    if isinstance(value, Regex):
        return [{"type": "expect", "kind": "js", "expr": "document.title", "matches": value.pattern}], "converted", \
            "expect js document.title matches"
    return [{"type": "expect", "kind": "js", "expr": "document.title", "equals": call.text(0)}], "converted", \
        "expect js document.title equals"


#: calls on a locator: (name, make, table entry)
ACTIONS: dict[str, tuple[Make, Entry]] = {
    "click": (_act("click"), Entry("action", "locator.click()", "act click", "converted")),
    "dblclick": (_act("dblclick"), Entry("action", "locator.dblclick()", "act dblclick", "converted")),
    "check": (_act("check"), Entry("action", "locator.check()", "act check", "converted")),
    "uncheck": (_act("uncheck"), Entry("action", "locator.uncheck()", "act uncheck", "converted")),
    "fill": (_act("fill", 0), Entry("action", "locator.fill(value)", "act fill, value", "converted")),
    "clear": (_clear, Entry("action", "locator.clear()", "act fill ''", "converted")),
    "press": (_act("press", 0), Entry("action", "locator.press(key)", "act press, value: the key", "converted")),
    "pressSequentially": (_act("type", 0), Entry("action", "locator.pressSequentially(text)", "act type",
                                                 "converted")),
    "type": (_act("type", 0), Entry("action", "locator.type(text)", "act type", "converted")),
    "hover": (_act("hover"), Entry("action", "locator.hover()", "act hover", "converted")),
    "focus": (_act("focus"), Entry("action", "locator.focus()", "act focus", "converted")),
    "blur": (_act("blur"), Entry("action", "locator.blur()", "act blur", "converted")),
    "selectOption": (_act("select", 0), Entry("action", "locator.selectOption(value)", "act select", "converted")),
    "setInputFiles": (_act("upload", 0), Entry("action", "locator.setInputFiles(path)", "act upload", "converted")),
    "dispatchEvent": (_dispatch, Entry("action", "locator.dispatchEvent(type)", "act dispatch, event", "converted")),
}
#: calls on the page
PAGE: dict[str, tuple[Make, Entry]] = {
    "goto": (_goto, Entry("navigation", "page.goto(url)", "goto (the test's first: the flow's url)", "converted")),
    "reload": (_history("reload"), Entry("navigation", "page.reload()", "reload", "converted")),
    "goBack": (_history("go_back"), Entry("navigation", "page.goBack()", "go_back", "converted")),
    "goForward": (_history("go_forward"), Entry("navigation", "page.goForward()", "go_forward", "converted")),
    "waitForTimeout": (_wait_ms, Entry("navigation", "page.waitForTimeout(ms)", "wait ms", "converted")),
}
#: `expect(locator)` / `expect(page)` matchers
MATCHERS: dict[str, tuple[Make, Entry]] = {
    "toHaveText": (_has_text, Entry("check", "expect(l).toHaveText(text | /re/ | [texts])",
                                    "expect has_text / text_matches / texts equals", "converted")),
    "toContainText": (_contains_text, Entry("check", "expect(l).toContainText(text)",
                                            "expect text_contains, match_case: true", "converted",
                                            ".not: text_not_contains, which ignores case (approximated)")),
    "toHaveClass": (_has_class, Entry("check", "expect(l).toHaveClass(text | [texts])",
                                      "expect attribute class equals / classes equals", "converted",
                                      ".not: lacks_class; a list with '' entries (approximated)")),
    "toHaveValue": (_value, Entry("check", "expect(l).toHaveValue(text)", "expect input_value", "converted")),
    "toBeEmpty": (_empty, Entry("check", "expect(l).toBeEmpty()", "expect input_value ''", "approximated",
                                "an element with no text is not an input: Playwright takes it too")),
    "toHaveCount": (_count, Entry("check", "expect(l).toHaveCount(n)", "expect count equals", "converted")),
    "toBeVisible": (_check("visible", "hidden"), Entry("check", "expect(l).toBeVisible()", "expect visible "
                                                       "(.not: hidden)", "converted")),
    "toBeHidden": (_check("hidden", "visible"), Entry("check", "expect(l).toBeHidden()", "expect hidden "
                                                      "(.not: visible)", "converted")),
    "toBeChecked": (_check("checked", "unchecked"), Entry("check", "expect(l).toBeChecked()", "expect checked "
                                                          "(.not: unchecked)", "converted")),
    "toBeEnabled": (_check("enabled", "disabled"), Entry("check", "expect(l).toBeEnabled()", "expect enabled "
                                                         "(.not: disabled)", "converted")),
    "toBeDisabled": (_check("disabled", "enabled"), Entry("check", "expect(l).toBeDisabled()", "expect disabled "
                                                          "(.not: enabled)", "converted")),
    "toBeAttached": (_check("selector_exists", "selector_absent"), Entry(
        "check", "expect(l).toBeAttached()", "expect selector_exists (.not: selector_absent)", "converted")),
    "toHaveAttribute": (_attribute_check, Entry("check", "expect(l).toHaveAttribute(name, value)",
                                                "expect attribute equals", "converted")),
    "toHaveURL": (_url, Entry("check", "expect(page).toHaveURL(/re/ | text)", "expect url_matches / url_contains",
                              "converted", "a text: url_contains (approximated)")),
    "toHaveTitle": (_title, Entry("check", "expect(page).toHaveTitle(text | /re/)",
                                  "expect js document.title equals / matches", "converted")),
}
#: `expect.poll(() => page.evaluate(() => EXPR))` matchers
POLLS: dict[str, Entry] = {
    "toBe": Entry("check", "expect.poll(() => page.evaluate(() => expr)).toBe(value)", "expect js expr equals",
                  "converted"),
    "toEqual": Entry("check", "expect.poll(() => page.evaluate(() => expr)).toEqual(value)",
                     "expect js expr equals (the value's JSON text)", "converted"),
    "toContain": Entry("check", "expect.poll(() => page.evaluate(() => expr)).toContain(item)",
                       "expect js expr contains the item's JSON text", "approximated",
                       "the list's JSON text contains the item's: a text item is found as a whole item"),
}
#: the structure calls (core.py walks them)
STRUCTURE = {
    "test.describe": "describe", "test.describe.parallel": "describe", "test.describe.serial": "describe",
    "describe": "describe", "test": "test", "it": "test", "test.skip": "skip", "test.fixme": "fixme",
    "test.only": "only", "test.describe.skip": "describe", "test.describe.only": "describe",
    "test.beforeEach": "before_each", "test.afterEach": "after_each", "beforeEach": "before_each",
    "afterEach": "after_each", "test.beforeAll": "before_all", "test.afterAll": "after_all",
    "beforeAll": "before_all", "afterAll": "after_all", "test.step": "step",
}
STRUCTURE_ENTRIES = (
    Entry("structure", "test.describe(title, fn)", "a folder named after the title", "converted"),
    Entry("structure", "test(title, fn)", "a flow spec, `name:` the title", "converted"),
    Entry("structure", "test.beforeEach(fn) / test.afterEach(fn)", "the folder's before_each.steps.yaml / "
          "after_each.steps.yaml (the file's own: the folder of the file)", "converted"),
    Entry("structure", "test.step(title, fn)", "`group:` the title", "converted"),
    Entry("structure", "test.skip / test.fixme (title, fn)", "a flow spec in needs-review/", "converted"),
    Entry("structure", "test.only(title, fn)", "a flow spec", "approximated", "flowwalk runs every flow"),
    Entry("structure", "test.beforeAll / test.afterAll", "nothing", "not_converted",
          "every flow starts in a fresh browser context"),
    Entry("structure", "test.describe.configure({ mode })", "nothing", "approximated",
          "every flow runs on its own; --workers runs them in parallel"),
    Entry("reuse", "a function of the file called as a statement", "a steps file steps/<name>.steps.yaml with a "
          "parameter per argument (`page` aside), and `use:`", "converted"),
    Entry("reuse", "for (const x of <literal list>) { ... }", "the body unrolled once per item", "converted"),
    Entry("reuse", "const x = <literal> / <locator>", "written into each step that uses it", "converted"),
)
LOCATOR_ENTRIES = (
    Entry("locator", "page.locator(css)", "the selector", "converted"),
    Entry("locator", "l.locator(css)", "`<l> >> <css>`", "converted"),
    Entry("locator", "getByRole(role, { name, exact, checked, level, ... })", "`role=<role>[name=\"…\"i]`",
          "converted"),
    Entry("locator", "getByText(text, { exact })", "`text=…` (exact: `text=\"…\"`)", "converted"),
    Entry("locator", "getByTestId(id)", "`[data-testid=\"…\"]` (the attribute: --test-id-attribute)", "converted"),
    Entry("locator", "getByPlaceholder / getByAltText / getByTitle (text, { exact })",
          "`[placeholder*=\"…\" i]`, `[alt*=…]`, `[title*=…]` (exact: `=`)", "converted"),
    Entry("locator", "getByLabel(text)", "nothing", "not_converted", "no selector engine flowwalk accepts"),
    Entry("locator", "l.nth(i) / l.first() / l.last()", "`<l> >> nth=i` (0, -1)", "converted"),
    Entry("locator", "l.filter({ hasText, hasNotText, has, hasNot })", "`:has-text(…)`, `:has(…)` on the last "
          "CSS part", "converted"),
)


def entries() -> list[Entry]:
    """Every row of the table, in the order docs/import.md lists them."""
    return [*STRUCTURE_ENTRIES, *LOCATOR_ENTRIES, *(e for _, e in PAGE.values()), *(e for _, e in ACTIONS.values()),
            *(e for _, e in MATCHERS.values()), *POLLS.values()]


def render_table() -> str:
    """The table as Markdown, for docs/import.md."""
    out = ["| group | Playwright Test | flow spec | how | note |", "|---|---|---|---|---|"]
    for e in entries():
        out.append(f"| {e.group} | `{e.call}` | {e.becomes} | {e.outcome.replace('_', ' ')} | {e.note} |")
    return "\n".join(out) + "\n"


# --- the front end ------------------------------------------------------------------------------------------


class PlaywrightTest:
    """Playwright Test's side of an import."""

    structure = STRUCTURE

    def __init__(self, test_id_attribute: str = "data-testid"):
        self.locators = _Locators(test_id_attribute)

    def recognises(self, source: Source) -> bool:
        data = source.data
        return b"@playwright/test" in data or (b"test(" in data and b"page" in data)

    def fixture(self, name: str, annotation: str) -> Any | None:
        return PageRef() if name == "page" or annotation == "Page" else None

    def bound(self, walk: Walk, node: Node, scope: Mapping[str, Any]) -> Any:
        try:
            located = self._locator(walk, node, scope)
        except Unfit as unfit:
            raise Unevaluable(node, unfit.why) from None
        if located is None:
            raise Unevaluable(node, f"'{text(walk.source, node)[:60]}' is not a locator or a literal")
        return located

    def _locator(self, walk: Walk, node: Node, scope: Mapping[str, Any]) -> Locator | None:
        root, segments = chain_of(walk.source, node)
        base = self._root(walk, root, scope)
        if base is None:
            return None
        located = None if isinstance(base, PageRef) else base
        for seg in segments:
            located = self.locators.link(walk, located, seg, scope)
        return located

    def _root(self, walk: Walk, root: Node, scope: Mapping[str, Any]) -> PageRef | Locator | None:
        if root.type != "identifier":
            return None
        value = scope.get(text(walk.source, root))
        return value if isinstance(value, (PageRef, Locator)) else None

    def statement(self, walk: Walk, node: Node, scope: Mapping[str, Any]) -> Mapped | None:
        callee = text(walk.source, node.child_by_field_name("function"))  # type: ignore[arg-type]
        if callee == "test.describe.configure":
            return Mapped((), "approximated", "every flow runs on its own; --workers runs them in parallel")
        root, segments = chain_of(walk.source, node)
        soft = False
        if root.type == "identifier" and text(walk.source, root) == "expect" and segments and \
                segments[0].name in ("poll", "soft") and segments[0].args is not None:
            # `expect.poll(fn)` / `expect.soft(x)`: the call of expect's method is the subject's call
            soft = segments[0].name == "soft"
            root, segments = segments[0].node, segments[1:]
            if not soft:
                try:
                    return self._poll(walk, root, segments, scope)
                except (Unfit, Unevaluable) as unfit:
                    return Mapped((), "not_converted", unfit.why, checks=1)
        try:
            if root.type == "call_expression" and (soft or text(
                    walk.source, root.child_by_field_name("function")) == "expect"):  # type: ignore[arg-type]
                return self._expect(walk, root, segments, scope, soft)
            return self._action(walk, root, segments, scope)
        except (Unfit, Unevaluable) as unfit:
            return Mapped((), "not_converted", unfit.why, checks=1 if _is_check(walk, root) else 0)

    def _action(self, walk: Walk, root: Node, segments: Sequence[Segment], scope: Mapping[str, Any]) -> Mapped | None:
        base = self._root(walk, root, scope)
        if base is None or not segments:
            return None
        last = segments[-1]
        if isinstance(base, PageRef) and len(segments) == 1 and last.name in PAGE:
            make = PAGE[last.name][0]
            located = None
        elif last.name in ACTIONS:
            make = ACTIONS[last.name][0]
            located = None if isinstance(base, PageRef) else base
            for seg in segments[:-1]:
                located = self.locators.link(walk, located, seg, scope)
            if located is None:
                raise Unfit(f"page.{last.name}(selector, ...) is the old form: write page.locator(selector).{last.name}()")
        else:
            return None
        call = _Call(walk, scope, children(last.args) if last.args is not None else [], located)
        steps, outcome, detail = make(call)
        return _mapped(steps, outcome, detail, located)

    def _expect(self, walk: Walk, root: Node, segments: Sequence[Segment], scope: Mapping[str, Any],
                soft: bool = False) -> Mapped:
        args = children(root.child_by_field_name("arguments"))
        names = [s.name for s in segments]
        negated = "not" in names
        matcher = segments[-1] if segments and segments[-1].args is not None else None
        if matcher is None or matcher.name not in MATCHERS or not args or \
                any(n not in ("not", matcher.name) for n in names):
            raise Unfit(f"no row of the table maps the matcher '{'.'.join(names)}'")
        subject = self._subject(walk, args[0], scope)
        margs = children(matcher.args)
        timeout = None
        if margs and margs[-1].type == "object":
            options = _options(walk, margs, len(margs) - 1, scope)
            timeout = options.pop("timeout", None)
            if options or (timeout is not None and not isinstance(timeout, int)):
                raise Unfit(f"the matcher's options {sorted(options)} have no equivalent here")
            margs = margs[:-1]
        call = _Call(walk, scope, margs, subject if isinstance(subject, Locator) else None, negated)
        steps, outcome, detail = MATCHERS[matcher.name][0](call)
        if timeout is not None:
            steps = [{**s, "timeout_ms": timeout} for s in steps]
        if soft:
            outcome, detail = "approximated", detail + "; a soft check fails the test at once here"
        return _mapped(steps, outcome, detail, subject if isinstance(subject, Locator) else None, checks=1)

    def _subject(self, walk: Walk, node: Node, scope: Mapping[str, Any]) -> PageRef | Locator:
        if node.type == "identifier" and isinstance(scope.get(text(walk.source, node)), PageRef):
            return PageRef()
        located = self._locator(walk, node, scope)
        if located is None:
            raise Unfit(f"'{text(walk.source, node)[:60]}' is not a locator known before the test runs")
        return located

    def _poll(self, walk: Walk, root: Node, segments: Sequence[Segment], scope: Mapping[str, Any]) -> Mapped:
        matcher = segments[-1] if len(segments) == 1 and segments[0].args is not None else None
        if matcher is None or matcher.name not in POLLS:
            raise Unfit("expect.poll with a matcher the table does not map")
        expr = _evaluated_expression(walk, children(root.child_by_field_name("arguments")), scope)
        value = value_of(walk.source, children(matcher.args)[0], scope) if children(matcher.args) else None
        step: dict[str, Any] = {"type": "expect", "kind": "js", "expr": expr}
        if matcher.name == "toContain":
            if isinstance(value, Param):
                step["contains"] = '"' + spelled(value) + '"'
            elif isinstance(value, str):
                step["contains"] = json.dumps(value, ensure_ascii=False)
            else:
                raise Unfit("toContain of a value that is not a text")
            return Mapped((step,), "approximated", "expect js contains the item's JSON text", checks=1)
        if isinstance(value, (dict, list, Regex)) or value is None:
            if isinstance(value, Regex) or value is None:
                raise Unfit("toBe of a value flowwalk compares as no text")
            step["equals"] = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        else:
            step["equals"] = spelled(value)
        return Mapped((step,), "converted", "expect js equals", checks=1)


def _evaluated_expression(walk: Walk, args: list[Node], scope: Mapping[str, Any]) -> str:
    """EXPR of `() => page.evaluate(() => EXPR)` (or a block that returns it)."""
    if not args or args[0].type != "arrow_function":
        raise Unfit("expect.poll takes a function written in place")
    body = args[0].child_by_field_name("body")
    if body is not None and body.type == "statement_block":
        statements = children(body)
        if len(statements) != 1 or statements[0].type != "return_statement" or not children(statements[0]):
            raise Unfit("expect.poll's function must return page.evaluate(...) and do nothing else")
        body = children(statements[0])[0]
    while body is not None and body.type in ("await_expression", "parenthesized_expression"):
        body = children(body)[0]
    if body is None or body.type != "call_expression":
        raise Unfit("expect.poll's function must return page.evaluate(() => expression)")
    root, segments = chain_of(walk.source, body)
    inner = children(segments[0].args) if len(segments) == 1 and segments[0].args is not None else []
    if root.type != "identifier" or not isinstance(scope.get(text(walk.source, root)), PageRef) or \
            segments[0].name != "evaluate" or len(inner) != 1 or inner[0].type != "arrow_function" or \
            children(inner[0].child_by_field_name("parameters")):
        raise Unfit("expect.poll's function must return page.evaluate(() => expression), with no arguments")
    expression = inner[0].child_by_field_name("body")
    if expression is None or expression.type == "statement_block":
        raise Unfit("page.evaluate's function must be one expression")
    return text(walk.source, expression)


def _is_check(walk: Walk, root: Node) -> bool:
    function = root.child_by_field_name("function")
    return root.type == "call_expression" and function is not None and text(walk.source, function).startswith(
        "expect")


def _mapped(steps: list[dict[str, Any]], outcome: Outcome, detail: str, located: Locator | None,
            checks: int = 0) -> Mapped:
    if located is not None and located.approx and outcome == "converted":
        outcome, detail = "approximated", f"{detail}; {located.approx}"
    return Mapped(tuple(steps), outcome, detail, checks)
