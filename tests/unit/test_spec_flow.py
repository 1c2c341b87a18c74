"""Flow specs become one-rule scenarios: ids, locations, step texts and every field carried over."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowwalk import model as m
from flowwalk.errors import SpecError
from flowwalk.model import Stabilize
from flowwalk.settings import Settings
from flowwalk.spec.loader import load_suites

REPO = Path(__file__).resolve().parents[2]
GOOD = REPO / "tests" / "corpus" / "flows" / "good"


@pytest.fixture(autouse=True)
def _at_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def load_one(name: str, settings: Settings | None = None) -> m.Scenario:
    suites = load_suites([f"tests/corpus/flows/good/{name}"], settings or Settings())
    assert len(suites) == 1 and len(suites[0].scenarios) == 1
    return suites[0].scenarios[0]


def write(tmp_path: Path, text: str, name: str = "t.flow.yaml") -> str:
    (tmp_path / name).write_text(text)
    return name


def test_a_flow_is_one_scenario_with_one_rule_named_after_it() -> None:
    scenario = load_one("signup.flow.yaml")
    assert scenario.id == "tests/corpus/flows/good/signup.flow.yaml#signup"
    assert scenario.kind == "flow" and scenario.source == "tests/corpus/flows/good/signup.flow.yaml"
    assert scenario.entry_url == "https://shop.example.com"
    assert scenario.allowed_hosts == ("checkout.stripe.com",)
    assert scenario.description == "A new user signs up and lands on the dashboard."
    (rule,) = scenario.rules
    assert rule.name == "signup" and rule.guards_enabled is False
    assert scenario.test_id(rule) == scenario.id


def test_step_texts_are_written_for_people() -> None:
    texts = [s.text for s in load_one("signup.flow.yaml").rules[0].steps]
    assert texts == [
        "goto 'https://shop.example.com/signup'",
        "act click 'the sign-up button'",
        "act fill 'the email field'",
        "act fill 'the password field'",
        "act click 'the submit button'",
        "wait for '[data-testid=dashboard]'",
        "expect url_contains '/dashboard'",
        "expect beacon ga4 'sign_up'",
    ]
    texts = [s.text for s in load_one("every-v1-step.flow.yaml").rules[0].steps]
    assert "act hover 'nav .menu'" in texts
    assert "wait 250ms" in texts
    assert "extract '.note:first-child .id' into NOTE_ID" in texts
    assert "expect text_contains 'saved'" in texts
    assert texts[-1] == "expect beacon plausible"


def test_steps_keep_their_line_and_column() -> None:
    steps = load_one("signup.flow.yaml").rules[0].steps
    assert [(s.loc.line, s.loc.col) for s in steps[:3]] == [(9, 5), (11, 5), (15, 5)]
    json_steps = load_one("signup.flow.json").rules[0].steps
    assert (json_steps[2].loc.line, json_steps[2].loc.col) == (10, 5)


def test_v1_fields_carry_over() -> None:
    steps = load_one("signup.flow.json").rules[0].steps
    fill = steps[2]
    assert isinstance(fill, m.Act) and (fill.action, fill.selector, fill.value) == ("fill", "input[name=email]", "{{EMAIL}}")
    press = steps[4]
    assert isinstance(press, m.Act) and press.value == "Enter" and press.target is None
    matches = steps[6]
    assert isinstance(matches, m.Expect) and matches.pattern is not None
    assert matches.pattern.search("https://shop.example.com/dashboard?x=1")
    beacon = steps[7]
    assert isinstance(beacon, m.Expect) and (beacon.vendor, beacon.event) == ("ga4", "sign_up")
    scenario = load_one("signup.flow.json")
    assert [(a.kind, a.severity, a.vendor, a.event, a.text) for a in scenario.assertions] == [
        ("no_console_errors", "warning", None, None, "no_console_errors"),
        ("beacon_fires", "info", "ga4", None, "beacon_fires ga4"),
    ]


def test_optional_steps_and_trimmed_names() -> None:
    scenario = load_one("minimal.flow.yml")
    assert scenario.name == "home page loads"
    assert scenario.id.endswith("#home page loads")
    every = load_one("every-v1-step.flow.yaml").rules[0].steps
    assert [s.optional for s in every].count(True) == 2


def test_v1_1_additions_map_onto_the_internal_model(tmp_path: Path) -> None:
    steps = {s.text: s for s in load_one("v1-1-additions.flow.yaml").rules[0].steps}
    check = steps["act check '#newsletter'"]
    assert isinstance(check, m.Act) and check.await_selector == ".saved-badge"
    assert [v.name for v in check.verify] == ["read_after_write", "invariant_check", "invariant_check"]
    raw, page, http = check.verify
    assert dict(raw.options) == {"selector": ".saved-badge", "expected": "Saved"} and raw.timeout_ms == 2000
    inner = page.options["expect"]
    assert isinstance(inner, m.Expect) and inner.kind == "text_not_contains" and inner.value == "Error"
    assert http.options["http"] == {"url": "/api/health.json", "status": 200, "json_field": "status", "equals": "ok"}
    count = steps["expect count '.row' >= 1"]
    assert isinstance(count, m.Expect) and (count.count, count.op) == (1, "gte")
    assert isinstance(steps["expect count '.row' <= 50"], m.Expect)
    tabs = steps["expect count '.tab' == 3"]
    assert isinstance(tabs, m.Expect) and (tabs.count, tabs.op) == (3, "eq")
    attr = steps["expect attribute 'a.help' href contains '/help'"]
    assert isinstance(attr, m.Expect) and (attr.attr, attr.match, attr.value) == ("href", "contains", "/help")
    lang = steps["expect attribute 'html' lang = 'en'"]
    assert isinstance(lang, m.Expect) and lang.match == "equals"
    matches = steps["expect text_matches 'Saved at \\d{2}:\\d{2}'"]
    assert isinstance(matches, m.Expect) and matches.timeout_ms == 5000 and matches.pattern is not None
    assert matches.stabilize is None  # no override: the walker uses the run's settings
    value = steps["expect input_value 'input[name=display]' ''"]
    assert isinstance(value, m.Expect)
    assert value.stabilize == Stabilize(window_ms=1500, stable_reads=3, interval_ms=100, max_rechecks=0, stale_ms=300)
    emit = steps["emit 'settings_state'"]
    assert isinstance(emit, m.Emit)
    assert [(f.name, f.source, f.selector, f.attr, f.expr) for f in emit.fields] == [
        ("theme", "value", "select[name=theme]", None, None), ("title", "title", None, None, None),
        ("href", "attr", "a.help", "href", None), ("rows", "count", "tr", None, None),
        ("ready", "js", None, None, "document.readyState")]
    assert "expect selector_exists '#settings-form | form.settings'" in steps


def test_a_stabilize_override_starts_from_the_run_settings() -> None:
    settings = Settings(stabilize=Stabilize(window_ms=600, interval_ms=120))
    steps = load_one("v1-1-additions.flow.yaml", settings).rules[0].steps
    value = steps[-1]
    assert isinstance(value, m.Expect) and value.stabilize is not None
    assert value.stabilize.window_ms == 1500 and value.stabilize.interval_ms == 100


def test_relative_urls_and_base_url_placeholders_are_accepted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    name = write(tmp_path, 'spec_version: "1"\nname: rel\nurl: /start\nsteps:\n'
                           '  - {type: goto, url: "{{BASE_URL}}/next"}\n  - {type: goto, url: /other?q=1}\n')
    (suite,) = load_suites([name], Settings())
    scenario = suite.scenarios[0]
    assert scenario.entry_url == "/start"
    assert [s.url for s in scenario.rules[0].steps] == ["{{BASE_URL}}/next", "/other?q=1"]  # type: ignore[attr-defined]


def test_user_verifiers_are_found_next_to_the_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "specs" / "verifiers").mkdir(parents=True)
    (tmp_path / "specs" / "verifiers" / "stock_ok.py").write_text("def verify(context):\n    return 'pass'\n")
    text = ('spec_version: "1.1"\nname: v\nurl: /\nsteps:\n  - type: act\n    action: click\n    selector: "#buy"\n'
            '    verify: [stock_ok, {verifier: stock_ok, options: {sku: 7}, timeout_ms: 900}]\n')
    (tmp_path / "specs" / "v.flow.yaml").write_text(text)
    (suite,) = load_suites(["specs"], Settings())
    act = suite.scenarios[0].rules[0].steps[0]
    assert [(v.name, dict(v.options), v.timeout_ms) for v in act.verify] == [
        ("stock_ok", {"module": "specs/verifiers/stock_ok.py", "args": {}}, 5000),
        ("stock_ok", {"module": "specs/verifiers/stock_ok.py", "args": {"sku": "7"}}, 900),
    ]


def test_an_unknown_user_verifier_lists_the_ones_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "verifiers").mkdir()
    (tmp_path / "verifiers" / "stock_ok.py").write_text("def verify(context):\n    return 'pass'\n")
    write(tmp_path, 'spec_version: "1.1"\nname: v\nurl: /\nsteps:\n'
                    '  - {type: act, action: click, selector: "#b", verify: [stock_okay]}\n')
    with pytest.raises(SpecError) as caught:
        load_suites(["t.flow.yaml"], Settings())
    assert str(caught.value) == (
        "t.flow.yaml:5:57: error: unknown verifier 'stock_okay'\n"
        "  hint: did you mean 'stock_ok'? create verifiers/stock_okay.py with a verify(context) function, "
        "or use a built-in one (read_after_write, invariant_check); user verifiers found: stock_ok")


def test_a_key_with_a_line_break_is_refused_on_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, 'spec_version: "1"\nname: x\nurl: /\nsteps: [{type: goto, url: /, "a\\u0085b": 1}]\n'
                    '"two\\nlines": 1\n')
    with pytest.raises(SpecError) as caught:
        load_suites(["t.flow.yaml"], Settings())
    assert str(caught.value) == (
        "t.flow.yaml:4:30: error: unknown key 'a\\x85b' in step 1\n"
        "  hint: valid keys of a goto step: url, optional\n"
        "t.flow.yaml:5:1: error: unknown key 'two\\nlines' at the top level\n"
        "  hint: valid keys of a flow spec: spec_version, name, description, url, allowed_hosts, steps, assertions, "
            "saves_session, session, tags, before_each, after_each, examples, routes, viewport, device, locale, timezone, "
            "color_scheme, geolocation")


def test_an_explicit_file_with_any_name_is_loaded_by_its_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, 'spec_version: "1"\nname: odd\nurl: /\nsteps: [{type: goto, url: /}]\n', "check.yaml")
    write(tmp_path, 'rules_version: "1"\nverification: v\nscenarios:\n  - name: s\n    rules:\n'
                    '      - {name: r, steps: [{type: goto, url: /}]}\n', "dag.yml")
    suites = load_suites(["check.yaml", "dag.yml"], Settings())
    assert [(s.path, s.kind) for s in suites] == [("check.yaml", "flow"), ("dag.yml", "rules")]


def test_a_flow_step_that_overrides_stabilize_keeps_the_flow_default_of_one_read(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    name = write(tmp_path, """\
spec_version: "1.1"
name: one-read
url: http://127.0.0.1:8000/
steps:
  - {type: expect, kind: url_contains, value: "/", stabilize: {interval_ms: 150}}
  - {type: expect, kind: url_contains, value: "/"}
