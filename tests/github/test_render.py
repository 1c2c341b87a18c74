"""Rendering the verdict comment: what a reviewer reads on the PR, and how it is cut to GitHub's limit."""

from __future__ import annotations

import re

from markdown_tables import broken_tables
from verdicts import (ACCOUNT, CHECKOUT, SHOP, failing_verdict, gated_verdict, many_failures, passing_verdict,
                      typed)

from flowwalk.github.render import (
    CLASS_GROUPS, COMMENT_LIMIT, RunLinks, code, failure_group, links_from_settings, marker, parse_marker,
    render_comment, verdict_digest,
)
from flowwalk.model import FAILURE_CLASSES
from flowwalk.report.summary import CATEGORIES
from flowwalk.settings import GitHubSettings

SHA = "0123456789abcdef0123456789abcdef01234567"
LINKS = RunLinks(server_url="https://github.com", repository="octo-org/shop", sha=SHA,
                 run_url="https://github.com/octo-org/shop/actions/runs/42",
                 artifact_url="https://github.com/octo-org/shop/actions/runs/42/artifacts/9",
                 base_url="https://staging.example.com")


def _section(body: str, title: str) -> str:
    start = body.index(f"#### {title}")
    end = body.find("\n#### ", start + 1)
    return body[start: end if end != -1 else len(body)]


def test_the_comment_starts_with_the_hidden_marker_and_says_the_verdict() -> None:
    body = render_comment(typed(failing_verdict()), LINKS)
    first, second = body.splitlines()[:2]
    assert first.startswith("<!-- flowwalk:verdict ") and first.endswith(" -->")
    assert second == "### ❌ flowwalk: the site misbehaved"
    assert "8 tests: **3 failed**, 2 passed, 2 skipped, 1 flaky" in body
    assert "shards reported: 2 of 3" in body
    assert "Shard 3 of 3 did not report" in body


def test_failures_are_grouped_by_class_with_step_expected_observed_and_a_linked_line() -> None:
    body = render_comment(typed(failing_verdict()), LINKS)
    site = _section(body, "The site misbehaved (1)")
    assert f"[{CHECKOUT}:12](https://github.com/octo-org/shop/blob/{SHA}/{CHECKOUT}#L12)" in site
    assert "step: `expect text_contains 'Saved'`" in site
    assert "expected: `'#status' contains 'Saved'`" in site
    assert "observed: " in site and "Saving failed, try again" in site
    assert "screenshot: `screenshots/checkout-saves-the-order-5.png`" in site
    spec = _section(body, "A spec needs review (1)")
    assert f"{SHOP}:17" in spec and "`act click 'the sign in button'`" in spec
    # the root cause carries the tests skipped because of it
    assert f"2 skipped because of it: `{SHOP}#shop/cart`, `{SHOP}#shop/checkout`" in spec
    infra = _section(body, "Infrastructure (1)")
    assert f"{ACCOUNT}:4" in infra and "the browser crashed" in infra
    # order: site, then spec, then infrastructure
    assert body.index("The site misbehaved (1)") < body.index("A spec needs review") < body.index("Infrastructure (1)")


def test_flaky_slowest_links_and_the_reproduce_command() -> None:
    body = render_comment(typed(failing_verdict()), LINKS)
    assert "Flaky: passed on a retry (1)" in body and "`examples/flows/about.flow.yaml#About page` (attempt 2)" in body
    assert f"| `{ACCOUNT}#Account settings` | 30.0 s |" in body
    assert "[the run](https://github.com/octo-org/shop/actions/runs/42)" in body
    assert "(https://github.com/octo-org/shop/actions/runs/42/artifacts/9)" in body
    assert f"flowwalk run {CHECKOUT} --base-url 'https://staging.example.com'" in body


def test_a_loopback_base_url_becomes_a_placeholder_in_the_reproduce_command() -> None:
    links = RunLinks(repository="octo-org/shop", sha=SHA, base_url="http://127.0.0.1:41234")
    assert f"flowwalk run {CHECKOUT} --base-url <URL>" in render_comment(typed(failing_verdict()), links)


