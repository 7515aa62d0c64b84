# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Turn the oracle's streamed text into the front-end's own text tokens, incrementally.

The LLM streams text in arbitrary pieces ("Par", "is"); tokenizing each
piece alone would give different tokens than the whole word. Text is
committed one whole word at a time (up to the last space) and the rest when
the reply is done; each committed segment starts at a word boundary, so
SentencePiece encodes it exactly as it would inside the full sentence. Every
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

    def finish(self) -> list[int]:
        """Commit everything left: the reply is complete."""
        return self._commit_upto(len(self.text))

    def _commit_upto(self, end: int) -> list[int]:
        if end <= self._done:
            return []
        segment = self.text[self._done:end]
        self._done = end
        ids = self.tokenizer.encode(segment) if segment.strip() else []
        self.committed += ids
        return ids
