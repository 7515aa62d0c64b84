# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The tts front-end reports what it actually spoke, word by word, on hibari."""
import numpy as np

from kame_ros.frontend.tts_engine import TtsFrontEnd, word_marks
from kame_ros.oracle.events import OracleEvent
from polling import wait_for

SILENCE = np.zeros(1920, np.int16)
REPLY = ('The kitchen is at the end of the hall, past the dining room, '
         'next to the big window that faces the garden. ')


def test_word_marks_spread_words_over_the_audio():
    marks = word_marks('one three fifteen', 1000, 1800)
    assert [w for _, w in marks] == ['one', 'three', 'fifteen']
    assert [o for o, _ in marks] == [1000, 1000 + 1800 * 4 // 18, 1000 + 1800 * 10 // 18]


def test_interrupted_reply_reports_only_the_words_played():
    fe = TtsFrontEnd(acknowledgement='')
    fe.start()
    try:
        fe.on_oracle(OracleEvent('oracle.reset', 1, 1, 0, final=True))
        fe.on_oracle(OracleEvent('oracle.append', 1, 1, 0, REPLY))
        fe.on_oracle(OracleEvent('oracle.done', 1, 1, 0))
        assert wait_for(lambda: len(fe._audio) > 24000, 30), 'hibari synthesized the reply'
        heard = ''.join(fe.step(SILENCE).text for _ in range(20))  # 1.6 s of it
        # Barge-in: the user's next final turn interrupts the reply mid-sentence.
        fe.on_oracle(OracleEvent('oracle.reset', 2, 2, 0, final=True))
        heard += ''.join(fe.step(SILENCE).text for _ in range(60))
    finally:
        fe.stop()
    said = heard.split()
    assert 3 <= len(said) < len(REPLY.split()), said
    assert said == REPLY.split()[:len(said)], 'a prefix of the reply, in order'
