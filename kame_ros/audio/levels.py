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
