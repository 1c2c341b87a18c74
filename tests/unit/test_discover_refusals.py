"""discover/refusals.py: the values a form must refuse, the edges it must keep, and the journeys
walked from a recorded form (a fake page that refuses the way a Django admin form does)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from flowwalk.browser.explored import Control, FieldAsks, FormAsks, ObservedList, Observation, Option, Row
from flowwalk.discover.refusals import (EDGE, PROBE, REFUSED, FormAt, FormLimits, kept_values, probe_values, proposed,
                                        refusals, success_fragment, trim_edge, upper_bound)
from flowwalk.discover.state import CrawledPage, Outline, Step
from flowwalk.browser.explored import Survey
from flowwalk.discover.values import crawl_text


def _field(name: str, type_: str = "text", **more: Any) -> FieldAsks:
    return replace(FieldAsks(name=name, id=f"id_{name}", type=type_, required=True, row=".form-row"), **more)


BOOK = FormAsks(fields=(
    _field("title", maxlength=200), _field("author", "select", options=(Option("", "---"), Option("1", "Herbert"))),
    _field("isbn", maxlength=13), _field("published", classes=("vDateField",)), _field("pages", "number", min="0"),
    _field("available", "checkbox", required=False)))
TAKEN = {"title": crawl_text(1), "author": "Herbert", "isbn": "9780000000001", "published": "2024-01-15", "pages": "1"}
SAID = {"isbn": ("An ISBN has 13 digits.",),
        "pages": ("Ensure this value is less than or equal to 5000.",
                  "Ensure this value is less than or equal to 9223372036854775807.")}


def test_the_refusals_are_just_outside_each_rule_the_servers_first_and_a_few_a_form() -> None:
    chosen = refusals(BOOK, TAKEN, SAID)
    assert [(r.field, r.value) for r in chosen] == [("isbn", "978000000000"), ("pages", "5001"),
                                                    ("published", "31.31.2024")]
    # without what the server said: the min, the date, a required field left empty (a select never)
    plain = refusals(BOOK, TAKEN, {})
    assert [(r.field, r.value) for r in plain] == [("pages", "-1"), ("published", "31.31.2024"), ("title", "")]


def test_a_shown_max_and_pattern_give_their_own_edge() -> None:
    form = FormAsks(fields=(_field("rating", "number", min="1", max="5"), _field("code", pattern="[A-Z]{2}[0-9]{3}")))
    chosen = refusals(form, {"rating": "3", "code": "FF777"}, {})
    assert [(r.field, r.value) for r in chosen] == [("rating", "6"), ("code", "FF77")]


def test_a_storage_limit_is_no_bound_and_an_unknown_bound_is_probed() -> None:
    pages = BOOK.fields[4]
    assert upper_bound(pages, SAID["pages"]) == (5000.0, True)
    assert upper_bound(pages, SAID["pages"][1:]) == (None, False)
    assert probe_values(BOOK, TAKEN, {}) == {"pages": PROBE}
    assert probe_values(BOOK, TAKEN, SAID) == {}


def test_the_edges_are_the_bound_itself_the_length_asked_for_and_the_text_with_outer_spaces() -> None:
    text = crawl_text(EDGE)
    values, kept = kept_values(BOOK, {**TAKEN, "title": text}, SAID, text)
    assert values["pages"] == "5000" and values["isbn"] == TAKEN["isbn"] and values["title"] == f"  {text}  "
    assert [k.field for k in kept] == ["title", "isbn", "pages"]


def test_the_success_message_without_its_item_and_what_the_dom_holds() -> None:
    assert success_fragment("The book “Written by flowwalk discover 3” was added successfully.",
                            "Written by flowwalk discover 3") == "was added successfully"
    assert success_fragment("Saved", "x") == ""
    assert trim_edge(["x", "x"], "x") is True
    assert trim_edge(["x", "  x  "], "x") is False
    assert trim_edge(["y"], "x") is None


def test_a_models_value_is_taken_only_for_a_message_the_choices_do_not_read() -> None:
    form = FormAsks(fields=(_field("code"),))
    asked: list[tuple[str, tuple[str, ...]]] = []

    def propose(field: FieldAsks, said: Any) -> str | None:
        asked.append((field.name, tuple(said)))
        return "AB-12"

    out = proposed(form, {"code": "ok"}, {"code": ("Use the form XX-999.",)}, [], propose)
    assert [(r.field, r.value) for r in out] == [("code", "AB-12")] and asked == [("code", ("Use the form XX-999.",))]
    assert proposed(form, {"code": "ok"}, {"code": ("This field is required.",)}, [], propose) == []
    assert proposed(form, {"code": "AB-12"}, {"code": ("Use the form XX-999.",)}, [], propose) == []   # the accepted one
    assert proposed(form, {"code": "ok"}, {"code": ("Use the form XX-999.",)}, [], lambda f, s: "a\nb") == []


# --- the walks, over a fake form that refuses as the server does -------------------------------------------


class FakeForm:
    """A book form at /add/ whose server enforces 13 digits and at most 5000 pages, trims titles,
    and lands on /books/ after a save; a search there lists the saved rows that hold the term."""

    stored: list[dict[str, str]] = []

    def __init__(self, rules: dict[str, Any]) -> None:
        self.rules = rules
        self.path = "/books/"
        self.values: dict[str, str] = {}
        self.errors: dict[str, tuple[str, ...]] = {}
        self.message = ""
        self.term = ""

    @property
    def url(self) -> str:
        return "http://127.0.0.1:1" + self.path

    def play(self, step: Step) -> None:
        if step.get("type") == "goto":
            self.path, self.values, self.errors, self.message = step.get("url", ""), {}, {}, ""
        elif step.get("action") == "fill" and step.get("selector") == "#searchbar":
            self.term = step.get("value", "")
        elif step.get("action") == "fill":
            self.values[step.get("selector", "").removeprefix("#id_")] = step.get("value", "")
        elif step.get("action") == "click":
            self._submit()

    def _submit(self) -> None:
        v = self.values
        errors: dict[str, tuple[str, ...]] = {}
        pages = int(v.get("pages") or 0)
        if pages > self.rules["max"]:
            errors["pages"] = (f"Ensure this value is less than or equal to {self.rules['max']}.",)
        if len(v.get("isbn", "")) < self.rules["digits"]:
            errors["isbn"] = ("An ISBN has 13 digits.",)
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", v.get("published", "")):
            errors["published"] = ("Enter a valid date.",)
        if not v.get("title", "").strip():
            errors["title"] = ("This field is required.",)
        if errors:
            self.errors = errors
            return
        title = v["title"].strip() if self.rules["trim"] else v["title"]
        self.stored.append({**v, "title": title})
        self.path, self.values, self.errors = "/books/", {}, {}
        self.message = f"The book “{title}” was added successfully."

    def settle_quiet(self, max_ms: int = 0, quiet_ms: int = 0) -> None:
        pass

    def observe(self) -> Observation:
        rows = tuple(Row(text=" ".join(r["title"].split()), controls=(Control(sel="a", kind="link", name=r["title"].strip()),))
                     for r in self.stored if self.path == "/books/" and self.term and self.term in r["title"])
        return Observation(url=self.url, messages=(self.message,) if self.message else (),
                           lists=(ObservedList(sel="#result_list", item="tbody > tr", table=True, rows=rows),))

    def form(self, selector: str) -> FormAsks | None:
        if self.path != "/add/":
            return None
        return FormAsks(fields=tuple(replace(f, value=self.values.get(f.name, ""), errors=self.errors.get(f.name, ()))
                                     for f in BOOK.fields))

    def raw_texts(self, selector: str) -> tuple[str, ...]:
        return tuple(r["title"] for r in self.stored if self.term in r["title"])

    def close(self) -> None:
        pass


PAGE = CrawledPage(id="p1", slug="books", url="http://127.0.0.1:1/books/", path="/books/", title="Books", status=200,
                   depth=0, signature="s", template="", outline=Outline((), (), (), (), ()), survey=Survey(), visits=())
TARGET = replace(PAGE, id="p2", slug="add", url="http://127.0.0.1:1/add/", path="/add/")
FIELDS = {f.name: (f"#id_{f.name}", f"the {f.name} field", "select" if f.type == "select" else "fill")
          for f in BOOK.fields}
AT = FormAt(form="#book_form", fields=FIELDS, submit={"type": "act", "action": "click", "target": "Save",
                                                       "selector": "#save"},
            path="/add/", accepted=TAKEN, typed=crawl_text(1), said={"isbn": SAID["isbn"]}, landing="/books/",
            search="#searchbar")


def _explore(rules: dict[str, Any]) -> tuple[list[Any], list[str]]:
    FakeForm.stored = []
    said: list[str] = []
    limits = FormLimits(lambda page: FakeForm(rules), lambda page, step: page.play(step), lambda: True, said.append)
    return limits.explore(PAGE, AT, TARGET), said


def test_the_refusals_and_edges_of_a_form_as_it_answered() -> None:
    journeys, said = _explore({"max": 5000, "digits": 13, "trim": True})
    refused, edges = journeys
    assert refused.id == "books/journey-refusals-add" and edges.id == "books/journey-edges-add"
    # the probe found the bound; the chain refuses each value alone, and no row carries its text
    assert [m.key for m in refused.moves] == ["refuse|isbn", "refuse|pages", "refuse|published", "none|#searchbar"]
    first = [e.check for e in refused.effects[0]]
    assert first == [{"type": "expect", "kind": "text_contains", "selector": ".form-row:has(#id_isbn)",
                      "value": "An ISBN has 13 digits."},
                     {"type": "expect", "kind": "url_contains", "value": "/add/"},
                     {"type": "expect", "kind": "text_not_contains", "value": "was added successfully"}]
    second = refused.moves[1].steps
    # the second refusal puts the first field back and changes only its own
    assert [(s.get("selector"), s.get("value")) for s in second] == [("#id_isbn", "9780000000001"),
                                                                     ("#id_pages", "5001"), ("#save", None)]
    assert refused.effects[3][0].check == {"type": "expect", "kind": "text_not_contains", "selector": "#result_list",
                                           "value": crawl_text(REFUSED)}
    # the edges: 5000 pages and 13 digits taken, the title stored trimmed, exactly
    assert dict(s for s in ((x.get("selector"), x.get("value")) for x in edges.moves[0].steps) if s[0])["#id_pages"] == "5000"
    checks = [e.check for e in edges.effects[1]]
    assert {"type": "expect", "kind": "has_text", "selector": f'#result_list > tbody > tr:has-text("{crawl_text(EDGE)}") a:has-text("{crawl_text(EDGE)}")',
            "value": crawl_text(EDGE), "keep_whitespace": True} in checks
    assert not any(crawl_text(REFUSED) in r["title"] for r in FakeForm.stored)


def test_a_value_the_form_takes_is_no_refusal_and_untrimmed_text_is_not_held_to_trimming() -> None:
    journeys, said = _explore({"max": 50000, "digits": 10, "trim": False})
    # the isbn of 12 digits is taken: the chain stops there and nothing is written of it
    assert [j.id for j in journeys] == ["books/journey-edges-add"]
    assert any("took isbn" in line for line in said)
    assert not any(e.kind == "trimmed" for effects in journeys[0].effects for e in effects)


# --- the model's proposal, over the fake OpenAI-compatible server -------------------------------------------


def test_the_configured_model_proposes_a_value_held_to_one_line(tmp_path: Any) -> None:
    from fake_model import FakeModel, Reply
    from flowwalk.agent import LLMConfig
    from flowwalk.discover.refusals import model_proposer
    from flowwalk.settings import Settings

    assert model_proposer(Settings()) is None   # no model: nothing proposes
    calls: list[Any] = []
    with FakeModel() as fake:
        propose = model_proposer(Settings(llm=LLMConfig(base_url=fake.base_url, model="fake-1")), calls.append)
        assert propose is not None
        field = _field("code")
        fake.script(Reply({"value": "AB-12", "reason": "one digit short"}))
        assert propose(field, ["Use the form XX-999."]) == "AB-12"
        assert "Use the form XX-999." in fake.requests[-1].text
        # an answer of two lines is refused by the validator (asked again once), then nothing is proposed
        fake.script(Reply({"value": "a\nb"}), Reply({"value": "a\nb"}))
        assert propose(field, ["Use the form XX-999."]) is None
    assert calls and all(c.purpose == "discover" for c in calls)
    # what it proposed is a refusal to try like any other: the walk keeps it only when the page refuses it
    chosen = proposed(FormAsks(fields=(field,)), {"code": "XY-123"}, {"code": ("Use the form XX-999.",)}, [],
                      lambda f, s: "AB-12")
    assert [(r.field, r.value, r.why) for r in chosen] == [("code", "AB-12", "the value a model proposed from the message")]
