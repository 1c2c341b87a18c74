"""The scene journey's choices (discover/journeys.py `_InScene`) over recorded page reads: a form a
control opened in place is filled and saved, a form the page showed at rest never is, and the
confirmation scene gets the phrase it asks for."""

from __future__ import annotations

from flowwalk.browser.explored import (Candidate, Control, Element, FieldAsks, Form, FormAsks, Named, Observation,
                                       Survey)
from flowwalk.discover.journeys import _InScene
from flowwalk.discover.values import crawl_text

TEXT = crawl_text(1)


def _field(id_: str, value: str = "") -> Element:
    return Element(kind="field", tag="input", id=id_, type="text", candidates=(Candidate(f"#{id_}", "id", 1),))


FORM = Form(kind="form", tag="form", id="create", candidates=(Candidate("#create", "id", 1),),
            fields=(_field("href"), _field("title"), _field("about")),
            submit=Element(kind="button", tag="button", type="submit", name="Create", in_form=True,
                           candidates=(Candidate("#create button", "position", 1),)))
ASKS = FormAsks(fields=(FieldAsks(name="", id="href", value="5f1e-generated"), FieldAsks(name="", id="title"),
                        FieldAsks(name="", id="about")))


class Scene:
    """A page read as recorded: its survey, its form's asks, its text."""

    url = "http://127.0.0.1:1/app/"

    def __init__(self, text: str = "") -> None:
        self._text = text

    def survey(self) -> Survey:
        return Survey(forms=(FORM,))

    def form(self, selector: str) -> FormAsks | None:
        return ASKS if selector == "#create" else None

    def text(self) -> str:
        return self._text


def _save(at_rest: set[str]) -> tuple[str, ...] | None:
    move = _InScene(("delete",), at_rest=at_rest).next_move(Observation(), Observation(), [], [], Scene())  # type: ignore[arg-type]
    return None if move is None else tuple(f"{s.get('action')} {s.get('selector')} {s.get('value', '')}".strip()
                                           for s in move.steps)


def test_a_form_the_control_opened_is_filled_where_empty_and_saved() -> None:
    assert _save(set()) == (f"fill #title {TEXT}", f"fill #about {TEXT} about", "click #create button")


def test_a_form_the_page_showed_at_rest_is_never_the_scenes() -> None:
    # a change form on the page before the click (a date widget's "Today" link on it) is an item's own
    assert _save({"#create"}) is None


def test_the_confirmation_gets_the_phrase_it_asks_for_and_its_own_button() -> None:
    scene = _InScene(("delete",), at_rest=set())
    scene.done = ["save", "open-edit", "edit", "open-delete"]
    now = Observation(elements=(
        Named(sel="input.confirm", visible=True, value="", control=Control(kind="field", type="text")),
        Named(sel="#really", visible=True, control=Control(kind="button", type="button", name="Delete", words="Delete")),
        Named(sel="#back", visible=True, control=Control(kind="button", type="button", name="Cancel", words="Cancel"))))
    page = Scene(f"To delete the collection {TEXT} please enter the phrase DELETE in the box below:")
    move = scene.next_move(Observation(), now, [], [], page)  # type: ignore[arg-type]
    assert move is not None
    assert [(s.get("action"), s.get("selector"), s.get("value")) for s in move.steps] == [
        ("fill", "input.confirm", "DELETE"), ("click", "#really", None)]
    # a scene that does not name the journey's item is not confirmed
    other = _InScene(("delete",), at_rest=set())
    other.done = list(scene.done[:4])
    assert other.next_move(Observation(), now, [], [], Scene("To delete the collection Team calendar ...")) is None  # type: ignore[arg-type]
