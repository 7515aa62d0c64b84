# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Does the microphone hear the robot's speaker? Decided from the two streams themselves.

WebRTC's AEC3 is right where the speaker's sound reaches the microphone and
wrong where it does not: a WAV or bag replay, a headset, a robot whose
speaker is off. There its suppressor lowers the user whenever the agent
talks, and its filter, adapting on the user's voice during double talk,
adds the agent's voice to the microphone ("What is the capital of Japan?"
heard as "full of Japan."; "of France?" said over "Okay." heard as "Okay.",
issue 41). So the echo canceller's output is used only while an echo path
is heard.

The test is GCC-PHAT between the last ``WINDOW_S`` of the microphone and of
the speaker (8 kHz): a path through a room, however coloured, gives one
sharp peak at its delay, and unrelated sound (the user, noise, silence)
none. The peak over the lags a room can have (0..``MAX_DELAY_S``) is
compared with the spread of the whole correlation. Measured with the
hearing benchmark's simulated rooms and hibari speech (1 s windows, every
0.24 s): an echo alone scores 27-105, an echo 20 dB under the user talking
over it 8-13, the user alone 6-12, noise or silence 5-7.

So two scores in a row of ``PRESENT`` or more mean an echo path (a single
one came from a user and the robot starting to talk in the same frame,
15.3, and 15.0 on a window with less than ``MIN_PLAYING`` frames of the
speaker; a false "heard" lowers the user). It is taken as gone only after
``ABSENT_S`` of the speaker playing with no such score (an echo under a user
talking over it may hide for a moment; an agent that talks alone for a
moment shows it again). Until then the path is unknown, and while the
speaker plays the microphone passes untouched (``mic_processing.py``); so
that an echo path is found before its echo starts a turn, an unknown path is
tested at every frame once the window holds ``MIN_PLAYING`` frames of the
speaker playing: an echo 0.04 / 0.15 / 0.25 s late was found 0.32 / 0.32 /
0.40 s after the speaker's first sound.
"""
from collections import deque

import numpy as np

from kame_ros.audio.frames import FRAME_SAMPLES, FRAME_SECONDS, SAMPLE_RATE
from kame_ros.audio.levels import rms
from kame_ros.audio.resample import resample

RATE = 8000  # the correlation's rate: speech's band, a third of the work
WINDOW_S = 1.0
MAX_DELAY_S = 0.3  # speaker-to-microphone delays a robot can have (playback buffers included)
EVERY_FRAMES = 3  # one test per 0.24 s once the path is known
MIN_FRAMES = 6  # a test needs at least this much of both streams (a session's first 0.48 s)
PLAYING_RMS = 100.0  # int16 RMS of a speaker frame that counts as playing (-50 dBFS)
MIN_PLAYING = 3  # speaker frames playing in the window that make a test count
PRESENT = 16.0
ABSENT_S = 1.5


def gcc_phat_score(mic: np.ndarray, speaker: np.ndarray) -> float:
    """Peak of the phase transform cross-correlation at 0..MAX_DELAY_S, over its spread."""
    m = resample(mic.astype(np.float32) / 32768, SAMPLE_RATE, RATE)
    s = resample(speaker.astype(np.float32) / 32768, SAMPLE_RATE, RATE)
    n = len(m) + len(s)
    cross = np.fft.rfft(m, n) * np.conj(np.fft.rfft(s, n))
    cc = np.fft.irfft(cross / np.maximum(np.abs(cross), 1e-12), n)
    spread = float(np.std(cc))
    if spread == 0.0:  # a silent microphone hears no speaker
        return 0.0
    return float(np.max(np.abs(cc[:int(MAX_DELAY_S * RATE)]))) / spread


class EchoPath:
    """Follows both streams frame by frame; ``heard`` is True, False, or None (not yet known)."""

    def __init__(self) -> None:
        """Start with nothing played: the path is unknown."""
        frames = round(WINDOW_S / FRAME_SECONDS)
        self._mic: deque[np.ndarray] = deque(maxlen=frames)
        self._speaker: deque[np.ndarray] = deque(maxlen=frames)
        self._playing: deque[bool] = deque(maxlen=frames)
        self._since_test = 0
        self._quiet_s = 0.0  # speaker playing, no echo found: for how long, in a row
        self._present = False  # the last test found an echo
        self.heard: bool | None = None
        self.score = 0.0  # the latest test's

    def push(self, mic: np.ndarray, speaker: np.ndarray) -> None:
        """Take one frame of the raw microphone and of what the speaker played over it."""
        self._mic.append(mic)
        self._speaker.append(speaker)
        self._playing.append(rms(speaker) >= PLAYING_RMS)
        self._since_test += 1
        every = 1 if self.heard is None else EVERY_FRAMES
        if (self._since_test < every or len(self._mic) < MIN_FRAMES
                or sum(self._playing) < MIN_PLAYING):
            return
        self._since_test = 0
        self.score = gcc_phat_score(np.concatenate(self._mic), np.concatenate(self._speaker))
        present, self._present = self._present, self.score >= PRESENT
        if self._present:
            if present or self.heard:
                self.heard, self._quiet_s = True, 0.0
            return
        self._quiet_s += every * FRAME_SAMPLES / SAMPLE_RATE
        if self._quiet_s >= ABSENT_S:
            self.heard = False

    @property
    def playing(self) -> bool:
        """Tell whether the speaker played in the latest frame pushed."""
        return bool(self._playing) and self._playing[-1]

    def state(self) -> str:
        """Return 'heard', 'not heard' or 'unknown' (for /diagnostics)."""
        return {True: 'heard', False: 'not heard', None: 'unknown'}[self.heard]
