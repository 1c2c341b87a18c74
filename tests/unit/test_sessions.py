"""Sign in once, without a browser: which setup saves a session, sharding walks a setup in each shard
that needs it (so one login's dependants spread evenly), and the run's session book releases
dependants once their session is settled."""

from __future__ import annotations

import json
import random
import statistics
import threading
import time
from pathlib import Path

import pytest

from flowwalk import events as ev
from flowwalk.errors import Location
from flowwalk.model import Expect, Rule, Scenario, Suite
from flowwalk.plan.shard import plan_run, session_setups
from flowwalk.settings import Settings
from flowwalk.spec.sessions import session_problems
from flowwalk.walk.outcomes import rule_finished
from flowwalk.walk.recovery import make_failure
from flowwalk.walk.sessions import SessionBook, WorkQueue


def flow(name: str, *, saves: str | None = None, session: str | None = None) -> Scenario:
    path = f"specs/{name}.flow.yaml"
    loc = Location(path, 3, 1)
    step = Expect(loc=Location(path, 6, 5), text="expect url_contains '/'", kind="url_contains", value="/")
    rule = Rule(name=name, loc=loc, steps=(step,), guards_enabled=False, saves_session=saves)
    return Scenario(id=f"{path}#{name}", name=name, source=path, kind="flow", loc=loc, entry_url="/", rules=(rule,),
                    session=session, session_loc=Location(path, 4, 10) if session else None)


def suites(*scenarios: Scenario) -> list[Suite]:
    return [Suite(s.source, "flow", (s,)) for s in scenarios]


def test_a_session_no_setup_saves_is_refused_at_its_key_with_a_guess() -> None:
    problems = session_problems(suites(flow("login", saves="admin"), flow("home", session="admn")))
    assert [p.render() for p in problems] == [
        "specs/home.flow.yaml:4:10: error: no setup saves session 'admn'\n"
        "  hint: did you mean 'admin'? sessions saved by the specs of this run: admin"]


