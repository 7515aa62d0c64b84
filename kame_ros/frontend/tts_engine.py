# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The ``tts`` front-end: for robots without a GPU, and the cascaded baseline.

It says a short acknowledgement the moment the user's turn ends (the STT's
final transcript; the audio is synthesized once at start-up, so it plays
on the next frame), then speaks the oracle's reply to that final sentence
by sentence as it streams in (its opening words at once: the oracle's
reply guard releases them before the first sentence is complete), with
hibari-tts (24 kHz, Mimi's rate, about 10x faster than real time on one
core).
Synthesis runs on its own thread; ``step`` only pops 80 ms of whatever is
ready (or silence), so the frame loop never waits for the TTS or the LLM.
A newer final reply interrupts the one being spoken.

Turn-taking, so a user who pauses mid-thought hears one "Okay." and one
answer, not one per pause: a user turn gets at most one acknowledgement
(the next one only once the agent has been answering for
``ANSWERED_FRAMES``: a final that comes sooner continues the same turn),
none when the answer to that very final is already synthesized when the
acknowledgement would start, and a reply that has not started yet waits
while the user is in a turn (the STT's ``user_speaking``; at most
``MAX_HOLD_FRAMES``, so a stuck flag cannot silence the agent). Voice
activity never cuts a reply that is playing (only a newer final reply
does), so residual echo of the robot's own voice cannot silence it.

Say requests (``say``) play before any reply, one segment per request
(``say_queue``), and end ``spoken``, ``cancelled`` (``cancel_say``),
``interrupted`` (the user's turn ended over them: a final transcript is the
barge-in, for the same echo reason) or ``failed``.
"""
from dataclasses import dataclass
import queue
import re
import threading
import time
from typing import Callable

import numpy as np

from kame_ros.audio.frames import float_to_int16, FRAME_SAMPLES
from kame_ros.frontend.budget import FrameBudget
from kame_ros.frontend.engine import FrameOutput
from kame_ros.frontend.say_queue import Done, SayQueue, Segment
from kame_ros.models import model_file
from kame_ros.oracle.events import APPEND, DONE, OracleEvent, RESET
from kame_ros.oracle.reply_guard import OPENING_WORDS
from kame_ros.stt.events import TranscriptEvent
from kame_ros.words import words

SENTENCE_END = re.compile(r'(?<=[.!?;:])\s+')


def word_marks(text: str, start: int, samples: int) -> list[tuple[int, str]]:
    """
    Estimate where each word of a synthesized sentence starts (sample offsets).

    hibari gives no alignment; spreading the words over the audio in
    proportion to their characters is close enough to publish each word on
    ``frontend/text`` when it is heard, so an interrupted sentence reports
    only the words actually played (what the oracle's conversation needs).
    """
    tokens = text.split()
    total = sum(len(w) + 1 for w in tokens) or 1
    marks, chars = [], 0
    for word in tokens:
        marks.append((start + samples * chars // total, word))
        chars += len(word) + 1
    return marks


ACK_TRIM_LEVEL = 200  # int16 amplitude below which the acknowledgement's edges are silence
MAX_HOLD_FRAMES = 50  # a reply waits at most 4 s for the user to stop speaking
ANSWERED_FRAMES = 20  # 1.6 s of reply played: the turn was answered, the next final is a new one
DEFAULT_VOICE, DEFAULT_VOICE_MODEL = 'heart', 'hibari-heart'
SAY_REPLY = (-1, -1)  # jobs of say requests: never superseded by oracle replies


@dataclass(frozen=True)
class _Say:
    reply: tuple[int, int]
    text: str
    on_done: Callable[[str], None] | None = None
    say_id: str = ''
    trim_start: bool = False  # it continues a sentence: no pause before it
    trim_end: bool = False  # the sentence goes on in the next piece: no pause after it


def trim(samples: np.ndarray, start: bool = True, end: bool = True) -> np.ndarray:
    """Cut hibari's leading and/or trailing silence (all of it for silent audio)."""
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > ACK_TRIM_LEVEL)
    if not len(loud):
        return samples[:0]
    return samples[loud[0] if start else 0:loud[-1] + 1 if end else len(samples)]


