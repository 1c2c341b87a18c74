"""The MCP prompts: ready-made workflows a person starts from the client (editors show them as
slash commands), each built on the server's own tools.

    check-my-app (url)                      discover -> run -> explain_failure -> propose fixes
    fix-failing-check (report_dir, test_id) the failure explained, a diff proposed, that test rerun
    review-heals (report_dir)               the run's heals as a diff, with why each was chosen
    write-a-check (what, url)               the spec format, an example close to the request,
                                            then validate -> run

A prompt's arguments arrive as strings (the protocol has no other kind); each is checked here as
the matching tool would check it, and a bad one is refused with what is wrong and a hint. Where a
prompt can say more than the instructions (the failure, the heals, the closest example), it reads
the report folder or the working directory through the same functions the tools use, so the
agent starts with facts, not with a first tool call to make. Bodies are synchronous: the server
runs them on a worker thread.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from flowwalk.mcp import operations
from flowwalk.mcp.bounds import clip, compact, fit
from flowwalk.mcp.explain import explain
from flowwalk.mcp.operations import ToolInputError
from flowwalk.mcp.workspace import Workspace
from flowwalk.spec.loader import SKIP_DIRS

__all__ = ["PromptText", "check_my_app", "fix_failing_check", "review_heals", "write_a_check", "PROMPTS"]

#: the most characters of tool output a prompt embeds (an answer's own limit is larger; a prompt
#: is the start of a conversation, not the whole of it)
EMBED_LIMIT = 8_000
#: how many spec files `write-a-check` reads looking for the closest example
EXAMPLE_SCAN = 200
_WORD = re.compile(r"[a-z0-9]+")
#: what a regular expression reads as syntax (escaped so that `grep` matches a test id literally;
#: re.escape would also escape spaces and '#', which is right but hard to read)
_REGEX_SPECIAL = re.compile(r"([.^$*+?{}\[\]\\|()])")
_STOP = frozenset("a an the and or of to in on for is it that this with my be as at by from check checks "
                  "page site app should when then".split())


@dataclass(frozen=True)
class PromptText:
    """A prompt's messages, in order: (role, text)."""

    messages: tuple[tuple[str, str], ...]


PROMPTS: dict[str, str] = {
    "check-my-app": "Crawl my web app, run the starter checks, explain what failed and propose fixes",
    "fix-failing-check": "Explain one failed test of a report, propose a diff of its spec, rerun it",
    "review-heals": "Review the selectors a run healed, as a diff, with why each was chosen",
    "write-a-check": "Write a flowwalk check for something the site should do, validate it and run it",
}


def _url(url: str) -> str:
    text = url.strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ToolInputError(f"'{url}' is not an http(s) URL\n  hint: for example https://staging.example.com "
                             f"or http://127.0.0.1:8000/")
    return text


def _embed(data: dict[str, object]) -> str:
    fitted, cut = fit(data, EMBED_LIMIT)
    text = json.dumps(fitted, indent=1, ensure_ascii=False)
    return text + ("\n(cut to fit; the tool gives the whole answer)" if cut else "")


_LABEL_FIXES = """\
- not_found: nothing matched the selector or target. Compare the step's selector with the
  snapshot; if the element moved or was renamed, fix the selector (propose_heal shows a heal the
  run already found). If the element is really gone, that is the site's bug: say so.
- ambiguous(n): n elements match; make the selector or target unique (a test id, a landmark).
- timeout: the page did not get there in time; look at network (failed requests) and console;
  raise the step's timeout_ms only when the site is just slow.
- assertion_mismatch: the page showed something else; `observed` says what. Decide whether the
  spec expects the wrong thing (fix the expectation) or the site misbehaves (report it, keep the
  spec).
- off_allowlist: the page went to a host outside the allowlist; add it to allowed_hosts only if
  that host is meant to be part of the flow.
- no label: read failure_class and runtime_code (a missing variable is credential_rejected: give
  it with variables, or the NAME of the secret with secret_names)."""


def _indented(text: str) -> str:
    return "\n".join("   " + line for line in text.split("\n"))


