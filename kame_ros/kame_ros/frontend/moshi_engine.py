# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The Moshi/KAME front-end loop: Mimi encode -> LM step -> Mimi decode, one 80 ms frame at a time.

Built on moshi's own LMGen without forking it. KAME's oracle embedding is
added to the model input through LMModel's ``sum_condition`` input (the
per-step additive conditioning moshi already feeds to ``forward_text``):
each frame, ``oracle_emb(token)`` is written into that tensor in place, so
the LM sees text + audio + oracle embeddings exactly as KAME sums them, and
CUDA graphs stay valid. Every frame carries a token, pad when there is no
reply (as the reference's ``LMGen._step`` does). Stock Moshi checkpoints
are steered instead through LMGen's text hooks (guided mode, see guide.py);
``plain`` mode adds nothing and is bit-identical to upstream LMGen + Mimi.

The first frame follows the reference servers (moshi and KAME
``server.py``/``server_oracle.py``): it is encoded and stepped, then Mimi's
streaming state is reset, because the first encoded frame carries the
encoder's left padding and, from the model's point of view, lies in the past.

``step`` never waits for the oracle: events only update the timeline.
"""
from dataclasses import asdict, dataclass, fields
import threading
import time
from typing import Any, Callable

import numpy as np
import torch

from kame_ros.audio.frames import float_to_int16, FRAME_SAMPLES, int16_to_float
from kame_ros.frontend.budget import FrameBudget
from kame_ros.frontend.checkpoint import FrontEndModels
from kame_ros.frontend.engine import FrameOutput, FrontEndEngine, MODES
from kame_ros.frontend.guide import TextGuide
from kame_ros.frontend.moshi_internals import streaming_state
from kame_ros.frontend.oracle_timeline import OracleTimeline
from kame_ros.frontend.text_tokens import IncrementalTokenizer
from kame_ros.oracle.events import APPEND, DONE, OracleEvent, RESET
from kame_ros.stt.events import TranscriptEvent


@dataclass(frozen=True)
class CurrentSay:
    """The say request Moshi is speaking: its callbacks, its id and the frame it ends at."""

    on_done: Callable[[str], None]
    end_frame: int
    say_id: str
    on_word: Callable[[str], None] | None


@dataclass(frozen=True)
class SamplingConfig:
    """
    LMGen's sampling knobs that the user chose; None leaves each to the checkpoint.

    A checkpoint may state its own generation defaults (moshi's
    ``lm_gen_config``, as moshi's server applies them); what it does not
    state is LMGen's default. Nothing here restates moshi's numbers.
    """

    use_sampling: bool | None = None
    temp: float | None = None
    temp_text: float | None = None
    top_k: int | None = None
    top_k_text: int | None = None

    def lmgen_kwargs(self, checkpoint: dict) -> dict:
        """Return LMGen's sampling arguments: the checkpoint's, overridden by the set ones."""
        names = {f.name for f in fields(self)}
        chosen = {name: value for name, value in asdict(self).items() if value is not None}
        return {**{k: v for k, v in checkpoint.items() if k in names}, **chosen}


class MoshiFrontEnd(FrontEndEngine):
    """Streams one conversation through Moshi (or KAME) frame by frame."""

    def __init__(self, models: FrontEndModels, mode: str = 'auto',
                 sampling: SamplingConfig = SamplingConfig(), seed: int = 0,
                 guide_min_ready_tokens: int = 3, exported=None) -> None:
        """
        Pick the oracle mode: kame needs oracle_emb; auto = kame if present, else guided.

        ``exported`` (an ExportedFrontEnd of the same checkpoint) runs Mimi
        and the LM steps on onnxruntime instead of torch.
        """
        from moshi.models.lm import LMGen
        if mode not in MODES:
            raise ValueError(f'mode must be one of {MODES}, got {mode!r}')
        if mode == 'auto':
            mode = 'kame' if models.is_kame else 'guided'
        if mode == 'kame' and not models.is_kame:
            raise ValueError('mode kame needs a KAME checkpoint (with oracle_emb)')
        self.models = models
        self.exported = exported
        self.codec = exported if exported is not None else models.mimi
        self.mode = mode
        self.seed = seed
        lm = models.lm
        self.pad_id = lm.existing_text_padding_id
        self.end_pad_id = lm.existing_text_end_padding_id
        self.timeline = OracleTimeline(boundary_id=lm.text_card, pad_id=self.pad_id)
        self.text_in = IncrementalTokenizer(models.tokenizer)
        self.guide = None
        hooks = {}
        if mode == 'guided':
            self.guide = TextGuide(models.tokenizer, self.pad_id, self.end_pad_id,
                                   guide_min_ready_tokens)
            hooks = {'on_text_logits_hook': self.guide.on_text_logits,
                     'on_text_hook': self.guide.on_text_token}
        self.lm_gen = LMGen(lm, **sampling.lmgen_kwargs(models.gen_config), **hooks)
        self._vocab_size = models.tokenizer.vocab_size()
        self.budget = FrameBudget()
        self.reply_order = (0, 0)
        self.stale_events = 0
        self._oracle_sum: torch.Tensor | None = None
        self._say: CurrentSay | None = None
        self._lock = threading.Lock()
        self._frame = 0
        self._streaming = None

    def start(self) -> None:
        """Enter streaming mode (Mimi and LM keep state across steps from here on)."""
        from contextlib import ExitStack
        torch.manual_seed(self.seed)
        stack = ExitStack()
        stack.enter_context(self.models.mimi.streaming(1))
        stack.enter_context(self.lm_gen.streaming(1))
        if self.exported is not None:
            self.exported.reset()
            self.exported.attach(self.lm_gen)
        if self.mode == 'kame':
            lm = self.models.lm
            self._oracle_sum = torch.zeros(1, 1, lm.dim, device=lm.device, dtype=lm.dtype)
            streaming_state(self.lm_gen).condition_sum = self._oracle_sum
        self._streaming = stack

    def warmup(self, frames: int = 3) -> float:
        """Run silent frames once (allocations, kernel selection), then start clean; returns s."""
        t0 = time.perf_counter()
        self.start()
        for _ in range(frames):
            self.step(np.zeros(FRAME_SAMPLES, np.int16))
        self.stop()
        self.timeline = OracleTimeline(self.timeline.boundary_id, self.pad_id)
        self.budget = FrameBudget()
        self._frame = 0
        return time.perf_counter() - t0

    def stop(self) -> None:
        """Leave streaming mode."""
        if self._streaming is not None:
            self._streaming.close()
            self._streaming = None

    def stats(self) -> dict[str, Any]:
        """Return the frame budget and how the oracle timeline was fed."""
        return {**super().stats(), 'mode': self.mode,
                **{f'oracle_{k}': v for k, v in vars(self.timeline.stats).items()}}

    def on_oracle(self, event: OracleEvent) -> None:
        """Take one oracle event (any thread); stale replies are ignored."""
        with self._lock:
            if event.kind == DONE and event.order > self.reply_order:
                return  # a reply that never produced text never reset the timeline
            if event.order < self.reply_order or (event.kind != RESET
                                                  and event.order != self.reply_order):
                self.stale_events += 1
                return
            if event.kind == RESET:
                self._finish_say('interrupted')
                self.reply_order = event.order
                self.text_in.reset()
                self.timeline.reset()
                if self.guide:
                    self.guide.new_reply()
                return
            tokens = self.text_in.feed(event.text) if event.kind == APPEND else \
                self.text_in.flush()
            self._extend(tokens, done=event.kind == DONE)

    def _extend(self, tokens: list[int], done: bool = False) -> None:
        """Lay committed tokens on the timeline (and the guide); caller holds the lock."""
        self.timeline.append(tokens)
        if self.guide:
            self.guide.extend(tokens, done=done)

    def _oracle_token(self) -> int:
        """Return this frame's oracle token; a pending word is committed if the frame needs it."""
        with self._lock:
            if self.text_in.pending and self.timeline.starving():
                self._extend(self.text_in.flush())
        return self.timeline.advance()

    def on_turn_end(self, final: TranscriptEvent) -> None:
        """Nothing to do: full-duplex Moshi hears the end of the turn itself."""

    def on_user_speaking(self, speaking: bool) -> None:
        """Nothing to do: full-duplex Moshi hears the user itself."""

    def say(self, say_id: str, text: str, on_done: Callable[[str], None],
            on_word: Callable[[str], None] | None = None, interruptible: bool = True) -> None:
        """
        Speak ``text`` now, as if it were an oracle reply (KAME timeline or guided text).

        ``on_done('spoken')`` once its last token's frame has passed (KAME) or the
        guide has emitted it (guided); ``'interrupted'`` if a new oracle reply
        replaces it first. In plain mode there is no way to steer Moshi: ``'unsupported'``.
        ``on_word`` gets Moshi's text pieces while the request is the one spoken.
        ``interruptible`` has no effect: the model answers the user whatever it says.
        """
        if self.mode == 'plain':
            on_done('unsupported')
            return
        tokens = self.models.tokenizer.encode(text)
        with self._lock:
            self._finish_say('interrupted')
            origin = self.timeline.reset()
            self.timeline.append(tokens)
            if self.guide:
                self.guide.new_reply()
                self.guide.extend(tokens, done=True)
            self._say = CurrentSay(on_done, origin + len(tokens) + 1, say_id, on_word)

    def cancel_say(self, say_id: str, status: str = 'cancelled') -> bool:
        """Stop feeding the say request's text (``on_done(status)``); False if not current."""
        with self._lock:
            if self._say is None or self._say.say_id != say_id:
                return False
            self.timeline.reset()
            if self.guide:
                self.guide.new_reply()
            self._finish_say(status)
        return True

    def _finish_say(self, status: str) -> None:
        if self._say is not None:
            callback, self._say = self._say.on_done, None
            callback(status)

    def _check_say(self) -> None:
        with self._lock:
            if self._say is None:
                return
            if self.guide is not None:
                done = self.guide.position >= len(self.guide.reply)
            else:
                done = self._frame >= self._say.end_frame
            if done:
                self._finish_say('spoken')

    @torch.no_grad()
    def lm_step(self, codes: torch.Tensor) -> tuple[torch.Tensor | None, int | None]:
        """
        One LM step on the user's audio codes [1, K, 1], with this frame's oracle token.

        Returns LMGen's output tokens (None while the delays fill) and the
        oracle token fed (None in plain mode). ``step`` wraps this with Mimi.
        """
        oracle_token = None if self.mode == 'plain' else self._oracle_token()
        if self._oracle_sum is not None:
            token = torch.tensor([[oracle_token]], device=self.models.lm.device)
            self._oracle_sum.copy_(self.models.oracle_emb(token))
        return self.lm_gen.step(codes), oracle_token

    @torch.no_grad()
    def step(self, pcm: np.ndarray) -> FrameOutput:
        """Process one 80 ms input frame (int16[1920]); returns this frame's output."""
        if self._streaming is None:
            raise RuntimeError('call start() first')
        t0 = time.perf_counter()
        x = torch.from_numpy(int16_to_float(pcm)).to(self.models.lm.device)[None, None]
        codes = self.codec.encode(x)
        if self._frame == 0:
            self.codec.reset_streaming()
        tokens, oracle_token = self.lm_step(codes)
        out_pcm, text_token, text = None, None, ''
        if tokens is not None:
            text_token = int(tokens[0, 0, 0])
            if (text_token not in (self.pad_id, self.end_pad_id)
                    and text_token < self._vocab_size
                    and not self.models.tokenizer.is_control(text_token)):
                text = self.models.tokenizer.id_to_piece(text_token).replace('\u2581', ' ')
            audio = self.codec.decode(tokens[:, 1:])
            out_pcm, _ = float_to_int16(audio[0, 0].float().cpu().numpy()[:FRAME_SAMPLES])
        compute_ms = (time.perf_counter() - t0) * 1e3
        self.budget.record(compute_ms)
        frame = self._frame
        self._frame += 1
        say = self._say
        if text.strip() and say is not None and say.on_word is not None:
            say.on_word(text.strip())
        self._check_say()
        return FrameOutput(frame, out_pcm, text_token, text, oracle_token, compute_ms,
                           say_id=say.say_id if say is not None and text else '')
