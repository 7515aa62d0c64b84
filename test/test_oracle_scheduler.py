# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""KAME's restart policy, exactly, on an injected clock."""
import pytest

from kame_ros.oracle.prompt import (AGENT, cut_reply, echoes_cut_reply, PromptBuilder,
                                    unfinished, USER, without_cut_exchange)
from kame_ros.oracle.scheduler import new_word_count, OracleScheduler, SchedulerConfig
from kame_ros.stt.events import TranscriptEvent


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def partial(text, utt=1, rev=0, final=False, stamp=0):
    return TranscriptEvent(utt, rev, text, final, 0, 0, stamp)


def test_new_word_count_counts_revisions_as_new():
    assert new_word_count('what is the', 'what is') == 1
    assert new_word_count('what was the capital', 'what is the') == 3
    assert new_word_count('What is', 'what is') == 0


def test_two_new_words_restart_one_does_not():
    s = OracleScheduler(clock=Clock())
    s.on_transcript(partial('what'))
    assert s.poll() is None
    s.on_transcript(partial('what is', rev=1))
    first = s.poll()
    assert first is not None and first.reply_id == 1 and first.user_text == 'what is'
    s.on_transcript(partial('what is the', rev=2))
    assert s.poll() is None
    s.on_transcript(partial('what is the capital', rev=3))
    second = s.poll()
    assert second.reply_id == 2 and second.revision == 3 and not second.final


def test_final_restarts_once_and_ends_the_utterance():
    s = OracleScheduler(clock=Clock())
    s.on_transcript(partial('what is the capital'))
    assert s.poll().reply_id == 1
    s.on_transcript(partial('what is the capital', rev=1, final=True))
    r = s.poll()
    assert r.final and r.reply_id == 2
    assert s.poll() is None
    s.on_transcript(partial('what is the capital of spain', rev=2))
    assert s.poll() is None and s.stale_events == 1, 'a final closes its utterance'


def test_new_utterance_and_stale_events():
    s = OracleScheduler(clock=Clock())
    s.on_transcript(partial('hello there robot', utt=2, rev=4))
    assert s.poll().utterance_id == 2
    s.on_transcript(partial('older utterance words', utt=1, rev=9))
    s.on_transcript(partial('older revision', utt=2, rev=3))
    assert s.stale_events == 2 and s.poll() is None
    s.on_transcript(partial('', utt=3, final=True))
    assert s.poll() is None, 'an empty final (noise) starts nothing'


def test_at_most_five_restarts_per_two_seconds():
    clock = Clock()
    s = OracleScheduler(SchedulerConfig(max_restarts=5, restart_window_s=2.0), clock)
    words = []
    accepted = []
    for i in range(25):
        clock.t = i * 0.1
        words += [f'w{i}', f'x{i}']
        s.on_transcript(partial(' '.join(words), rev=i))
        if s.poll() is not None:
            accepted.append(round(clock.t, 1))
    assert accepted == [0.0, 0.1, 0.2, 0.3, 0.4, 2.0, 2.1, 2.2, 2.3, 2.4]
    assert s.rate_limited == 15, 'polls at 0.5..1.9 s were refused'


def test_prompt_carries_context_conversation_and_marks_partials():
    p = PromptBuilder(max_words=30, max_turns=1)
    p.context = 'battery 20%, going to the kitchen'
    p.hear(USER, 'hi')
    p.hear(AGENT, ' Hello!')
    p.hear(USER, 'what is two')
    p.hear(USER, 'plus two')
    p.hear(AGENT, ' Fo')
    p.hear(AGENT, 'ur.')
    msgs = p.messages('where are you', final=False)
    assert '30 words' in msgs[0]['content'] and 'battery 20%' in msgs[0]['content']
    assert [m['role'] for m in msgs] == ['system', 'user', 'assistant', 'user']
    assert msgs[1]['content'] == 'what is two plus two', 'oldest exchange forgotten'
    assert msgs[2]['content'] == 'Four.', 'agent pieces carry their own spacing'
    assert msgs[-1]['content'] == unfinished('where are you')
    p.hear(USER, 'where are you')
    assert p.messages('', final=True)[-1]['content'] == 'where are you'
    with pytest.raises(ValueError):
        p.hear('moshi', 'x')


def test_restarted_stt_is_a_new_stream_not_stale():
    s = OracleScheduler(clock=Clock())
    s.on_transcript(partial('what is the capital of france', utt=3, final=True, stamp=100))
    assert s.poll().final
    s.on_transcript(partial('older and late', utt=2, stamp=50))
    assert s.stale_events == 1, 'produced before the latest: stale'
    s.on_transcript(partial('what is the capital of japan', utt=0, final=True, stamp=200))
    restart = s.poll()
    assert restart is not None and restart.final and restart.utterance_id == 0
    assert s.stt_restarts == 1


def test_the_current_question_is_asked_whatever_is_remembered():
    def said(p):
        return [(m['role'], m['content']) for m in p.messages('', final=True)[1:]]
    for turns, expected in ((0, [('user', 'and Spain?')]),
                            (1, [('user', 'capital of France?'), ('assistant', 'Paris.'),
                                 ('user', 'and Spain?')])):
        p = PromptBuilder(max_turns=turns)
        for speaker, text in ((USER, 'hi'), (AGENT, ' Hello!'), (USER, 'capital of France?'),
                              (AGENT, ' Paris.'), (USER, 'and Spain?')):
            p.hear(speaker, text)
        assert said(p) == expected, turns
    p = PromptBuilder(max_turns=0)
    p.hear(USER, 'hi')
    p.hear(AGENT, ' Hello!')
    assert p.messages('where are', final=False)[1:] == [{'role': 'user',
                                                         'content': unfinished('where are')}]


def test_a_cut_off_agent_turn_is_known_and_its_echo_recognised():
    prompt = PromptBuilder()
    prompt.hear(USER, 'What is the capital of France?')
    prompt.hear(AGENT, ' The capital of')
    guess = prompt.messages('What is the capital of', final=False)
    assert cut_reply(guess) == 'The capital of', 'a partial over the agent cuts it too'
    assert cut_reply(prompt.messages()) == '', 'the agent still has the turn: nothing was cut'
    prompt.hear(USER, 'What is the capital of Japan?')
    messages = prompt.messages()
    assert cut_reply(messages) == 'The capital of'
    assert echoes_cut_reply(messages, 'The capital of')
    assert echoes_cut_reply(messages, 'The capital')
    assert not echoes_cut_reply(messages, 'The capital of Japan is Tokyo.')
    assert not echoes_cut_reply(messages, 'Tokyo')
    assert [m['content'] for m in without_cut_exchange(messages)][1:] == [
        'What is the capital of Japan?'], 'the interrupted exchange is left out'
    finished = PromptBuilder()
    for speaker, text in ((USER, 'Hi.'), (AGENT, ' Hello there.'), (USER, 'And you?')):
        finished.hear(speaker, text)
    assert cut_reply(finished.messages()) == ''
    assert without_cut_exchange(finished.messages()) == finished.messages()
