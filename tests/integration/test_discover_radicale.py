"""`discover` on Radicale's web UI (PyPI `radicale`), a single-page app whose scenes swap in place.

After its login (kept in the page: every spec logs in first), the collections scene's controls are
links with an empty href: the crawl uses them as controls, from a fresh login each, and the
create and upload scenes they open become control specs that pass. Nothing is stored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
import yaml

from flowwalk.browser import Browser
from flowwalk.discover import DiscoverOptions, discover
from radicaleapp import LOGIN_FLOW_YAML, USER, Radicale

pytestmark = pytest.mark.browser


@pytest.fixture()
def radicale(tmp_path: Path) -> Iterator[Radicale]:
    site = Radicale(tmp_path / "radicale").start()
    try:
        yield site
    finally:
        site.stop()


def test_the_scenes_links_open_are_controls_and_their_specs_pass(radicale: Radicale, flowwalk_browser: Browser,
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
    # a login kept in the page starts every spec; nothing was created or uploaded
    assert all(spec["steps"][0]["selector"] == "#loginscene input[data-name=user]" for spec in specs)
    assert radicale.collections() == [] and result.needs_review == ()
