# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
When audio counts as sound: one definition for every part of kame_ros.

The front-end's ``agent/speaking`` flag, the timeline's speech spans and the
agent monitor's "the agent is still talking" all ask the same question; a
single threshold keeps their answers consistent (300 of 32767 RMS is about
-40 dBFS: quiet speech passes, dither and hiss do not).
"""
import numpy as np

AUDIBLE_RMS = 300.0


def rms(samples: np.ndarray) -> float:
    """Root mean square of int16 samples."""
    return float(np.sqrt(np.mean(np.asarray(samples, np.float64) ** 2))) if len(samples) else 0.0


def audible(samples: np.ndarray) -> bool:
    """Tell whether a frame is sound rather than silence."""
    return rms(samples) >= AUDIBLE_RMS


class SpeakingDetector:
    """
    Whether a stream of output frames is speech: on at the first audible frame.

    It stays on through ``hold_frames`` quiet frames, so the pauses between
    words (a few frames) do not flicker ``agent/speaking`` for a behaviour
    stack waiting for the robot to finish.
    """

    def __init__(self, hold_frames: int = 6) -> None:
        """``hold_frames`` 80 ms frames of quiet end speech (0.48 s by default)."""
        self.hold_frames = hold_frames
        self.speaking = False
        self.sounding = False  # the last frame itself was audible
        self._hold = 0

    def reset(self) -> None:
        """Start from silence."""
        self.speaking, self.sounding, self._hold = False, False, 0

    def update(self, samples: np.ndarray) -> bool:
        """Take the next frame; return True when the speaking state changed."""
        self.sounding = audible(samples)
        self._hold = self.hold_frames if self.sounding else max(0, self._hold - 1)
        changed = (self._hold > 0) != self.speaking
        self.speaking = self._hold > 0
        return changed
