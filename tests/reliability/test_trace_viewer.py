"""A scrubbed trace of a sign-in flow loads the way Playwright's trace viewer loads it, and in the
viewer itself (`playwright show-trace`, served on 127.0.0.1 and opened in the test's headless
Chromium), with its actions, DOM snapshots and network, the password masked.

The viewer's loader (playwright-core's trace model, in the driver's `lib/vite/traceViewer/sw.bundle.js`)
reads `<name>.trace` and `<name>.network` as one JSON object a line, and every body by the name in a
`_file` / `file` key (`resources/<sha1>`); that is what the first test reads.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest

from canary_site import CanarySite
from runkit import Flowwalk

pytestmark = pytest.mark.browser

PASSWORD = "v1ewer&Pass word9"
AUTH_PASSWORD = "b4sic-VIEW-77"
SIGN_IN = """\
spec_version: "1.1"
name: sign in
saves_session: viewer
url: /login
steps:
  - {type: act, action: fill, selector: "#user", value: ada}
  - {type: act, action: fill, selector: "#pw", value: "{{PASSWORD}}"}
  - {type: act, action: click, selector: "#go"}
  - {type: expect, kind: text_contains, selector: "#welcome", value: Welcome back}
"""


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scrubbed trace of a passing sign-in flow (`--trace on`), behind basic auth."""
    tmp = tmp_path_factory.mktemp("viewer")
    (tmp / "specs").mkdir()
    (tmp / "specs" / "sign-in.flow.yaml").write_text(SIGN_IN)
    with CanarySite("ada", AUTH_PASSWORD, "X-Unused") as site:
        done = Flowwalk(["run", str(tmp / "specs"), "--base-url", site.url, "--out", str(tmp / "report"),
                         "--trace", "on", "--secret", "PASSWORD", "--http-credentials", "AUTH"],
                        env={"PASSWORD": PASSWORD, "AUTH": f"ada:{AUTH_PASSWORD}"}, logs=tmp / "logs").finish(120)
    assert done.returncode == 0, done.output
    [found] = (tmp / "report" / "traces").glob("*.zip")
    return found


def _events(archive: zipfile.ZipFile, name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in archive.read(name).decode().splitlines() if line.strip()]


def test_the_scrubbed_trace_parses_as_the_viewer_reads_it(trace: Path) -> None:
    with zipfile.ZipFile(trace) as archive:
        names = set(archive.namelist())
        actions = _events(archive, "trace.trace")
        network = _events(archive, "trace.network")
        bodies = {n: archive.read(n) for n in names if n.startswith("resources/")}
    calls = {e["callId"]: e for e in actions if e["type"] == "before"}
    fills = [e for e in calls.values() if e.get("method") == "fill"]
    assert [f["params"]["value"] for f in fills] == ["ada", "***"]
    assert any(e.get("method") == "click" for e in calls.values())
    assert all(any(a["type"] == "after" and a["callId"] == c for a in actions) for c in calls)
    snapshots = [e for e in actions if e["type"] == "frame-snapshot"]
    assert snapshots and any(s["snapshot"]["frameUrl"].endswith("/login") for s in snapshots)
    # the sign-in's POST, its body scrubbed, and the answer's page among the network entries
    posts = [n["snapshot"] for n in network if n["snapshot"]["request"]["method"] == "POST"]
    assert posts and {"name": "pw", "value": "***"} in posts[0]["request"]["postData"]["params"]
    assert bodies[posts[0]["request"]["postData"]["_file"]] == b"user=ada&pw=***"   # renamed to its new sha1
    # every body a network entry or a snapshot names is in the archive
    refs = re.findall(r'"_?file":"(resources/[^"]+)"', json.dumps(actions + network, separators=(",", ":")))
    assert refs and all(ref in bodies for ref in refs), set(refs) - set(bodies)
    everything = b"".join([trace.read_bytes(), *bodies.values(), json.dumps(actions + network).encode()])
    assert PASSWORD.encode() not in everything and AUTH_PASSWORD.encode() not in everything


def test_the_scrubbed_trace_opens_in_playwright_show_trace(trace: Path, page: Any) -> None:
    viewer = subprocess.Popen([sys.executable, "-m", "playwright", "show-trace", "--host", "127.0.0.1", "--port", "0",
                               str(trace)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, start_new_session=True)
    try:
        url = None
        assert viewer.stdout is not None
        for line in viewer.stdout:
            found = re.search(r"Listening on (http://127\.0\.0\.1:\d+\S*)", line)
            if found:
                url = found.group(1)
                break
        assert url, viewer.stderr.read() if viewer.stderr else "no address"
        page.goto(url)
        masked = page.get_by_text('Fill "***"')
        try:
            masked.first.wait_for(timeout=30_000)
        except Exception:
            page.screenshot(path=str(trace.with_suffix(".viewer.png")))
            raise
        titles = page.locator("body").inner_text()
        assert 'Fill "ada"' in titles and "Click" in titles, titles
        assert PASSWORD not in page.content()
        assert re.search(r"Network\s*\d+", page.locator("body").inner_text())   # the network tab has entries
        # the DOM snapshot of the selected (last) action renders in the viewer's frame
        def shown() -> bool:
            return any("Welcome back" in (f.evaluate("() => document.body ? document.body.innerText : ''") or "")
                       for f in page.frames if f != page.main_frame)
        deadline = time.monotonic() + 15
        while not shown() and time.monotonic() < deadline:
            page.wait_for_timeout(250)
        assert shown(), "the snapshot did not render"
    finally:
        # the CLI's node process is its child: end the whole group this test started
        os.killpg(viewer.pid, signal.SIGTERM)
        viewer.wait(timeout=10)
