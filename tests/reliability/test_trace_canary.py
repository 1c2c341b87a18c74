"""The canary: traces on for every flow, sign-in flows included, and no secret in any byte of any artifact.

Unique secrets are planted through every way a secret enters a run, against tests/canary_site.py:
`fill` (a sign-in's password, the leaky page's two fields), `press` (a key that is a secret: the
press fails, and its error names the key), an HTTP header from a secret (`--http-header`), basic
auth (`--http-credentials`: user:pass, and its base64 in every request's Authorization header),
a session's cookie and local storage (a rule file's setup saves the session, a flow starts from
it), a URL query (a GET form), a request body (a form POST and a JSON fetch, echoed back in the
answer), and the page spreading what it has into its DOM, title, attributes and console and an
uncaught error. Every flow fails after its secret went in, so every kind of evidence is written:
the failure screenshot (masked), the accessibility snapshot, the console and network records, the
trace (`--trace on`, `--screenshots on`).

Then every file of the report folder is read and every archive in it inflated (tests/leakscan.py),
and so is the run's own temporary folder (TMPDIR) and anything flowwalk or Playwright left in the
system's; all are searched for every spelling of every secret. Expected: none. The same run with
the scrubber off (FLOWWALK_TEST_UNSCRUBBED_TRACES=1, a test hook) finds each planted value in its
traces: the canary can fail, and every entry point really reaches a trace.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
import zipfile
from pathlib import Path

import pytest

from canary_site import CanarySite
from leakscan import blobs, leaks
from runkit import Flowwalk, by_file

pytestmark = [pytest.mark.browser, pytest.mark.long]

USER, BASIC_PASSWORD = "canaryuser", "b4sic/PASS+9"
SECRETS = {
    "SIGNIN_PW": "s1gnIN&Pass word7",
    "TYPED_TOKEN": "tYp3dTOKEN4410",
    "TYPED_PW": 'Pw9&Canary Pass/é"<x>',
    "PRESS_KEY": "pr3ssKEY5519",
    "HEADER_VALUE": "hdr-Canary-7731",
    "BASIC_AUTH": f"{USER}:{BASIC_PASSWORD}",
}
HEADER = "X-Canary"
FAST = "timeout_ms: 500"

SPECS = {
    "a-signin.rules.yaml": f"""\
rules_version: "1"
verification: sign in, then fail
scenarios:
  - name: sign in
    url: /login
    rules:
      - name: sign_in
        saves_session: canary
        steps:
          - {{type: act, action: fill, selector: "#user", value: ada}}
          - {{type: act, action: fill, selector: "#pw", value: "{{{{SIGNIN_PW}}}}"}}
          - {{type: act, action: click, selector: "#go"}}
          - {{type: expect, kind: text_contains, selector: "#welcome", value: Welcome back}}
      - name: after_sign_in
        parents: [sign_in]
        steps:
          - {{type: act, action: click, selector: "#welcome"}}
          - {{type: expect, kind: text_contains, selector: "#welcome", value: not this, {FAST}}}
""",
    "b-account.flow.yaml": f"""\
spec_version: "1.1"
name: the account page spreads the session and the headers
session: canary
url: /account
steps:
  - {{type: expect, kind: text_contains, selector: "#stored", value: token ls}}
  - {{type: expect, kind: text_contains, selector: "#seen", value: not what it shows, {FAST}}}
""",
    "c-leaky.flow.yaml": f"""\
spec_version: "1.1"
name: typed secrets spread through the DOM, the console, an error and a POST body
url: /leaky
steps:
  - {{type: act, action: fill, selector: "#visible", value: "{{{{TYPED_TOKEN}}}}"}}
  - {{type: act, action: fill, selector: "#pw", value: "{{{{TYPED_PW}}}}"}}
  - {{type: act, action: click, selector: "#spread"}}
  - {{type: act, action: click, selector: "#post"}}
  - {{type: wait, for: "#echo[data-answer]"}}
  - {{type: expect, kind: text_contains, selector: "#echo", value: not what was typed, {FAST}}}
""",
    "d-query.flow.yaml": f"""\
spec_version: "1.1"
name: a GET form puts typed secrets into the URL
url: /leaky
steps:
  - {{type: act, action: fill, selector: "#visible", value: "{{{{TYPED_TOKEN}}}}"}}
  - {{type: act, action: fill, selector: "#pw", value: "{{{{TYPED_PW}}}}"}}
  - {{type: act, action: press, selector: "#pw", value: Enter}}
  - {{type: wait, for: "#query"}}
  - {{type: expect, kind: url_contains, value: /signed-in, {FAST}}}
""",
    "e-press.flow.yaml": """\
spec_version: "1.1"
name: a secret pressed as a key
url: /leaky
steps:
  - {type: act, action: press, selector: "#visible", value: "{{PRESS_KEY}}"}
