"""discover's model step against the fake OpenAI-compatible server on 127.0.0.1: what the model
proposes is used only where it holds to the crawl, the rest is dropped and recorded."""

from __future__ import annotations

from typing import Iterator

import pytest

from discover_kit import crawl_state
from fake_model import FakeModel, Reply
from flowwalk.agent import LLMConfig
from flowwalk.discover.advice import advise_specs
from flowwalk.discover.features import classify
from flowwalk.discover.generate import GeneratedSpec, generate_specs
from flowwalk.discover.options import DiscoverOptions
from flowwalk.discover.record import ModelCallRecord, ModelDrop
from flowwalk.settings import Secrets, Settings


@pytest.fixture()
def fake() -> Iterator[FakeModel]:
    with FakeModel() as server:
        yield server


def advise(fake: FakeModel, *replies: Reply) -> tuple[list[GeneratedSpec], list[GeneratedSpec],
                                                      list[ModelDrop], list[ModelCallRecord]]:
    state = crawl_state()
    features = classify(state.pages, state.dismiss)
    specs = generate_specs(state, features, submit_forms=True)   # smoke, navigation, log in
    fake.script(*replies)
    settings = Settings(llm=LLMConfig(base_url=fake.base_url, model="fake-1"), secret_names=("PASSWORD",),
                        secrets=Secrets({"PASSWORD": "hunter2-s3cret"}))
    said: list[str] = []
    out, drops, calls = advise_specs(specs, state, features, settings, DiscoverOptions(url=state.start_url),
                                     said.append)
    assert said
    return specs, out, drops, calls


def expects(spec: GeneratedSpec) -> list[str]:
    return [f"{s.get('kind')} {s.get('selector') or s.get('value')}" for s in spec.data["steps"]
            if s.get("type") == "expect"]


def test_names_descriptions_and_kept_checks_are_applied(fake: FakeModel) -> None:
    before, after, drops, calls = advise(fake, Reply({"specs": [
        {"spec": 1, "name": "Home page welcomes", "description": "The home page answers with its heading.",
         "keep": [1]},
        {"spec": 2, "name": "Main menu", "extra": [{"kind": "visible", "selector": '[data-testid="deals"]'},
                                                  {"kind": "url_contains", "value": "/products.html"}]},
    ], "reason": "clearer"}))
    assert after[0].data["name"] == "Home page welcomes"
    assert expects(before[0]) == ["text_contains h1", "url_matches ^http://127\\.0\\.0\\.1:9/?(\\?.*)?$",
                                  "text_contains h1", "url_contains /products.html"]
    assert expects(after[0]) == ["text_contains h1"]
    assert after[0].text.splitlines()[1].startswith("# smoke: /, /products.html") and "name: Home page welcomes" in after[0].text
    assert expects(after[1])[-2:] == ['visible [data-testid="deals"]', "url_contains /products.html"]
    assert after[2] == before[2]                       # not mentioned: unchanged
    assert drops == [] and [c.outcome for c in calls] == ["answered"]
    shown = fake.requests[0].text
    assert "spec 2: home page: Main navigation" in shown and "check 1: text_contains" in shown   # the specs and their checks
    assert "hunter2-s3cret" not in shown


def test_what_does_not_hold_to_the_crawl_is_dropped_and_recorded(fake: FakeModel) -> None:
    before, after, drops, _ = advise(fake, Reply({"specs": [
        {"spec": 1, "name": "Win a prize at http://evil.example/claim", "keep": []},
        {"spec": 2, "extra": [{"kind": "visible", "selector": "#not-on-the-page"},
                              {"kind": "url_contains", "value": "http://evil.example/"},
                              {"kind": "js", "value": "fetch('http://evil.example')"}]},
        {"spec": 3, "keep": [7], "description": "Log in\nhere"},
    ]}))
    reasons = {(d.feature, d.reason.split(",")[0].split(";")[0]) for d in drops}
    assert reasons == {
        ("home/smoke", "not a one-line name"),
        ("home/smoke", "a spec keeps at least one check"),
        ("home/navigation", "the selector does not resolve to one element on the recorded page"),
        ("home/navigation", "not a URL of the crawl inside the allowed hosts"),
        ("home/navigation", "only visible and url_contains checks may be added"),
        ("home/login", "names checks the spec does not have"),
    }
    assert after[0].data["name"] == before[0].data["name"] and expects(after[0]) == expects(before[0])
    assert expects(after[1]) == expects(before[1])
    assert after[2].data["description"] == "Log in here"   # one line: the break is a space


@pytest.mark.parametrize("replies, says", [
    ((Reply(status=503),), "ModelUnavailable"),
    ((Reply({"specs": "all good"}), Reply({"specs": [{"spec": 99}]})), "NoValidAnswer"),
])
def test_without_usable_advice_the_deterministic_specs_stand(fake: FakeModel, replies: tuple[Reply, ...],
                                                            says: str) -> None:
    before, after, drops, calls = advise(fake, *replies)
    assert [s.text for s in after] == [s.text for s in before]
    assert drops[0].feature == "*" and drops[0].reason.startswith(says)
    assert len(calls) == len(replies)
