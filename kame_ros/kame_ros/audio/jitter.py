# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Playback jitter buffer: frames arrive bursty and reordered, the speaker pulls one per 80 ms.

The playback thread must never block on the network, so ``pop`` always
returns a frame: the next one in sequence, or silence when it is missing
(counted as lost) or when the buffer ran dry (counted as underrun, after
which the buffer refills to its prefill level before playing again so one
late burst does not become a stutter).
"""
from collections import Counter
from dataclasses import dataclass, field
import threading

import numpy as np

from kame_ros.audio.frames import FRAME_SAMPLES


@dataclass
class JitterStats:
    """Counters the playback node publishes as diagnostics."""

    played: int = 0
    silence: int = 0
    events: Counter = field(default_factory=Counter)


class JitterBuffer:
    """Reorders frames by sequence number and paces them out one at a time."""

    def __init__(self, prefill: int = 3, capacity: int = 50, restart_window: int = 50) -> None:
        """``prefill`` frames are held before playing (latency vs. underruns)."""
        if not 0 < prefill <= capacity:
            raise ValueError(f'need 0 < prefill ({prefill}) <= capacity ({capacity})')
        self.prefill = prefill
        self.capacity = capacity
        self.restart_window = restart_window
        self.stats = JitterStats()
        self._frames: dict[int, np.ndarray] = {}
        self._next: int | None = None
        self._playing = False
        self._silence = np.zeros(FRAME_SAMPLES, dtype=np.int16)
        self._lock = threading.Lock()

    def push(self, seq: int, samples: np.ndarray) -> str:
        """
        Store one frame; returns 'ok' or why it was refused ('late', 'duplicate').

        Refusals are the caller's to count: they describe the input stream,
        while ``stats`` describes what the speaker got.
        """
        with self._lock:
            if self._next is not None and seq < self._next:
                if self._next - seq <= self.restart_window:
                    return 'late'
                self._frames.clear()
                self._next, self._playing = None, False
                self.stats.events['restart'] += 1
            if seq in self._frames:
                return 'duplicate'
            self._frames[seq] = samples
            while len(self._frames) > self.capacity:
                oldest = min(self._frames)
                del self._frames[oldest]
                if self._next is not None:
                    self._next = max(self._next, oldest + 1)
                self.stats.events['overflow'] += 1
            return 'ok'

    def pop(self) -> np.ndarray:
        """Next frame to play; never blocks, returns silence when there is none."""
        with self._lock:
            if not self._playing:
                if len(self._frames) < self.prefill:
                    return self._emit_silence(None)
                self._playing = True
                self._next = min(self._frames)
            if not self._frames:
                self._playing = False
                return self._emit_silence('underrun')
            frame = self._frames.pop(self._next, None)
            self._next += 1
            if frame is None:
                return self._emit_silence('lost')
            self.stats.played += 1
            return frame

    def __len__(self) -> int:
        """Frames waiting to be played."""
        with self._lock:
            return len(self._frames)

    def _emit_silence(self, reason: str | None) -> np.ndarray:
        self.stats.silence += 1
        if reason:
            self.stats.events[reason] += 1
        return self._silence
