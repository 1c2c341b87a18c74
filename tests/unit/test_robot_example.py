"""examples/robot/site.robot loads into the scenario the example promises (the walk itself is run by
`flowwalk run examples/robot --serve examples/site --secret DEMO_PASSWORD`)."""

from __future__ import annotations

from pathlib import Path

from flowwalk.model import Act, Emit, Expect
from flowwalk.settings import Settings
from flowwalk.spec.robot import is_aitester_suite, load_robot_suite

EXAMPLE = Path(__file__).parent.parent.parent / "examples" / "robot" / "site.robot"
SERVED = Settings(base_url="http://127.0.0.1:4567", secret_names=("DEMO_PASSWORD",))


def test_the_example_suite_loads_as_one_scenario_with_a_rule_dag() -> None:
    assert is_aitester_suite(EXAMPLE)
    suite, problems = load_robot_suite(EXAMPLE, "examples/robot/site.robot", SERVED)
    assert not problems and suite is not None
    (scenario,) = suite.scenarios
    assert scenario.id == "examples/robot/site.robot#Sign In And Generate A Report"
    assert scenario.entry_url == "http://127.0.0.1:4567/login.html"  # --serve's URL as ${BASE_URL}
    assert scenario.dismiss_selectors == ("[data-testid=cookie-accept]",)
    assert scenario.secrets == frozenset({"DEMO_PASSWORD"})
    assert scenario.tags == ("acme", "smoke", "reports")  # Test Tags, then the test's [Tags]
    rules = {r.name: r for r in scenario.rules}
    assert [(r.name, r.parents) for r in scenario.rules] == [
        ("login", ()), ("dashboard", ("login",)), ("account", ("dashboard",)), ("open_reports", ("login",)),
        ("report_ready", ("open_reports",)),
    ]
    assert rules["dashboard"].child_scope == "[data-testid=dashboard]"
    assert (rules["report_ready"].retry.max, rules["report_ready"].retry.delay_ms) == (2, 2000)
    # report_ready: one guard, then the body the retry replays
    assert isinstance(rules["report_ready"].steps[0], Expect) and isinstance(rules["report_ready"].steps[1], Act)
    assert [s.name for r in scenario.rules for s in r.steps if isinstance(s, Emit)] == ["account", "report"]
    typed = [s for s in rules["login"].steps if isinstance(s, Act) and s.action == "fill"]
    assert [s.value for s in typed] == ["ada@example.com", "{{DEMO_PASSWORD}}"]


def test_the_example_needs_the_password_from_secret() -> None:
    suite, problems = load_robot_suite(EXAMPLE, "examples/robot/site.robot", Settings())
    assert suite is None
    assert [p.message for p in problems] == ["variable '${DEMO_PASSWORD}' is not defined"]
    assert "--secret DEMO_PASSWORD" in problems[0].hint
