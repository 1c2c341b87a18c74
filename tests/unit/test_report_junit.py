"""junit.xml as CI reporters show it: failure class and step, skip reasons, attachments, flaky."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from flowwalk.plan.shard import plan_run
from flowwalk.report.junit import render_junit
from flowwalk.report.records import read_run
from sample_run import sample_events, sample_suites, write_sample_run
from flowwalk.settings import Settings


def junit(tmp_path: Path) -> ET.Element:
    suites = sample_suites()
    write_sample_run(tmp_path, sample_events(suites, plan_run(suites, Settings()).record(), arrival="reversed"))
    return ET.fromstring(render_junit(read_run(tmp_path)))


def case(root: ET.Element, name: str) -> ET.Element:
    found = [c for c in root.iter("testcase") if c.get("name") == name]
    assert len(found) == 1, name
    return found[0]


def test_one_testsuite_per_file_one_testcase_per_test_in_plan_order(tmp_path: Path) -> None:
    root = junit(tmp_path)
    assert [s.get("name") for s in root.iter("testsuite")] == [
        "examples/flows/about.flow.yaml", "examples/flows/account.flow.yaml", "examples/flows/checkout.flow.yaml",
        "examples/flows/newsletter.flow.yaml", "examples/flows/signup.flow.yaml", "examples/rules/shop.rules.yaml",
        "examples/suites/search.robot"]
    shop = [s for s in root.iter("testsuite") if s.get("name") == "examples/rules/shop.rules.yaml"][0]
    assert [c.get("name") for c in shop.iter("testcase")] == \
        ["home", "login", "cart", "checkout", "profile", "footer", "promo"]
    assert {c.get("classname") for c in shop.iter("testcase")} == {"examples/rules/shop.rules.yaml#shop"}
    assert (shop.get("tests"), shop.get("failures"), shop.get("skipped")) == ("7", "1", "4")
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("14", "3", "4")
    about = case(root, "About page")
    assert (about.get("classname"), about.get("file"), about.get("line")) == \
        ("examples/flows/about.flow.yaml", "examples/flows/about.flow.yaml", "1")


def test_a_failure_names_its_class_and_step_with_details_in_the_body(tmp_path: Path) -> None:
    checkout = case(junit(tmp_path), "Checkout saves the order")
    failure = checkout.find("failure")
    assert failure is not None
    assert failure.get("type") == "assertion_failed"
    assert failure.get("message") == ("step 5 (expect text_contains 'Saved'): "
                                      "text 'Saved' not found in '#status' after 5 fresh reads")
    body = failure.text or ""
    assert "expected: '#status' contains 'Saved' (case-insensitive)" in body
    assert "observed: '#status' reads 'Saving failed, try again'" in body
    assert "  - dismiss_and_retry: failed (no interrupt was blocking)" in body
    assert "examples/flows/checkout.flow.yaml:12:7" in body
    out = checkout.findtext("system-out") or ""
    assert "skipped steps:\n  step 6 (expect url_contains '/orders/')\n  step 7 (expect beacon ga4 'purchase')" in out
    assert "[[ATTACHMENT|screenshots/examples-flows-checkout-flow-yaml-checkout-saves-the-order-a2-s5.png]]" in out
    assert "failed on all 2 attempts" in out


def test_skipped_tests_say_why(tmp_path: Path) -> None:
    root = junit(tmp_path)
    assert case(root, "cart").find("skipped").get("message") == "parent_failed: login"  # type: ignore[union-attr]
    assert case(root, "checkout").find("skipped").get("message") == "parent_failed: cart"  # type: ignore[union-attr]
    assert case(root, "promo").find("skipped").get("message") == "guard_failed"  # type: ignore[union-attr]


def test_candidates_flaky_history_findings_and_emits_are_kept(tmp_path: Path) -> None:
    root = junit(tmp_path)
    login = case(root, "login").find("failure")
    assert login is not None and login.get("type") == "spec_step_unresolvable"
    assert '"name": "Sign in", "role": "button"' in (login.text or "")
    results = case(root, "results")
    assert results.find("failure") is None and results.find("skipped") is None
    assert ("flaky: failed on attempt 1 (assertion_failed: step 2 (expect count '.result' gte 3): "
            "count of '.result' is 0, expected >= 3), passed on attempt 2") in (results.findtext("system-out") or "")
    assert 'emit results: {"n": 5}' in (results.findtext("system-out") or "")
    newsletter = case(root, "Newsletter sign-up").findtext("system-out") or ""
    assert "findings:\n  warning (step 3): optional step 3 (expect text_contains 'Thanks for subscribing')" in newsletter
    account = case(root, "Account settings").find("failure")
    assert account is not None and account.get("type") == "credential_rejected"


def test_every_testcase_has_a_time_even_when_it_took_none(tmp_path: Path) -> None:
    root = junit(tmp_path)
    assert all(c.get("time") is not None for c in root.iter("testcase"))
    assert case(root, "cart").get("time") == "0.000"


def test_a_flow_in_two_projects_is_two_test_cases_named_by_project(tmp_path: Path) -> None:
    from flowwalk.model import Environment, Project
    from flowwalk.spec.loader import with_projects

    settings = Settings(projects=(Project("desktop", Environment()), Project("phone", Environment(device="iPhone 13"))))
    suites = with_projects(sample_suites(), settings)
    write_sample_run(tmp_path, sample_events(suites, plan_run(suites, settings).record()))
    root = ET.fromstring(render_junit(read_run(tmp_path)))
    about = [(c.get("classname"), c.get("name")) for c in root.iter("testcase") if c.get("name") == "About page"]
    assert about == [("[desktop] examples/flows/about.flow.yaml", "About page"),
                     ("[phone] examples/flows/about.flow.yaml", "About page")]
    classes = {c.get("classname") for c in root.iter("testcase") if c.get("name") == "home"}
    assert classes == {"[desktop] examples/rules/shop.rules.yaml#shop", "[phone] examples/rules/shop.rules.yaml#shop"}