def test_a_session_saved_twice_is_refused_at_each_saves_session_key(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from flowwalk.errors import SpecError
    from flowwalk.spec.loader import load_suites

    monkeypatch.chdir(tmp_path)
    for name in ("a", "b"):
        (tmp_path / f"{name}.flow.yaml").write_text(f'spec_version: "1.1"\nname: {name}\nurl: https://example.com/\n'
                                                    "saves_session: admin\nsteps:\n  - {type: wait, ms: 1}\n")
    with pytest.raises(SpecError) as refused:
        load_suites(["a.flow.yaml", "b.flow.yaml"], Settings())
    assert [p.render() for p in refused.value.problems] == [
        "b.flow.yaml:4:1: error: session 'admin' is saved twice (first by 'a.flow.yaml#a' at a.flow.yaml:4:1)\n"
        "  hint: give each setup its own session name"]


def test_each_shard_with_a_dependant_walks_its_setup_and_every_other_scenario_runs_once() -> None:
    scenarios = [flow("login", saves="admin"), *(flow(f"admin-{i}", session="admin") for i in range(5)),
                 *(flow(f"public-{i}") for i in range(6))]
    assert set(session_setups(scenarios).values()) == {"specs/login.flow.yaml#login"}
    for total in (2, 3, 4):
        shards = [plan_run(suites(*scenarios), Settings(shard_index=k, shard_total=total)).assigned
                  for k in range(1, total + 1)]
        for ids in shards:
            needs_login = any(sid.startswith("specs/admin-") for sid in ids)
            assert ("specs/login.flow.yaml#login" in ids) == needs_login
        others = sorted(sid for ids in shards for sid in ids if sid != "specs/login.flow.yaml#login")
        assert others == sorted(s.id for s in scenarios if s.id != "specs/login.flow.yaml#login")
        # the dependants are not all in one shard any more
        assert max(sum(sid.startswith("specs/admin-") for sid in ids) for ids in shards) < 5


def one_login_suite(tmp_path: Path, seed: int) -> tuple[list[Scenario], Path]:
    """40 flows behind one login, with durations as an earlier run would have measured them: each
    flow 1 to 12 s (skewed towards short ones), the login 6 s."""
    scenarios = [flow("login", saves="demo"), *(flow(f"user-{i:02d}", session="demo") for i in range(40))]
    rng = random.Random(seed)
    durations = {s.id: round(min(12.0, 1.0 + rng.expovariate(1 / 3.0)), 3) for s in scenarios}
    durations["specs/login.flow.yaml#login"] = 6.0
    path = tmp_path / f"durations-{seed}.json"
    path.write_text(json.dumps(durations))
    return scenarios, path


def longest_over_mean(scenarios: list[Scenario], durations: Path | None, total: int = 4) -> float:
    plan = plan_run(suites(*scenarios), Settings(shard_index=1, shard_total=total,
                                                   durations_file=str(durations) if durations else None))
    if durations is None:   # by count: each scenario weighs the same
        loads = [float(len(ids)) for ids in plan.shards]
    else:
        loads = list(plan.shard_estimates())
    return max(loads) / statistics.mean(loads)


@pytest.mark.parametrize("seed", range(10))
def test_a_forty_flow_suite_behind_one_login_shards_evenly_on_four_jobs(tmp_path: Path, seed: int) -> None:
    """The figure in docs/sessions.md: each shard walks the login once, and the longest shard stays
    within 1.3 x the mean (it was 4 x when the login and all its dependants were one unit)."""
    scenarios, durations = one_login_suite(tmp_path, seed)
    assert longest_over_mean(scenarios, durations) <= 1.3
    assert longest_over_mean(scenarios, None) <= 1.3


def _finished(scenario: Scenario, status: ev.Status, failure: ev.Failure | None = None) -> ev.RuleFinished:
    return rule_finished(scenario, scenario.rules[0], 1, status, 10.0, failure=failure)


def test_a_dependant_waits_for_its_setup_and_starts_from_what_it_saved() -> None:
    setup, user, other = flow("login", saves="admin"), flow("home", session="admin"), flow("public")
    book = SessionBook([setup, user, other])
    queue = WorkQueue([user, setup, other], book)
    never = lambda: False  # noqa: E731
    # the dependant is held back: the setup and the scenario without a session go first
    assert queue.take(never) is setup
    assert queue.take(never) is other
    taken: list[Scenario | None] = []
    waiter = threading.Thread(target=lambda: taken.append(queue.take(never)))
    waiter.start()
    time.sleep(0.3)
    assert taken == []
    book.save(setup, "admin", {"cookies": [], "origins": []})
    waiter.join(5)
    assert taken == [user]
    assert book.state_for(user) == {"cookies": [], "origins": []} and book.blame(user) is None
    assert "cookies" not in repr(book)


def test_a_failed_setup_blames_its_failure_on_each_dependant() -> None:
    setup, user = flow("login", saves="admin"), flow("home", session="admin")
    book = SessionBook([setup, user])
    root = make_failure("EXPECT_STATE_MISMATCH", step_kind="observation_or_assertion", message="wrong password")
    book.finish(setup, [_finished(setup, "failed", root)])
    blame = book.blame(user)
    assert blame is not None
    assert blame.failure_class == root.failure_class == "assertion_failed"
    assert blame.context == {"session": "admin", "setup": "specs/login.flow.yaml#login"}
    assert "session 'admin' was not saved" in blame.message and "wrong password" in blame.message
    # a setup that never ran (cancelled before it started) releases its dependants too
    book2 = SessionBook([setup, user])
    book2.finish(setup, ())
    assert book2.settled(user) and book2.blame(user) is not None


def test_a_session_whose_setup_is_not_in_the_run_is_blamed_not_waited_for() -> None:
    user = flow("home", session="admin")
    book = SessionBook([user])
    assert book.settled(user)
    blame = book.blame(user)
    assert blame is not None and "saved by no setup of this run" in blame.message
    assert blame.step_kind == "setup"


def test_flowwalk_plan_shows_which_scenario_saves_a_session_and_which_start_from_it() -> None:
    from flowwalk.plan.shard import render_plan

    text = render_plan(plan_run(suites(flow("login", saves="admin"), flow("home", session="admin"), flow("public")),
                                Settings()))
    rows = {line.split()[0]: line for line in text.splitlines() if line.startswith("  ")}
    assert rows["specs/login.flow.yaml#login"].endswith("flow  saves session 'admin'")
    assert rows["specs/home.flow.yaml#home"].endswith("flow  from session 'admin'")
    assert rows["specs/public.flow.yaml#public"].endswith("flow")
