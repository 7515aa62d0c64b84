# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The tts front-end's announcements: one segment per say request, played before any reply.

A behaviour stack needs to know how each request ended (spoken,
cancelled, interrupted by the user, muted), so the audio is kept per
request rather than in one buffer: a segment can be removed whole,
queued or half played, and its completion callback goes with it. The
acknowledgement ("Okay.") is a segment too, without a request.

Not thread-safe: the engine holds its audio lock around every call, and
calls the callbacks this returns after releasing it.
"""
from collections import deque
from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class Popped:
    """One frame of announcements, and what it finished."""

    pcm: np.ndarray
    words: list[str]  # words of requests that started in this frame
    filler: list[str]  # words of the acknowledgement that started in this frame
    finished: list[Done]  # callbacks of requests whose last sample played: call with 'spoken'


class SayQueue:
    """Segments in play order; the head plays one frame per ``pop``."""

    def __init__(self) -> None:
        """Start empty."""
        self._segments: deque[Segment] = deque()

    def __bool__(self) -> bool:
        """Tell whether any announcement audio is waiting."""
        return bool(self._segments)

    def add(self, segment: Segment) -> None:
        """Queue a segment behind the others (an empty one finishes on the next pop)."""
        self._segments.append(segment)

    def pop(self) -> Popped:
        """Take the next 80 ms from the head segment (zero-padded at its end)."""
        pcm = np.zeros(FRAME_SAMPLES, np.int16)
        if not self._segments:
            return Popped(pcm, [], [], [])
        head = self._segments[0]
        n = min(FRAME_SAMPLES, len(head.audio))
        pcm[:n] = head.audio[:n]
        started = [word for offset, word in head.marks if offset < max(n, 1)]
        head.audio = head.audio[n:]
        head.marks = [(offset - n, word) for offset, word in head.marks if offset >= max(n, 1)]
        finished = []
        if not len(head.audio):
            self._segments.popleft()
            if head.on_done is not None:
                finished.append(head.on_done)
        if head.say_id is None:
            return Popped(pcm, [], started, finished)
        return Popped(pcm, started, [], finished)

    def remove(self, say_id: str) -> Done | None:
        """Drop a request's segment, playing or not; return its callback (None if absent)."""
        for segment in self._segments:
            if segment.say_id == say_id:
                self._segments.remove(segment)
                return segment.on_done or (lambda status: None)
        return None

    def remove_requests(self) -> list[Done]:
        """Drop every request's segment (not the acknowledgement); return their callbacks."""
        dropped = [s for s in self._segments if s.say_id is not None]
        self._segments = deque(s for s in self._segments if s.say_id is None)
        return [s.on_done for s in dropped if s.on_done is not None]
