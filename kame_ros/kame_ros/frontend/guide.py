# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Guided mode: steer stock Moshi's inner monologue toward the oracle, without fine-tuning.

Moshi speaks what its text stream (the inner monologue) says, and chooses
*when* to say it by emitting pad between words. Guidance keeps Moshi's
timing and voice and replaces its words: through LMGen's text-logits hook,
whenever Moshi's most likely text token is a word token, the next oracle
token is forced instead; when it is pad, pad is forced (no sampling noise
slips a stray word into the reply).

Policy and knobs:

* switch point: the guide engages at the first frame where an oracle reply
  has at least ``min_ready_tokens`` tokens and Moshi is at a word boundary
  (it prefers pad, or a token that begins a new word), never mid-word;
  if no boundary comes within ``max_wait_frames`` of the reply being
  ready, it engages anyway so the knowledge is not held back;
* while engaged and the oracle is behind (tokens not streamed yet), pad is
  forced so Moshi waits for the knowledge instead of improvising;
* a new reply continues after the part already spoken when it repeats it
  (common prefix), otherwise from its start at the next word;
* when a finished reply has been spoken entirely, the guide lets go and
  Moshi continues freely.
"""
import threading

import torch

WORD_MARKER = '\u2581'


class TextGuide:
    """Holds the reply to speak and rewrites Moshi's text logits each frame."""

    def __init__(self, tokenizer, pad_id: int = 3, end_pad_id: int = 0,
                 min_ready_tokens: int = 3, max_wait_frames: int = 12) -> None:
        """``tokenizer`` is the front-end's SentencePiece model (for word starts)."""
        self.pad_id = pad_id
        self.end_pad_id = end_pad_id
        self.min_ready_tokens = min_ready_tokens
        self.max_wait_frames = max_wait_frames
        self._waited = 0
        vocab = tokenizer.vocab_size()
        self._word_start = torch.tensor([tokenizer.id_to_piece(i).startswith(WORD_MARKER)
                                         for i in range(vocab)])
        self._lock = threading.Lock()
        self.reply: list[int] = []
        self.reply_done = False
        self.position = 0
        self.spoken: list[int] = []
        self._spoken_current: list[int] = []
        self._previous: list[int] = []
        self._matching = False
        self.engaged = False
        self.switch_frames: list[int] = []
        self._frame = 0

    def new_reply(self) -> None:
        """Start a new reply (a reset) that replaces the current one."""
        with self._lock:
            self._previous = self._spoken_current
            self.reply, self.reply_done = [], False
            self.position, self._spoken_current = 0, []
            self._matching = bool(self._previous)

    def extend(self, tokens: list[int], done: bool = False) -> None:
        """More tokens of the current reply (``done`` when it is complete)."""
        with self._lock:
            self.reply.extend(tokens)
            self.reply_done = self.reply_done or done
            while self._matching and self.position < len(self.reply):
                if (self.position < len(self._previous)
                        and self.reply[self.position] == self._previous[self.position]):
                    self._spoken_current.append(self.reply[self.position])
                    self.position += 1
                else:
                    self._matching = False

    def on_text_logits(self, logits: torch.Tensor) -> None:
        """Rewrite ``logits`` [B, 1, 1, card] in place (LMGen text-logits hook)."""
        with self._lock:
            self._frame += 1
            preferred = int(logits[0, 0, 0].argmax())
            is_pad = preferred in (self.pad_id, self.end_pad_id)
            if not self.engaged:
                if len(self.reply) < self.min_ready_tokens or self.position >= len(self.reply):
                    return
                boundary = is_pad or (preferred < len(self._word_start)
                                      and bool(self._word_start[preferred]))
                self._waited += 1
                if not (boundary or self._waited > self.max_wait_frames):
                    return
                self.engaged, self._waited = True, 0
                self.switch_frames.append(self._frame)
            if self.position >= len(self.reply):
                if self.reply_done:
                    self.engaged = False
                    return
                self._force(logits, self.pad_id)
                return
            # Moshi's argmax decides *when* (pad or word); the oracle decides *what*.
            self._force(logits, self.pad_id if is_pad else self.reply[self.position])

    def on_text_token(self, token: torch.Tensor) -> None:
        """Note what was actually emitted (LMGen text hook)."""
        with self._lock:
            value = int(token[0])
            if (self.engaged and self.position < len(self.reply)
                    and value == self.reply[self.position]):
                self.position += 1
                self.spoken.append(value)
                self._spoken_current.append(value)

    @staticmethod
    def _force(logits: torch.Tensor, token: int) -> None:
        logits.fill_(float('-inf'))
        logits[..., token] = 0.0