""")
    (suite,) = load_suites([name], Settings())
    tuned, plain = suite.scenarios[0].rules[0].steps
    assert isinstance(tuned, m.Expect) and isinstance(plain, m.Expect)
    assert tuned.stabilize == Stabilize(stable_reads=1, interval_ms=150)
    assert plain.stabilize is None   # the walker uses the run's flow default
    (suite,) = load_suites([name], Settings(flow_stabilize=Stabilize(stable_reads=2)))
    assert suite.scenarios[0].rules[0].steps[0].stabilize == Stabilize(stable_reads=2, interval_ms=150)  # type: ignore[attr-defined]


def test_popup_and_frame_blocks_are_flat_steps_that_name_where_they_run() -> None:
    steps = load_one("v1-1-windows.flow.yaml").rules[0].steps
    where = [(s.text, [(f.kind, f.title, f.selector) for f in s.frames]) for s in steps]
    assert where == [
        ("act click '#guide'", []),
        ("expect url_contains '/guide'", [("popup", "popup of click '#guide'", "")]),
        ("act click 'button.play'", [("popup", "popup of click '#guide'", ""),
                                     ("frame", "frame 'iframe#video'", "iframe#video")]),
        ("act click '#chat'", []),
        ("act click '#send'", [("popup", "popup of click '#chat'", "")]),
        ("act click '#print'", []),
        ("act fill '#number'", [("frame", "frame 'iframe#pay'", "iframe#pay")]),
        ("act click 'text=Confirm'", [("frame", "frame 'iframe#pay'", "iframe#pay"),
                                      ("frame", "frame 'iframe#three-d-secure'", "iframe#three-d-secure")]),
        ("expect has_text '#status' 'Paid'", [("frame", "frame 'iframe#pay'", "iframe#pay")])]
    guide, chat, printed = steps[0], steps[3], steps[5]
    assert isinstance(guide, m.Act) and isinstance(chat, m.Act) and isinstance(printed, m.Act)
    # each act names its popup's block, whose steps follow it; a popup without steps has a block all the same
    assert guide.popup == m.PopupPlan(frame=steps[1].frames[0].id, close=True)
    assert chat.popup == m.PopupPlan(frame=steps[4].frames[0].id, close=False)
    assert printed.popup is not None and printed.popup.frame not in {f.id for s in steps for f in s.frames}
    assert (steps[1].frames[0].line, steps[6].frames[0].line) == (8, 16)
