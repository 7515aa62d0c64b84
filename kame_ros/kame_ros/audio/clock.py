# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Stamp frames from the sample clock, not from when the OS woke us up.

Reads return in bursts, so wall time at read is jittery; the count of
samples is exact. Stamps advance exactly 80 ms per frame from an anchor and
re-anchor to wall time only when they drift past ``tolerance_ns`` (device
restart, overrun), which keeps latency measurements honest.
"""
from kame_ros.audio.frames import FRAME_NS


class SampleClock:
    """Stamp of each successive frame's first sample."""

    def __init__(self, tolerance_ns: int = 5 * FRAME_NS) -> None:
        """Unanchored until the first frame."""
        self.tolerance_ns = tolerance_ns
        self._anchor: int | None = None
        self._count = 0
        self.reanchors = 0

    def stamp(self, observed_start_ns: int) -> int:
        """Stamp for the next frame, given the wall-clock estimate of its start."""
        if self._anchor is not None:
            predicted = self._anchor + self._count * FRAME_NS
            if abs(predicted - observed_start_ns) <= self.tolerance_ns:
                self._count += 1
                return predicted
            self.reanchors += 1
        self._anchor, self._count = observed_start_ns, 1
        return observed_start_ns
