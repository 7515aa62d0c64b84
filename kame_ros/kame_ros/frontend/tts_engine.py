# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The ``tts`` front-end: for robots without a GPU, and the cascaded baseline.

An acknowledgement the moment the user's turn ends (synthesized at start-up,
it plays on the next frame; when is ``turn_taking``'s policy), then the
oracle's final reply read by hibari-tts (24 kHz, ~10x real time on one core)
as it streams in (``reply_text``). Synthesis has its own thread
(``synthesis``); ``step`` only pops 80 ms of whatever is ready, so the
frame loop never waits for the TTS or the LLM. A newer final reply
interrupts the one being spoken, and the user's voice over a reply pauses
it at once (``turn_taking``: their final ends it, a false start resumes it).
Say requests play before any reply (``say_queue``); the user's final
transcript over one interrupts it.
"""
import functools
import threading
import time
from typing import Any, Callable

import numpy as np

from kame_ros.audio.frames import float_to_int16, FRAME_SAMPLES
from kame_ros.frontend.budget import FrameBudget
from kame_ros.frontend.engine import FrameOutput, FrontEndEngine
from kame_ros.frontend.reply_text import ReplyText
from kame_ros.frontend.say_queue import Done, SayQueue, Segment
from kame_ros.frontend.speech_audio import ACK_GAP_SAMPLES, trim, word_marks
from kame_ros.frontend.synthesis import Job, SAY_REPLY, Synthesis
from kame_ros.frontend.turn_taking import TurnTaking
from kame_ros.models import model_file
from kame_ros.oracle.events import APPEND, DONE, OracleEvent, RESET
from kame_ros.stt.events import TranscriptEvent
from kame_ros.words import words

DEFAULT_VOICE, DEFAULT_VOICE_MODEL = 'heart', 'hibari-heart'


class TtsFrontEnd(FrontEndEngine):
    """Acknowledge, then read the oracle reply aloud, one frame per step."""

    def __init__(self, voice: str = DEFAULT_VOICE, acknowledgement: str = 'Okay.',
                 speed: float = 1.0, threads: int = 1, barge_in: str = 'voice') -> None:
        """Load hibari: the default voice pinned (kame_ros.models), others as hibari pins them."""
        from hibari import Hibari
        model = str(model_file(DEFAULT_VOICE_MODEL)) if voice == DEFAULT_VOICE else None
        self.tts = Hibari(voice=voice, model=model, threads=threads)
        self.acknowledgement = acknowledgement
        self.speed = speed
        self.budget = FrameBudget()
        self.reply = (0, 0)  # the order of the final reply being spoken
        self.stale_events = 0
        self.turns = TurnTaking(barge_in)
        self._ack_audio = np.zeros(0, np.int16)
        self._reply_text = ReplyText()
        self._audio = np.zeros(0, np.int16)  # the reply's synthesized audio not played yet
        self._marks: list[tuple[int, str]] = []  # and where its words start
        self._says = SayQueue()
        self._audio_lock = threading.Lock()  # _audio, _marks, turns
        self._lock = threading.Lock()  # reply, the reply's text
        self.synthesis = Synthesis(self.tts, speed, self._says, lambda: self.reply,
                                   self._reply_audio)
        self._frame = 0

    acks = property(lambda self: self.turns.acks)
    acks_skipped = property(lambda self: self.turns.acks_skipped)  # had one, or answer ready

    def stats(self) -> dict[str, Any]:
        """Return the frame budget, acknowledgements said and skipped, replies barged in on."""
        return {**super().stats(), 'acks': self.acks, 'acks_skipped': self.acks_skipped,
                'barge_ins': self.turns.barge_ins, 'barge_ins_resumed': self.turns.resumed}

    def warmup(self, frames: int = 1) -> float:
        """Synthesize the acknowledgement now (also warms hibari up for the first sentence)."""
        t0 = time.perf_counter()
        ack, _ = float_to_int16(self.tts(self.acknowledgement or 'Ready.', speed=self.speed))
        # Without hibari's leading silence: it sounds the moment it is due. A short pause stays
        # after it, before a reply that is ready meanwhile.
        self._ack_audio = (trim(ack, keep_end=ACK_GAP_SAMPLES) if self.acknowledgement
                           else np.zeros(0, np.int16))
        return time.perf_counter() - t0

    def start(self) -> None:
        """Start the synthesis thread."""
        self.synthesis.start()

    def stop(self) -> None:
        """Stop synthesizing."""
        self.synthesis.stop()

    def on_turn_end(self, final: TranscriptEvent) -> None:
        """Interrupt say requests, and acknowledge the end of a user turn, once per turn."""
        self._says.interrupt()
        with self._audio_lock:
            if self.turns.interrupted():  # the user talked over the reply: its rest goes
                self._audio, self._marks = np.zeros(0, np.int16), []
            if len(self._ack_audio):
                self.turns.turn_ended(final.utterance_id)

    def on_user_speaking(self, speaking: bool) -> None:
        """Hold a reply that has not started while the user speaks."""
        with self._audio_lock:
            self.turns.speaking(speaking)

    def on_oracle(self, event: OracleEvent) -> None:
        """Queue speech for final replies; partial-transcript replies are not spoken."""
        with self._lock:
            if event.kind == RESET:
                if event.final and event.order >= self.reply:
                    self.reply = event.order
                    self._reply_text.reset()
                    with self._audio_lock:
                        self._audio, self._marks = np.zeros(0, np.int16), []
                        self.turns.new_reply(event.utterance_id)
                return
            if event.order != self.reply:
                self.stale_events += 1
                return
            skip = functools.partial(self._repeats_ack, event)
            if event.kind == APPEND:
                pieces = self._reply_text.append(event.text, skip)
            elif event.kind == DONE:
                pieces = self._reply_text.finish(skip)
                if not self._reply_text.text.strip():
                    with self._audio_lock:
                        self.turns.nothing_to_say()
            else:
                return
            for piece in pieces:
                self.synthesis.put(Job(event.order, piece.text, trim_start=piece.trim_start,
                                       trim_end=piece.trim_end))

    def _repeats_ack(self, event: OracleEvent, sentence: str) -> bool:
        """
        Tell whether a reply opens with the acknowledgement just said for its turn.

        The LLM imitates it ("Okay. The capital is..."): said once is enough.
        """
        return (self._reply_text.opens_with(sentence)
                and event.utterance_id == self.turns.acked_utterance
                and words(sentence) == words(self.acknowledgement))

    def say(self, say_id: str, text: str, on_done: Done,
            on_word: Callable[[str], None] | None = None, interruptible: bool = True) -> None:
        """Speak ``text`` before any oracle reply; ``on_done('spoken')`` once it has played."""
        self._says.requested(say_id, interruptible)
        self.synthesis.put(Job(SAY_REPLY, text, on_done, say_id, on_word,
                               interruptible=interruptible))

    def cancel_say(self, say_id: str, status: str = 'cancelled') -> bool:
        """Stop a say request, queued or playing (``on_done(status)``); False if unknown."""
        return self._says.cancel(say_id, status)

    @property
    def quiet(self) -> bool:
        """
        Tell whether nothing is left to synthesize or play.

        A headless run is over only when the answer has been heard (not
        ``idle``: the replay gate of ``--realtime-factor 0`` waits on idle
        engines, and a reply plays only as input frames keep coming).
        """
        with self._audio_lock:
            playing = len(self._audio) or self._says or self.turns.pending_ack is not None
        return not playing and not self.synthesis.busy

    def _reply_audio(self, job: Job, samples: np.ndarray) -> None:
        """Queue a reply sentence's audio behind what is queued, if it is still the reply."""
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
        done, filler, started, on_word, say_id = [], [], [], None, ''
        out = np.zeros(FRAME_SAMPLES, np.int16)
        with self._audio_lock:
            if self.turns.acknowledge_now(reply_ready=len(self._audio) > 0):
                self._says.acknowledge(Segment(None, self._ack_audio, word_marks(
                    self.acknowledgement, 0, len(self._ack_audio))))
            if self._says:  # announcements first
                popped = self._says.pop()
                out, started, filler, done, on_word, say_id = (
                    popped.pcm, popped.words, popped.filler, popped.finished, popped.on_word,
                    popped.say_id)
            elif not self.turns.holds(reply_ready=len(self._audio) > 0):  # (the user talks)
                n = min(FRAME_SAMPLES, len(self._audio))
                out[:n], self._audio = self._audio[:n], self._audio[n:]
                self.turns.played(n, len(self._audio))
                started = [text for offset, text in self._marks if offset < n]
                self._marks = [(offset - n, text) for offset, text in self._marks
                               if offset >= n]
        if on_word is not None:
            for word in started:
                on_word(word)
        for callback in done:
            callback('spoken')
        compute_ms = (time.perf_counter() - t0) * 1e3
        self.budget.record(compute_ms)
        frame, self._frame = self._frame, self._frame + 1
        return FrameOutput(frame, out, None, ''.join(f' {t}' for t in started), None,
                           compute_ms, ''.join(f' {t}' for t in filler), say_id)
