# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The final reply's text as the oracle streams it, cut into the pieces the TTS reads."""
from dataclasses import dataclass
import re
from typing import Callable

from kame_ros.oracle.reply_guard import OPENING_WORDS
from kame_ros.words import words

SENTENCE_END = re.compile(r'(?<=[.!?;:])\s+')


@dataclass(frozen=True)
class Piece:
    """A sentence (or a reply's opening words) to synthesize."""

    text: str
    trim_start: bool  # it continues a sentence: no pause before it
    trim_end: bool  # the sentence goes on in the next piece: no pause after it


class ReplyText:
    """
    Sentence by sentence, but the opening at once.

    A whole sentence reads naturally; waiting for the first one costs its
    full LLM time, so the reply's first ``OPENING_WORDS`` words (which the
    oracle's reply guard releases before the sentence is complete) are a
    piece of their own, joined to the rest without a pause.
    """

    def __init__(self) -> None:
        """Start with no reply."""
        self.reset()

    def reset(self) -> None:
        """Start a new reply."""
        self.text = ''
        self._said = 0  # characters of text already cut into pieces
        self._mid_sentence = False  # the last piece ended mid-sentence

    def append(self, text: str, skip: Callable[[str], bool]) -> list[Piece]:
        """Take streamed text; return the pieces now complete (``skip`` drops one)."""
        self.text += text
        parts = SENTENCE_END.split(self.text[self._said:])
        ready = parts[:-1]
        self._said = len(self.text) - len(parts[-1])
        if not self._said and len(words(self.text)) >= OPENING_WORDS:
            ready, self._said = [self.text], len(self.text)  # the opening: say it now
        return self._pieces(ready, skip)

    def finish(self, skip: Callable[[str], bool]) -> list[Piece]:
        """Take the end of the reply: the rest is a piece."""
        ready, self._said = [self.text[self._said:]], len(self.text)
        return self._pieces(ready, skip)

    def opens_with(self, sentence: str) -> bool:
        """Tell whether the reply starts with ``sentence``."""
        return self.text.lstrip().startswith(sentence.strip())

    def _pieces(self, ready: list[str], skip: Callable[[str], bool]) -> list[Piece]:
        pieces = []
        for sentence in ready:
            if sentence.strip() and not skip(sentence):
                opening = not SENTENCE_END.search(sentence + ' ')
                pieces.append(Piece(sentence.strip(), self._mid_sentence, opening))
                self._mid_sentence = opening
        return pieces
