# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The tts front-end's synthesis thread: sentences in, audio out, never on the frame loop."""
from dataclasses import dataclass
import queue
import threading
from typing import Callable

import numpy as np

from kame_ros.audio.frames import float_to_int16
from kame_ros.frontend.say_queue import Done, SayQueue, Segment
from kame_ros.frontend.speech_audio import LEAD_SAMPLES, trim, word_marks

SAY_REPLY = (-1, -1)  # jobs of say requests: never superseded by oracle replies


@dataclass(frozen=True)
class Job:
    """A sentence to synthesize: of the reply ``reply``, or of a say request."""

    reply: tuple[int, int]
    text: str
    on_done: Done | None = None
    say_id: str = ''
    on_word: Callable[[str], None] | None = None  # a say request's word feedback
    interruptible: bool = True  # a say request the user's turn ends
    trim_start: bool = False  # it continues a sentence: no pause before it
    trim_end: bool = False  # the sentence goes on in the next piece: no pause after it


class Synthesis:
    """
    hibari on its own thread, in request order.

    A reply's sentence is synthesized only while its reply is still the
    current one (``current()``) and handed to ``on_reply``; a say request's
    audio goes to the say queue, unless it was stopped meanwhile.
    """

    def __init__(self, tts: Callable, speed: float, says: SayQueue,
                 current: Callable[[], tuple[int, int]],
                 on_reply: Callable[[Job, np.ndarray], None]) -> None:
        """Wire the TTS to where its audio goes; ``start`` runs the thread."""
        self.tts, self.speed, self.says = tts, speed, says
        self.current, self.on_reply = current, on_reply
        self._jobs: queue.Queue = queue.Queue()
        self._worker: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def busy(self) -> bool:
        """Tell whether a job is queued or being synthesized (until done, not until taken)."""
        return bool(self._jobs.unfinished_tasks)

    def put(self, job: Job) -> None:
        """Queue a sentence behind the others."""
        self._jobs.put(job)

    def start(self) -> None:
        """Start the thread."""
        self._stop.clear()
        self._worker = threading.Thread(target=self._run, daemon=True, name='tts')
        self._worker.start()

    def stop(self) -> None:
        """Stop it (after the sentence it is reading)."""
        self._stop.set()
        self._jobs.put(None)
        if self._worker is not None:
            self._worker.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.is_set():
            job = self._jobs.get()
            try:
                if job is not None and job.reply in (self.current(), SAY_REPLY):
                    self._speak(job)
            finally:
                self._jobs.task_done()

    def _speak(self, job: Job) -> None:
        is_say = job.reply == SAY_REPLY
        if is_say and self.says.stopped(job.say_id, job.on_done):
            return
        try:
            wav = self.tts(job.text, speed=self.speed)
        except (ValueError, RuntimeError):
            if is_say:
                self.says.stopped(job.say_id, job.on_done, failed=True)
            return
        samples, _ = float_to_int16(wav)
        # The lead-in silence goes (all of it inside a sentence, all but LEAD_SAMPLES before
        # one): before a reply's first word it is only delay; between sentences the previous
        # one's trailing silence is the pause.
        samples = trim(samples, True, job.trim_end,
                       keep_start=0 if job.trim_start else LEAD_SAMPLES)
        if is_say:
            self.says.synthesized(Segment(job.say_id, samples,
                                          word_marks(job.text, 0, len(samples)), job.on_done,
                                          job.on_word, job.interruptible))
        else:
            self.on_reply(job, samples)
