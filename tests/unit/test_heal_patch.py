"""Heals as a patch (heal/patch.py): only the selector changes, at its line, in YAML, JSON and .robot;
the diff applies with `git apply`; changed files, variables, anchors and conflicting heals are
skipped with their reason; a heal recorded by several attempts or shards is written once."""

from __future__ import annotations

import dataclasses

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from flowwalk.events import Heal
from flowwalk.heal.patch import PatchConflictError, apply_patch, build_patch, plan_patch
from flowwalk.report.merge import merge_reports
from sample_run import healed_events, write_sample_run
from flowwalk.settings import Settings
from flowwalk.spec.loader import load_suites

SRC = Path(__file__).resolve().parents[2] / "src"


def heal(path: str, line: int, old: str, new: str, step: int = 2, score: float = 0.9) -> Heal:
    return Heal(old_selector=old, new_selector=new, method="deterministic", score=score, target="the thing",
                step_index=step, path=path, line=line, screenshot=f"screenshots/{line}.png",
                candidates=({"selector": new, "score": score},))


def report(tmp_path: Path, *heals: tuple[str, Heal], name: str = "report", **kw: object) -> Path:
    out = tmp_path / name
    write_sample_run(out, healed_events(list(heals), **kw))  # type: ignore[arg-type]
    return out


def spec(root: Path, path: str, text: str, newline: str = "\n") -> Path:
    file = root / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return file


def applies_with_git(root: Path, diff: str, tmp_path: Path) -> Path:
    """A copy of `root` patched by `git apply`: proves the diff is a real, applicable one."""
    copy = tmp_path / "git-applied"
    shutil.copytree(root, copy)
    subprocess.run(["git", "apply", "--whitespace=nowarn", "-"], input=diff.encode(), cwd=copy, check=True)
    return copy


FLOW = """\
# Sign in, then open the report.   (a comment the patch must keep)
spec_version: "1"
name: sign in
url: /login.html
steps:
  - type: goto
    url: /login.html
  - type: act            # the submit button
    action: click
    target: the Sign in button
    selector: '#submit'   # pinned by discover
  - type: act
    action: fill
    target: the email field
    selector: "input[name=\\"email\\"]"
    value: ada@example.com
  - {type: act, action: click, target: the menu, selector: .menu-toggle}
  - type: act
    action: click
    target: the help link
    selector: a.help
  - type: expect
    kind: text_contains
    value: Welcome
"""


