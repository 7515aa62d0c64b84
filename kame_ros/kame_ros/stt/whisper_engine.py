# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The embedded STT engine: Silero VAD + faster-whisper (tiny.en, shipped in a wheel).

Whisper is not a streaming model, so streaming is built around it: the VAD
opens an utterance, a worker thread re-reads the growing utterance for a
partial whenever the previous read is done and at least
``partial_interval_s`` of new audio arrived, and reads it once more, whole,
for the final when the VAD hears the end of the turn. Finals are never
skipped; partials are skipped while the worker is busy, so the engine can
fall behind by at most one partial. ``accept`` only does VAD and
bookkeeping: the audio thread never waits for Whisper. Each read is
``WhisperReader``'s, on a window fitted to the utterance (0.24 s for a 2 s
question on two cores, 0.54 s with Whisper's 30 s window), so partials keep
up with the speech and the read at the user's pause is done soon after it.

The end of a turn comes early when the transcript is complete: as soon as
the user pauses, the utterance is read once more (unless a read that
covers all the speech is already done or under way); if that read covers
all the speech and reads as a finished sentence (``words.looks_complete``),
the turn ends after ``complete_silence_s`` of silence with that text as the
final (no second read). Otherwise it ends after ``end_silence_s``: a pause
after an unfinished phrase is not the end of the turn. Either way a final
is never read again when the latest read already covers all its speech:
the same audio gives the same words, and a second read is time the user
waits. A read "covers" the speech when what it did not hear, up to the
VAD's last speech, is at most a frame, or is quiet (every frame below
``QUIET_TAIL`` of the utterance's loudest): Silero's speech probability
stays up for a few windows after the last word, and its falling tail is
not words. Without that, a read that stopped at the words never counted
as complete, and the turn waited for another read or the long silence.
"""
from collections import deque
from dataclasses import dataclass
import queue
import threading
import time
from typing import Any, Callable

import numpy as np

from kame_ros.audio.frames import AudioFrame, FRAME_NS, FRAME_SECONDS, int16_to_float, SAMPLE_RATE
from kame_ros.audio.levels import rms
from kame_ros.audio.resample import resample
from kame_ros.models import model_dir, ModelError
from kame_ros.stt.engine import Emit, SttConfig, SttEngine
from kame_ros.stt.errors import SttError
from kame_ros.stt.utterance import UtteranceTracker
from kame_ros.stt.vad import SpeechSegmenter, VAD_RATE
from kame_ros.stt.whisper_read import WhisperReader
from kame_ros.words import looks_complete

EMBEDDED_WHISPER = 'whisper-tiny.en'


def embedded_whisper_dir() -> str:
    """Whisper tiny.en (CTranslate2), verified: $KAME_ROS_MODELS or the wheel (kame_ros.models)."""
    try:
        return str(model_dir(EMBEDDED_WHISPER))
    except ModelError as err:
        raise SttError(f'embedded Whisper: {err}') from err


PAUSE_READ_S = 0.06  # silence after which the utterance is read to see whether it is complete
HANGOVER_FRAMES = 1  # frames the VAD's speech may run past the words (Silero's hangover)
QUIET_TAIL = 0.15  # ... and beyond those, frames quieter than this share of the loudest


@dataclass(frozen=True)
class _Job:
    final: bool
    audio: np.ndarray | None  # None: a final whose text is already known
    start_ns: int
    end_ns: int
    frames: int = 0
    text: str = ''
    utterance: int = 0


@dataclass(frozen=True)
class _Read:
    """The latest partial read: its text, and how many frames of which utterance it covered."""

    text: str
    frames: int
    utterance: int

    def covers(self, utterance: int, speech_frames: int) -> bool:
        """Tell whether this read heard all of ``speech_frames`` of ``utterance`` (by count)."""
        return self.utterance == utterance and self.frames >= speech_frames - HANGOVER_FRAMES


class WhisperStt(SttEngine):
    """VAD-segmented, Whisper-transcribed streaming recognizer."""

    name = 'whisper'

    def __init__(self, emit: Emit, model: str = SttConfig.model,
                 partial_interval_s: float = SttConfig.partial_interval_s,
                 end_silence_s: float = SttConfig.end_silence_s,
                 max_utterance_s: float = SttConfig.max_utterance_s,
                 threads: int = SttConfig.threads, pre_roll_s: float = 0.3,
                 complete_silence_s: float = SttConfig.complete_silence_s) -> None:
        """Configure; ``load`` does the slow part."""
        self.emit = emit
        self.model_path = model
        self.partial_frames = max(1, round(partial_interval_s / FRAME_SECONDS))
        self.max_frames = int(max_utterance_s / FRAME_SECONDS)
        self.end_silence_s = end_silence_s
        self.complete_silence_s = min(complete_silence_s, end_silence_s)
        self._read: _Read | None = None  # the latest partial read done
        self._asked: _Read | None = None  # the latest partial read asked for (no text yet)
        self._pause_read = False
        self._utterance_count = 0
        self.early_finals = 0
        self.reused_finals = 0  # finals that took the latest read's text instead of a new read
        self.threads = threads
        self.segmenter: SpeechSegmenter | None = None
        self._pre_roll: deque[AudioFrame] = deque(maxlen=max(1, round(pre_roll_s /
                                                                      FRAME_SECONDS)))
        self._utterance: list[AudioFrame] = []
        self._speech_ns = 0  # when the current utterance's speech began
        self.discarded = 0
        self._since_partial = 0
        self._jobs: queue.Queue = queue.Queue()
        self._busy = threading.Event()
        self._tracker = UtteranceTracker()
        self._worker: threading.Thread | None = None
        self.model = None
        self.reader: WhisperReader | None = None
        self.audio_seconds = 0.0
        self.compute_seconds = 0.0
        self.failures = 0

    @classmethod
    def from_config(cls, emit: Emit, config: SttConfig) -> 'WhisperStt':
        """Build with the settings Whisper uses."""
        return cls(emit, config.model, config.partial_interval_s, config.end_silence_s,
                   config.max_utterance_s, config.threads,
                   complete_silence_s=config.complete_silence_s)

    def load(self, progress: Callable[[str], None]) -> None:
        """Load Whisper and the VAD, start the worker."""
        try:
            from faster_whisper import WhisperModel
        except ImportError as err:
            raise SttError('faster-whisper is not installed') from err
        path = self.model_path or embedded_whisper_dir()
        progress(f'loading Whisper from {path}')
        try:
            self.model = WhisperModel(path, device='cpu', compute_type='int8',
                                      cpu_threads=self.threads)
        except (RuntimeError, OSError, ValueError) as err:
            raise SttError(f'cannot load Whisper model {path!r}: {err}') from err
        self.reader = WhisperReader(self.model)
        try:
            self.segmenter = SpeechSegmenter(end_silence_s=self.end_silence_s)
        except ModelError as err:
            raise SttError(f'Silero VAD: {err}') from err
        self._worker = threading.Thread(target=self._work, daemon=True, name='whisper')
        self._worker.start()
        progress('ready')

    def accept(self, frame: AudioFrame) -> bool:
        """Take one frame; returns whether the user is speaking."""
        step = self.segmenter.push(frame.samples)
        if step.started:
            self._speech_ns = frame.stamp_ns
            self._utterance = list(self._pre_roll)
            self._since_partial = 0
            self._utterance_count += 1
            self._pause_read = False
        self._pre_roll.append(frame)
        if not (step.speaking or step.ended):
            return False
        self._utterance.append(frame)
        self._since_partial += 1
        too_long = len(self._utterance) >= self.max_frames
        if step.ended and self._covered(self._read):  # heard it all already: no second read
            self.reused_finals += 1
            self._end_with(self._read)
            return False
        if step.ended or too_long:
            trailing = 0 if too_long else int(self.end_silence_s / FRAME_SECONDS)
            self._submit(True, self._utterance[:max(1, len(self._utterance) - trailing)])
            self._utterance = []
            if too_long:
                self.segmenter.speaking = False
            return False
        if self._complete_turn():
            return False
        idle = not self._busy.is_set() and self._jobs.empty()
        silence = self.segmenter.silence_s
        if silence == 0.0:
            self._pause_read = False
        elif silence >= PAUSE_READ_S and not self._pause_read:
            # The user paused: is what they said complete? A read already asked for that
            # hears all the speech answers that; otherwise read once Whisper is free.
            if self._covered(self._asked):
                self._pause_read = True
            elif idle:
                self._pause_read = True
                self._since_partial = 0
                self._submit(False, self._utterance)
                return True
        if self._since_partial >= self.partial_frames and idle:
            self._since_partial = 0
            self._submit(False, self._utterance)
        return True

    def discard(self, since_ns: int) -> bool:
        """Drop the utterance under way if it began at ``since_ns`` or later (see SttEngine)."""
        # The frames kept to open the next utterance heard the same.
        kept = [f for f in self._pre_roll if f.stamp_ns < since_ns]
        self._pre_roll.clear()
        self._pre_roll.extend(kept)
        under_way = self.segmenter.speaking and self._utterance
        if under_way and self._speech_ns < since_ns:
            return False  # the user's, begun before
        self.segmenter.forget()  # the voice heard since must not start the next turn either
        if not under_way:
            return False
        frames, self._utterance = self._utterance, []
        self._pause_read = False
        # In order behind its reads: the utterance is closed with no words, so nothing of it
        # is said after them.
        self._jobs.put(_Job(True, None, frames[0].stamp_ns, frames[-1].stamp_ns + FRAME_NS))
        self.discarded += 1
        return True

    def _speech_frames(self) -> int:
        """Frames of the current utterance up to the VAD's last speech (silence left out)."""
        return len(self._utterance) - int(self.segmenter.silence_s / FRAME_SECONDS)

    def _covered(self, read: _Read | None) -> bool:
        """Tell whether ``read`` heard all the speech of the current utterance (see above)."""
        if read is None or read.utterance != self._utterance_count:
            return False
        speech = self._speech_frames()
        if read.covers(self._utterance_count, speech):
            return True
        loudest = max(rms(f.samples) for f in self._utterance[:speech])
        return max(rms(f.samples) for f in self._utterance[read.frames:speech]) \
            < QUIET_TAIL * loudest

    def _complete_turn(self) -> bool:
        """End the turn early if the latest read covers all the speech and looks complete."""
        read = self._read
        if (self.segmenter.silence_s < self.complete_silence_s or not self._covered(read)
                or not looks_complete(read.text)):
            return False
        self.early_finals += 1
        self._end_with(read)
        return True

    def _end_with(self, read: _Read) -> None:
        """End the turn with ``read``'s words as the final (no Whisper read for it)."""
        frames = self._utterance[:read.frames]
        self._jobs.put(_Job(True, None, frames[0].stamp_ns, frames[-1].stamp_ns + FRAME_NS,
                            read.frames, read.text))
        self._utterance = []
        self.segmenter.end_turn()

    def _submit(self, final: bool, frames: list[AudioFrame]) -> None:
        audio = np.concatenate([f.samples for f in frames])
        if not final:
            self._asked = _Read('', len(frames), self._utterance_count)
        self._jobs.put(_Job(final, audio, frames[0].stamp_ns, frames[-1].stamp_ns + FRAME_NS,
                            len(frames), utterance=self._utterance_count))

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            self._busy.set()
            try:
                text = self._text_for(job)
            except Exception:  # noqa: B902 - a bad read must not kill the recognizer
                self.failures += 1
                text = ''
            finally:
                self._busy.clear()
            if not job.final:
                self._read = _Read(text, job.frames, job.utterance)
            self._tracker.begin(job.start_ns)
            event = (self._tracker.final(text, job.end_ns) if job.final
                     else self._tracker.partial(text, job.end_ns))
            if event is not None:
                self.emit(event)

    def _text_for(self, job: _Job) -> str:
        """
        Return the words of a job: known, the latest read's (a final it covers), or read now.

        Jobs run in order, so a read asked for before this final is done by
        now and its text is in ``_read``.
        """
        if job.audio is None:
            return job.text
        read = self._read
        if job.final and read is not None and read.covers(job.utterance, job.frames):
            self.reused_finals += 1
            return read.text
        return self._transcribe(job.audio)

    def _transcribe(self, audio: np.ndarray) -> str:
        t0 = time.perf_counter()
        text = self.reader.read(resample(int16_to_float(audio), SAMPLE_RATE, VAD_RATE))
        self.compute_seconds += time.perf_counter() - t0
        self.audio_seconds += len(audio) / SAMPLE_RATE
        return text

    def stats(self) -> dict[str, Any]:
        """Return failed reads, turns ended early, finals reused, real-time factor."""
        return {'failures': self.failures, 'early_finals': self.early_finals,
                'reused_finals': self.reused_finals, 'discarded': self.discarded,
                'rtf': round(self.compute_seconds / max(self.audio_seconds, 1e-9), 3)}

    @property
    def idle(self) -> bool:
        """Tell whether no Whisper read is running or waiting."""
        return not self._busy.is_set() and self._jobs.empty()

    def close(self) -> None:
        """Stop the worker and wait for a read in progress (it emits nothing after this)."""
        self._jobs.put(None)
        if self._worker is not None and self._worker is not threading.current_thread():
            self._worker.join(timeout=10)
