"""A user verifier for the example rule file: the report the rule extracted has a well-formed id.

flowwalk calls `verify(context)` after the rule's body. `context["variables"]` holds the run
variables and the values extracted so far (never secrets); `context["options"]` holds the
`options:` written next to the verifier's name in the rule file.
"""

from __future__ import annotations

import re
from typing import Any


def verify(context: dict[str, Any]) -> dict[str, str]:
    report_id = (context.get("variables") or {}).get("REPORT_ID")
    prefix = str((context.get("options") or {}).get("prefix", "R-"))
    if not report_id:
        # no data to judge: inconclusive, which flowwalk counts as a failure
        return {"outcome": "inconclusive", "detail": "no REPORT_ID was extracted"}
    if re.fullmatch(re.escape(prefix) + r"\d+", report_id):
        return {"outcome": "pass", "detail": f"report {report_id} recorded"}
    return {"outcome": "fail", "detail": f"report id {report_id!r} does not look like {prefix}<number>"}
