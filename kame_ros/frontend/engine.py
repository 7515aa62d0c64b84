# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
What every front-end backend offers the node: one output frame per input frame.

Nothing here needs torch: a CPU-only robot runs the tts front-end without it.
"""
from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np

from kame_ros.frontend.budget import FrameBudget
from kame_ros.oracle.events import OracleEvent
from kame_ros.stt.events import TranscriptEvent

MODES = ('auto', 'kame', 'guided', 'plain')  # Moshi's oracle modes (see moshi_engine)


@dataclass(frozen=True)
class FrameOutput:
    """What one 80 ms step produced."""

    frame: int
    pcm: np.ndarray | None
    text_token: int | None
    text: str
    oracle_token: int | None  # None: this mode feeds no oracle (plain, tts)
    compute_ms: float
    filler: str = ''  # words of the acknowledgement that started in this frame


class FrontEndEngine(Protocol):
    """Moshi/KAME or TTS: the node drives either the same way."""

    budget: FrameBudget

    def warmup(self, frames: int = 3) -> float:
        """Run once before real audio; returns seconds spent."""

    def start(self) -> None:
        """Begin a conversation stream."""

    def stop(self) -> None:
        """End it."""

    def on_oracle(self, event: OracleEvent) -> None:
        """Take an oracle event (any thread, never blocks the frame loop)."""

    def on_turn_end(self, final: TranscriptEvent) -> None:
        """Take the end of a user turn (a final transcript arrived)."""

    def on_user_speaking(self, speaking: bool) -> None:
        """Take the STT's voice activity (the user started or stopped speaking)."""

    def say(self, say_id: str, text: str, on_done: Callable[[str], None]) -> None:
        """Speak ``text`` now; ``on_done(status)`` once, when it has been spoken (or not)."""

    def cancel_say(self, say_id: str, status: str = 'cancelled') -> bool:
        """Stop a say request (``on_done(status)``); False if it is not waiting or playing."""

    def step(self, pcm: np.ndarray) -> FrameOutput:
        """One 80 ms input frame in, this frame's output out."""
