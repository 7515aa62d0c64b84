# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Words as every comparison in kame_ros sees them.

The reply guard, the tts front-end's acknowledgement check, the evaluation and
the benchmarks all ask "were the same words said?". One definition keeps their
answers consistent: lower case; letters, digits and apostrophes make a word
("don't" stays one); anything else separates words ("twenty-four" is two).

Whether a transcript reads as a finished sentence is decided here too: the
STT ends a turn early on it, and the oracle starts its guess on it.
"""
import re

WORD = re.compile(r"[a-z0-9']+")
SENTENCE_END = ('.', '?', '!')
# Last words that leave an English sentence unfinished, whatever Whisper's punctuation says:
# articles, possessives, and the prepositions and conjunctions that cannot end a question
# ("What is it for?" can, so "for" is not here). An auxiliary can end one ("I know what it
# is."), except "does" ("How many legs does?").
DANGLING = frozenset((
    'a an the my your our their every of to at into onto than and or but because if does')
    .split())


def words(text: str) -> list[str]:
    """Lower-case words without punctuation: what comparisons of text compare."""
    return WORD.findall(text.lower())


def looks_complete(text: str) -> bool:
    """
    Tell whether a transcript reads as a finished sentence.

    Whisper punctuates whatever it hears ("How many legs does?", "Turn left
    at the..."), so a trailing ellipsis or a last word that cannot end an
    English sentence does not count as finished.
    """
    text = text.rstrip()
    if not text.endswith(SENTENCE_END) or text.endswith('..'):
        return False
    said = text.rstrip('.?!').split()
    return bool(said) and said[-1].lower().strip(',;:"\'') not in DANGLING
