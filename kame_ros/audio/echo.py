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
from dataclasses import dataclass

import numpy as np
from scipy.signal import fftconvolve

from kame_ros.audio.frames import AudioFrame, FRAME_SAMPLES, SAMPLE_RATE
from kame_ros.audio.speaker_reference import SpeakerReference


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

    def __init__(self, max_delay_s: float = 0.5, min_correlation: float = 0.5,
                 speaker: SpeakerReference | None = None) -> None:
        """``min_correlation``: how alike mic and reference must be to call it echo."""
        self.max_delay = int(max_delay_s * SAMPLE_RATE)
        self.min_correlation = min_correlation
        self.stats = EchoStats()
        self.speaker = speaker if speaker is not None else SpeakerReference(self.max_delay)

    def reference(self, frame: AudioFrame) -> None:
        """Take one frame of what the speaker plays (stamped with its play time; any thread)."""
        self.speaker.add(frame)

    def process(self, frame: AudioFrame) -> AudioFrame:
        """Return the microphone frame with the robot's echo removed."""
        self.stats.frames += 1
        mic = frame.samples.astype(np.float64)
        mic_energy = float(mic @ mic)
        if not self.speaker or mic_energy == 0.0:
            return frame
        ref = self.speaker.window(frame.stamp_ns)[-(self.max_delay + FRAME_SAMPLES):]
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
