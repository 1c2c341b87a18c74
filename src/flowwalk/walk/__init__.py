"""Walking scenarios in the browser: the rule walker, stabilized checks, target re-resolution.

`checks.run_check` evaluates every expect kind verify-until-stable (RFC 010); `resolve.resolve_target`
re-resolves a step's human target description on the live page; `walker` and `run` drive rules
and scenarios through `flowwalk.browser`. Nothing here imports Playwright directly.
"""
