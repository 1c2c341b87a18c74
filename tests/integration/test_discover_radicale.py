"""`discover` on Radicale's web UI (PyPI `radicale`), a single-page app whose scenes swap in place.

After its login (kept in the page: every spec logs in first), the collections scene's controls are
links with an empty href: the crawl uses them as controls, from a fresh login each, and the
create and upload scenes they open become control specs that pass. The create scene's form makes
a journey: create the journey's own collection, see it listed, edit it, delete it, see it gone
from the list. Each walk and each verification run deletes what it created: nothing is left
stored. Against a server whose delete keeps the collection, the journey fails at its last move.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
import yaml

from flowwalk import events as ev
from flowwalk.browser import Browser
from flowwalk.discover import DiscoverOptions, discover
from flowwalk.settings import Secrets, Settings, default_executable
from flowwalk.spec.loader import load_suites
from flowwalk.walk.run import run_plan
from radicaleapp import LOGIN_FLOW_YAML, USER, Radicale

pytestmark = pytest.mark.browser


@pytest.fixture()
def radicale(tmp_path: Path) -> Iterator[Radicale]:
    site = Radicale(tmp_path / "radicale").start()
    try:
        yield site
    finally:
        site.stop()


@pytest.mark.long
def test_the_scenes_links_open_are_controls_and_a_journey_creates_edits_and_deletes_its_own(radicale: Radicale, flowwalk_browser: Browser,
                                                                 tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RADICALE_PASSWORD", "any")
    login = tmp_path / "login.flow.yaml"
    login.write_text(LOGIN_FLOW_YAML)
    out = tmp_path / "checks"
    result = discover(DiscoverOptions(url=f"{radicale.url}/.web/", out_dir=out, use_model=False, login=login,
                                      variables=(("RADICALE_USER", USER),), secret_names=("RADICALE_PASSWORD",),
                                      submit_forms=True, max_pages=3, budget_s=300), browser=flowwalk_browser)
    specs = [yaml.safe_load(Path(p).read_text()) for p in result.specs_written]
    said = [s.get("value") for spec in specs for s in spec["steps"] if s["type"] == "expect"]
    assert "Create a new Collection" in said and any("Upload" in str(v) for v in said), said
    # a login kept in the page starts every spec
    assert all(spec["steps"][0]["selector"] == "#loginscene input[data-name=user]" for spec in specs)
    journey = next(spec for spec in specs if spec["name"].endswith("edit it, delete it"))
    steps = journey["steps"]
    acts = [(s.get("action"), s.get("selector", ""), s.get("value", "")) for s in steps if s["type"] == "act"]
    assert any(a == "fill" and v == "DELETE" for a, _sel, v in acts), acts
    assert any("a[title=\"Edit\"]" in sel for _a, sel, _v in acts) and any("a[title=\"Delete\"]" in sel for _a, sel, _v in acts)
    shown = [str(s.get("value")) for s in steps if s["type"] == "expect"]
    assert any("Written by flowwalk discover 1" in v and "(edited)" not in v for v in shown), shown
    assert any("(edited)" in v for v in shown), shown
    # its last move: the list is shown again, without the journey's own collection
    confirm = max(i for i, s in enumerate(steps) if s.get("action") == "click")
    assert steps[confirm + 1:confirm + 3] == [
        {"type": "expect", "kind": "visible", "selector": "#collectionsscene"},
        {"type": "expect", "kind": "text_not_contains", "selector": "#collectionsscene",
         "value": "Written by flowwalk discover 1"}], steps[confirm + 1:]
    # the journey and its two verification runs deleted what they created; nothing was uploaded
    assert radicale.collections() == [] and result.needs_review == ()
    # a delete that does nothing (the server keeps the collection) fails the journey at that move
    broken = Radicale(tmp_path / "broken", deletes=False).start()
    try:
        failure = _walk_once(journey, radicale.url, broken.url, tmp_path / "broken-run")
        kept = broken.collections()
    finally:
        broken.stop()
    assert failure is not None and (failure.step_index, failure.runtime_code) == (confirm + 3, "EXPECT_STATE_MISMATCH"), \
        failure   # step_index counts from 1: the row is still listed
    assert len(kept) == 1


def _walk_once(spec: dict[str, object], url: str, other: str, out: Path) -> ev.Failure | None:
    """Walk `spec` once against the server at `other` instead of `url`: its failure (None: it passed)."""
    path = out / "journey.flow.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(yaml.safe_dump(spec, sort_keys=False).replace(url, other))
    settings = Settings(out_dir=str(out), executable=default_executable(), retries=0, screenshots="off",
                        trace="off", variables={"RADICALE_USER": USER}, secret_names=("RADICALE_PASSWORD",),
                        secrets=Secrets({"RADICALE_PASSWORD": "any"}))
    scenarios = [sc for suite in load_suites([str(path)], settings) for sc in suite.scenarios]
    failures: list[ev.Failure] = []
    run_plan(scenarios, settings,
             lambda e: failures.append(e.failure) if isinstance(e, ev.RuleFinished) and e.failure else None)
    return failures[0] if failures else None
