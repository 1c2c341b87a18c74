"""Walking scenarios in the browser. Nothing here imports Playwright: `flowwalk.browser` does.

run.run_plan (workers, retries, relaunch) -> preflight (variables, refused / not-run events)
-> scenario.walk_scenario (open, rules in order, close) -> rule.walk_rule (guards, retry-redo,
body, rule verifiers, assertions) -> step.run_step (the one step envelope, with the features
around a step as hooks.STEP_HOOKS) -> the handlers in actions (goto, act, wait) and observations
(expect, extract, emit, assertions). attempt holds an
attempt's state (Budget, Bindings, AttemptControl), outcomes what it comes to, boundary the one
answer to "is the browser gone?", evidence a failure's page evidence. checks (stabilized
expects), healing (the one seam to heal/: fingerprints, and finding an element anew), verifiers
and recovery (the runtime code table) serve them.
"""
