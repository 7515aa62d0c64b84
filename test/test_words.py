# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""One definition of a word for every text comparison (guard, front-end, evaluation, benches)."""
from kame_ros.words import words


def test_case_and_punctuation_do_not_make_different_words():
    assert words('Okay.') == words('okay') == ['okay']
    assert words('The capital of France is Paris!') == ['the', 'capital', 'of', 'france', 'is',
                                                        'paris']


def test_apostrophes_stay_inside_a_word_and_other_marks_separate():
    assert words("Don't  move,\tRobot-7") == ["don't", 'move', 'robot', '7']
    assert words('twenty-four') == ['twenty', 'four']
    assert words(' ... ?! ') == []
