# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Turn the oracle's streamed text into the front-end's own text tokens, incrementally.

The LLM streams text in arbitrary pieces ("Par", "is"). The KAME reference
tokenizes each piece on its own, so "Par" + "is" become two word-start
tokens where the LLM wrote one word. Here text is committed one whole word
at a time (up to the last space); each committed segment starts at a word
boundary, so SentencePiece encodes it exactly as it would inside the full
sentence, which is how KAME's training oracle text was tokenized.

A pending (unfinished) word must never wait on a slow LLM: the owner
calls ``flush`` when the reply is done and whenever the front-end is about
to step a frame that has no committed token left (see
``MoshiFrontEnd.step``). The wait is therefore bounded by the frame clock:
a word is only held back while it could not have been used anyway. Every
committed token is final: once on the timeline it may already have been
consumed and can never be revised.
"""
from typing import Protocol


class TextTokenizer(Protocol):
    """The part of sentencepiece.SentencePieceProcessor used here."""

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``."""

    def id_to_piece(self, token_id: int) -> str:
        """Surface piece of a token id."""


class IncrementalTokenizer:
    """Accumulates one reply's text and yields newly final token ids."""

    def __init__(self, tokenizer: TextTokenizer) -> None:
        """Start with an empty reply."""
        self.tokenizer = tokenizer
        self.reset()

    def reset(self) -> None:
        """Begin a new reply."""
        self.text = ''
        self.committed: list[int] = []
        self._done = 0

    def feed(self, piece: str) -> list[int]:
        """Add streamed text; return token ids that became final."""
        self.text += piece
        return self._commit_upto(self.text.rfind(' '))

    def flush(self) -> list[int]:
        """Commit everything received so far, the pending word included."""
        return self._commit_upto(len(self.text))

    @property
    def pending(self) -> str:
        """Text received but not committed yet (the unfinished word), blanks stripped."""
        return self.text[self._done:].strip()

    def _commit_upto(self, end: int) -> list[int]:
        if end <= self._done:
            return []
        segment = self.text[self._done:end]
        self._done = end
        ids = self.tokenizer.encode(segment) if segment.strip() else []
        self.committed += ids
        return ids
