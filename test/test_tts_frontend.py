# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The tts front-end reports what it actually spoke, word by word, on hibari."""
import time

import numpy as np
import pytest

from kame_ros.audio.frames import float_to_int16
from kame_ros.frontend.speech_audio import ACK_TRIM_LEVEL, LEAD_SAMPLES, word_marks
from kame_ros.frontend.tts_engine import TtsFrontEnd
from kame_ros.frontend.turn_taking import RESUME_FRAMES
from kame_ros.oracle.events import OracleEvent
from kame_ros.stt.events import TranscriptEvent
from polling import wait_for

SILENCE = np.zeros(1920, np.int16)
REPLY = ('The kitchen is at the end of the hall, past the dining room, '
         'next to the big window that faces the garden. ')


@pytest.fixture
def started():
    """Start a front-end (warmed up when it acknowledges); it is stopped after the test."""
    engines = []

    def start(**kwargs) -> TtsFrontEnd:
        fe = TtsFrontEnd(**kwargs)
        if fe.acknowledgement:
            fe.warmup()
        fe.start()
        engines.append(fe)
        return fe
    yield start
    for fe in engines:
        fe.stop()


def synthesized(fe: TtsFrontEnd, samples: int = 0) -> None:
    """Wait for hibari to have more than ``samples`` of the reply ready to play."""
    assert wait_for(lambda: len(fe._audio) > samples, 30), 'hibari synthesized the reply'


