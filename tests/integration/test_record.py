"""The recorder, driven headless with Playwright's own mouse and keyboard on tests/site/pages/record:
one test per recordable kind. Each compares the written spec with its expected file
(tests/integration/recorded/, the served address written as `BASE`), then walks the written spec
with `flowwalk run`: it must pass with no edit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

from flowwalk.errors import UsageError
from flowwalk.record import RecordRequest, RecordResult, finish, start
from flowwalk.serve import StaticServer
from flowwalk.settings import CHROMIUM_ARGS, default_executable

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("record")]

HERE = Path(__file__).resolve().parent
PAGES = HERE.parent / "site" / "pages" / "record"
EXPECTED = HERE / "recorded"
#: the served address as the expected files write it (a name that never resolves: text only)
BASE = "http://base.test"


@pytest.fixture(scope="module")
def served() -> Any:
    with StaticServer(PAGES) as server:
        yield server


class Recorded:
    def __init__(self, result: RecordResult, text: str, out: Path):
        self.result, self.text, self.out = result, text, out


def recorded(playwright_instance: Any, served: Any, tmp_path: Path, name: str, drive: Callable[[Any, Any], None],
             *, page: str = "form.html", answer: Any = None, **request: Any) -> Recorded:
    suffix = ".steps.yaml" if request.get("steps_file") else ".flow.yaml"
    out = tmp_path / "checks" / f"{name}{suffix}"
    ask = RecordRequest(url=f"{served.url}/{page}", out=out, headless=True, executable=default_executable(),
                        browser_args=CHROMIUM_ARGS, **request)
    recording = start(ask, playwright=playwright_instance, answer_dialog=answer)
    drive(recording.pages[0], recording)
    result = finish(recording, ask)
    return Recorded(result, out.read_text(encoding="utf-8"), out)


def same_as_expected(got: Recorded, served: Any, name: str) -> None:
    text = got.text.replace(served.url, BASE)
    expected = EXPECTED / f"{name}.flow.yaml"
    if os.environ.get("FLOWWALK_WRITE_EXPECTED") == "1":
        expected.write_text(text, encoding="utf-8")
    assert text == expected.read_text(encoding="utf-8")


def replayed(got: Recorded, tmp_path: Path, *extra: str, env: dict[str, str] | None = None) -> str:
    report = tmp_path / "report"
    done = subprocess.run([sys.executable, "-m", "flowwalk", "run", str(got.out), "--out", str(report), *extra],
                          cwd=tmp_path, capture_output=True, text=True, timeout=180,
                          env={**{k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}, **(env or {})})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return done.stdout


def test_click(playwright_instance: Any, served: Any, tmp_path: Path) -> None:
    def drive(page: Any, _: Any) -> None:
        box = page.locator("[data-testid=more]").bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_selector("[data-testid=extra]", state="visible")

    got = recorded(playwright_instance, served, tmp_path, "click", drive)
    same_as_expected(got, served, "click")
    replayed(got, tmp_path)


def test_fill_merges_the_typing_and_drops_the_click_that_focused(playwright_instance: Any, served: Any,
                                                                 tmp_path: Path) -> None:
    def drive(page: Any, _: Any) -> None:
        page.locator("[data-testid=name]").click()
        page.keyboard.type("Ada Lovelace")
        page.keyboard.press("Backspace")
        page.keyboard.type("e")

    got = recorded(playwright_instance, served, tmp_path, "fill", drive)
    same_as_expected(got, served, "fill")
    replayed(got, tmp_path)


def pick(page: Any, check: str, target: Any = None) -> None:
    """Pick a check in the recorder's toolbar, then (for an element's check) the element, with the mouse."""
    page.locator("flowwalk-recorder button", has_text=check).click()
    if target is not None:
        target.click()


def test_press_enter_submits_and_a_text_check_reads_the_answer(playwright_instance: Any, served: Any,
                                                              tmp_path: Path) -> None:
    def drive(page: Any, _: Any) -> None:
        page.locator("[data-testid=name]").click()
        page.keyboard.type("Ada")
        page.keyboard.press("Enter")
        page.wait_for_selector("[data-testid=result]", state="visible")
        pick(page, "Text", page.locator("[data-testid=result]"))

    got = recorded(playwright_instance, served, tmp_path, "press", drive)
    same_as_expected(got, served, "press")
    replayed(got, tmp_path)


def test_select_and_check_with_their_checks(playwright_instance: Any, served: Any, tmp_path: Path) -> None:
    def drive(page: Any, _: Any) -> None:
        page.locator("[data-testid=plan]").focus()
        page.keyboard.press("ArrowDown")     # a closed select takes the arrow keys: real input
        page.locator("text=I agree").click()
        pick(page, "Value", page.locator("[data-testid=plan]"))
        pick(page, "Checked", page.locator("[data-testid=terms]"))

    got = recorded(playwright_instance, served, tmp_path, "select-check", drive)
    same_as_expected(got, served, "select-check")
    replayed(got, tmp_path)


def test_a_picked_list_is_one_texts_check_and_a_count(playwright_instance: Any, served: Any, tmp_path: Path) -> None:
    def drive(page: Any, _: Any) -> None:
        pick(page, "List", page.locator("[data-testid=fruits] li", has_text="Banana"))
        pick(page, "Count", page.locator("[data-testid=fruits] li", has_text="Cherry"))
        pick(page, "Visible", page.locator("[data-testid=title]"))
        pick(page, "URL")

    got = recorded(playwright_instance, served, tmp_path, "list", drive)
    same_as_expected(got, served, "list")
    fingerprints = (got.result.fingerprints.read_text() if got.result.fingerprints else "").splitlines()
    assert len(fingerprints) == 3, "the texts, count and visible checks each keep their element's fingerprint"
    replayed(got, tmp_path)


def test_double_click_is_one_step(playwright_instance: Any, served: Any, tmp_path: Path) -> None:
    def drive(page: Any, _: Any) -> None:
        page.locator("[data-testid=more]").dblclick()

    got = recorded(playwright_instance, served, tmp_path, "dblclick", drive)
    same_as_expected(got, served, "dblclick")
    replayed(got, tmp_path)


def test_drag_and_drop(playwright_instance: Any, served: Any, tmp_path: Path) -> None:
    def drive(page: Any, _: Any) -> None:
        page.locator("[data-testid=card]").drag_to(page.locator("[data-testid=done]"))
        page.wait_for_function("document.querySelector('[data-testid=moved]').textContent !== ''")
        pick(page, "Text", page.locator("[data-testid=moved]"))

    got = recorded(playwright_instance, served, tmp_path, "drag", drive, page="drag.html")
    same_as_expected(got, served, "drag")
    replayed(got, tmp_path)


def test_upload_names_the_file_beside_the_spec(playwright_instance: Any, served: Any, tmp_path: Path) -> None:
    def drive(page: Any, _: Any) -> None:
        page.locator("[data-testid=avatar]").set_input_files(str(PAGES / "upload.txt"))

    got = recorded(playwright_instance, served, tmp_path, "upload", drive)
    same_as_expected(got, served, "upload")
    assert any("upload.txt" in note for note in got.result.notes)
    (got.out.parent / "upload.txt").write_text("a file to upload\n")
    replayed(got, tmp_path)


def test_a_typed_address_is_a_goto_and_a_followed_link_is_its_click(playwright_instance: Any, served: Any,
                                                                   tmp_path: Path) -> None:
    def drive(page: Any, _: Any) -> None:
        page.locator("[data-testid=next]").click()
        page.wait_for_url("**/next.html")
        pick(page, "Visible", page.locator("[data-testid=heading]"))
        page.wait_for_timeout(2100)          # the link's navigation is long done: the next one is typed
        page.goto(f"{served.url}/drag.html")
        pick(page, "URL")

    got = recorded(playwright_instance, served, tmp_path, "navigation", drive)
    same_as_expected(got, served, "navigation")
    replayed(got, tmp_path)


def test_a_popup_is_a_block_of_the_click_that_opened_it(playwright_instance: Any, served: Any, tmp_path: Path) -> None:
    def drive(page: Any, recording: Any) -> None:
        with page.expect_popup() as opened:
            page.locator("[data-testid=open-help]").click()
        popup = opened.value
        popup.wait_for_load_state()
        popup.locator("[data-testid=thanks]").click()
        popup.locator("[data-testid=thanked]").wait_for()
        pick(popup, "Text", popup.locator("[data-testid=thanked]"))
        recording.settle()
        popup.close()
        pick(page, "Visible", page.locator("[data-testid=confirm]"))

    got = recorded(playwright_instance, served, tmp_path, "popup", drive, page="popup.html")
    same_as_expected(got, served, "popup")
    replayed(got, tmp_path)


def test_iframe_steps_are_a_frame_block(playwright_instance: Any, served: Any, tmp_path: Path) -> None:
    def drive(page: Any, _: Any) -> None:
        frame = page.frame_locator("[data-testid=card-frame]")
        frame.locator("[data-testid=card-number]").click()
        page.keyboard.type("4242 4242")
        frame.locator("[data-testid=check-card]").click()
        frame.locator("[data-testid=card-ok]").wait_for()
        page.locator("[data-testid=pay]").click()

    got = recorded(playwright_instance, served, tmp_path, "iframe", drive, page="frames.html")
    same_as_expected(got, served, "iframe")
    replayed(got, tmp_path)


def test_dialogs_are_recorded_as_they_were_answered(playwright_instance: Any, served: Any, tmp_path: Path) -> None:
    answers = {"confirm": (False, None), "prompt": (True, "Grace"), "alert": (True, None)}

    def drive(page: Any, _: Any) -> None:
        for button, shown in (("confirm", "confirmed"), ("ask", "greeting"), ("warn", "warned")):
            page.locator(f"[data-testid={button}]").click()
            page.wait_for_function(f"document.querySelector('[data-testid={shown}]').textContent !== ''")
        pick(page, "Text", page.locator("[data-testid=greeting]"))

    got = recorded(playwright_instance, served, tmp_path, "dialog", drive, page="popup.html",
                   answer=lambda kind, message, default: answers[kind])
    same_as_expected(got, served, "dialog")
    replayed(got, tmp_path)


def test_a_password_is_a_placeholder_and_its_value_is_in_no_file_written(playwright_instance: Any, served: Any,
                                                                        tmp_path: Path) -> None:
    unique = "pw-7f3a9c1e-never-written"

    def drive(page: Any, _: Any) -> None:
        page.locator("[data-testid=name]").click()
        page.keyboard.type("Ada")
        page.locator("[data-testid=password]").click()
        page.keyboard.type(unique)
        page.keyboard.press("Enter")
        page.wait_for_selector("[data-testid=result]", state="visible")

    got = recorded(playwright_instance, served, tmp_path, "secret", drive)
    same_as_expected(got, served, "secret")
    assert got.result.secrets == ["PASSWORD"]
    replayed(got, tmp_path, "--secret", "PASSWORD", env={"PASSWORD": unique})
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written and not [p for p in written if unique.encode() in p.read_bytes()]


def test_without_a_display_it_says_how_to_get_one_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "new.flow.yaml"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    done = subprocess.run([sys.executable, "-m", "flowwalk", "record", "http://127.0.0.1:9/", "--out", str(out)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 3
    assert "xvfb-run flowwalk record" in done.stderr and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_todomvc_recording_replays_after_a_refactor_with_heals(playwright_instance: Any, tmp_path: Path) -> None:
    """Recorded on TodoMVC Backbone as published, replayed on the copy whose ids and a class were
    renamed (tests/todomvc_refactor.py) with the recording's fingerprints: it passes, healed,
    the list checks' selectors among the heals."""
    sys.path.insert(0, str(HERE.parent))
    from todomvc_refactor import original, refactored

    package = HERE.parents[1] / ".cache" / "thirdparty" / "todomvc" / "package"
    if not (package / "examples" / "backbone" / "index.html").is_file():
        pytest.fail("no TodoMVC copy: run `scripts/install.sh --with-tests`", pytrace=False)
    (tmp_path / ".git").mkdir()
    plain, moved = original(package, tmp_path / "plain"), refactored(package, tmp_path / "moved")
    out = tmp_path / "checks" / "adds.flow.yaml"
    with StaticServer(plain) as server:
        ask = RecordRequest(url=f"{server.url}/examples/backbone/index.html", out=out, headless=True,
                            executable=default_executable(), browser_args=CHROMIUM_ARGS)
        recording = start(ask, playwright=playwright_instance)
        page = recording.pages[0]
        page.locator("#new-todo").click()
        for todo in ("Buy milk", "Walk the dog"):
            page.keyboard.type(todo)
            page.keyboard.press("Enter")
        page.locator("#todo-list li").nth(1).wait_for()
        pick(page, "List", page.locator("#todo-list li label").first)
        pick(page, "Count", page.locator("#todo-list li label").nth(1))
        result = finish(recording, ask)
        recorded_at = server.url
    assert result.fingerprints is not None
    with StaticServer(moved) as server:
        out.write_text(out.read_text().replace(recorded_at, server.url))
        done = subprocess.run([sys.executable, "-m", "flowwalk", "run", "checks", "--out", str(tmp_path / "report"),
                               "--fingerprints", str(result.fingerprints)], cwd=tmp_path, capture_output=True,
                              text=True, timeout=180, env={k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"})
    assert done.returncode == 0, done.stdout[-3000:]
    assert "healed '#new-todo' -> '#todo-input'" in done.stdout
    healed = [line for line in (tmp_path / "report" / "emit.jsonl").read_text().splitlines() if '"healed"' in line]
    assert healed and "#todo-list > li > div > label" in "".join(healed)


def test_steps_file_records_reusable_steps_a_flow_can_use(playwright_instance: Any, served: Any,
                                                          tmp_path: Path) -> None:
    def drive(page: Any, _: Any) -> None:
        page.locator("[data-testid=name]").click()
        page.keyboard.type("Ada")
        page.keyboard.press("Enter")

    got = recorded(playwright_instance, served, tmp_path, "sign-up", drive, steps_file=True)
    assert got.text.splitlines()[1:] == [
        "steps_version: '1'", "steps:",
        "  - {type: act, action: fill, selector: '[data-testid=\"name\"]', value: Ada}",
        "  - {type: act, action: press, selector: '[data-testid=\"name\"]', value: Enter}"]
    flow = tmp_path / "checks" / "uses.flow.yaml"
    flow.write_text(f"spec_version: '1.1'\nname: uses\nurl: {served.url}/form.html\nsteps:\n"
                    "  - use: sign-up.steps.yaml\n"
                    "  - {type: expect, kind: has_text, selector: '[data-testid=\"result\"]', value: 'Welcome, Ada'}\n")
    report = tmp_path / "report"
    done = subprocess.run([sys.executable, "-m", "flowwalk", "run", str(flow), "--out", str(report)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=180,
                          env={k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"})
    assert done.returncode == 0, done.stdout[-3000:]


CONTINUED = """\
# A person's spec: its comments and layout stay as written.
spec_version: "1.1"
name: sign up, continued
url: BASE/form.html
steps:
    # the name first
    - type: act          # in block style, kept so
      action: fill
      selector: "[data-testid=name]"
      value: Ada
    - {type: act, action: press, selector: "[data-testid=name]", value: Enter}
# the steps end here
"""


def test_append_walks_the_spec_then_adds_only_the_new_steps_to_its_text(playwright_instance: Any, served: Any,
                                                                        tmp_path: Path) -> None:
    out = tmp_path / "checks" / "continued.flow.yaml"
    out.parent.mkdir()
    out.write_text(CONTINUED.replace("BASE", served.url))

    def drive(page: Any, _: Any) -> None:
        # the walk left the page where the spec does: submitted, the greeting shown
        assert page.locator("[data-testid=result]").inner_text() == "Welcome, Ada"
        pick(page, "Text", page.locator("[data-testid=result]"))
        page.locator("[data-testid=more]").click()
        pick(page, "Visible", page.locator("[data-testid=extra]"))

    ask = RecordRequest(url=None, out=out, headless=True, executable=default_executable(),
                        browser_args=CHROMIUM_ARGS, append=True)
    recording = start(ask, playwright=playwright_instance)
    drive(recording.pages[0], recording)
    result = finish(recording, ask)
    text = out.read_text()
    assert result.steps == 3
    head, tail = CONTINUED.replace("BASE", served.url).split("# the steps end here\n")
    assert text == head + (
        "    - {type: expect, kind: has_text, selector: '[data-testid=\"result\"]', value: 'Welcome, Ada'}\n"
        "    - {type: act, action: click, selector: '[data-testid=\"more\"]'}\n"
        "    - {type: expect, kind: visible, selector: '[data-testid=\"extra\"]'}\n"
        "# the steps end here\n")
    kept = [line for line in (result.fingerprints.read_text() if result.fingerprints else "").splitlines()]
    assert [json.loads(line)["line"] for line in kept] == [12, 13, 14]
    replayed(Recorded(result, text, out), tmp_path)


def test_append_refuses_a_spec_whose_walk_fails_at_its_step(playwright_instance: Any, served: Any,
                                                           tmp_path: Path) -> None:
    out = tmp_path / "checks" / "broken.flow.yaml"
    out.parent.mkdir()
    out.write_text(f"spec_version: '1.1'\nname: broken\nurl: {served.url}/form.html\nsteps:\n"
                   "  - {type: expect, kind: has_text, selector: '[data-testid=\"title\"]', value: Sign in}\n")
    before = out.read_text()
    ask = RecordRequest(url=None, out=out, headless=True, executable=default_executable(),
                        browser_args=CHROMIUM_ARGS, append=True)
    with pytest.raises(UsageError) as refused:
        start(ask, playwright=playwright_instance)
    assert "broken.flow.yaml:5" in str(refused.value) and "nothing was recorded" in str(refused.value)
    assert out.read_text() == before


SETUP = """\
spec_version: '1.1'
name: sign in
saves_session: demo
url: BASE/signin.html
steps:
  - {type: act, action: fill, selector: '[data-testid="user"]', value: '{{DEMO_USER}}'}
  - {type: act, action: fill, selector: '[data-testid="password"]', value: '{{DEMO_PASSWORD}}'}
  - {type: act, action: press, selector: '[data-testid="password"]', value: Enter}
  - {type: expect, kind: has_text, selector: '[data-testid="who"]', value: 'Signed in as {{DEMO_USER}}'}
"""


def test_session_starts_signed_in_from_the_setup_and_its_secret_is_in_no_file(playwright_instance: Any, served: Any,
                                                                             tmp_path: Path,
                                                                             monkeypatch: Any) -> None:
    unique = "pw-5d1e0b7a-session-secret"
    monkeypatch.setenv("DEMO_PASSWORD", unique)
    (tmp_path / ".git").mkdir()
    setup = tmp_path / "checks" / "sign-in.flow.yaml"
    setup.parent.mkdir()
    setup.write_text(SETUP.replace("BASE", served.url))

    def drive(page: Any, _: Any) -> None:
        assert page.locator("[data-testid=who]").inner_text() == "Signed in as ada"
        pick(page, "Text", page.locator("[data-testid=who]"))
        page.locator("[data-testid=plan]").click()
        pick(page, "Text", page.locator("[data-testid=plan-shown]"))

    got = recorded(playwright_instance, served, tmp_path, "account", drive, page="account.html", session="demo",
                   variables={"DEMO_USER": "ada"}, secret_names=("DEMO_PASSWORD",))
    same_as_expected(got, served, "session")
    assert got.result.setup is not None and got.result.setup.resolve() == setup.resolve()
    replayed(got, tmp_path, str(setup), "--var", "DEMO_USER=ada", "--secret", "DEMO_PASSWORD",
             env={"DEMO_PASSWORD": unique})
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written and not [p for p in written if unique.encode() in p.read_bytes()]


def test_session_with_no_setup_saving_it_is_refused_before_a_browser(served: Any, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    ask = RecordRequest(url=f"{served.url}/account.html", out=tmp_path / "checks" / "a.flow.yaml", headless=True,
                        session="nobody")
    with pytest.raises(UsageError) as refused:
        start(ask)
    assert "--session 'nobody': no flow spec" in str(refused.value) and "saves_session: nobody" in str(refused.value)


def test_the_hover_a_click_needed_is_a_hover_step_before_it(playwright_instance: Any, served: Any,
                                                            tmp_path: Path) -> None:
    """A style sheet's menu (:hover) and a script's (mouseenter) each get their hover; a plain
    button, reached over both menus, gets none."""
    def over(page: Any, selector: str) -> None:
        box = page.locator(selector).bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=4)

    def drive(page: Any, _: Any) -> None:
        over(page, "[data-testid=account-menu] > span")
        page.locator("[data-testid=settings]").wait_for(state="visible")
        over(page, "[data-testid=settings]")
        page.mouse.down()
        page.mouse.up()
        pick(page, "Text", page.locator("[data-testid=chosen]"))
        over(page, "[data-testid=help-trigger]")
        page.locator("[data-testid=docs]").wait_for(state="visible")
        over(page, "[data-testid=docs]")
        page.mouse.down()
        page.mouse.up()
        pick(page, "Text", page.locator("[data-testid=chosen]"))
        over(page, "[data-testid=account-menu] > span")
        page.locator("[data-testid=plain]").click()
        pick(page, "Text", page.locator("[data-testid=chosen]"))

    got = recorded(playwright_instance, served, tmp_path, "hover", drive, page="menu.html")
    same_as_expected(got, served, "hover")
    replayed(got, tmp_path)


def test_a_page_that_went_to_another_host_names_it_in_allowed_hosts(playwright_instance: Any, served: Any,
                                                                    tmp_path: Path) -> None:
    """A replay walks only the entry's host and `allowed_hosts`: a recording that went to another
    host (here `localhost`, the same server under another name) lists it, so it replays green."""
    other = served.url.replace("127.0.0.1", "localhost")

    def drive(page: Any, _: Any) -> None:
        page.goto(f"{other}/next.html")
        pick(page, "Visible", page.locator("[data-testid=heading]"))

    got = recorded(playwright_instance, served, tmp_path, "elsewhere", drive)
    spec = yaml.safe_load(got.text)
    assert spec["allowed_hosts"] == ["localhost"]
    assert spec["steps"][0] == {"type": "goto", "url": f"{other}/next.html"}
    replayed(got, tmp_path)
