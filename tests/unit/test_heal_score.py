"""Fingerprint similarity and the score combination (pure), and reading fingerprints back."""

from __future__ import annotations

import json
from pathlib import Path

from flowwalk.heal.fingerprint import FingerprintStore, bound
from flowwalk.heal.score import MARGIN, THRESHOLD, combine, similarity

SAVE = {"tag": "button", "id": "save-btn", "name": "", "role": "button", "aname": "Save", "testid": "",
        "classes": ["btn", "primary"], "text": "Save", "type": "button", "href": "", "nth": 1,
        "ancestors": ["div.actions", "form#profile.card"], "context": "Save Cancel"}
CANCEL = {**SAVE, "id": "cancel-btn", "aname": "Cancel", "text": "Cancel", "classes": ["btn"], "nth": 2}


def test_the_same_element_is_1_and_a_renamed_id_stays_close() -> None:
    assert similarity(SAVE, SAVE) == 1.0
    renamed = {**SAVE, "id": "save-button"}
    assert 0.9 < similarity(SAVE, renamed) < 1.0


def test_a_neighbour_of_the_same_kind_stays_under_the_threshold() -> None:
    assert similarity(SAVE, CANCEL) < THRESHOLD


def test_only_features_the_old_fingerprint_has_count() -> None:
    plain = {"tag": "button", "role": "button", "text": "Save"}
    assert similarity(plain, {**SAVE}) == 1.0             # gaining an id, classes ... costs nothing
    assert similarity(SAVE, plain) < similarity(plain, SAVE)   # losing them does


def test_combine_takes_the_larger_and_rewards_agreement() -> None:
    assert combine(None, None) == 0.0
    assert combine(0.9, None) == 0.9 and combine(None, 0.7) == 0.7
    assert combine(0.68, 0.9) == round(0.9 + 0.1 * 0.68, 3)
    # the description decides between two look-alikes: a lead of more than the margin
    assert combine(0.68, 0.95) - combine(None, 0.95) >= MARGIN * 0.68


def test_bound_keeps_known_keys_cuts_and_redacts() -> None:
    raw = {**SAVE, "text": "x" * 500, "classes": [f"c{i}" for i in range(30)], "value": "hunter2",
           "aname": "token hunter2"}
    fp = bound(raw, lambda s: s.replace("hunter2", "***"))
    assert fp is not None
    assert "value" not in fp and len(fp["text"]) == 80 and len(fp["classes"]) == 8
    assert fp["aname"] == "token ***"
    assert len(json.dumps(fp)) < 1500
    assert bound({"id": "no tag"}) is None and bound("nonsense") is None


def test_the_store_reads_an_earlier_emit_jsonl_and_prefers_the_same_file(tmp_path: Path) -> None:
    def step(path: str, line: int, pinned: str, text: str, status: str = "passed") -> str:
        return json.dumps({"event": "step_finished", "status": status, "path": path, "line": line,
                           "detail": {"fingerprint": {**SAVE, "text": text, "pinned": pinned}}})

    (tmp_path / "emit.jsonl").write_text("\n".join([
        '{"event": "run_started"}', "not json",
        step("a.flow.yaml", 10, "#save-btn", "in a"), step("b.flow.yaml", 3, "#save-btn", "in b"),
        step("a.flow.yaml", 30, "#save-btn", "in a, later"), step("a.flow.yaml", 12, "#x", "failed", "failed"),
    ]))
    store = FingerprintStore.load(tmp_path)   # a report folder or its emit.jsonl
    assert len(store) == 3
    assert store.get("a.flow.yaml", 12, "#save-btn")["text"] == "in a"         # nearest line
    assert store.get("a.flow.yaml", 28, "#save-btn")["text"] == "in a, later"
    assert store.get("c.flow.yaml", 1, "#save-btn") is not None                # same selector elsewhere
    assert store.get("a.flow.yaml", 12, "#x") is None                          # only passed steps count
    assert len(FingerprintStore.load(tmp_path / "missing.jsonl")) == 0


def test_a_carried_fingerprint_ages_and_is_retaken_after_five_runs() -> None:
    from flowwalk.heal.fingerprint import REFRESH_RUNS, FingerprintStore, fresh

    store = FingerprintStore()
    assert store.carry("a.flow.yaml", 3, "#save-btn") is None          # none yet: probe
    record = fresh({"n": 1, "fp": SAVE}, "#save-btn", lambda s: s)
    assert record is not None and record["age"] == 0 and record["pinned"] == "#save-btn"
    store.put("a.flow.yaml", 3, "#save-btn", record)
    ages = []
    for _ in range(REFRESH_RUNS):
        carried = store.carry("a.flow.yaml", 3, "#save-btn")
        if carried is None:
            break
        ages.append(carried["age"])
        store.put("a.flow.yaml", 3, "#save-btn", carried)   # what the next run reads back
    assert ages == list(range(1, REFRESH_RUNS))                       # then it is taken afresh
