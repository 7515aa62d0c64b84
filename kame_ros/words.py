# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Words as every comparison in kame_ros sees them.

The reply guard, the tts front-end's acknowledgement check, the evaluation and
the benchmarks all ask "were the same words said?". One definition keeps their
answers consistent: lower case; letters, digits and apostrophes make a word
("don't" stays one); anything else separates words ("twenty-four" is two).
"""
import re

WORD = re.compile(r"[a-z0-9']+")


def words(text: str) -> list[str]:
    """Lower-case words without punctuation: what comparisons of text compare."""
    return WORD.findall(text.lower())