""",
}


def _write_specs(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name, text in SPECS.items():
        (folder / name).write_text(text)
    return folder


def _start(site: CanarySite, specs: Path, out: Path, tmp: Path, logs: Path, *, scrub: bool) -> Flowwalk:
    tmp.mkdir(parents=True)
    env = {**SECRETS, "TMPDIR": str(tmp)}
    if not scrub:
        env["FLOWWALK_TEST_UNSCRUBBED_TRACES"] = "1"
    args = ["run", str(specs), "--base-url", site.url, "--out", str(out), "--workers", "1",
            "--trace", "on", "--screenshots", "on", "--http-header", f"{HEADER}=HEADER_VALUE",
            "--http-credentials", "BASIC_AUTH", *[a for name in SECRETS for a in ("--secret", name)]]
    return Flowwalk(args, env=env, logs=logs)


def _system_leftovers(since: float) -> list[Path]:
    """What flowwalk or Playwright made in the system's temporary folder since `since`."""
    root = Path(tempfile.gettempdir())
    return [p for p in root.iterdir() if p.name.startswith(("flowwalk", "playwright")) and p.stat().st_mtime >= since]


def test_no_secret_in_any_byte_of_any_artifact_with_traces_for_every_flow(tmp_path: Path) -> None:
    specs = _write_specs(tmp_path / "specs")
    started = time.time()
    with CanarySite(USER, BASIC_PASSWORD, HEADER) as site:
        planted = {**SECRETS, "BASIC_PASSWORD": BASIC_PASSWORD, "COOKIE": site.cookie, "STORAGE": site.storage}
        runs = {scrub: _start(site, specs, tmp_path / f"report-{scrub}", tmp_path / f"tmp-{scrub}",
                              tmp_path / f"logs-{scrub}", scrub=scrub) for scrub in (True, False)}
        done = {scrub: run.finish(timeout=240) for scrub, run in runs.items()}
    out = tmp_path / "report-True"
    for scrub, finished in done.items():
        assert not finished.timed_out and finished.returncode == 1, finished.output

    # the failures happened as designed, each after its secret went in (else the canary proves nothing)
    result = json.loads((out / "verdict.json").read_text())
    statuses = {Path(t["source"]).name + (f"/{t['rule']}" if t["kind"] == "rules" else ""):
                (t["status"], (t.get("failure") or {}).get("runtime_code")) for t in result["tests"]}
    assert statuses == {
        "a-signin.rules.yaml/sign_in": ("passed", None),
        "a-signin.rules.yaml/after_sign_in": ("failed", "EXPECT_STATE_MISMATCH"),
        "b-account.flow.yaml": ("failed", "EXPECT_STATE_MISMATCH"),
        "c-leaky.flow.yaml": ("failed", "EXPECT_STATE_MISMATCH"),
        "d-query.flow.yaml": ("failed", "EXPECT_STATE_MISMATCH"),
        "e-press.flow.yaml": ("failed", "ACTION_REJECTED"),
    }, statuses
    files = by_file(result)
    account = files["b-account.flow.yaml"]["failure"]["observed"]
    assert account.count("***") >= 3, f"the account page showed the session and the headers: {account!r}"
    # every flow kept a trace, none withheld; screencast frames are off where secrets are
    finished = [json.loads(line) for line in (out / "emit.jsonl").read_text().splitlines()
                if '"scenario_finished"' in line]
    assert len(finished) == len(SPECS) and all(r["trace"] and not r["trace_withheld"] for r in finished), finished
    for record in finished:
        with zipfile.ZipFile(out / record["trace"]) as trace:
            names = trace.namelist()
        assert "trace.trace" in names and "trace.network" in names
        assert not any(n.startswith("screencast/") for n in names)
    # the failure screenshot painted over the fields and texts holding a secret, and says which
    masked = files["c-leaky.flow.yaml"]["failure"]["context"]["screenshot_masked"]
    assert {"input#visible", "input#pw", "p#echo"} <= set(masked), masked

    found = leaks(blobs(out), planted)
    found += leaks([("run console", done[True].output.encode())], planted)
    found += leaks(blobs(tmp_path / "tmp-True"), planted)
    for leftover in _system_leftovers(started):
        found += leaks(blobs(leftover) if leftover.is_dir() else [(str(leftover), leftover.read_bytes())], planted)
    assert found == [], "secret values leaked:\n" + "\n".join(found[:60])
    assert not any((tmp_path / "tmp-True").iterdir()), "the run left files in its temporary folder"

    # the control: the scrubber off, the canary finds each planted value in the traces
    unscrubbed = leaks(((w, d) for w, d in blobs(tmp_path / "report-False") if w.startswith("traces/")), planted)
    found_names = {hit.rsplit(": ", 1)[1].split("/", 1)[0] for hit in unscrubbed}
    assert found_names == set(planted), f"not in any unscrubbed trace: {set(planted) - found_names}"
    count = sum(1 for _ in blobs(out))
    print(f"\nFIGURE trace canary: {count} files and archive members searched for {len(planted)} secrets "
          f"in every spelling: 0 found (the unscrubbed control: {len(unscrubbed)} hits)")
