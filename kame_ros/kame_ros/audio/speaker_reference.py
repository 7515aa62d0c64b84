# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
What the robot's speaker played, laid out on the microphone's clock.

The echo canceller needs it: the speaker frames (``audio/speaker``) carry
the time they play, on the same clock as the microphone's frames, so the
reference for a microphone frame is the speaker's samples over the same
span (AEC3 finds the room's delay itself, from the two streams).

The two streams come on separate subscriptions, so a speaker frame can
arrive a moment after the microphone frame it overlaps. A canceller
given silence for that frame lets the echo through whole (AEC3 gets
nothing to cancel against: measured 0 dB instead of 40 dB when the
reference came one frame late), so while the speaker is playing the
canceller may ``wait_for`` the frame's reference, a bounded wait on the
worker thread, never in a subscription callback.
"""
from collections import deque
import threading
import time

import numpy as np

from kame_ros.audio.frames import AudioFrame, FRAME_NS, FRAME_SAMPLES, SAMPLE_RATE


class SpeakerReference:
    """The speaker's last few frames; written by any thread, read by the canceller's."""

    def __init__(self, frames: int = 8) -> None:
        """Keep ``frames`` frames: the front end publishes a frame before it plays."""
        self._frames: deque[AudioFrame] = deque(maxlen=frames)
        self._arrived = threading.Condition()
        self.late = 0  # microphone frames whose reference had not come within the wait

    def add(self, frame: AudioFrame) -> None:
        """Take one frame of what the speaker plays (stamped with its play time)."""
        with self._arrived:
            self._frames.append(frame)
            self._arrived.notify_all()

    def _played_until(self) -> int:
        return self._frames[-1].stamp_ns + FRAME_NS if self._frames else -1

    def wait_for(self, start_ns: int, timeout_s: float) -> None:
        """Wait up to ``timeout_s`` for the reference of the frame at ``start_ns``, if playing."""
        # Playing: the speaker's newest frame ends less than a frame before
        # this one (the two clocks' frames need not line up). Ending earlier,
        # the speaker has stopped and there is nothing to wait for.
        end_ns = start_ns + FRAME_NS
        deadline = time.monotonic() + timeout_s
        with self._arrived:
            while start_ns - FRAME_NS < self._played_until() < end_ns:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.late += 1
                    return
                self._arrived.wait(left)

    def window(self, start_ns: int) -> np.ndarray:
        """Return the speaker's int16 samples over the frame at ``start_ns`` (silence: 0)."""
        window = np.zeros(FRAME_SAMPLES, np.int16)
        with self._arrived:
            frames = list(self._frames)
        for ref in frames:
            offset = round((ref.stamp_ns - start_ns) * SAMPLE_RATE / 1e9)
            lo, hi = max(0, offset), min(len(window), offset + FRAME_SAMPLES)
            if lo < hi:
                window[lo:hi] = ref.samples[lo - offset:hi - offset]
        return window
