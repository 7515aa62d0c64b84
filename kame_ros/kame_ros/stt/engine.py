# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
What every STT engine offers the node, the engines by name, and how a failed one comes back.

An engine takes 80 ms microphone frames and emits transcript events; the
node only feeds it, so the engine's settings (``SttConfig``, the one place
their defaults and ranges are stated), the choice of engine and the policy
after a failure live here, next to the engines, not in the node. A failure
at run time (the recognizer raised: a model's position table exhausted by a
long stream, a GPU error) drops the engine; it is rebuilt from its files
at the next frame, then every ``retry_s`` while that fails, and frames heard
meanwhile are counted as ``engine_down`` drops.
"""
from abc import ABC, abstractmethod
from dataclasses import dataclass
from importlib import import_module
import time
from typing import Any, Callable

from kame_ros.audio.frames import AudioFrame
from kame_ros.audio.mic_processing import MicProcessor
from kame_ros.settings import setting
from kame_ros.stt.errors import SttError
from kame_ros.stt.events import TranscriptEvent

Emit = Callable[[TranscriptEvent], None]
Progress = Callable[[str], None]
# Engine name -> (module, class): a module is imported only when its engine is chosen.
ENGINES = {'whisper': ('kame_ros.stt.whisper_engine', 'WhisperStt'),
           'sherpa_onnx': ('kame_ros.stt.sherpa_engine', 'SherpaStt')}
MODEL_TYPES = ('auto', 'transducer', 'wenet_ctc', 'zipformer2_ctc')  # sherpa-onnx layouts


@dataclass(frozen=True)
class SttConfig:
    """The STT engine's settings: each default, description and range stated once."""

    engine: str = setting('whisper', 'whisper (embedded: Silero VAD + Whisper tiny.en) or '
                          'sherpa_onnx (a streaming zipformer)', choices=tuple(ENGINES))
    model: str = setting('', 'whisper: CTranslate2 model dir ("" = embedded tiny.en); '
                         'sherpa_onnx: model directory')
    model_type: str = setting('auto', 'sherpa_onnx model type', choices=MODEL_TYPES)
    threads: int = setting(2, 'CPU threads for the recognizer', 1, 64)
    partial_interval_s: float = setting(0.5, 'whisper: new audio between partial reads',
                                        0.1, 5.0)
    end_silence_s: float = setting(0.8, 'Silence that ends the user turn', 0.1, 5.0)
    complete_silence_s: float = setting(
        0.25, 'whisper: silence that ends the turn when the transcript so far ends a sentence',
        0.1, 5.0)
    max_utterance_s: float = setting(20.0, 'Longest utterance before a forced final',
                                     1.0, 120.0)


class SttEngine(ABC):
    """A streaming recognizer: frames in, transcript events out through ``emit``."""

    name = 'base'

    @classmethod
    @abstractmethod
    def from_config(cls, emit: Emit, config: SttConfig) -> 'SttEngine':
        """Build (not load) the engine with the settings it uses."""

    @abstractmethod
    def load(self, progress: Progress) -> None:
        """Load the model (raises SttError with a clear message)."""

    @abstractmethod
    def accept(self, frame: AudioFrame) -> bool:
        """Take one frame; returns whether the user is speaking."""

    @abstractmethod
    def discard(self, since_ns: int) -> bool:
        """
        Drop the utterance under way, unsaid, if its speech began at ``since_ns`` or later.

        The microphone's front end calls for it when it finds that the
        speaker reaches the microphone: speech since then may be the robot's
        own voice. Whatever was heard since is forgotten too (the audio kept
        to open the next utterance, the voice activity that would start it).
        True if an utterance was dropped.
        """

    @property
    def idle(self) -> bool:
        """Tell whether nothing heard is still being read (True: it decodes in ``accept``)."""
        return True

    def stats(self) -> dict[str, Any]:
        """Return the engine's own counters for /diagnostics."""
        return {}

    def close(self) -> None:
        """Stop the engine's threads; nothing is emitted after this."""