def check_my_app(url: str) -> PromptText:
    site = _url(url)
    discover = compact({"url": site, "out_dir": "checks"})
    text = f"""\
Check my web app at {site} with flowwalk and get it to green checks. Work through these steps with
the flowwalk tools, and tell me what you found at each one.

1. Crawl it: call `discover` with {discover}. It stays within its limits, never touches
   destructive controls, and writes starter flow specs under checks/: `specs_written` passed twice,
   `needs_review` did not (each starts with why). If the site is behind a login, discover asks me
   for the login's user name and for the NAME of the environment variable that holds the password
   (never the password) when this client can ask; otherwise write a login flow spec and pass it as
   `login`. If `journeys` come back, they are the paths through the site the crawl found.
2. Run them: call `run` with {compact({"paths": ["checks"], "base_url": site})}. Its answer has the
   verdict and each root cause.
3. For each root cause, call `explain_failure` with the report folder and the test id, and read its
   label:
{_indented(_LABEL_FIXES)}
4. Propose the fixes as diffs of the spec files, one per failure, and say for each whether the spec
   or the site is wrong. Do not change files until I agree. After a fix, run again until the checks
   are green or only the site's own bugs are left."""
    return PromptText((("user", text),))


def fix_failing_check(ws: Workspace, report_dir: str, test_id: str) -> PromptText:
    folder = ws.report_dir(report_dir)
    name = ws.relative(folder)
    answer = explain(folder, name, test_id)
    spec = answer.path or test_id.split("#", 1)[0]
    literal = _REGEX_SPECIAL.sub(r"\\\1", test_id)
    rerun = compact({"paths": [spec], "grep": f"^{literal}$", "out_dir": name})
    data = answer.model_dump(mode="json", by_alias=True)
    data.pop("truncated", None)
    if not data.get("note"):
        data.pop("note", None)
    intro = f"""\
Fix the failing flowwalk check `{test_id}` of the report `{name}`.

1. Explain: what `explain_failure` says about it is below (call it again for the screenshot as an
   image{f': {answer.screenshot_uri}' if answer.screenshot_uri else ''}). The label says what kind of
   failure it is:
{_indented(_LABEL_FIXES)}
2. Propose a diff of `{spec}` (line {answer.line or '?'} is the failing step) that fixes the spec,
   or say that the site is wrong and the spec should stay. Show me the diff before you apply it.
3. Rerun that test alone (`grep` selects it by its id): call `run` with {rerun}, and check that it
   passes."""
    return PromptText((("user", intro), ("user", "explain_failure:\n" + _embed(data))))


def review_heals(ws: Workspace, report_dir: str) -> PromptText:
    answer = operations.propose_heal(ws, report_dir)
    name = answer.report_dir
    if not answer.heals:
        text = (f"The report `{name}` has no heal to review ({answer.note or 'nothing to change'}). "
                + (f"Heals left out: {'; '.join(answer.skipped)}. " if answer.skipped else "")
                + "If a test failed with the label not_found, call `explain_failure` for it and "
                  "`propose_heal`, which lists the candidates the run found and takes your choice.")
        return PromptText((("user", text),))
    heals = "\n".join(f"- {line}" for line in answer.heals)
    skipped = "\n".join(f"- {line}" for line in answer.skipped)
    text = f"""\
Review the selectors flowwalk healed in the report `{name}`. A heal means a pinned selector matched
nothing and flowwalk acted on another element instead, for that run only; the diff below would
make it permanent. For each heal:

- say whether the new selector is the element the step's target means (the method and score say
  how it was chosen: `deterministic` from the target's words and the element's last fingerprint,
  `model` when the configured model picked among the candidates);
- prefer a stable selector (a test id, a label) over a long CSS path, and say when you would change it;
- a later check of the same test that failed after a heal means the heal was wrong
  (HEAL_CONTRADICTED): never keep such a heal.

Then tell me which to apply (`git apply` from the working directory, or
`flowwalk heal --report {name} --apply`), and run the healed tests again.

Heals (path:line: 'old' -> 'new' (method, score)):
{heals}
{('Left out of the diff:' + chr(10) + skipped + chr(10)) if skipped else ''}
The diff:
```diff
{clip(answer.diff, EMBED_LIMIT)}
```"""
    return PromptText((("user", text),))


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