def test_yaml_only_the_selector_changes_in_its_own_quoting_style(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    spec(root, "flows/sign-in.flow.yaml", FLOW)
    p = "flows/sign-in.flow.yaml"
    out = report(tmp_path,
                 ("flows/sign-in.flow.yaml#sign in", heal(p, 8, "#submit", "role=button[name=\"Sign in\"]")),
                 ("flows/sign-in.flow.yaml#sign in", heal(p, 12, 'input[name="email"]', "[data-testid='e-mail']", 3)),
                 ("flows/sign-in.flow.yaml#sign in", heal(p, 17, ".menu-toggle", "nav >> text=Menu, more", 4)),
                 ("flows/sign-in.flow.yaml#sign in", heal(p, 18, "a.help", "#help: faq", 5)))
    patch = plan_patch(out, root)
    assert patch.skipped == ()
    new = patch.texts[p][1]
    assert new.splitlines()[0] == FLOW.splitlines()[0]
    changed = [(a, b) for a, b in zip(FLOW.splitlines(), new.splitlines()) if a != b]
    assert changed == [
        ("    selector: '#submit'   # pinned by discover", "    selector: 'role=button[name=\"Sign in\"]'   # pinned by discover"),
        ('    selector: "input[name=\\"email\\"]"', '    selector: "[data-testid=\'e-mail\']"'),
        ("  - {type: act, action: click, target: the menu, selector: .menu-toggle}",
         "  - {type: act, action: click, target: the menu, selector: 'nav >> text=Menu, more'}"),
        # a plain scalar stays plain unless YAML would read it differently (': ' starts a mapping)
        ("    selector: a.help", "    selector: '#help: faq'"),
    ]
    loaded = yaml.safe_load(new)
    assert [s.get("selector") for s in loaded["steps"][1:5]] == [
        'role=button[name="Sign in"]', "[data-testid='e-mail']", "nav >> text=Menu, more", "#help: faq"]
    # the edits say where the suggestion goes: the selector's own line
    assert [(e.first_line, e.last_line) for e in patch.edits] == [(11, 11), (15, 15), (17, 17), (21, 21)]
    diff = build_patch(out, root)
    assert diff.startswith(f"--- a/{p}\n+++ b/{p}\n@@ ")
    assert (applies_with_git(root, diff, tmp_path) / p).read_text() == new
    # and flowwalk still loads the patched spec, with the new selectors
    (root / p).write_text(new)
    suites = load_suites([str(root / p)], Settings())
    acts = [s for s in suites[0].scenarios[0].rules[0].steps if getattr(s, "action", None)]
    assert acts[0].selector == 'role=button[name="Sign in"]'  # type: ignore[attr-defined]


def test_a_selector_with_quotes_is_written_without_escapes_in_the_quotes_it_needs(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    p = "notes.flow.yaml"
    spec(root, p, 'steps:\n  - type: act\n    selector: "[data-testid=add-note]"\n'
                  "  - type: act\n    selector: '#b'\n  - {type: act, selector: \"#c\"}\n")
    out = report(tmp_path, (f"{p}#n", heal(p, 2, "[data-testid=add-note]", '[data-testid="add-note"]', 1)),
                 (f"{p}#n", heal(p, 4, "#b", "button[aria-label='Add']", 2)),
                 (f"{p}#n", heal(p, 6, "#c", "button:text(\"it's\")", 3)))
    new = plan_patch(out, root).texts[p][1]
    assert new.splitlines() == ["steps:", "  - type: act", "    selector: '[data-testid=\"add-note\"]'",
                                "  - type: act", "    selector: \"button[aria-label='Add']\"",
                                # both quotes in it: the spec's own quotes, escaped as they must be
                                "  - {type: act, selector: \"button:text(\\\"it's\\\")\"}"]
    assert [s["selector"] for s in yaml.safe_load(new)["steps"]] == [
        '[data-testid="add-note"]', "button[aria-label='Add']", "button:text(\"it's\")"]


COMMENTED = """\
# yaml-language-server: $schema=https://flowwalk.dev/schemas/flow-spec.v1.schema.json
---
spec_version: "1"
name:   checkout          # spaced as the author likes

url: /cart
allowed_hosts: [pay.example,
                cdn.example]
steps:
    # open the cart first
    -   type: goto
        url: /cart

    -   type: act                 # the pay button
        action: click
        selector: "#pay"          # pinned by hand
        target: the Pay button
    - { type: expect, kind: url_contains, value: /paid }
"""


def test_apply_keeps_a_commented_specs_comments_and_layout(tmp_path: Path) -> None:
    """Comments, blank lines, a document marker, four-space indentation, a flow list over two
    lines and a spaced flow mapping: `heal --apply` changes the selector's characters only."""
    root = tmp_path / "repo"
    p = "checkout.flow.yaml"
    spec(root, p, COMMENTED)
    out = report(tmp_path, (f"{p}#checkout", heal(p, 14, "#pay", "[data-testid=pay]")))
    applied = flowwalk_heal(root, "--report", str(out), "--apply")
    assert applied.returncode == 0, applied.stderr
    assert (root / p).read_text() == COMMENTED.replace('selector: "#pay"', 'selector: "[data-testid=pay]"')


def test_a_plain_selector_that_yaml_would_read_as_a_comment_is_quoted(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    p = "a.flow.yaml"
    spec(root, p, "steps:\n  - type: act\n    action: click\n    selector: button.old\n")
    out = report(tmp_path, (f"{p}#a", heal(p, 2, "button.old", "#new-id")))
    patch = plan_patch(out, root)
    assert patch.texts[p][1] == "steps:\n  - type: act\n    action: click\n    selector: '#new-id'\n"


def test_crlf_no_final_newline_and_non_ascii_survive(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    p = "rules/shop.rules.yaml"
    text = ("\ufeff" "spec_version: \"1\"\nrules:\n  - name: café\n    steps:\n      - type: act\n"
            "        action: click\n        selector: \"#caf\\u00e9\"  # ünïcode\n      - type: act\n"
            "        action: click\n        selector: '#pay'")
    file = root / p
    file.parent.mkdir(parents=True)
    file.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    out = report(tmp_path, (f"{p}#café", heal(p, 5, "#café", "button:has-text(\"Café\")", 1)),
                 (f"{p}#café", heal(p, 8, "#pay", "#pay-now", 2)))
    patch = plan_patch(out, root)
    assert patch.skipped == ()
    diff = patch.diff
    assert "\\ No newline at end of file" in diff
    git_copy = applies_with_git(root, diff, tmp_path)
    written = apply_patch(patch)
    assert written == [file]
    data = file.read_bytes()
    assert data == (git_copy / p).read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and data.count(b"\r\n") == text.count("\n") and not data.endswith(b"\n")
    # a selector holding double quotes goes in single quotes, as a person writes it (not \\" escapes)
    assert b"        selector: 'button:has-text(\"Caf\xc3\xa9\")'  # \xc3\xbcn\xc3\xafcode\r\n" in data
    assert data.endswith(b"        selector: '#pay-now'")


def test_json_only_the_selector_changes(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    p = "flows/team.flow.json"
    text = ('{\n  "spec_version": "1",\n  "name": "team",\n  "steps": [\n'
            '    {"type": "goto", "url": "/team.html"},\n'
            '    {\n      "type": "act",\n      "action": "click",\n      "selector":   "#invit\\u00e9",\n'
            '      "target": "the invite button"\n    },\n'
            '    {"type": "act", "action": "click", "selector": "a[href=\\"/x\\"]", "target": "x"}\n  ]\n}\n')
    spec(root, p, text)
    out = report(tmp_path, (f"{p}#team", heal(p, 6, "#invité", "button[title=\"Invité\\\\\"]", 2)),
                 (f"{p}#team", heal(p, 12, 'a[href="/x"]', "text='x'", 3)))
    patch = plan_patch(out, root)
    assert patch.skipped == ()
    new = patch.texts[p][1]
    changed = [(a, b) for a, b in zip(text.splitlines(), new.splitlines()) if a != b]
    assert changed == [
        # the file wrote é as \u00e9: the new value keeps that spelling; spacing is kept
        ('      "selector":   "#invit\\u00e9",', '      "selector":   "button[title=\\"Invit\\u00e9\\\\\\\\\\"]",'),
        ('    {"type": "act", "action": "click", "selector": "a[href=\\"/x\\"]", "target": "x"}',
         '    {"type": "act", "action": "click", "selector": "text=\'x\'", "target": "x"}'),
    ]
    assert json.loads(new)["steps"][1]["selector"] == "button[title=\"Invité\\\\\"]"
    assert (applies_with_git(root, patch.diff, tmp_path) / p).read_text() == new


ROBOT = """\
*** Settings ***
Library           aitester_bdd.AITester

*** Variables ***
${USER}           ada@example.com
${SUBMIT}         \\#submit

*** Test Cases ***
Sign In
    [Setup]    Given I start scenario "s" at "http://127.0.0.1:8000/login.html"
    I define rule "login"
        When I type "${USER}" into locator "#login-email"    # the e-mail
        When I click locator "[data-testid=login-submit]"    await=[data-testid=dashboard]
        When I fill locator "#q" with "#q"
        When I click locator "${SUBMIT}"
        Then url contains "/dashboard.html"
"""


def test_robot_the_locator_of_the_call_changes_escaped_as_robot_reads_it(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    p = "suites/site.robot"
    spec(root, p, ROBOT)
    tid = f"{p}#Sign In/login"
    out = report(tmp_path, (tid, heal(p, 12, "#login-email", 'input[name="email"]', 1)),
                 (tid, heal(p, 13, "[data-testid=login-submit]", "role=button[name=\"Sign in\"] >> ${x}\\y", 2)),
                 (tid, heal(p, 14, "#q", "#search", 3)),
                 (tid, heal(p, 15, "#submit", "#go", 4)))
    patch = plan_patch(out, root)
    new = patch.texts[p][1]
    changed = [(a, b) for a, b in zip(ROBOT.splitlines(), new.splitlines()) if a != b]
    assert changed == [
        ('        When I type "${USER}" into locator "#login-email"    # the e-mail',
         '        When I type "${USER}" into locator "input[name="email"]"    # the e-mail'),
        ('        When I click locator "[data-testid=login-submit]"    await=[data-testid=dashboard]',
         '        When I click locator "role=button[name="Sign in"] >> \\${x}\\\\y"    await=[data-testid=dashboard]'),
        # the locator, not the typed value that reads the same
        ('        When I fill locator "#q" with "#q"', '        When I fill locator "#search" with "#q"'),
    ]
    (skip,) = patch.skipped
    assert skip.line == 15 and "written with a variable ('${SUBMIT}')" in skip.render()
    assert (applies_with_git(root, patch.diff, tmp_path) / p).read_text() == new
    # the patched suite loads, and its steps carry the new locators exactly
    (root / p).write_text(new)
    suites = load_suites([str(root / p)], Settings(secret_names=()))
    steps = suites[0].scenarios[0].rules[0].steps
    assert [getattr(s, "selector", None) for s in steps[:3]] == [
        'input[name="email"]', 'role=button[name="Sign in"] >> ${x}\\y', "#search"]


def test_robot_refuses_what_a_cell_cannot_hold(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    p = "suites/site.robot"
    spec(root, p, ROBOT)
    out = report(tmp_path, (f"{p}#Sign In/login", heal(p, 14, "#q", "div  >  #q", 3)))
    patch = plan_patch(out, root)
    assert patch.edits == () and patch.diff == ""
    assert "repeated spaces" in patch.skipped[0].reason


def test_changed_files_are_skipped_with_the_reason(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    p = "flows/sign-in.flow.yaml"
    spec(root, p, FLOW.replace("'#submit'", "'#submit-2'").replace("selector: a.help", "selector: '{{HELP}}'"))
    spec(root, "flows/moved.flow.yaml", "# one more line\n" + FLOW)
    out = report(tmp_path,
                 (f"{p}#sign in", heal(p, 8, "#submit", "#go")),
                 (f"{p}#sign in", heal(p, 18, "a.help", "#help", 5)),
                 ("flows/moved.flow.yaml#sign in", heal("flows/moved.flow.yaml", 8, "#submit", "#go")),
                 ("flows/gone.flow.yaml#x", heal("flows/gone.flow.yaml", 3, "#a", "#b")),
                 ("../outside.flow.yaml#x", heal("../outside.flow.yaml", 3, "#a", "#b")),
                 ("flows/x.py#x", heal("flows/x.py", 3, "#a", "#b")))
    spec(tmp_path, "outside.flow.yaml", "steps:\n  - type: act\n    selector: '#a'\n")
    patch = plan_patch(out, root)
    assert patch.edits == () and patch.diff == "" and patch.texts == {}
    lines = [s.render() for s in patch.skipped]
    assert lines == [
        "../outside.flow.yaml:3: skipped: the file is outside " + str(root)
        + " (run flowwalk heal from the folder the run ran in, or pass it as --root)",
        "flows/gone.flow.yaml:3: skipped: no such file under " + str(root)
        + " (run flowwalk heal from the folder the run ran in, or pass it as --root)",
        "flows/moved.flow.yaml:8: skipped: no act step with a selector starts at line 8 any more (YAML); the "
        "file changed since the run, so this heal of '#submit' was not applied",
        "flows/sign-in.flow.yaml:8: skipped: the selector at this step is now '#submit-2', not '#submit': the "
        "file changed since the run, so this heal was not applied",
        "flows/sign-in.flow.yaml:18: skipped: the selector is written with a variable ('{{HELP}}'), so the "
        "healed value '#help' cannot replace it; edit the spec by hand",
        "flows/x.py:3: skipped: not a spec file flowwalk heals (.yaml, .yml, .json, .robot)",
    ]


def test_anchors_and_conflicting_heals_are_skipped(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    p = "r.rules.yaml"
    spec(root, p, "rules:\n  - name: a\n    steps:\n      - type: act\n        selector: &btn '#b'\n"
                  "      - type: act\n        selector: *btn\n      - type: act\n        selector: '#c'\n")
    out = report(tmp_path, (f"{p}#a", heal(p, 4, "#b", "#b2", 1)),
                 (f"{p}#a", heal(p, 8, "#c", "#c2", 3)),
                 (f"{p}#other", heal(p, 8, "#c", "#c3", 3)))
    patch = plan_patch(out, root)
    assert patch.edits == ()
    assert [s.render() for s in patch.skipped] == [
        "r.rules.yaml:4: skipped: the selector comes from a YAML anchor shared with other steps; edit the anchor "
        "by hand",
        "r.rules.yaml:8: skipped: '#c' was healed to different selectors: '#c2' (r.rules.yaml#a), "
        "'#c3' (r.rules.yaml#other); choose one and edit the spec by hand",
    ]


def test_the_same_heal_from_retries_and_shards_is_written_once(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    p = "a.flow.yaml"
    spec(root, p, "steps:\n  - type: act\n    action: click\n    selector: '#old'\n")
    h = heal(p, 2, "#old", "#new")
    # shard 1 and shard 2 each ran a flow of this file that healed the same step, each on two attempts
    report(tmp_path, (f"{p}#one", h), name="s1", attempts=2, shard=(1, 2))
    report(tmp_path, (f"{p}#two", h), name="s2", attempts=2, shard=(2, 2))
    merge_reports([tmp_path / "s1", tmp_path / "s2"], tmp_path / "merged")
    patch = plan_patch(tmp_path / "merged", root)
    (edit,) = patch.edits
    assert edit.tests == (f"{p}#one", f"{p}#two")
    assert patch.diff.count("+    selector: '#new'") == 1


def test_apply_refuses_a_file_that_changed_after_the_plan(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    p = "a.flow.yaml"
    spec(root, p, "steps:\n  - type: act\n    selector: '#old'\n")
    spec(root, "b.flow.yaml", "steps:\n  - type: act\n    selector: '#old'\n")
    out = report(tmp_path, (f"{p}#a", heal(p, 2, "#old", "#new")), ("b.flow.yaml#b", heal("b.flow.yaml", 2, "#old", "#new")))
    patch = plan_patch(out, root)
    (root / p).write_text("steps:\n  - type: act\n    selector: '#edited-meanwhile'\n")
    with pytest.raises(PatchConflictError) as caught:
        apply_patch(patch)
    assert caught.value.paths == [p] and caught.value.written == [root / "b.flow.yaml"]
    assert (root / p).read_text().endswith("'#edited-meanwhile'\n")
    assert (root / "b.flow.yaml").read_text().endswith("'#new'\n")


def test_no_heals_no_patch(tmp_path: Path) -> None:
    out = report(tmp_path)
    assert build_patch(out, tmp_path) == ""


def flowwalk_heal(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flowwalk.cli", "heal", *args], cwd=root, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(SRC)})


def test_the_cli_prints_the_diff_then_applies_it_once(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    p = "flows/a.flow.yaml"
    spec(root, p, "steps:\n  - type: act   # keep me\n    action: click\n    selector: '#old'\n")
    out = report(tmp_path, (f"{p}#a", heal(p, 2, "#old", "button:text(\"Go\")")),
                 ("flows/b.flow.yaml#b", heal("flows/b.flow.yaml", 2, "#x", "#y")))
    # a heal whose file the root does not hold (the wrong root, or a moved spec): nothing at all
    refused = flowwalk_heal(root, "--report", str(out), "--apply")
    assert (refused.returncode, refused.stdout) == (3, "")
    assert refused.stderr == (
        f"flowwalk: error: the report's heals name 1 file the project root {root} does not hold "
        "(flows/b.flow.yaml), so nothing was changed\n  hint: pass the root the run printed (--root), or heal the "
        "moved specs by hand\n")
    assert (root / p).read_text().endswith("    selector: '#old'\n")
    (root / "flows/b.flow.yaml").write_text("steps:\n  - type: act\n    selector: '#x'\n")
    # from elsewhere, --root names the folder the run ran in (and confines the patch to it)
    applied = flowwalk_heal(tmp_path, "--report", str(out), "--root", "repo", "--apply")
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout.splitlines() == [
        "patched flows/a.flow.yaml:4: '#old' -> 'button:text(\"Go\")' (deterministic, score 0.90)",
        "patched flows/b.flow.yaml:3: '#x' -> '#y' (deterministic, score 0.90)"]
    assert (root / p).read_text().endswith("    selector: 'button:text(\"Go\")'\n")
    again = flowwalk_heal(root, "--report", str(out), "--apply")
    assert (again.returncode, again.stdout) == (0, "")
    assert again.stderr == ("flowwalk heal: nothing to change: no heal is left to apply; "
                            "2 already in the spec files\n")


def test_the_cli_refuses_an_unreadable_report(tmp_path: Path) -> None:
    result = flowwalk_heal(tmp_path, "--report", "missing")
    assert result.returncode == 3 and "Traceback" not in result.stderr
    assert "flowwalk: error: 'missing': no such file or folder" in result.stderr
    assert flowwalk_heal(tmp_path, "--report", str(report(tmp_path))).stderr == \
        "flowwalk heal: nothing to change: the report has no heals\n"


def test_a_heal_outside_the_root_changes_nothing_not_even_the_renames(tmp_path: Path) -> None:
    """A report whose heal names a file above the root (`../specs/...`, or a report of another
    project) is refused whole: its refactor's renames are not made in the specs the root does hold."""
    spec(tmp_path, "specs/a.flow.yaml", "steps:\n  - type: act\n    selector: '#old'\n")
    other = "steps:\n  - type: act\n    selector: '#old'\n"
    spec(tmp_path, "work/other.flow.yaml", other)
    p = "../specs/a.flow.yaml"
    out = report(tmp_path, (f"{p}#a", dataclasses.replace(heal(p, 2, "#old", "#new"), renames={"#old": "#new"})))
    for told in ((), ("--root", ".")):
        refused = flowwalk_heal(tmp_path / "work", "--report", str(out), *told, "--apply")
        assert refused.returncode == 3 and "Traceback" not in refused.stderr
        assert "does not hold (../specs/a.flow.yaml), so nothing was changed" in refused.stderr
    assert (tmp_path / "specs/a.flow.yaml").read_text() == other
    assert (tmp_path / "work/other.flow.yaml").read_text() == other


def test_an_escaped_robot_variable_is_a_literal_and_an_alias_bomb_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    p = "suites/site.robot"
    spec(root, p, ROBOT.replace('locator "#q" with', 'locator "a\\${b}" with'))
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8)) + "steps:\n  - type: act\n    selector: '#old'\n"
    spec(root, "bomb.flow.yaml", bomb)
    out = report(tmp_path, (f"{p}#Sign In/login", heal(p, 14, "a${b}", "#c", 3)),
                 ("bomb.flow.yaml#b", heal("bomb.flow.yaml", 11, "#old", "#new")))
    patch = plan_patch(out, root)
    assert [e.new_lines for e in patch.edits] == [('        When I fill locator "#c" with "#q"',)]
    (skip,) = patch.skipped
    assert skip.path == "bomb.flow.yaml" and "no longer a readable spec" in skip.reason
    assert "100,000 nodes" in skip.reason


REFACTORED_FLOW = """\
spec_version: "1.1"
name: adds
url: /
steps:
  - {type: act, action: fill, selector: "#new-todo", value: milk}
  - {type: expect, kind: hidden, selector: "#clear-completed"}   # absence: never healed, still renamed
  - {type: expect, kind: text_contains, value: "#new-todo"}      # a text, not a selector
  - {type: expect, kind: screenshot, name: list, mask: ["#todo-list .toggle", ".clock"]}
"""
REFACTORED_RULES = """\
rules_version: "1"
verification: todos
dismiss: ["#clear-completed.banner"]
scenarios:
  - name: s
    url: /
    rules:
      - name: list
        child_scope: '#todo-list'
        steps:
          - type: expect
            kind: count
            selector: '#todo-list li:nth-child({{position}}) .toggle'
            equals: 0
"""
REFACTORED_JSON = '{"spec_version": "1", "name": "j", "url": "/",\n' \
                  ' "steps": [{"type": "wait", "for": "#todo-list"}]}\n'
REFACTORED_ROBOT = """\
*** Settings ***
Library           aitester_bdd.AITester

*** Test Cases ***
Clears
    [Setup]    Given I start scenario "s" at "http://127.0.0.1:8000/"
    I define rule "clear"
        When I click locator "#clear-completed"
        Then locator "#todo-list .toggle" is hidden
"""


def test_a_refactor_renames_every_selector_of_every_spec_file_absence_checks_included(tmp_path: Path) -> None:
    """A run's renames (learned from positive heals) reach every selector under the root, also
    those no step healed: an absence check, a mask, a scope, a dismiss list, a steps file's
    variable selector, a JSON wait, a .robot locator. Text that is not a selector is left alone."""
    root = tmp_path / "repo"
    spec(root, "adds.flow.yaml", REFACTORED_FLOW)
    spec(root, "list.rules.yaml", REFACTORED_RULES)
    spec(root, "wait.flow.json", REFACTORED_JSON)
    spec(root, "suites/clears.robot", REFACTORED_ROBOT)
    spec(root, "node_modules/x/skip.flow.yaml", REFACTORED_FLOW)
    renames = {"#new-todo": "#todo-input", "#todo-list": "#todos", ".toggle": ".done-box",
               "#clear-completed": "#clear-done"}
    healed = Heal(old_selector="#new-todo", new_selector="#todo-input", method="renamed", score=1.0, target="",
                  step_index=1, path="adds.flow.yaml", line=5, renames=renames)
    patch = plan_patch(report(tmp_path, ("adds.flow.yaml#adds", healed)), root)
    assert not patch.skipped
    flow = patch.texts["adds.flow.yaml"][1]
    assert '{type: expect, kind: hidden, selector: "#clear-done"}' in flow
    assert 'value: "#new-todo"}' in flow and 'selector: "#todo-input"' in flow
    assert 'mask: ["#todos .done-box", ".clock"]' in flow
    rules = patch.texts["list.rules.yaml"][1]
    assert "child_scope: '#todos'" in rules and '["#clear-done.banner"]' in rules
    assert "selector: '#todos li:nth-child({{position}}) .done-box'" in rules
    assert '"for": "#todos"' in patch.texts["wait.flow.json"][1]
    robot = patch.texts["suites/clears.robot"][1]
    assert 'click locator "#clear-done"' in robot and 'locator "#todos .done-box" is hidden' in robot
    assert set(patch.texts) == {"adds.flow.yaml", "list.rules.yaml", "wait.flow.json", "suites/clears.robot"}
    # the healed step is one edit; the others are the refactor's renames
    assert sorted(e.heal.method for e in patch.edits).count("renamed") == len(patch.edits)
    copy = applies_with_git(root, patch.diff, tmp_path)
    suites = load_suites([str(copy / p) for p in ("adds.flow.yaml", "list.rules.yaml", "wait.flow.json",
                                                  "suites/clears.robot")], Settings(secret_names=()))
    assert len(suites) == 4
    # applied, nothing is left to rename
    for path, (_, new) in patch.texts.items():
        spec(root, path, new)
    again = plan_patch(report(tmp_path, ("adds.flow.yaml#adds", healed), name="again"), root)
    assert not again.texts and not again.skipped
