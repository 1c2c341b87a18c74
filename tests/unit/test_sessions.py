"""Sign in once, without a browser: which setup saves a session, sharding keeps a setup with its
dependants, and the run's session book releases dependants once their session is settled."""

from __future__ import annotations

import threading
import time

from flowwalk import events as ev
from flowwalk.errors import Location
from flowwalk.model import Expect, Rule, Scenario, Suite
from flowwalk.plan.shard import plan_run, session_groups
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


def test_a_setup_and_its_dependants_are_never_split_across_shards() -> None:
    scenarios = [flow("login", saves="admin"), *(flow(f"admin-{i}", session="admin") for i in range(5)),
                 *(flow(f"public-{i}") for i in range(6))]
    groups = session_groups(scenarios)
    assert {groups[f"specs/admin-{i}.flow.yaml#admin-{i}"] for i in range(5)} == {"specs/login.flow.yaml#login"}
    for total in (2, 3, 4):
        shards = [plan_run(suites(*scenarios), Settings(shard_index=k, shard_total=total)).assigned
                  for k in range(1, total + 1)]
        holding = [ids for ids in shards if "specs/login.flow.yaml#login" in ids]
        assert len(holding) == 1
        assert all(f"specs/admin-{i}.flow.yaml#admin-{i}" in holding[0] for i in range(5))
        assert sorted(sum(map(list, shards), [])) == sorted(s.id for s in scenarios)


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