def hear(mic: MicProcessor, engine: 'SttEngine | RebuildingEngine', frame: AudioFrame) -> bool:
    """
    Run one microphone frame through the front end into the engine; True while the user speaks.

    Where the front end has just found that the speaker reaches the
    microphone, the utterance begun since it let the speaker through is
    dropped first: it may be the robot's own voice. For the same reason the
    user is not said to speak while the frame is unverified (the speaker
    plays, the path is not known yet: a few frames at a session's first
    words); the words are still read, and kept if there is no echo path.
    """
    frame = mic.process(frame)
    since = mic.take_echo_found()
    if since is not None:
        engine.discard(since)
    return engine.accept(frame) and not mic.unverified


def build_engine(config: SttConfig, emit: Emit) -> SttEngine:
    """Instantiate (not load) the configured engine."""
    if config.engine not in ENGINES:
        raise SttError(f'unknown engine {config.engine!r}; one of {tuple(ENGINES)}')
    module, cls = ENGINES[config.engine]
    return getattr(import_module(module), cls).from_config(emit, config)


@dataclass
class EngineHealth:
    """How the engine has fared: what /diagnostics says of it."""

    failures: int = 0
    last_failure: str = ''
    down_drops: int = 0
    error: str = ''


class RebuildingEngine:
    """The engine the node feeds: rebuilt after a failure, never raises from ``accept``."""

    def __init__(self, config: SttConfig, emit: Emit, retry_s: float, progress: Progress,
                 log_error: Callable[[str], None]) -> None:
        """Keep what a rebuild needs; ``load`` builds the first engine."""
        self.config = config
        self._emit = emit
        self.retry_s = retry_s
        self._progress = progress
        self._log_error = log_error
        self.engine: SttEngine | None = None
        self.health = EngineHealth()
        self._retry_at: float | None = None

    def load(self) -> None:
        """Build and load the engine (raises SttError)."""
        engine = build_engine(self.config, self._emit)
        engine.load(self._progress)
        self.engine, self.health.error = engine, ''

    @property
    def up(self) -> bool:
        """Tell whether an engine is loaded and has not failed since."""
        return self._retry_at is None

    def accept(self, frame: AudioFrame) -> bool:
        """Feed one frame; returns whether the user is speaking (False while down)."""
        if self._retry_at is not None and not self._rebuild():
            self.health.down_drops += 1
            return False
        return self._survive(self.engine.accept, frame)

    def discard(self, since_ns: int) -> bool:
        """Drop the utterance under way if it began at ``since_ns`` or later (engine up)."""
        return self._retry_at is None and self._survive(self.engine.discard, since_ns)

    def _survive(self, call: Callable[[Any], bool], arg: Any) -> bool:
        """Return ``call(arg)``; a recognizer that raises is dropped (False)."""
        try:
            return call(arg)
        except Exception as err:  # noqa: B902 - any recognizer failure is survived
            self._failed(err)
            return False

    def _failed(self, err: Exception) -> None:
        """Drop the failed engine; the next frame rebuilds it."""
        health = self.health
        health.failures += 1
        health.error = health.last_failure = f'engine failed: {type(err).__name__}: {err}'
        self._log_error(f'{health.error} (failure {health.failures}); rebuilding')
        self.engine.close()
        self._retry_at = time.monotonic()

    def _rebuild(self) -> bool:
        """Try to rebuild the engine when a retry is due; returns whether it is back."""
        if time.monotonic() < self._retry_at:
            return False
        try:
            self.load()
        except SttError as err:
            self.health.error = f'engine down: {err}'
            self._log_error(f'{self.health.error}; next try in {self.retry_s:.1f} s')
            self._retry_at = time.monotonic() + self.retry_s
            return False
        self._retry_at = None
        self._progress(f'engine rebuilt after failure {self.health.failures}')
        return True

    @property
    def idle(self) -> bool:
        """Tell whether the engine has nothing left to read (a faster-than-real-time run waits)."""
        return self.engine is None or not self.up or self.engine.idle

    def stats(self) -> dict[str, Any]:
        """Return the engine's state and counters, then the engine's own."""
        own = self.engine.stats() if self.engine is not None and self.up else {}
        return {'engine': self.config.engine, 'engine_up': self.up,
                'engine_failures': self.health.failures,
                'drop_engine_down': self.health.down_drops, **own}

    def close(self) -> None:
        """Close the engine."""
        if self.engine is not None:
            self.engine.close()
