# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Count bad input by reason and decide when it is worth a log line.

A robot fed garbage at 12.5 Hz must not flood its log, but the first
occurrence of each problem must be visible at once: log the first of each
reason, then at most one summary per ``interval_s``.
"""
from collections import Counter
import time
from typing import Callable


class DropLedger:
    """Per-reason drop counters with throttled reporting."""

    def __init__(self, interval_s: float = 5.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Counters start at zero."""
        self.counts: Counter = Counter()
        self.interval_s = interval_s
        self._clock = clock
        self._last_log: dict[str, float] = {}

    def record(self, reason: str, n: int = 1) -> bool:
        """Count ``n`` drops for ``reason``; True when the caller should log it now."""
        self.counts[reason] += n
        now = self._clock()
        last = self._last_log.get(reason)
        if last is None or now - last >= self.interval_s:
            self._last_log[reason] = now
            return True
        return False

    def as_values(self) -> dict[str, int]:
        """Counters as diagnostics key/values: drop_<reason>."""
        return {f'drop_{reason}': n for reason, n in self.counts.items()}

    @property
    def total(self) -> int:
        """All drops of all reasons."""
        return sum(self.counts.values())