def test_word_marks_spread_words_over_the_audio():
    marks = word_marks('one three fifteen', 1000, 1800)
    assert [w for _, w in marks] == ['one', 'three', 'fifteen']
    assert [o for o, _ in marks] == [1000, 1000 + 1800 * 4 // 18, 1000 + 1800 * 10 // 18]


def test_interrupted_reply_reports_only_the_words_played(started):
    fe = started(acknowledgement='')
    fe.on_oracle(OracleEvent('oracle.reset', 1, 1, 0, final=True))
    fe.on_oracle(OracleEvent('oracle.append', 1, 1, 0, REPLY))
    fe.on_oracle(OracleEvent('oracle.done', 1, 1, 0))
    synthesized(fe, 24000)
    heard = ''.join(fe.step(SILENCE).text for _ in range(20))  # 1.6 s of it
    # Barge-in: the user's next final turn interrupts the reply mid-sentence.
    fe.on_oracle(OracleEvent('oracle.reset', 2, 2, 0, final=True))
    heard += ''.join(fe.step(SILENCE).text for _ in range(60))
    said = heard.split()
    assert 3 <= len(said) < len(REPLY.split()), said
    assert said == REPLY.split()[:len(said)], 'a prefix of the reply, in order'


def final(utterance: int, text: str = 'What is the capital') -> TranscriptEvent:
    return TranscriptEvent(utterance, 0, text, True, 0, 0, 0)


def reply(fe: TtsFrontEnd, reply_id: int, utterance: int, text: str) -> None:
    fe.on_oracle(OracleEvent('oracle.reset', reply_id, utterance, 0, final=True))
    fe.on_oracle(OracleEvent('oracle.append', reply_id, utterance, 0, text))
    fe.on_oracle(OracleEvent('oracle.done', reply_id, utterance, 0, status='complete'))


def play(fe: TtsFrontEnd, frames: int) -> list[str]:
    """Words heard over ``frames``: the acknowledgement (filler) and the reply."""
    said = ''
    for _ in range(frames):
        out = fe.step(SILENCE)
        said += out.filler + out.text
    return said.split()


def test_the_acknowledgement_is_filler_not_reply_text(started):
    # The oracle hears frontend/text as the agent's side of the conversation: an
    # acknowledgement there teaches a small LLM to answer "Okay." and nothing else.
    fe = started()
    fe.on_turn_end(final(1))
    outs = [fe.step(SILENCE) for _ in range(10)]
    assert ''.join(o.filler for o in outs).split() == ['Okay.']
    assert not ''.join(o.text for o in outs)
    reply(fe, 1, 1, 'Paris.')
    synthesized(fe)
    outs = [fe.step(SILENCE) for _ in range(30)]
    assert ''.join(o.text for o in outs).split() == ['Paris.']
    assert not ''.join(o.filler for o in outs)


def test_one_acknowledgement_per_turn_and_none_when_the_answer_is_ready(started):
    fe = started()
    # The user pauses twice before the agent answers: finals 1 and 2, one "Okay."
    fe.on_turn_end(final(1))
    said = play(fe, 5)
    fe.on_turn_end(final(2, 'of France?'))
    said += play(fe, 5)
    assert said == ['Okay.'] and (fe.acks, fe.acks_skipped) == (1, 1)
    reply(fe, 1, 2, 'Paris is the capital.')
    synthesized(fe)
    said = play(fe, 40)
    assert said == ['Paris', 'is', 'the', 'capital.'], 'answered without another ack'
    # A reply that opens with the acknowledgement just given for its turn skips it.
    fe.on_turn_end(final(5, 'And Spain?'))
    assert play(fe, 5) == ['Okay.'] and fe.acks == 2
    reply(fe, 2, 5, 'Okay. Madrid.')
    synthesized(fe)
    assert play(fe, 40) == ['Madrid.']
    # A new turn after the answer started: acknowledged again.
    fe.on_turn_end(final(3, 'And of Japan?'))
    assert play(fe, 5) == ['Okay.'] and fe.acks == 3
    # The answer to this very final is synthesized before the ack would start: no ack.
    reply(fe, 3, 3, 'Tokyo.')
    synthesized(fe)
    play(fe, 40)
    reply(fe, 4, 4, 'Rome is the capital of Italy.')
    synthesized(fe)
    fe.on_turn_end(final(4, 'And of Italy?'))
    said = play(fe, 40)
    assert said[0] == 'Rome' and 'Okay.' not in said and fe.acks == 3


def test_a_reply_waits_while_the_user_speaks_again(started):
    fe = started(acknowledgement='')
    fe.on_user_speaking(True)
    reply(fe, 1, 1, 'The kitchen is down the hall.')
    synthesized(fe)
    assert play(fe, 10) == [], 'nothing starts while the user talks'
    fe.on_user_speaking(False)
    assert play(fe, 40)[:2] == ['The', 'kitchen']
    # Once playing, the user's voice pauses it (issue 41), and a voice-activity flag that is
    # stuck cannot silence the agent for more than 4 s: every word is said, in order.
    fe.on_user_speaking(False)
    reply(fe, 4, 4, 'The garden is outside, behind the house, past the big old tree.')
    synthesized(fe)
    heard = play(fe, 3)
    fe.on_user_speaking(True)
    assert play(fe, 50) == [], 'paused'
    heard += play(fe, 80)
    assert heard == 'The garden is outside, behind the house, past the big old tree.'.split()
    reply(fe, 5, 5, 'Yes.')
    synthesized(fe)
    assert play(fe, 20) == ['Yes.'], 'the stuck flag has had its 4 s'


def test_a_final_soon_after_the_reply_started_is_the_same_turn(started):
    fe = started()
    fe.on_turn_end(final(1, 'What is the capital?'))
    assert play(fe, 5) == ['Okay.']
    reply(fe, 1, 1, 'The capital of which country would you like to know about?')
    synthesized(fe)
    assert play(fe, 8)[:1] == ['The']  # after the rest of "Okay." and its pause
    fe.on_turn_end(final(2, 'Of France.'))  # the user went on: no second "Okay."
    reply(fe, 2, 2, 'Paris.')
    assert wait_for(lambda: fe.reply == (0, 2) and len(fe._audio) > 0, 30)
    assert 'Okay.' not in play(fe, 40) and (fe.acks, fe.acks_skipped) == (1, 1)


def test_not_quiet_until_the_reply_has_been_synthesized_and_played():
    # A headless run ends when its nodes are quiet: under load hibari may still be
    # reading the answer after the oracle finished, and the run must wait for it.
    fe = TtsFrontEnd(acknowledgement='')
    assert fe.quiet
    reply(fe, 1, 1, 'Paris is the capital of France.')
    assert not fe.quiet, 'a sentence waits for the synthesis thread'
    fe.start()
    try:
        synthesized(fe)
        assert not fe.quiet, 'synthesized but not played'
        frames = 0
        while not fe.quiet and frames < 200:
            fe.step(SILENCE)
            frames += 1
    finally:
        fe.stop()
    assert fe.quiet and 10 < frames < 200, frames


def test_a_reply_opening_is_said_before_its_sentence_ends_and_joins_it_without_a_pause(started):
    """Issue 27: the first words play while the LLM still writes the sentence."""
    fe = started(acknowledgement='')
    fe.on_oracle(OracleEvent('oracle.reset', 1, 1, 0, final=True))
    fe.on_oracle(OracleEvent('oracle.append', 1, 1, 0, 'The capital of'))
    fe.on_oracle(OracleEvent('oracle.append', 1, 1, 0, ' France is'))
    synthesized(fe)  # five words, no sentence end yet: the opening is being said
    opening = len(fe._audio)
    assert abs(int(fe._audio[-1])) > ACK_TRIM_LEVEL, 'the opening ends on its last sound'
    fe.on_oracle(OracleEvent('oracle.append', 1, 1, 0, ' Paris.'))
    fe.on_oracle(OracleEvent('oracle.done', 1, 1, 0))
    synthesized(fe, opening)
    assert wait_for(lambda: not fe.synthesis.busy, 30)
    untrimmed, _ = float_to_int16(fe.tts('Paris.'))
    assert abs(int(fe._audio[opening])) > ACK_TRIM_LEVEL, 'the rest starts on its first sound'
    assert len(fe._audio) - opening < len(untrimmed)
    heard = ''.join(fe.step(SILENCE).text for _ in range(60))
    assert heard.split() == ['The', 'capital', 'of', 'France', 'is', 'Paris.']


def loud_at(frames: list[np.ndarray]) -> np.ndarray:
    """Sample offsets, over the played frames, above the synthesizer's silence."""
    return np.flatnonzero(np.abs(np.concatenate(frames).astype(np.int32)) > ACK_TRIM_LEVEL)


def test_a_reply_sounds_on_its_first_frame_and_after_the_acknowledgement_with_a_pause(started):
    """
    Issue 39: oracle text to speaker audio without hibari's 0.3 s of lead-in silence.

    Its first frame carries its first word and its sound within LEAD_SAMPLES;
    a reply ready while "Okay." plays follows it after a pause, not run into it.
    """
    fe = started(acknowledgement='')
    reply(fe, 1, 1, 'The capital of France is Paris.')
    synthesized(fe)
    outs = [fe.step(SILENCE) for _ in range(3)]
    assert outs[0].text.split() == ['The']
    assert loud_at([o.pcm for o in outs])[0] <= LEAD_SAMPLES, 'no dead air before the reply'

    fe = started()
    fe.on_turn_end(final(1))
    first = fe.step(SILENCE)  # "Okay." starts; its reply is ready before it ends
    reply(fe, 1, 1, 'Paris is the capital.')
    assert wait_for(lambda: not fe.synthesis.busy, 30)
    played = loud_at([first.pcm] + [fe.step(SILENCE).pcm for _ in range(20)])
    ack = len(fe._ack_audio)  # "Okay." and the silence it keeps after it
    gap = played[played >= ack][0] - played[played < ack][-1]
    assert 0.2 * 24000 <= gap <= 0.4 * 24000, gap / 24000


def test_the_user_speaking_over_a_reply_pauses_it_their_final_ends_it(started):
    """
    Issue 41: barge-in on voice. The next frame is silent; a false start resumes the reply.

    The reply pauses without losing or repeating a word, and goes on
    RESUME_FRAMES after the voice stops when no final comes; the next time
    a final comes, and the rest of the reply is never said.
    """
    fe = started(acknowledgement='')
    reply(fe, 1, 1, REPLY)
    synthesized(fe, 5 * 24000)
    heard = ''.join(fe.step(SILENCE).text for _ in range(10))
    fe.on_user_speaking(True)  # a cough
    paused = [fe.step(SILENCE) for _ in range(5)]
    assert not any(np.any(o.pcm) or o.text for o in paused), 'silent from the next frame'
    fe.on_user_speaking(False)
    waiting = [fe.step(SILENCE) for _ in range(RESUME_FRAMES - 1)]
    assert not any(np.any(o.pcm) for o in waiting), 'waits for a final'
    heard += ''.join(fe.step(SILENCE).text for _ in range(15))
    assert np.any(fe.step(SILENCE).pcm), 'no final: the reply goes on'
    fe.on_user_speaking(True)  # the user, this time
    fe.step(SILENCE)
    fe.on_user_speaking(False)
    fe.on_turn_end(final(2, 'Where is the bathroom?'))
    after = [fe.step(SILENCE) for _ in range(40)]
    assert not any(np.any(o.pcm) or o.text for o in after), 'their final ended the reply'
    said = heard.split()
    assert said == REPLY.split()[:len(said)] and 4 < len(said) < len(REPLY.split()), said
    assert fe.stats()['barge_ins'] == 2 and fe.stats()['barge_ins_resumed'] == 1


def test_with_barge_in_final_the_voice_does_not_pause_a_reply(started):
    fe = started(acknowledgement='', barge_in='final')
    reply(fe, 1, 1, REPLY)
    synthesized(fe, 3 * 24000)
    fe.step(SILENCE)
    fe.on_user_speaking(True)
    assert all(np.any(fe.step(SILENCE).pcm) for _ in range(10)), 'it plays on'
    with pytest.raises(ValueError, match='barge_in'):
        TtsFrontEnd(barge_in='sometimes')


def test_a_short_opening_waits_for_its_sentence(started):
    fe = started(acknowledgement='')
    fe.on_oracle(OracleEvent('oracle.reset', 1, 1, 0, final=True))
    fe.on_oracle(OracleEvent('oracle.append', 1, 1, 0, 'Well, the'))
    assert not wait_for(lambda: len(fe._audio) > 0, 1.0)


def test_says_play_in_order_and_end_spoken_cancelled_or_interrupted(started):
    fe = started(acknowledgement='Okay.')
    ended = {}

    def say(say_id, text):
        fe.say(say_id, text, lambda status: ended.setdefault(say_id, status))
    say('first', 'I have arrived at the kitchen.')
    say('second', 'The charging dock is behind the sofa.')
    say('third', 'Nobody will hear this sentence.')
    assert fe.cancel_say('third'), 'a queued request can be cancelled'
    assert not fe.cancel_say('unknown')
    heard = []
    while 'first' not in ended:
        assert len(heard) < 200, 'the first request ends'
        heard.append(fe.step(SILENCE).text)
        time.sleep(0.01)  # hibari synthesizes on its own thread
    assert ended == {'first': 'spoken', 'third': 'cancelled'}
    assert ''.join(heard).split() == 'I have arrived at the kitchen.'.split()
    # The user's final while the second plays is the barge-in: it ends the request at
    # once, and the acknowledgement plays instead.
    second = ''
    while 'The charging' not in second:
        assert wait_for(lambda: fe._says, 30)
        second += fe.step(SILENCE).text
    fe.on_turn_end(TranscriptEvent(1, 0, 'Where is the dock?', True, 0, 0, 0))
    assert ended['second'] == 'interrupted'
    out = [fe.step(SILENCE) for _ in range(15)]
    assert ''.join(o.filler for o in out).split() == ['Okay.']
    assert not ''.join(o.text for o in out).strip(), 'nothing more of the interrupted request'
    assert fe.quiet


def test_a_request_that_is_not_interruptible_goes_on_over_the_users_turn(started):
    """A warning ("Stand back, I am moving.") plays to its end; an interruptible one stops."""
    fe = started(acknowledgement='Okay.')
    ended = {}
    fe.say('warning', 'Stand back, I am moving now.', lambda s: ended.setdefault('warning', s),
           interruptible=False)
    fe.say('chat', 'The garden is lovely today.', lambda s: ended.setdefault('chat', s))
    said = ''
    while 'Stand' not in said:
        assert wait_for(lambda: fe._says, 30)
        said += fe.step(SILENCE).text
    fe.on_turn_end(TranscriptEvent(1, 0, 'Where are you going?', True, 0, 0, 0))
    assert wait_for(lambda: ended.get('chat') == 'interrupted', 30), 'the queued chat went'
    assert 'warning' not in ended, 'the warning plays on'
    for _ in range(100):
        if 'warning' in ended:
            break
        out = fe.step(SILENCE)
        said += out.text
        time.sleep(0.01)
    assert ended['warning'] == 'spoken'
    assert said.split() == 'Stand back, I am moving now.'.split()