def test_text_from_the_site_only_appears_inside_code_spans() -> None:
    body = render_comment(typed(failing_verdict()), LINKS)
    (observed,) = [line for line in body.splitlines() if "observed:" in line]
    # `rm -rf` holds backticks, so the span's fence is longer; @octocat cannot mention anyone
    assert observed.strip() == "- observed: ``'#status' reads 'Saving failed, try again' @octocat `rm -rf` <script>``"
    assert code("a\nb") == "`a ⏎ b`"
    assert code("`x`") == "`` `x` ``"


def test_a_passing_verdict_is_short_and_has_no_failure_sections() -> None:
    body = render_comment(typed(passing_verdict()), LINKS)
    assert "### ✅ flowwalk: all checks passed" in body
    assert "####" not in body and "Reproduce" not in body and "shards reported" not in body


def test_a_huge_verdict_is_cut_to_githubs_limit_and_says_what_was_cut() -> None:
    verdict = many_failures(300)
    body = render_comment(typed(verdict), LINKS)
    assert len(body) <= COMMENT_LIMIT
    assert body.startswith("<!-- flowwalk:verdict")
    assert "Cut to fit GitHub's comment limit (65,536 characters)" in body
    # beyond 50 failures the rest is in report.html, linked
    assert f"… and 250 more (see [report.html]({LINKS.artifact_url}))" in body


def test_two_hundred_failures_fit_with_what_is_cut_linked_and_no_table_cut() -> None:
    artifact = f"[`report.html` in the report artifact]({LINKS.artifact_url}) have everything"
    for limit in (COMMENT_LIMIT, 20_000, 6_000):
        body = render_comment(typed(many_failures(200)), LINKS, limit=limit)
        assert len(body) <= limit
        hidden = re.search(r"… and (\d+) more \(see \[report\.html\]\((.+?)\)\)", body)
        assert hidden is not None and int(hidden[1]) >= 150 and hidden[2] == LINKS.artifact_url
        assert "Cut to fit GitHub's comment limit" in body and artifact in body
        assert broken_tables(body) == []
    # with no artifact to link, the note still says where everything is
    bare = render_comment(typed(many_failures(200)), RunLinks(repository="octo-org/shop", sha=SHA))
    assert "The job summary and `report.html` in the report artifact have everything." in bare
    assert "… and 150 more (see report.html)" in bare


def test_a_header_too_long_for_any_comment_is_cut_on_a_whole_block() -> None:
    verdict = many_failures(3)
    verdict["warnings"] = [f"warning {i}: " + "w" * 300 for i in range(10)]
    verdict["slowest"] = [{"test_id": f"generated/slow-{i}.flow.yaml#s", "duration_ms": 1000} for i in range(10)]
    body = render_comment(typed(verdict), LINKS, limit=2_500)
    assert len(body) <= 2_500 and body.endswith("see the job summary and report.html.\n")
    assert broken_tables(body) == []


def test_a_smaller_limit_drops_failures_and_says_how_many() -> None:
    body = render_comment(typed(many_failures(60)), LINKS, limit=12_000)
    assert len(body) <= 12_000
    cut = re.search(r"Cut to fit GitHub's comment limit \(12,000 characters\): (\d+) failures", body)
    assert cut is not None and int(cut.group(1)) > 0
    shown = body.count("- **`generated/")
    assert shown + int(cut.group(1)) == 50  # what is shown plus what was cut: the 50 it lists at most
    assert "slowest" not in body.lower().split("cut to fit")[0]  # the slowest table went first


def test_marker_round_trip_and_the_digest_ignores_timings() -> None:
    assert parse_marker(marker()) == (None, None)
    assert parse_marker(marker("e2e", "abc123") + "\nbody") == ("e2e", "abc123")
    assert parse_marker("> <!-- flowwalk:verdict -->") is None  # a quote of it is someone else's comment
    verdict = failing_verdict()
    slower = failing_verdict()
    slower["duration_ms"] = 99_999
    slower["run_id"] = "another"
    slower["tests"][0]["duration_ms"] = 1
    assert verdict_digest(typed(verdict)) == verdict_digest(typed(slower))
    changed = failing_verdict()
    changed["tests"][1]["status"] = "passed"
    assert verdict_digest(typed(changed)) != verdict_digest(typed(verdict))


