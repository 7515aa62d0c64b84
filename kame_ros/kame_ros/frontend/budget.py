# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The 80 ms frame budget: every frame's compute time and every deadline miss, accounted.

A full-duplex front-end that takes longer than 80 ms per frame falls
behind the microphone for good, so each frame is measured and the node
publishes the figures on /diagnostics.
"""
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from kame_ros.audio.frames import FRAME_SECONDS


@dataclass
class FrameBudget:
    """Rolling per-frame compute statistics against the frame period."""

    budget_ms: float = FRAME_SECONDS * 1000
    window: int = 500
    frames: int = 0
    misses: int = 0
    dropped: int = 0
    _recent: deque = field(default_factory=deque)

    def record(self, compute_ms: float) -> bool:
        """Account one frame; True when it missed its deadline."""
        self.frames += 1
        self._recent.append(compute_ms)
        if len(self._recent) > self.window:
            self._recent.popleft()
        missed = compute_ms > self.budget_ms
        self.misses += missed
        return missed

    def summary(self) -> dict[str, float]:
        """p50/p99/max of the recent window, totals, and the budget share used at p50."""
        recent = np.asarray(self._recent) if self._recent else np.zeros(1)
        return {'frames': self.frames, 'deadline_misses': self.misses,
                'dropped_frames': self.dropped,
                'compute_ms_p50': round(float(np.median(recent)), 2),
                'compute_ms_p99': round(float(np.percentile(recent, 99)), 2),
                'compute_ms_max': round(float(recent.max()), 2),
                'budget_used_p50': round(float(np.median(recent)) / self.budget_ms, 3)}
