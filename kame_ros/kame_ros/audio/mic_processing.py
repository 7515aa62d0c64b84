# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The microphone's audio front end: echo cancelling, noise suppression and gain, before the STT.

A robot listens next to its own loudspeaker, in rooms with fans and
people. Each stage can be bypassed (``MicProcessingConfig``): echo
cancelling is WebRTC's AEC3, noise suppression WebRTC's NS (both on by
default) and automatic gain control WebRTC's AGC2 (off), all from
``pywebrtc-audio`` (the module browsers run), as ``kame_ros_bench_hearing``
measured them (docs/measurements.md, "Hearing"; a hand-written one-delay,
one-gain canceller was measured beside AEC3 and removed). AEC3's output is
used only once the microphone is found to hear the speaker (``echo_path.py``):
with no echo path it lowers and garbles a user who talks over the agent.
While the speaker plays and the path is not known yet, the microphone
passes as it came, so a user talking over the agent's first words of a
session is heard (a file, a bag, a headset); where
there is an echo path, the first moments of the agent's voice did reach the
STT, and ``take_echo_found`` says from when: the STT drops an utterance
that began after it (the robot hearing itself). Every frame's cost is
counted for /diagnostics; it all runs on the stt node's worker thread, never
in a subscription callback.
"""
from collections import deque
from dataclasses import dataclass
import time
from typing import Any

import numpy as np

from kame_ros.audio.echo_path import EchoPath, WINDOW_S
from kame_ros.audio.frames import AudioFrame, FRAME_NS, FRAME_SECONDS, SAMPLE_RATE
from kame_ros.audio.speaker_reference import SpeakerReference
from kame_ros.settings import check, setting

NOISE_SUPPRESSORS = ('off', 'webrtc')
# How long a microphone frame may wait for the speaker frame it overlaps
# (speaker_reference.py): the two come on separate subscriptions.
REFERENCE_WAIT_S = 0.05


@dataclass(frozen=True)
class MicProcessingConfig:
    """The audio front end's stages: each default, description and range stated once."""

    echo_cancel: bool = setting(True, "WebRTC AEC3: remove the robot's own voice "
                                '(audio/speaker) from the microphone')
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
        self.speaker = SpeakerReference()
        # One WebRTC processor per stage, in WebRTC's order: in one processor,
        # AEC3 beside NS raised the word errors in white noise while the
        # speaker was silent (docs/measurements.md, "Hearing").
        stages = [stage for stage in (
            {'echo_cancellation': True} if config.echo_cancel else None,
            {'noise_suppression': True, 'ns_level': config.noise_level}
            if config.noise_suppression == 'webrtc' else None,
            {'auto_gain_control': True} if config.gain_control else None) if stage]
        if stages:
            try:
                from pywebrtc_audio import AudioProcessor
            except ImportError as err:
                raise ValueError('the audio front end needs pywebrtc-audio '
                                 '(pip install pywebrtc-audio)') from err
        processors = [AudioProcessor(sample_rate=SAMPLE_RATE, **stage) for stage in stages]
        self._aec = processors.pop(0) if config.echo_cancel else None
        self.echo_path = EchoPath()
        self._raw_since: int | None = None  # speaker playing, path not heard, mic raw: since
        self._raw_until = 0  # ... until the last such frame
        self._echo_found: int | None = None  # the path was just found: _raw_since then
        self.echo_found = 0  # times the path was found after raw frames with the speaker on
        # The latest frame passed raw with the speaker playing lately and the path unknown:
        # what it carries may be the robot's own voice.
        self.unverified = False
        self._stages = processors
        self.cost = FrameCost()

    def reference(self, frame: AudioFrame) -> None:
        """Take one frame the speaker plays (stamped with its play time; any thread)."""
        self.speaker.add(frame)

    def process(self, frame: AudioFrame) -> AudioFrame:
        """Return the frame with the robot's echo, the noise and the level dealt with."""
        t0 = time.perf_counter()
        samples = frame.samples
        if self._aec is not None:
            self.speaker.wait_for(frame.stamp_ns, REFERENCE_WAIT_S)
            t0 = time.perf_counter()  # the wait is not compute
            played = self.speaker.window(frame.stamp_ns)
            cancelled = self._aec.process(samples, played)  # adapts, whichever is used
            was_heard = self.echo_path.heard
            self.echo_path.push(samples, played)
            self._follow_raw(frame.stamp_ns, was_heard)
            if self.echo_path.heard or (self.echo_path.heard is None and not self.unverified):
                samples = cancelled  # (a speaker that has not played: as AEC3 was measured)
        for stage in self._stages:
            samples = stage.process(samples, None)
        if samples is not frame.samples:
            frame = AudioFrame(frame.seq, frame.stamp_ns, samples)
        self.cost.add(time.perf_counter() - t0)
        return frame

    def _follow_raw(self, stamp_ns: int, was_heard: bool | None) -> None:
        """Note the frames passed raw while the speaker played, and when the path is found."""
        if self.echo_path.heard:
            if not was_heard and self._raw_since is not None:
                self._echo_found = self._raw_since
                self.echo_found += 1
            self._raw_since, self.unverified = None, False
            return
        if self.echo_path.playing:  # (its level, measured once by the echo-path test)
            if self._raw_since is None or stamp_ns - self._raw_until > WINDOW_S * 1e9:
                self._raw_since = stamp_ns  # a new stretch: what came before was let be
            self._raw_until = stamp_ns + FRAME_NS
        self.unverified = (self.echo_path.heard is None and self._raw_since is not None
                           and stamp_ns - self._raw_until <= WINDOW_S * 1e9)

    def take_echo_found(self) -> int | None:
        """
        Return (once) the stamp from which the speaker's voice may have reached the STT raw.

        Set when the echo path is found after frames passed untouched while
        the speaker played (the first words of a session on a robot with a
        loudspeaker): whatever speech began since may be the robot itself.
        """
        found, self._echo_found = self._echo_found, None
        return found

    def stats(self) -> dict[str, Any]:
        """Return the per-frame cost, late echo references, and whether an echo is heard."""
        values = self.cost.values()
        if self.config.echo_cancel:
            values['echo_reference_late'] = self.speaker.late
            values['echo_path'] = self.echo_path.state()
            values['echo_path_score'] = round(self.echo_path.score, 1)
            values['echo_found'] = self.echo_found
        return values
