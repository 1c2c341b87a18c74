"""The promise of `flowwalk discover`, as a user runs it: discover a site, then `flowwalk run` the
folder it wrote, and it is green (examples/site, served on 127.0.0.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _cli import ROOT, flowwalk
from flowwalk.serve import StaticServer

pytestmark = pytest.mark.browser


def test_discover_then_run_is_green(tmp_path: Path) -> None:
    out = tmp_path / "checks"
    with StaticServer(ROOT / "examples" / "site") as server:
        found = flowwalk("discover", f"{server.url}/index.html", "--out", str(out), "--max-pages", "2", "--no-model")
        assert found.returncode == 0, found.stderr
        assert "page 1/2 depth 0 /index.html" in found.stderr            # progress as it goes
        assert "dismissed the cookie banner" in found.stderr
        assert f"next: flowwalk run {out}/" in found.stdout
        crawl = json.loads((out / "discover" / "crawl.json").read_text())
        written = [s["path"] for s in crawl["specs"] if s["status"] == "written"]
        assert len(crawl["pages"]) == 2 and len(written) >= 2
        assert "cookie_banner" in {f["kind"] for f in crawl["features"]}
        ran = flowwalk("run", str(out), "--out", str(tmp_path / "report"))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert f"{len(written)} tests: {len(written)} passed" in ran.stdout
