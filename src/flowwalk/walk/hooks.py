"""The features around a step, as ordered hooks (pytest's hookwrappers in small): the step envelope
(step.py `run_step`) makes one of each row of STEP_HOOKS for every step and tells them each phase;
no other code names them. A new step-level feature (downloads, file choosers, a watch loop's pause)
is one row.

The phases, each told to every hook in the order of STEP_HOOKS:
- making the hook: the step starts (before its deadlines are checked);
- `before`: inside the step's failure envelope, before its handler; StepFailed fails the step;
- `arm`, `acted`, `awaited`: an act's, told by `actions.act` through `RuleState.current_hooks`:
  between finding its element and doing its action; right after the action; after its
  `await_selector`, before its verifiers. StepFailed fails the act;
- `after`: the step's outcome is known (its failure and that failure's evidence built), before its
  StepFinished is emitted; not told when the browser is gone (Halt).

Why phases told in one order rather than nested context managers: no feature's closing depends on
another's opening, and the order of what they record (findings, `request_routed` events,
screenshots) is the order readers see, so one order, written once here, holds for opening and
closing alike; and the step's failure is built between its body and the features' closing, outside
the failure envelope that their opening runs in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from flowwalk import events as ev
from flowwalk.model import Act, Expect, Step
from flowwalk.walk import interact, places
from flowwalk.walk.attempt import Attempt, RuleState
from flowwalk.walk.evidence import screenshot
from flowwalk.walk.outcomes import StepResult
from flowwalk.walk.waits import check_navigation

__all__ = ["Allowlist", "Around", "Dialogs", "Places", "Popups", "Routes", "STEP_HOOKS", "Screenshots", "StepCall",
           "StepHook"]


@dataclass(frozen=True)
class StepCall:
    """The step in flight, as every hook sees it."""

    attempt: Attempt
    state: RuleState
    index: int
    step: Step
    role: ev.Role
    result: StepResult

    @property
    def act(self) -> Act:
        """The step, in the phases only an act is told of."""
        assert isinstance(self.step, Act)
        return self.step


class StepHook:
    """One feature around a step; a phase it does not define does nothing."""

    def __init__(self, call: StepCall) -> None:
        self.call = call

    def before(self) -> None:
        """Before the handler; StepFailed fails the step."""

    def arm(self) -> None:
        """An act's element was found; its action comes next."""

    def acted(self) -> None:
        """An act's action was done."""

    def awaited(self) -> None:
        """An act's `await_selector` arrived (or it has none); its verifiers come next."""

    def after(self) -> None:
        """The step's outcome is known; its record comes next."""


class Dialogs(StepHook):
    """The dialog an act says it opens (answer armed, dialog awaited and checked: interact.py), and
    after every step the dialogs nobody asked for (a warning finding each)."""

    def __init__(self, call: StepCall) -> None:
        super().__init__(call)
        self.seen = self.armed_at = interact.dialogs_seen(call.attempt)

    def arm(self) -> None:
        self.armed_at = interact.dialogs_seen(self.call.attempt)
        interact.arm_dialog(self.call.attempt, self.call.act)

    def acted(self) -> None:
        c = self.call
        interact.await_dialog(c.attempt, c.state, c.act, self.armed_at, c.result)

    def after(self) -> None:
        c = self.call
        interact.settle_dialogs(c.attempt, c.state, c.index, c.step, self.seen, c.result)


class Popups(StepHook):
    """The popup an act says it opens (places.py): kept for it, gone into after the action, let go
    when the step ended without going into it."""

    def arm(self) -> None:
        places.arm_popup(self.call.attempt, self.call.act)

    def acted(self) -> None:
        c = self.call
        places.enter_popup(c.attempt, c.state, c.act, c.result)

    def after(self) -> None:
        step, session = self.call.step, self.call.attempt.session
        if isinstance(step, Act) and step.popup is not None and session is not None:
            session.disarm_popup()   # the act failed before its popup opened


class Allowlist(StepHook):
    """A top-level navigation that left the allowlist fails the step that sees it, blamed on the
    action that set it off when that was an earlier one (waits.py `check_navigation`)."""

    def before(self) -> None:
        attempt, state = self.call.attempt, self.call.state
        if attempt.session is not None:
            # an action's navigation may reach the network only after the action returned
            # (a loaded machine), and a page script may leave on its own during a wait: catch
            # either before this step runs, blaming the last action when there was one. No
            # pump here: the action's own check pumped, and every call since delivered events
            check_navigation(attempt, caused_by=state.last_act, pump=False)

    def arm(self) -> None:
        state = self.call.state
        if state.last_act is not None:
            # locating took a round trip that delivered any late navigation of the last action:
            # blame that action before this one changes the page
            check_navigation(self.call.attempt, caused_by=state.last_act, pump=False)

    def awaited(self) -> None:
        # an act or expect next checks again after its own first round trip (which delivers
        # what this action set off, and more time than a pump gives): no pump needed here then
        next_step = self.call.state.ahead.next_step
        check_navigation(self.call.attempt, pump=not isinstance(next_step, (Act, Expect)))


class Places(StepHook):
    """Where the step runs (places.py `place`): the popups and frames it is not in left, the frames
    it is in entered."""

    def before(self) -> None:
        c = self.call
        if c.attempt.session is not None:
            places.place(c.attempt, c.state, c.step)


class Routes(StepHook):
    """A `request_routed` event for each request the spec's routes answered during the step."""

    def after(self) -> None:
        interact.report_routed(self.call.attempt, self.call.state, self.call.index)


class Screenshots(StepHook):
    """With `screenshots: on`, a body step's screenshot (its `screenshot` detail)."""

    def after(self) -> None:
        c = self.call
        if c.attempt.settings.screenshots == "on" and c.role == "body" and not c.attempt.control.crashed:
            shot = screenshot(c.attempt, c.state.rule, c.index, "step")
            if shot:
                c.result.detail["screenshot"] = shot
                c.state.add_screenshot(shot)


#: the features around every step, in the order each phase is told to them
STEP_HOOKS: tuple[type[StepHook], ...] = (Dialogs, Popups, Allowlist, Places, Routes, Screenshots)


class Around:
    """The hooks of one step: one of each row, each phase told to them in their order."""

    def __init__(self, call: StepCall, hooks: Sequence[type[StepHook]] = STEP_HOOKS) -> None:
        self.hooks = tuple(hook(call) for hook in hooks)

    def before(self) -> None:
        for hook in self.hooks:
            hook.before()

    def arm(self) -> None:
        for hook in self.hooks:
            hook.arm()

    def acted(self) -> None:
        for hook in self.hooks:
            hook.acted()

    def awaited(self) -> None:
        for hook in self.hooks:
            hook.awaited()

    def after(self) -> None:
        for hook in self.hooks:
            hook.after()
