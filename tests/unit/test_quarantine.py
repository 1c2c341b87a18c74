"""The quarantine file (spec/quarantine.py): validated like every input, each bad file's exact
messages kept beside it (tests/corpus/quarantine/bad/*.expected; FLOWWALK_UPDATE_CORPUS=1 rewrites
them); entries map onto test and scenario ids and expire by the day of the run."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest

from flowwalk.errors import SpecError, UsageError
from flowwalk.spec.quarantine import find_quarantine, load_quarantine

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "corpus" / "quarantine"
SCENARIOS = {"specs/search.flow.yaml#search": ["specs/search.flow.yaml#search"],
             "rules/shop.rules.yaml#checkout": ["rules/shop.rules.yaml#checkout/cart",
                                                "rules/shop.rules.yaml#checkout/pay"]}
TODAY = datetime.date(2026, 6, 1)


@pytest.fixture(autouse=True)
def _at_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


@pytest.mark.parametrize("path", sorted((CORPUS / "bad").glob("*.yaml")), ids=lambda p: p.name)
def test_a_bad_quarantine_file_is_refused_with_the_expected_messages(path: Path) -> None:
    with pytest.raises(SpecError) as caught:
        load_quarantine(path.relative_to(REPO), SCENARIOS, TODAY)
    rendered = "\n".join(p.render() for p in caught.value.problems) + "\n"
    expected = path.with_name(path.name + ".expected")
    if os.environ.get("FLOWWALK_UPDATE_CORPUS") == "1":
        expected.write_text(rendered, encoding="utf-8")
    assert rendered == expected.read_text(encoding="utf-8")
    assert all(p.loc.line >= 1 and p.hint for p in caught.value.problems)


def test_entries_cover_a_test_or_every_test_of_a_scenario_and_expire_after_their_day() -> None:
    record = load_quarantine((CORPUS / "good" / "flowwalk-quarantine.yaml").relative_to(REPO), SCENARIOS, TODAY)
    assert record["path"] == "tests/corpus/quarantine/good/flowwalk-quarantine.yaml"
    assert [(e["id"], e["expires"], e["expired"], e["tests"]) for e in record["entries"]] == [
        ("specs/search.flow.yaml#search", "2026-12-31", False, ["specs/search.flow.yaml#search"]),
        ("rules/shop.rules.yaml#checkout", "2026-01-31", True,
         ["rules/shop.rules.yaml#checkout/cart", "rules/shop.rules.yaml#checkout/pay"]),
    ]
    # the expiry day itself still holds; the day after, the entry has expired
    last_day = load_quarantine((CORPUS / "good" / "flowwalk-quarantine.yaml").relative_to(REPO), SCENARIOS,
                               datetime.date(2026, 12, 31))
    assert last_day["entries"][0]["expired"] is False
    record = load_quarantine((CORPUS / "good" / "flowwalk-quarantine.yaml").relative_to(REPO), {}, TODAY)
    assert record["unknown"] == ["specs/search.flow.yaml#search", "rules/shop.rules.yaml#checkout"]


def test_the_file_is_found_by_its_default_name_or_must_exist_when_named(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert find_quarantine(None) is None
    (tmp_path / "flowwalk-quarantine.yaml").write_text('quarantine_version: "1"\n')
    assert find_quarantine(None) == Path("flowwalk-quarantine.yaml")
    with pytest.raises(UsageError) as caught:
        find_quarantine("nope.yaml")
    assert "--quarantine 'nope.yaml' does not exist" in str(caught.value)
