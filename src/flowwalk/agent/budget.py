"""The hard caps on model calls: per run (requests, across every worker thread) and per step (questions).

One `CallBudget` lives for the whole run and is shared by the worker threads, so every count is
taken under one lock. Once the run's cap is reached it stays reached: later questions are refused
without a request, and the scenarios still run, deterministically.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Hashable

__all__ = ["CallBudget", "QuotaExceeded"]


class QuotaExceeded(Exception):
    """A cap was reached before the request was sent."""


class CallBudget:
    def __init__(self, max_calls: int, max_per_step: int):
        self.max_calls = max_calls
        self.max_per_step = max_per_step
        self._lock = threading.Lock()
        self._used = 0
        self._questions: Counter[Hashable] = Counter()

    @property
    def used(self) -> int:
        with self._lock:
            return self._used

    @property
    def exhausted(self) -> bool:
        with self._lock:
            return self._used >= self.max_calls

    def open_question(self, step: Hashable | None) -> None:
        """Count one question for `step` (None: not tied to a step, only the run's cap applies)."""
        with self._lock:
            if self._used >= self.max_calls:
                raise QuotaExceeded(f"the run's cap of {self.max_calls} model call(s) is reached")
            if step is None:
                return
            if self._questions[step] >= self.max_per_step:
                raise QuotaExceeded(f"the step's cap of {self.max_per_step} model question(s) is reached")
            self._questions[step] += 1

    def take_call(self) -> int:
        """Count one request; its 1-based number in the run. QuotaExceeded when none is left."""
        with self._lock:
            if self._used >= self.max_calls:
                raise QuotaExceeded(f"the run's cap of {self.max_calls} model call(s) is reached")
            self._used += 1
            return self._used
