# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Remove the robot's own voice from its microphone, using the known playback signal.

Every ROS voice package mutes the microphone while the robot speaks, which
also deafens it to a user who interrupts. Here the speaker signal
(``audio/speaker``, stamped on the microphone's clock) is the reference:
for each microphone frame the echo delay is searched over
``max_delay_s`` by normalised cross-correlation, the echo gain is
estimated by least squares, and the scaled, delayed reference is
subtracted. What remains is the user: their voice passes (barge-in works),
the robot's own voice does not start a turn.

This single-path canceller handles delay and gain (speaker volume, distance,
device latency); a reverberant room leaves residual echo that the VAD's
threshold must absorb; an adaptive multi-tap filter is the next step.
"""
from collections import deque
from dataclasses import dataclass
import threading

import numpy as np
from scipy.signal import fftconvolve

from kame_ros.audio.frames import AudioFrame, FRAME_SAMPLES, SAMPLE_RATE


@dataclass
class EchoStats:
    """What the canceller did (published as diagnostics)."""

    frames: int = 0
    echo_frames: int = 0
    delay_ms: float = 0.0
    gain: float = 0.0
    reduction_db: float = 0.0


class EchoCanceller:
    """Delay-searching, gain-matching echo canceller on 80 ms frames."""

    def __init__(self, max_delay_s: float = 0.5, min_correlation: float = 0.5) -> None:
        """``min_correlation``: how alike mic and reference must be to call it echo."""
        self.max_delay = int(max_delay_s * SAMPLE_RATE)
        self.min_correlation = min_correlation
        self.stats = EchoStats()
        keep = self.max_delay // FRAME_SAMPLES + 3
        self._reference: deque[AudioFrame] = deque(maxlen=keep)
        self._lock = threading.Lock()

    def reference(self, frame: AudioFrame) -> None:
        """Take one frame of what the speaker plays (stamped with its play time; any thread)."""
        with self._lock:
            self._reference.append(frame)

    def _reference_window(self, start_ns: int) -> np.ndarray:
        """Lay out reference samples from ``start_ns`` - max delay to the frame's end."""
        window = np.zeros(self.max_delay + FRAME_SAMPLES, np.float64)
        origin = start_ns - self.max_delay * 1_000_000_000 // SAMPLE_RATE
        with self._lock:
            frames = list(self._reference)
        for ref in frames:
            offset = round((ref.stamp_ns - origin) * SAMPLE_RATE / 1e9)
            lo, hi = max(0, offset), min(len(window), offset + FRAME_SAMPLES)
            if lo < hi:
                window[lo:hi] = ref.samples[lo - offset:hi - offset]
        return window

    def process(self, frame: AudioFrame) -> AudioFrame:
        """Return the microphone frame with the robot's echo removed."""
        self.stats.frames += 1
        mic = frame.samples.astype(np.float64)
        mic_energy = float(mic @ mic)
        if not self._reference or mic_energy == 0.0:
            return frame
        ref = self._reference_window(frame.stamp_ns)
        cross = fftconvolve(ref, mic[::-1], mode='valid')           # one value per lag
        energy = np.convolve(ref * ref, np.ones(FRAME_SAMPLES), mode='valid')
        norm = cross / np.sqrt(np.maximum(energy, 1e-9) * mic_energy)
        k = int(np.argmax(norm))
        if norm[k] < self.min_correlation or energy[k] <= 0:
            return frame
        segment = ref[k:k + FRAME_SAMPLES]
        gain = cross[k] / energy[k]
        residual = mic - gain * segment
        self.stats.echo_frames += 1
        self.stats.delay_ms = (self.max_delay - k) * 1000 / SAMPLE_RATE
        self.stats.gain = float(gain)
        left = float(residual @ residual)
        self.stats.reduction_db = 10 * np.log10(mic_energy / max(left, 1e-9))
        out = np.clip(np.rint(residual), -32768, 32767).astype(np.int16)
        return AudioFrame(frame.seq, frame.stamp_ns, out)
