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

So one score of ``PRESENT`` or more means an echo path; it is taken as gone
only after ``ABSENT_S`` of the speaker playing with no such score (an echo
under a user talking over it may hide for a moment; an agent that talks
alone for a moment shows it again). Until the speaker has played, the path
is unknown and the echo canceller's output is used, as before.
"""
from collections import deque

import numpy as np

from kame_ros.audio.frames import FRAME_SAMPLES, FRAME_SECONDS, SAMPLE_RATE
from kame_ros.audio.levels import rms
from kame_ros.audio.resample import resample

RATE = 8000  # the correlation's rate: speech's band, a third of the work
WINDOW_S = 1.0
MAX_DELAY_S = 0.3  # speaker-to-microphone delays a robot can have (playback buffers included)
EVERY_FRAMES = 3  # one test per 0.24 s
PLAYING_RMS = 100.0  # int16 RMS of the speaker's window that counts as playing (-50 dBFS)
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
        self._since_test = 0
        self._quiet_tests = 0  # tests in a row, speaker playing, with no echo found
        self.heard: bool | None = None
        self.score = 0.0  # the latest test's

    def push(self, mic: np.ndarray, speaker: np.ndarray) -> None:
        """Take one frame of the raw microphone and of what the speaker played over it."""
        self._mic.append(mic)
        self._speaker.append(speaker)
        self._since_test += 1
        if self._since_test < EVERY_FRAMES or len(self._mic) < self._mic.maxlen:
            return
        self._since_test = 0
        speaker_window = np.concatenate(self._speaker)
        if rms(speaker_window) < PLAYING_RMS:
            return
        self.score = gcc_phat_score(np.concatenate(self._mic), speaker_window)
        if self.score >= PRESENT:
            self.heard, self._quiet_tests = True, 0
            return
        self._quiet_tests += 1
        if self._quiet_tests * EVERY_FRAMES * FRAME_SAMPLES / SAMPLE_RATE >= ABSENT_S:
            self.heard = False

    def state(self) -> str:
        """Return 'heard', 'not heard' or 'unknown' (for /diagnostics)."""
        return {True: 'heard', False: 'not heard', None: 'unknown'}[self.heard]
