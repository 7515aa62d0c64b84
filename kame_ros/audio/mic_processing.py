# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The microphone's audio front end: echo cancelling, noise suppression and gain, before the STT.

A robot listens next to its own loudspeaker, in rooms with fans and
people. Each stage can be chosen or bypassed (``MicProcessingConfig``):
echo cancelling is the hand-written one-delay, one-gain canceller
(``echo.py``, the default) or WebRTC's AEC3 (``pywebrtc-audio``, what
browsers run: far better in a reverberant room, not yet the default, see
docs/components.md); noise suppression (on by default) and automatic gain
control (off) are WebRTC's NS and AGC2, as ``kame_ros_bench_hearing``
measured (docs/measurements.md, "Hearing"). Every frame's cost is
counted for /diagnostics; it all runs on the stt node's worker thread,
never in a subscription callback.
"""
from collections import deque
from dataclasses import dataclass
import time
from typing import Any

import numpy as np

from kame_ros.audio.echo import EchoCanceller
from kame_ros.audio.frames import AudioFrame, FRAME_SAMPLES, FRAME_SECONDS, SAMPLE_RATE
from kame_ros.audio.speaker_reference import SpeakerReference
from kame_ros.settings import check, setting

ECHO_CANCELLERS = ('webrtc', 'delay_gain')
NOISE_SUPPRESSORS = ('off', 'webrtc')


@dataclass(frozen=True)
class MicProcessingConfig:
    """The audio front end's stages: each default, description and range stated once."""

    echo_cancel: bool = setting(True, "Remove the robot's own voice (audio/speaker) from the mic")
    echo_canceller: str = setting('delay_gain', 'webrtc (AEC3: adaptive, follows a room) or '
                                  'delay_gain (one delay and one gain)', choices=ECHO_CANCELLERS)
    echo_max_delay_s: float = setting(0.5, 'delay_gain: longest speaker-to-mic delay searched',
                                      0.05, 2.0)
    noise_suppression: str = setting('webrtc', 'off, or webrtc (WebRTC noise suppression)',
                                     choices=NOISE_SUPPRESSORS)
    noise_level: int = setting(1, 'webrtc noise suppression: 0-3 (6, 12, 18, 21 dB)', 0, 3)
    gain_control: bool = setting(False, 'WebRTC AGC2: bring quiet and loud talkers to one level')


class FrameCost:
    """The front end's compute per 80 ms frame: recent median and worst, frames over budget."""

    def __init__(self, window: int = 250) -> None:
        """Keep the last ``window`` frames (20 s)."""
        self._recent: deque[float] = deque(maxlen=window)
        self.worst_ms = 0.0
        self.over_budget = 0

    def add(self, seconds: float) -> None:
        """Count one frame's compute."""
        ms = seconds * 1e3
        self._recent.append(ms)
        self.worst_ms = max(self.worst_ms, ms)
        self.over_budget += seconds > FRAME_SECONDS

    def values(self) -> dict[str, Any]:
        """Return the diagnostics key/values."""
        p50 = float(np.median(self._recent)) if self._recent else 0.0
        return {'mic_ms_p50': round(p50, 2), 'mic_ms_max': round(self.worst_ms, 2),
                'mic_over_budget': self.over_budget}


class MicProcessor:
    """Runs the configured stages on each microphone frame (one thread; ``reference``: any)."""

    def __init__(self, config: MicProcessingConfig) -> None:
        """Build the stages (ValueError: a bad setting, or pywebrtc-audio missing)."""
        check(config)
        self.config = config
        delay_gain = config.echo_cancel and config.echo_canceller == 'delay_gain'
        self._aec = config.echo_cancel and config.echo_canceller == 'webrtc'
        before = int(config.echo_max_delay_s * SAMPLE_RATE) if delay_gain else 0
        self.speaker = SpeakerReference(before)
        self.delay_gain = (EchoCanceller(config.echo_max_delay_s, speaker=self.speaker)
                           if delay_gain else None)
        self._webrtc = None
        if self._aec or config.noise_suppression == 'webrtc' or config.gain_control:
            try:
                from pywebrtc_audio import AudioProcessor
            except ImportError as err:
                raise ValueError('the webrtc stages need pywebrtc-audio '
                                 '(pip install pywebrtc-audio)') from err
            self._webrtc = AudioProcessor(
                sample_rate=SAMPLE_RATE, echo_cancellation=self._aec,
                noise_suppression=config.noise_suppression == 'webrtc',
                auto_gain_control=config.gain_control, ns_level=config.noise_level)
        self.cost = FrameCost()

    def reference(self, frame: AudioFrame) -> None:
        """Take one frame the speaker plays (stamped with its play time; any thread)."""
        self.speaker.add(frame)

    def process(self, frame: AudioFrame) -> AudioFrame:
        """Return the frame with the robot's echo, the noise and the level dealt with."""
        t0 = time.perf_counter()
        if self.delay_gain is not None:
            frame = self.delay_gain.process(frame)
        if self._webrtc is not None:
            far = None
            if self._aec:
                far = self.speaker.window(frame.stamp_ns)[-FRAME_SAMPLES:].astype(np.int16)
            frame = AudioFrame(frame.seq, frame.stamp_ns,
                               self._webrtc.process(frame.samples, far))
        self.cost.add(time.perf_counter() - t0)
        return frame

    def stats(self) -> dict[str, Any]:
        """Return the per-frame cost and, for the delay_gain canceller, what it found."""
        values = self.cost.values()
        if self.delay_gain is not None:
            values.update({f'echo_{k}': round(v, 2) if isinstance(v, float) else v
                           for k, v in vars(self.delay_gain.stats).items()})
        return values
