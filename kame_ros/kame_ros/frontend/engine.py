# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
What every front-end offers the node (one output frame per input frame), and its settings.

Nothing here needs torch: a CPU-only robot runs the tts front-end without it.
"""
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from kame_ros.frontend.budget import FrameBudget
from kame_ros.frontend.export.layout import PRECISIONS
from kame_ros.frontend.turn_taking import BARGE_IN
from kame_ros.oracle.events import OracleEvent
from kame_ros.settings import setting
from kame_ros.stt.events import TranscriptEvent

MODES = ('auto', 'kame', 'guided', 'plain')  # Moshi's oracle modes (see moshi_engine)
BACKENDS = ('moshi', 'tts')
CHECKPOINT_DEFAULT = -1.0  # a sampling parameter left to the checkpoint (moshi's lm_gen_config)


@dataclass(frozen=True)
class FrontEndConfig:
    """The front-end's settings: each default, description and range stated once."""

    backend: str = setting('moshi', 'moshi (Moshi/KAME) or tts (hibari)', choices=BACKENDS)
    checkpoint: str = setting('kyutai/moshiko-pytorch-bf16',
                              'moshi: local checkpoint directory or Hugging Face repo')
    device: str = setting('cpu', 'moshi: torch device (cpu, cuda)')
    dtype: str = setting('float32', 'moshi: torch dtype',
                         choices=('float32', 'bfloat16', 'float16'))
    mode: str = setting('auto', 'moshi oracle mode (auto = kame if the checkpoint has '
                        'oracle_emb, else guided)', choices=MODES)
    seed: int = setting(0, 'moshi: sampling seed', 0, 2**31 - 1)
    temp: float = setting(CHECKPOINT_DEFAULT,
                          "moshi: audio sampling temperature (-1: the checkpoint's)", -1.0, 2.0)
    temp_text: float = setting(CHECKPOINT_DEFAULT,
                               "moshi: text sampling temperature (-1: the checkpoint's)",
                               -1.0, 2.0)
    guide_min_ready_tokens: int = setting(
        3, 'guided: oracle tokens ready before the guide may take over', 1, 100)
    runtime: str = setting('torch', 'moshi: torch, or onnx (exported graphs on onnxruntime: '
                           'TensorRT -> CUDA -> CPU)', choices=('torch', 'onnx'))
    onnx_dir: str = setting('', 'onnx: exported graphs; exported there on first use; empty = '
                            '~/.cache/kame_ros/onnx/<checkpoint>-<precision>')
    onnx_precision: str = setting('fp32', 'onnx: fp32, int8 (dynamic, CPU), or the LM graphs '
                                  'in fp16 or int8w (weight-only int8)', choices=PRECISIONS)
    trt_fp16: bool = setting(False, 'onnx on TensorRT: fp16 engines')
    voice: str = setting('heart', 'tts: hibari voice')
    acknowledgement: str = setting('Okay.', 'tts: said at once when the user finishes a turn')
    barge_in: str = setting('voice', 'tts: voice (the user speaking over a reply pauses it, '
                            'their final ends it) or final (only their final ends it)',
                            choices=BARGE_IN)


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
    say_id: str = ''  # the say request ``text`` belongs to; empty: a reply


class FrontEndEngine(ABC):
    """Moshi/KAME or TTS: the node drives either the same way."""

    budget: FrameBudget

    @abstractmethod
    def warmup(self, frames: int = 3) -> float:
        """Run once before real audio; returns seconds spent."""

    @abstractmethod
    def start(self) -> None:
        """Begin a conversation stream."""

    @abstractmethod
    def stop(self) -> None:
        """End it."""

    @abstractmethod
    def on_oracle(self, event: OracleEvent) -> None:
        """Take an oracle event (any thread, never blocks the frame loop)."""

    @abstractmethod
    def on_turn_end(self, final: TranscriptEvent) -> None:
        """Take the end of a user turn (a final transcript arrived)."""

    @abstractmethod
    def on_user_speaking(self, speaking: bool) -> None:
        """Take the STT's voice activity (the user started or stopped speaking)."""

    @abstractmethod
    def say(self, say_id: str, text: str, on_done: Callable[[str], None],
            on_word: Callable[[str], None] | None = None, interruptible: bool = True) -> None:
        """
        Speak ``text`` now; ``on_done(status)`` once, when it has been spoken (or not).

        ``on_word(word)`` as each word starts to play (the Say action's feedback);
        without ``interruptible`` the user's turn does not end it (where the
        engine can hold a reply back: the tts front-end).
        """

    @abstractmethod
    def cancel_say(self, say_id: str, status: str = 'cancelled') -> bool:
        """Stop a say request (``on_done(status)``); False if it is not waiting or playing."""

    @abstractmethod
    def step(self, pcm: np.ndarray) -> FrameOutput:
        """One 80 ms input frame in, this frame's output out."""

    @property
    def idle(self) -> bool:
        """Tell whether no work is pending outside ``step`` (a frame's output is ready at once)."""
        return True

    def stats(self) -> dict[str, Any]:
        """Return the frame budget, then the engine's own counters, for /diagnostics."""
        return self.budget.summary()
