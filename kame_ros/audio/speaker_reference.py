# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
What the robot's speaker played, laid out on the microphone's clock.

Both echo cancellers need it: the speaker frames (``audio/speaker``) carry
the time they play, on the same clock as the microphone's frames, so the
reference for a microphone frame is the speaker's samples over the same
span (and, for a canceller that searches the delay itself, before it).
"""
from collections import deque
import threading

import numpy as np

from kame_ros.audio.frames import AudioFrame, FRAME_SAMPLES, SAMPLE_RATE


class SpeakerReference:
    """The last ``before_samples`` + a frame of speaker audio; written by any thread."""

    def __init__(self, before_samples: int) -> None:
        """Keep enough frames to lay out ``before_samples`` ahead of a microphone frame."""
        self.before = before_samples
        self._frames: deque[AudioFrame] = deque(maxlen=before_samples // FRAME_SAMPLES + 3)
        self._lock = threading.Lock()

    def add(self, frame: AudioFrame) -> None:
        """Take one frame of what the speaker plays (stamped with its play time)."""
        with self._lock:
            self._frames.append(frame)

    def __bool__(self) -> bool:
        """Tell whether the speaker played anything yet."""
        return bool(self._frames)

    def window(self, start_ns: int) -> np.ndarray:
        """Return the samples from ``start_ns`` - ``before`` to the frame's end (silence: 0)."""
        window = np.zeros(self.before + FRAME_SAMPLES, np.float64)
        origin = start_ns - self.before * 1_000_000_000 // SAMPLE_RATE
        with self._lock:
            frames = list(self._frames)
        for ref in frames:
            offset = round((ref.stamp_ns - origin) * SAMPLE_RATE / 1e9)
            lo, hi = max(0, offset), min(len(window), offset + FRAME_SAMPLES)
            if lo < hi:
                window[lo:hi] = ref.samples[lo - offset:hi - offset]
        return window
