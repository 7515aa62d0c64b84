# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
KAME's oracle timeline: which oracle token the front-end sees at each 80 ms frame.

The timeline is anchored to frames, not to arrival order:

* ``reset`` (a new LLM reply) puts the boundary token (the text-initial id,
  32000 for Moshi) at the frame the front-end steps next; the new reply
  wholly replaces the old one.
* appended tokens take the following frames, one per frame, in order.
* a frame whose token has not arrived yet gets pad (3); a token that
  arrives after its frame was stepped is never used (counted as late).
* before the first reply, and past a reply's last token, the frame gets
  pad too: KAME was trained with an oracle token on every frame, and the
  reference (SakanaAI/kame ``LMGen._step``) feeds ``oracle_emb(pad)``
  whenever it has nothing else.

Thread-safe: events arrive from ROS callbacks while the audio loop steps.
"""
from dataclasses import dataclass
import threading


@dataclass
class TimelineStats:
    """What happened to oracle tokens (published as diagnostics)."""

    resets: int = 0
    appended: int = 0
    used: int = 0
    late: int = 0
    pad_frames: int = 0


class OracleTimeline:
    """Frame-indexed oracle tokens for one front-end stream."""

    def __init__(self, boundary_id: int, pad_id: int = 3) -> None:
        """``boundary_id`` is the text vocabulary size (Moshi: 32000), ``pad_id`` Moshi's pad."""
        self.boundary_id = boundary_id
        self.pad_id = pad_id
        self.stats = TimelineStats()
        self._origin: int | None = None
        self._tokens: list[int] = []
        self._next_frame = 0
        self._lock = threading.Lock()

    def reset(self) -> int:
        """Start a new reply at the next frame to be stepped; returns that frame."""
        with self._lock:
            self._origin = self._next_frame
            self._tokens = [self.boundary_id]
            self.stats.resets += 1
            return self._origin

    def append(self, token_ids: list[int]) -> None:
        """Extend the current reply; tokens whose frame already passed are counted late."""
        with self._lock:
            if self._origin is None:
                return
            start = self._origin + len(self._tokens)
            self._tokens.extend(token_ids)
            self.stats.appended += len(token_ids)
            self.stats.late += max(0, min(len(token_ids), self._next_frame - start))

    def starving(self) -> bool:
        """Tell whether the frame stepped next has no token yet (a reply is running)."""
        with self._lock:
            return (self._origin is not None
                    and self._next_frame - self._origin >= len(self._tokens))

    def advance(self) -> int:
        """Token for the frame being stepped now, then move to the next frame."""
        with self._lock:
            frame = self._next_frame
            self._next_frame += 1
            index = frame - self._origin if self._origin is not None else -1
            if 0 <= index < len(self._tokens):
                self.stats.used += 1
                return self._tokens[index]
            self.stats.pad_frames += 1
            return self.pad_id

    @property
    def frame(self) -> int:
        """Index of the next frame to be stepped."""
        with self._lock:
            return self._next_frame
