# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
What a reply may say: never the instructions, never the same clause twice.

Small on-robot LLMs fail in two ways a listener cannot bear: they recite
their instructions ("The user may still be speaking...") when the input
is a fragment or noise, and they loop ("I'm sorry, I'm sorry, ..."). Both
are cut here, before anything is emitted, so neither is ever spoken: the
reply streams through clause by clause (a clause ends at , . ; : ! ?), the
clause being written is held back until it is complete, and a clause that
shares a run of ``ngram`` words with the instructions, or repeats an
earlier clause of the same reply, ends the reply. Holding a clause costs
the LLM's time to write it (tens of ms at llama.cpp speed), and the
front-ends consume text far slower than that. A clause longer than
``max_hold_words`` is released early, keeping its last words back for the
instruction check.
"""
import re

from kame_ros.words import words

CLAUSE_END = re.compile(r'[,.;:!?]+\s+')
LEAK = 'prompt_leak'
REPETITION = 'repetition'


class ReplyGuard:
    """Feeds a reply's streamed pieces through; returns only the text that may be said."""

    def __init__(self, instructions: list[str], ngram: int = 4, max_hold_words: int = 12) -> None:
        """``instructions``: every instruction text the LLM was given (system prompts)."""
        self.ngram = ngram
        self.max_hold_words = max_hold_words
        self._banned = {tuple(w[i:i + ngram]) for text in instructions
                        for w in [words(text)] for i in range(len(w) - ngram + 1)}
        self._held = ''
        self._tail: list[str] = []  # the last words released, for runs across a release
        self._clauses: set[tuple[str, ...]] = set()
        self.cut = ''  # why the reply was ended early ('' when it was not)

    def feed(self, piece: str) -> str:
        """Take the next piece; return the text released now (check ``cut`` after each call)."""
        if self.cut:
            return ''
        self._held += piece
        released = ''
        while not self.cut:
            end = CLAUSE_END.search(self._held)
            if end is None:
                break
            released += self._release(self._held[:end.end()], clause=True)
            self._held = self._held[end.end():]
        held_words = self._held.split()
        if not self.cut and len(held_words) > self.max_hold_words:
            keep = ' '.join(held_words[-(self.ngram - 1):])
            early = self._held[:self._held.rindex(keep)]
            released += self._release(early, clause=False)
            self._held = self._held[len(early):]
        return released

    def finish(self) -> str:
        """Release what is still held once the reply is complete."""
        if self.cut or not self._held.strip():
            return ''
        text, self._held = self._held, ''
        return self._release(text, clause=True)

    def _release(self, text: str, clause: bool) -> str:
        said = words(text)
        run = self._tail + said
        if any(tuple(run[i:i + self.ngram]) in self._banned
               for i in range(len(run) - self.ngram + 1)):
            self.cut = LEAK
            return ''
        if clause and said:
            key = tuple(said)
            if key in self._clauses:
                self.cut = REPETITION
                return ''
            self._clauses.add(key)
        self._tail = run[-(self.ngram - 1):]
        return text