def test_links_come_from_the_settings() -> None:
    settings = GitHubSettings(server_url="https://ghe.example.com", repository="octo-org/shop", sha=SHA,
                              run_id="77", run_attempt="2")
    links = links_from_settings(settings)
    assert links.run_url == "https://ghe.example.com/octo-org/shop/actions/runs/77/attempts/2"
    assert links.artifact_url == links.run_url + "#artifacts"
    assert links.blob("specs/a b.flow.yaml", 3) == f"https://ghe.example.com/octo-org/shop/blob/{SHA}/specs/a%20b.flow.yaml#L3"


def test_the_hand_written_verdicts_have_the_shape_flowwalk_writes() -> None:
    """The fixtures these tests render are valid against schemas/verdict.v1.schema.json."""
    import json
    from pathlib import Path

    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    schemas = Path(__file__).resolve().parents[2] / "schemas"
    verdict_schema = json.loads((schemas / "verdict.v1.schema.json").read_text())
    emit_schema = json.loads((schemas / "emit-event.v1.schema.json").read_text())
    registry = Registry().with_resources([(s["$id"], Resource.from_contents(s)) for s in (verdict_schema, emit_schema)])
    validator = Draft202012Validator(verdict_schema, registry=registry)
    for verdict in (failing_verdict(), passing_verdict(), many_failures(3), gated_verdict()):
        assert [e.message for e in validator.iter_errors(verdict)] == []


def test_shard_and_report_warnings_are_shown() -> None:
    verdict = failing_verdict()
    verdict["shards"]["mismatched"] = [2]
    verdict["warnings"].append("emit.jsonl:7: not an event record ('<html>'); it was ignored")
    body = render_comment(typed(verdict), LINKS)
    assert "Shard(s) 2 planned other files than the rest" in body
    assert "- `emit.jsonl:7: not an event record ('<html>'); it was ignored`" in body
    assert "shard 3 of 3 is missing" not in body  # already said above, in the reviewer's words


def test_the_comment_groups_failures_as_the_job_summary_does_covering_every_class() -> None:
    assert [(key, title) for key, title, _classes in CLASS_GROUPS] == [(k, t) for k, t, _m, _c in CATEGORIES]
    assert [c for _key, _title, classes in CLASS_GROUPS for c in classes] == list(FAILURE_CLASSES)
    assert {failure_group(c) for c in FAILURE_CLASSES} == {"site", "spec", "infrastructure"}


def test_the_comment_leads_with_new_failures_and_lists_the_rest_after() -> None:
    body = render_comment(typed(gated_verdict()), RunLinks())
    checkout, login = f"{CHECKOUT}#Checkout saves the order", f"{SHOP}#shop/login"
    assert ("**2 new failures** against the base branch's last report (run `base-run-1`) · 1 still failing · "
            "1 fixed · 1 quarantined failure did not fail the job · **1 quarantine expired**: it fails the job again"
            ) in body
    # the new failure, in full, before the one that was failing on the base (compact, after)
    assert body.index(f"**`{checkout}`**") < body.index("#### Still failing: failed on the base branch too (1)")
    assert f"**`{login}`**" not in body and f"- `{login}`: spec\\_step\\_unresolvable" in body
    assert "#### Quarantine expired: fails the job again (1)" in body
    assert "owner @ada, expired 2020-01-31: slow CI" in body
    assert "#### Quarantined: did not fail the job (1)" in body and "owner team-infra, expires 2099-12-31" in body
    assert "#### Fixed (1)" in body and "#### Quarantine entries that match no test (1)" in body
    # the quarantined failure is not among the leading failures
    assert f"**`{ACCOUNT}#Account settings`**" not in body
