# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The tts front-end's announcements: one segment per say request, played before any reply.

A behaviour stack needs to know how each request ended (spoken,
cancelled, interrupted by the user, muted), so the audio is kept per
request rather than in one buffer: a request can be stopped whole while it
waits for synthesis, is being synthesized or plays, and its completion
callback goes with it. The acknowledgement ("Okay.") is a segment too,
without a request.

Thread-safe: requests come from ROS callbacks, audio from the synthesis
thread, frames are taken by the frame loop. Callbacks are called outside
the lock.
"""
from collections import deque
from dataclasses import dataclass, field
import threading
from typing import Callable

import numpy as np

from kame_ros.audio.frames import FRAME_SAMPLES

Done = Callable[[str], None]


@dataclass
class Segment:
    """One request's audio, with the estimated start of each word (sample offsets)."""

    say_id: str | None  # None: the acknowledgement (no request waits for it)
    audio: np.ndarray
    marks: list[tuple[int, str]] = field(default_factory=list)
    on_done: Done | None = None
    on_word: Callable[[str], None] | None = None
    interruptible: bool = True  # the user's turn ends it (a warning may go on regardless)


@dataclass(frozen=True)
class Popped:
    """One frame of announcements, and what it finished."""

    pcm: np.ndarray
    words: list[str]  # words of requests that started in this frame
    filler: list[str]  # words of the acknowledgement that started in this frame
    finished: list[Done]  # callbacks of requests whose last sample played: call with 'spoken'
    on_word: Callable[[str], None] | None = None  # the request's word callback, for ``words``
    say_id: str = ''  # the request ``words`` belong to


class SayQueue:
    """Requests waiting for synthesis, then their segments in play order."""

    def __init__(self) -> None:
        """Start empty."""
        self._lock = threading.Lock()
        self._segments: deque[Segment] = deque()
        self._waiting: dict[str, str | None] = {}  # not synthesized yet -> status if stopped
        self._steady: set[str] = set()  # waiting requests the user's turn does not end

    def __bool__(self) -> bool:
        """Tell whether any announcement audio is waiting to play."""
        return bool(self._segments)

    def requested(self, say_id: str, interruptible: bool = True) -> None:
        """Note a request sent for synthesis."""
        with self._lock:
            self._waiting[say_id] = None
            if not interruptible:
                self._steady.add(say_id)

    def stopped(self, say_id: str, on_done: Done, failed: bool = False) -> bool:
        """Report a request stopped before synthesis (or failed there); True if it was."""
        with self._lock:
            status = self._waiting.get(say_id) or ('failed' if failed else None)
            if status:
                del self._waiting[say_id]
                self._steady.discard(say_id)
        if status:
            on_done(status)
        return bool(status)

    def synthesized(self, segment: Segment) -> None:
        """Queue a request's audio to play, unless it was stopped while synthesized."""
        with self._lock:
            status = self._waiting.pop(segment.say_id, None)
            self._steady.discard(segment.say_id)
            if status is None:
                self._segments.append(segment)
        if status:
            segment.on_done(status)

    def acknowledge(self, segment: Segment) -> None:
        """Queue the acknowledgement behind what is queued."""
        with self._lock:
            self._segments.append(segment)

    def cancel(self, say_id: str, status: str) -> bool:
        """Stop one request wherever it is (``on_done(status)``); False if unknown."""
        with self._lock:
            segment = next((s for s in self._segments if s.say_id == say_id), None)
            if segment is not None:
                self._segments.remove(segment)
            elif say_id in self._waiting:
                self._waiting[say_id] = self._waiting[say_id] or status
                return True  # reported when its synthesis ends
        if segment is not None and segment.on_done is not None:
            segment.on_done(status)
        return segment is not None

    def interrupt(self) -> None:
        """Stop every interruptible request (not the acknowledgement): the user took the turn."""
        with self._lock:
            dropped = [s for s in self._segments if s.say_id is not None and s.interruptible]
            self._segments = deque(s for s in self._segments
                                   if s.say_id is None or not s.interruptible)
            for say_id in self._waiting:
                if say_id not in self._steady:
                    self._waiting[say_id] = self._waiting[say_id] or 'interrupted'
        for segment in dropped:
            if segment.on_done is not None:
                segment.on_done('interrupted')

    def pop(self) -> Popped:
        """Take the next 80 ms from the head segment (zero-padded at its end)."""
        pcm = np.zeros(FRAME_SAMPLES, np.int16)
        with self._lock:
            if not self._segments:
                return Popped(pcm, [], [], [])
            head = self._segments[0]
            n = min(FRAME_SAMPLES, len(head.audio))
            pcm[:n] = head.audio[:n]
            started = [word for offset, word in head.marks if offset < max(n, 1)]
            head.audio = head.audio[n:]
            head.marks = [(offset - n, word) for offset, word in head.marks
                          if offset >= max(n, 1)]
            finished = []
            if not len(head.audio):
                self._segments.popleft()
                if head.on_done is not None:
                    finished.append(head.on_done)
        if head.say_id is None:
            return Popped(pcm, [], started, finished)
        return Popped(pcm, started, [], finished, head.on_word, head.say_id)