def _closest_example(ws: Workspace, what: str) -> tuple[str, str] | None:
    """(path, text) of the flow spec under the working directory whose words best match `what`."""
    wanted = _words(what)
    best: tuple[int, str, str] | None = None
    seen = 0
    for current, dirs, files in os.walk(ws.root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for file in sorted(files):
            if not file.endswith((".flow.yaml", ".flow.yml", ".flow.json")):
                continue
            seen += 1
            if seen > EXAMPLE_SCAN:
                break
            path = Path(current) / file
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if len(text) > EMBED_LIMIT:
                continue
            score = len(wanted & _words(text))
            rel = ws.relative(path)
            if best is None or score > best[0] or (score == best[0] and rel < best[1]):
                best = (score, rel, text)
    return None if best is None else (best[1], best[2])


#: the example when the working directory has no flow spec yet
BUILT_IN_EXAMPLE = """\
spec_version: "1.1"
name: a visitor can search the notes
url: /notes.html
steps:
  - type: goto
    url: /notes.html
  - type: act
    action: fill
    target: the Search notes field
    selector: "[data-testid=note-search]"
    value: report
  - type: act
    action: press
    target: the Search notes field
    selector: "[data-testid=note-search]"
    value: Enter
  - type: expect
    kind: text_contains
    selector: "[data-testid=note-list]"
    value: Weekly report
"""


def _format_summary() -> str:
    """Step types and expect kinds, read from the flow-spec schema itself (so it never drifts)."""
    schema = json.loads(operations.schema_text(operations.SCHEMA_FILES["flow_spec"]))
    found: dict[str, list[str]] = {}

    def walk(node: object) -> None:
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                found_type = props.get("type")
                step_type: dict[str, object] = found_type if isinstance(found_type, dict) else {}
                of_step = [step_type["const"]] if "const" in step_type else list(step_type.get("enum") or [])  # type: ignore[call-overload]
                for key in ("type", "kind", "action"):
                    if key != "type" and of_step != [{"kind": "expect", "action": "act"}[key]]:
                        continue   # an assertion's kind is not an expect kind
                    spec = props.get(key)
                    if isinstance(spec, dict):
                        values = spec.get("enum") or ([spec["const"]] if "const" in spec else [])
                        for value in values:
                            if isinstance(value, str) and value not in found.setdefault(key, []):
                                found[key].append(value)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    lines = []
    for key, label in (("type", "step types"), ("action", "act actions"), ("kind", "expect kinds")):
        if found.get(key):
            lines.append(f"- {label}: {', '.join(found[key])}")
    return "\n".join(lines)


def write_a_check(ws: Workspace, what: str, url: str) -> PromptText:
    site = _url(url)
    request = " ".join(what.split())
    if not request:
        raise ToolInputError("what is empty\n  hint: say what the site should do, for example 'a visitor can "
                             "sign up with an e-mail address'")
    example = _closest_example(ws, request)
    where, text = example if example else ("a flow spec", BUILT_IN_EXAMPLE)
    slug = "-".join(sorted(_words(request), key=request.lower().find)[:5]) or "check"
    target = f"checks/{slug}.flow.yaml"
    intro = f"""\
Write a flowwalk check that {site} does this: "{request}".

The format is a flow spec (*.flow.yaml): `spec_version`, `name`, `url`, then `steps`, each a
`goto`, an `act` (an action on one element: give a `selector` and a `target`, the element
described in words, which flowwalk uses to heal the selector when it breaks), a `wait`, an
`expect` (a check), or an `extract`. Variables are `{{{{NAME}}}}`; a secret is the NAME of an
environment variable, typed only by fill or press. Call the `schema` tool with kind `flow_spec`
for the whole format; in short:
{_format_summary()}

The closest example ({where}):
```
{text.rstrip()}
```

1. Look at the page first if you need its selectors (a test id or a label is the most stable).
2. Write the spec to `{target}` and call `validate` with {compact({"paths": [target]})}; fix every
   problem it reports (each has a hint) until it says ok.
3. Call `run` with {compact({"paths": [target], "base_url": site})}. If it fails, call
   `explain_failure` and fix the spec, or tell me when the site is what is wrong."""
    return PromptText((("user", intro),))