class TtsFrontEnd:
    """Acknowledge, then read the oracle reply aloud, one frame per step."""

    def __init__(self, voice: str = DEFAULT_VOICE, acknowledgement: str = 'Okay.',
                 speed: float = 1.0, threads: int = 1) -> None:
        """Load hibari: the default voice pinned (kame_ros.models), others as hibari pins them."""
        from hibari import Hibari
        model = str(model_file(DEFAULT_VOICE_MODEL)) if voice == DEFAULT_VOICE else None
        self.tts = Hibari(voice=voice, model=model, threads=threads)
        self.acknowledgement = acknowledgement
        self._ack_audio = np.zeros(0, np.int16)
        self.speed = speed
        self.budget = FrameBudget()
        self.reply = (0, 0)
        self.stale_events = 0
        self._text = ''
        self._said = 0
        self._mid_sentence = False  # the last piece queued of this reply ended mid-sentence
        self._audio = np.zeros(0, np.int16)
        self._marks: list[tuple[int, str]] = []
        self._says = SayQueue()
        # Say requests queued or being synthesized -> the status they were stopped with.
        self._say_jobs: dict[str, str | None] = {}
        self._audio_lock = threading.Lock()
        self._jobs: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._frame = 0
        self._worker: threading.Thread | None = None
        self._stop = threading.Event()
        # Turn-taking (guarded by _audio_lock): see the module docstring.
        self._reply_utterance = -1
        self._reply_started = False
        self._reply_frames = 0  # frames of the current reply played
        self._pending_ack: int | None = None  # utterance whose acknowledgement is due
        self._acked_utterance = -1  # the utterance the last acknowledgement answered
        self._acked_turn = False  # acknowledged, and the agent has not answered yet
        self._user_speaking = False
        self._held_frames = 0
        self.acks = 0
        self.acks_skipped = 0

    def warmup(self, frames: int = 1) -> float:
        """Synthesize the acknowledgement now (also warms hibari up for the first sentence)."""
        t0 = time.perf_counter()
        ack, _ = float_to_int16(self.tts(self.acknowledgement or 'Ready.', speed=self.speed))
        # Trimmed of hibari's leading and trailing silence: it sounds the moment it is due.
        self._ack_audio = trim(ack) if self.acknowledgement else np.zeros(0, np.int16)
        return time.perf_counter() - t0

    def on_turn_end(self, final: TranscriptEvent) -> None:
        """Interrupt say requests, and acknowledge the end of a user turn, once per turn."""
        with self._audio_lock:
            interrupted = self._says.remove_requests()
            for say_id in self._say_jobs:
                self._say_jobs[say_id] = self._say_jobs[say_id] or 'interrupted'
        for on_done in interrupted:
            on_done('interrupted')
        if not len(self._ack_audio):
            return
        with self._audio_lock:
            if self._acked_turn:
                self.acks_skipped += 1
                return
            self._pending_ack = final.utterance_id
            self._acked_turn = True

    def on_user_speaking(self, speaking: bool) -> None:
        """Hold a reply that has not started while the user speaks."""
        with self._audio_lock:
            self._user_speaking = speaking
            self._held_frames = 0

    def _acknowledge(self) -> None:
        """Queue the due acknowledgement unless the answer to that final is ready (locked)."""
        utterance, self._pending_ack = self._pending_ack, None
        if len(self._audio) and not self._reply_started and self._reply_utterance == utterance:
            self.acks_skipped += 1
            return
        self.acks += 1
        self._acked_utterance = utterance
        self._says.add(Segment(None, self._ack_audio,
                               word_marks(self.acknowledgement, 0, len(self._ack_audio))))

    def start(self) -> None:
        """Start the synthesis thread."""
        self._stop.clear()
        self._worker = threading.Thread(target=self._synthesize, daemon=True, name='tts')
        self._worker.start()

    def stop(self) -> None:
        """Stop synthesizing."""
        self._stop.set()
        self._jobs.put(None)
        if self._worker is not None:
            self._worker.join(timeout=5)

    def on_oracle(self, event: OracleEvent) -> None:
        """Queue speech for final replies; partial-transcript replies are not spoken."""
        with self._lock:
            if event.kind == RESET:
                if not event.final or event.order < self.reply:
                    return
                self.reply, self._text, self._said = event.order, '', 0
                self._mid_sentence = False
                with self._audio_lock:
                    self._audio, self._marks = np.zeros(0, np.int16), []
                    self._reply_utterance, self._reply_started = event.utterance_id, False
                return
            if event.order != self.reply:
                self.stale_events += 1
                return
            if event.kind == APPEND:
                self._text += event.text
                parts = SENTENCE_END.split(self._text[self._said:])
                ready = parts[:-1]
                self._said = len(self._text) - len(parts[-1])
                if not self._said and len(words(self._text)) >= OPENING_WORDS:
                    ready, self._said = [self._text], len(self._text)  # the opening: say it now
            elif event.kind == DONE:
                ready = [self._text[self._said:]]
                self._said = len(self._text)
                if not self._text.strip():
                    with self._audio_lock:  # nothing to say: the turn is over all the same
                        self._acked_turn = False
            else:
                return
            for sentence in ready:
                if sentence.strip() and not self._repeats_ack(event, sentence):
                    opening = not SENTENCE_END.search(sentence + ' ')
                    self._jobs.put(_Say(event.order, sentence.strip(),
                                        trim_start=self._mid_sentence, trim_end=opening))
                    self._mid_sentence = opening

    def _repeats_ack(self, event: OracleEvent, sentence: str) -> bool:
        """
        Tell whether a reply opens with the acknowledgement just said for its turn.

        The LLM hears the acknowledgement as the agent's words and imitates
        it ("Okay. The capital is..."): said once is enough.
        """
        opening = self._text.lstrip().startswith(sentence.strip())
        return (opening and event.utterance_id == self._acked_utterance
                and words(sentence) == words(self.acknowledgement))

    def say(self, say_id: str, text: str, on_done: Done) -> None:
        """Speak ``text`` before any oracle reply; ``on_done('spoken')`` once it has played."""
        with self._audio_lock:
            self._say_jobs[say_id] = None
        self._jobs.put(_Say(SAY_REPLY, text, on_done, say_id))

    def cancel_say(self, say_id: str, status: str = 'cancelled') -> bool:
        """Stop a say request, queued or playing (``on_done(status)``); False if unknown."""
        with self._audio_lock:
            on_done = self._says.remove(say_id)
            if on_done is None and say_id in self._say_jobs:
                self._say_jobs[say_id] = self._say_jobs[say_id] or status  # _speak reports it
                return True
        if on_done is not None:
            on_done(status)
        return on_done is not None

    @staticmethod
    def _pop(buffer: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """One frame from the front of ``buffer`` (zero-padded); the rest; samples taken."""
        out = np.zeros(FRAME_SAMPLES, np.int16)
        n = min(FRAME_SAMPLES, len(buffer))
        out[:n] = buffer[:n]
        return out, buffer[n:], n

    @property
    def quiet(self) -> bool:
        """
        Tell whether nothing is left to synthesize or play.

        A headless run is over only when the answer has been heard: under
        load hibari may still be reading a sentence after the oracle is done.
        (Not ``idle``: the replay gate of ``--realtime-factor 0`` waits on
        idle engines, and a reply plays only as input frames keep coming.)
        """
        with self._audio_lock:
            playing = len(self._audio) or self._says or self._pending_ack is not None
        # A job counts until task_done: taken from the queue but not synthesized yet is busy.
        return not playing and not self._jobs.unfinished_tasks

    def _synthesize(self) -> None:
        while not self._stop.is_set():
            job = self._jobs.get()
            try:
                if job is not None and job.reply in (self.reply, SAY_REPLY):
                    self._speak(job)
            finally:
                self._jobs.task_done()

    def _stopped(self, job: _Say, failed: bool = False) -> bool:
        """Report a say job cancelled (or failed) before it was synthesized; True if so."""
        with self._audio_lock:
            status = self._say_jobs.get(job.say_id) or ('failed' if failed else None)
            if status:
                del self._say_jobs[job.say_id]
        if status:
            job.on_done(status)
        return bool(status)

    def _queue_say(self, job: _Say, samples: np.ndarray) -> None:
        """Queue a say request's audio to play, unless it was stopped while synthesized."""
        with self._audio_lock:
            status = self._say_jobs.pop(job.say_id, None)
            if status is None:
                self._says.add(Segment(job.say_id, samples,
                                       word_marks(job.text, 0, len(samples)), job.on_done))
        if status:
            job.on_done(status)

    def _speak(self, job: _Say) -> None:
        """Synthesize one sentence and queue its audio behind what is queued."""
        is_say = job.reply == SAY_REPLY
        if is_say and self._stopped(job):
            return
        try:
            wav = self.tts(job.text, speed=self.speed)
        except (ValueError, RuntimeError):
            if is_say:
                self._stopped(job, failed=True)
            return
        samples, _ = float_to_int16(wav)
        if job.trim_start or job.trim_end:
            samples = trim(samples, job.trim_start, job.trim_end)
        if is_say:
            self._queue_say(job, samples)
            return
        with self._audio_lock:
            if job.reply == self.reply:
                self._marks += word_marks(job.text, len(self._audio), len(samples))
                self._audio = np.concatenate([self._audio, samples])

    def step(self, pcm: np.ndarray) -> FrameOutput:
        """
        Pop the next 80 ms of speech (silence when none is ready).

        Each word is returned with the frame its audio (by estimate) starts
        in, so the spoken-text stream follows what the speaker plays.
        """
        t0 = time.perf_counter()
        done, filler = [], []
        with self._audio_lock:
            if self._pending_ack is not None:
                self._acknowledge()
            if self._says:  # announcements first
                popped = self._says.pop()
                out, started, filler, done = popped.pcm, popped.words, popped.filler, \
                    popped.finished
            elif (self._user_speaking and not self._reply_started and len(self._audio)
                  and self._held_frames < MAX_HOLD_FRAMES):
                self._held_frames += 1  # the user is talking again: the reply waits
                out, started, n = np.zeros(FRAME_SAMPLES, np.int16), [], 0
            else:
                out, self._audio, n = self._pop(self._audio)
                if n and not self._reply_started:
                    self._reply_started, self._reply_frames = True, 0
                if n:
                    self._reply_frames += 1
                    if self._reply_frames == ANSWERED_FRAMES or not len(self._audio):
                        self._acked_turn = False  # answered (or the whole reply was shorter)
                started = [text for offset, text in self._marks if offset < n]
                self._marks = [(offset - n, text) for offset, text in self._marks
                               if offset >= n]
        for callback in done:
            callback('spoken')
        compute_ms = (time.perf_counter() - t0) * 1e3
        self.budget.record(compute_ms)
        frame, self._frame = self._frame, self._frame + 1
        text = ''.join(f' {t}' for t in started)
        return FrameOutput(frame, out, None, text, None, compute_ms,
                           ''.join(f' {t}' for t in filler))
