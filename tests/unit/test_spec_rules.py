"""Rule files become rule scenarios with every policy carried over, and cross-rule checks refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowwalk import model as m
from flowwalk.errors import SpecError
from flowwalk.model import Stabilize
from flowwalk.settings import Settings
from flowwalk.spec.loader import load_suites

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _at_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def load_shop() -> m.Suite:
    (suite,) = load_suites(["tests/corpus/rules/good/shop.rules.yaml"], Settings())
    return suite


def test_each_scenario_of_the_file_is_a_scenario_with_its_rules() -> None:
    suite = load_shop()
    assert suite.kind == "rules"
    assert [s.id for s in suite.scenarios] == ["tests/corpus/rules/good/shop.rules.yaml#checkout",
                                               "tests/corpus/rules/good/shop.rules.yaml#browse only"]
    checkout, browse = suite.scenarios
    assert checkout.kind == "rules" and checkout.entry_url == "/shop" and browse.entry_url is None
    assert [r.name for r in checkout.rules] == ["login", "search", "cart", "cart_line", "pay"]
    assert checkout.test_id(checkout.rules[2]) == "tests/corpus/rules/good/shop.rules.yaml#checkout/cart"
    assert checkout.description == "The happy path."
    assert browse.description == "Log in, fill the cart, pay."


def test_file_level_settings_reach_every_scenario() -> None:
    checkout = load_shop().scenarios[0]
    assert checkout.variables == {"SEARCH": "running shoes", "PORT": "8080", "DEBUG": "false"}
    assert checkout.secrets == frozenset({"SHOP_PASSWORD"})
    assert checkout.dismiss_selectors == ("#cookie-banner button.accept", ".newsletter .close")
    assert checkout.allowed_hosts == ("checkout.stripe.com",)


def test_rule_policies_and_file_defaults() -> None:
    login, search, cart, cart_line, pay = load_shop().scenarios[0].rules
    assert login.guards_enabled and login.parents == ()
    # defaults: timeout, guard timeout, retry, screenshot
    assert (login.timeout_ms, login.guard_timeout_ms) == (10000, 300)
    assert login.retry == m.Retry(max=1, delay_ms=250)
    assert (login.screenshot_on_enter, login.screenshot_on_fail) == (False, True)
    assert login.interrupts == "inherit" and login.interrupt_selectors == ()
    assert (search.parents, search.guard_policy, search.timeout_ms) == (("login",), "abort", 5000)
    assert cart.retry == m.Retry(max=3, delay_ms=500)
    assert cart.child_scope == ".cart"
    assert (cart.interrupts, cart.interrupt_selectors) == ("override", ("#promo .close",))
    assert cart.screenshot_on_enter is True
    assert [v.name for v in cart.verify] == ["invariant_check"]
    assert cart.verify[0].options["http"]["equals"] == "1"
    assert cart_line.parents == ("cart",)
    assert (pay.interrupts, pay.guard_timeout_ms) == ("paused", 1000)
    assert [(v.name, v.timeout_ms, dict(v.options)["args"]) for v in pay.verify] == [
        ("order_recorded", 2000, {"order": "A-1"})]
    assert pay.verify[0].options["module"] == "tests/corpus/rules/good/verifiers/order_recorded.py"


def test_file_stabilize_defaults_apply_to_every_check_and_steps_override_them() -> None:
    settings = Settings(stabilize=Stabilize(interval_ms=180))
    (suite,) = load_suites(["tests/corpus/rules/good/shop.rules.yaml"], settings)
    pay = suite.scenarios[0].rules[4]
    first, _, last = pay.steps
    assert isinstance(first, m.Expect) and isinstance(last, m.Expect)
    assert first.stabilize == Stabilize(window_ms=800, stable_reads=2, interval_ms=180)
    assert last.stabilize == Stabilize(window_ms=800, stable_reads=2, interval_ms=180, max_rechecks=1)
    assert last.timeout_ms == 20000


def test_steps_of_rules_use_the_same_language_as_flows() -> None:
    login = load_shop().scenarios[0].rules[0]
    assert [s.text for s in login.steps] == [
        "expect selector_absent '.user-menu'", "act fill '#user'", "act fill '#password'",
        "act click 'button.login | text=Log in'", "extract '.user-menu .name' into USER"]
    click = login.steps[3]
    assert isinstance(click, m.Act) and click.await_selector == ".user-menu"
    assert click.verify[0].options == {"selector": ".user-menu .name", "expected": "bob"}


def test_cross_rule_problems_are_all_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.rules.yaml").write_text(
        'rules_version: "1"\nverification: v\nscenarios:\n'
        '  - name: one\n    rules:\n'
        '      - {name: login, parents: [session], steps: [{type: goto, url: /}]}\n'
        '      - {name: session, parents: [login], steps: [{type: goto, url: /}]}\n'
        '  - name: two\n    rules:\n'
        '      - {name: cart, parents: [logn], steps: [{type: goto, url: /}]}\n'
        '      - {name: login, steps: [{type: goto, url: /}]}\n')
    with pytest.raises(SpecError) as caught:
        load_suites(["a.rules.yaml"], Settings())
    assert [p.render().splitlines()[0] for p in caught.value.problems] == [
        "a.rules.yaml:6:16: error: rule cycle: login -> session -> login",
        "a.rules.yaml:10:32: error: unknown parent 'logn' of rule 'cart'",
    ]
    assert caught.value.problems[1].hint == "did you mean 'login'? rules of scenario 'two': cart, login"


def test_names_and_keys_with_line_breaks_are_escaped_in_problems(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.rules.yaml").write_text(
        'rules_version: "1"\nverification: v\nscenarios:\n'
        '  - {name: "a\\nb", rules: [{name: r, steps: [{type: goto, url: /}]}]}\n'
        '  - {name: "a\\nb", rules: [{name: r, steps: [{type: goto, url: /}]}]}\n')
    with pytest.raises(SpecError) as caught:
        load_suites(["a.rules.yaml"], Settings())
    assert [p.render() for p in caught.value.problems] == [
        "a.rules.yaml:5:12: error: duplicate scenario name 'a\\nb'\n"
        "  hint: the first one is at line 4; scenario names must be unique in a file"]
    (tmp_path / "a.rules.yaml").write_text(
        'rules_version: "1"\nverification: v\nscenarios:\n'
        '  - {name: "a\\nb", "x\\ny": 1, rules: [{name: r, steps: [{type: goto, url: /}]}]}\n')
    with pytest.raises(SpecError) as caught:
        load_suites(["a.rules.yaml"], Settings())
    assert [p.render().splitlines()[0] for p in caught.value.problems] == [
        "a.rules.yaml:4:20: error: unknown key 'x\\ny' in scenario 'a\\nb'"]


def test_the_example_rule_files_load() -> None:
    suites = load_suites(["examples/rules", "examples/failing/parent-failed.rules.yaml"], Settings())
    by_path = {s.path: s for s in suites}
    example = by_path["examples/rules/acme-notes.rules.yaml"].scenarios[0]
    assert [r.name for r in example.rules] == ["login", "dashboard", "account", "open_reports", "report_ready",
                                               "settings"]
    report = example.rules[4]
    assert report.retry == m.Retry(max=2, delay_ms=2000)
    assert [v.name for v in report.verify] == ["report_recorded", "invariant_check"]
    assert report.verify[0].options["module"] == "examples/rules/verifiers/report_recorded.py"
    assert example.rules[1].child_scope == "[data-testid=dashboard]"
    assert example.dismiss_selectors == ("[data-testid=cookie-accept]",)
    failing = by_path["examples/failing/parent-failed.rules.yaml"].scenarios[0]
    assert [(r.name, r.parents) for r in failing.rules] == [
        ("login", ()), ("dashboard", ("login",)), ("account", ("dashboard",)), ("help", ())]
