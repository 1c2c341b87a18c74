"""A user verifier used by the rule-file corpus: passes when the context names an order."""

from __future__ import annotations

from typing import Any


def verify(context: dict[str, Any]) -> dict[str, str]:
    order = (context.get("options") or {}).get("order")
    return {"outcome": "pass" if order else "inconclusive", "detail": f"order {order!r}"}
