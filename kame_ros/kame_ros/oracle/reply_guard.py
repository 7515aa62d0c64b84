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

The reply's opening is the exception that makes the agent answer sooner:
its first ``OPENING_WORDS`` words go out as soon as they are written (cut
after a word that can end a phrase, never after "the" or "of"), so the
tts front-end can start speaking while the LLM writes the rest of the
sentence, ~70 ms a token for the 1.5B default on 2 cores. The opening is
checked like any release (a run of the instructions inside it ends the
reply unsaid); a run that starts in its last three words and goes on past
it is cut when it completes, so at most those three words of it are said.
"""
import re

from kame_ros.words import DANGLING, words

OPENING_WORDS = 5  # words of a reply released before its first clause ends
CLAUSE_END = re.compile(r'[,.;:!?]+\s+')
LEAK = 'prompt_leak'
REPETITION = 'repetition'


class ReplyGuard:
    """Feeds a reply's streamed pieces through; returns only the text that may be said."""

    def __init__(self, instructions: list[str], ngram: int = 4, max_hold_words: int = 12,
                 opening_words: int = OPENING_WORDS) -> None:
        """``instructions``: every instruction text the LLM was given; ``opening_words`` 0: off."""
        self.ngram = ngram
        self.max_hold_words = max_hold_words
        self.opening_words = opening_words
        self._opened = False  # something of this reply was released
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
        if not (self.cut or released or self._opened) and self.opening_words:
            released = self._open()
        return released

    def _open(self) -> str:
        """Release the reply's first words before its first clause is complete (once)."""
        complete = self._held.split()
        if complete and not self._held[-1].isspace():
            complete = complete[:-1]  # the last word may go on in the next piece
        n = self.opening_words
        while n <= len(complete) and words(complete[n - 1]) and \
                words(complete[n - 1])[-1] in DANGLING:
            n += 1
        if n > len(complete):
            return ''
        end = 0
        for word in complete[:n]:
            end = self._held.index(word, end) + len(word)
        opening, self._held = self._held[:end], self._held[end:]
        return self._release(opening, clause=False)

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
        self._opened = self._opened or bool(said)
        return text
