# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The oracle engine on a real (tiny, random) transformers model."""
import os
import threading
import time

import pytest

from kame_ros.oracle.backends.base import BackendError, REFUSED
from kame_ros.oracle.backends.factory import make_backend
from kame_ros.oracle.backends.hf import TransformersBackend
from kame_ros.oracle.engine import BACKOFF_FIRST_S, OracleEngine
from kame_ros.oracle.events import APPEND, DONE, RESET
from kame_ros.oracle.prompt import unfinished
from kame_ros.oracle.scheduler import OracleScheduler, SchedulerConfig
from kame_ros.stt.events import TranscriptEvent
from polling import wait_for


@pytest.fixture(scope='module')
def tiny_backend(tiny_llama):
    backend = TransformersBackend(str(tiny_llama), quantization='int8')
    steps = []
    backend.load(steps.append)
    assert any('int8' in s for s in steps)
    return backend


def transcript(text, utt=1, rev=0, final=False):
    return TranscriptEvent(utt, rev, text, final, 0, 0, time.time_ns())


def test_backend_streams_and_cancels(tiny_backend):
    msgs = [{'role': 'user', 'content': 'hello'}]
    pieces = list(tiny_backend.stream(msgs, 20, threading.Event()))
    assert pieces and len(''.join(pieces)) > 0
    cancel = threading.Event()
    got = []
    for piece in tiny_backend.stream(msgs, 200, cancel):
        got.append(piece)
        cancel.set()
    assert len(got) == 1, 'a cancelled stream yields nothing more'


def test_reply_events_in_order_and_superseded_reply_never_follows(tiny_backend):
    events = []
    engine = OracleEngine(tiny_backend, events.append, max_tokens=40)
    engine.submit(transcript('what is the'))
    first = engine.tick()
    engine.submit(transcript('what is the capital of', rev=1))
    second = engine.tick()
    assert (first.reply_id, second.reply_id) == (1, 2)
    assert wait_for(lambda: any(e.kind == DONE and e.reply_id == 2 for e in events))
    time.sleep(0.3)
    first_of_2 = next(i for i, e in enumerate(events) if e.reply_id == 2)
    assert events[first_of_2].kind == RESET
    assert all(e.reply_id == 2 for e in events[first_of_2:]), 'stale reply after successor'
    replies = [e for e in events if e.reply_id == 2]
    assert replies[-1].kind == DONE and replies[-1].status == 'complete'
    assert all(e.kind == APPEND and e.text for e in replies[1:-1])
    assert not any(e.kind == DONE and e.reply_id == 1 for e in events)
    assert engine.stats.cancelled + engine.stats.completed == 2


def test_reset_goes_out_with_the_first_text(tiny_backend):
    """Rule 2, after SakanaAI/kame server_oracle.py LLMStreamManager._stream_llm_response."""
    events = []
    engine = OracleEngine(tiny_backend, events.append, max_tokens=12)
    for rev, text in enumerate(['tell me', 'tell me about the', 'tell me about the big kitchen']):
        engine.submit(transcript(text, rev=rev))
        engine.tick()
        time.sleep(0.05)
    assert wait_for(lambda: any(e.kind == DONE and e.reply_id == 3 for e in events))
    resets = [i for i, e in enumerate(events) if e.kind == RESET]
    assert resets, 'some reply produced text'
    for i in resets:
        follower = events[i + 1]
        assert (follower.kind, follower.reply_id) == (APPEND, events[i].reply_id)
        assert follower.text.strip(), 'the reset travels with non-blank text'
    for reply in {e.reply_id for e in events}:
        mine = [e for e in events if e.reply_id == reply]
        assert mine[0].kind == RESET or [e.kind for e in mine] == [DONE], \
            'no event of a reply precedes its first text, except a lone DONE'


def test_conversation_as_both_sides_said_it_reaches_the_prompt(tiny_backend):
    events, prompts = [], []
    engine = OracleEngine(tiny_backend, events.append, max_tokens=10,
                          on_prompt=lambda restart, messages: prompts.append(messages))
    engine.set_context('battery low, docked in the kitchen')
    engine.submit(transcript('where are you right now', final=True))
    engine.tick()
    assert wait_for(lambda: any(e.kind == DONE for e in events))
    engine.hear_agent(' I am in')
    engine.hear_agent(' the kitchen.')
    assert engine.tick() is None, "the agent's own speech never restarts the oracle"
    engine.submit(transcript('and what are you doing', utt=2))
    engine.tick()
    msgs = prompts[-1]
    assert 'docked in the kitchen' in msgs[0]['content']
    assert msgs[1:] == [{'role': 'user', 'content': 'where are you right now'},
                        {'role': 'assistant', 'content': 'I am in the kitchen.'},
                        {'role': 'user', 'content': unfinished('and what are you doing')}]
    assert prompts[0][1:] == [{'role': 'user', 'content': 'where are you right now'}], \
        'a final transcript is in the conversation once, not also as "pending"'


def test_backend_failure_is_counted_and_engine_keeps_going():
    backend = make_backend('openai', base_url='http://127.0.0.1:9/v1', timeout_s=1.0,
                           max_retries=0)
    events = []
    engine = OracleEngine(backend, events.append)
    engine.submit(transcript('hello there robot'))
    engine.tick()
    assert wait_for(lambda: any(e.kind == DONE for e in events), 15)
    assert events[-1].status == 'failed' and engine.stats.failed == 1
    assert 'Connection' in engine.stats.last_error
    assert engine.stats.server_faults[REFUSED] == 1 and engine.stats.backoffs == 1
    engine.submit(transcript('hello there robot how are you', rev=1))
    assert engine.tick() is None and engine.stats.held_by_backoff == 1, 'backing off'
    time.sleep(BACKOFF_FIRST_S)
    assert engine.tick() is not None, 'a failed backend blocks the next restart only briefly'


def test_missing_and_bad_models_are_clear_errors(tmp_path):
    with pytest.raises(BackendError, match='model not found'):
        TransformersBackend(str(tmp_path / 'nope')).load(print)
    (tmp_path / 'bad').mkdir()
    (tmp_path / 'bad' / 'config.json').write_text('{"model_type": "llama", "garbage": ')
    with pytest.raises(BackendError, match='cannot load'):
        TransformersBackend(str(tmp_path / 'bad')).load(print)
    with pytest.raises(BackendError, match='quantization'):
        TransformersBackend('x', quantization='2bit')
    with pytest.raises(BackendError, match='unknown backend'):
        make_backend('gpt5')
    with pytest.raises(BackendError, match='base_url'):
        make_backend('openai')


def test_idle_only_when_no_final_waits_and_nothing_is_generated(tiny_backend):
    # --realtime-factor 0 gates the replay on idle nodes: a final must hold it until answered.
    events = []
    engine = OracleEngine(tiny_backend, events.append, max_tokens=20)
    assert engine.idle
    engine.submit(transcript('what is the', final=False))
    assert engine.idle, 'a partial alone does not hold the replay'
    engine.submit(transcript('what is the capital of France', rev=1, final=True))
    assert not engine.idle, 'a final waits for its reply'
    engine.tick()
    assert not engine.idle, 'generating'
    assert wait_for(lambda: any(e.kind == DONE for e in events))
    assert wait_for(lambda: engine.idle, 5)
    engine.submit(transcript('   ', utt=2, final=True))
    assert engine.idle, 'an empty final starts nothing, so nothing to wait for'
    engine.stop()


def test_latency_history_is_bounded(tiny_backend):
    # Diagnostics show the last 50 first-piece latencies; a robot generates for days.
    events = []
    unlimited = OracleScheduler(SchedulerConfig(max_restarts=1000))
    engine = OracleEngine(tiny_backend, events.append, scheduler=unlimited, max_tokens=2)
    for k in range(1, 61):
        engine.submit(transcript(f'question {k}', utt=k, final=True))
        assert engine.tick() is not None
        assert wait_for(lambda: sum(e.kind == DONE for e in events) == k, 30)
    assert engine.stats.completed == 60 and len(engine.stats.first_piece_s) == 50
    engine.stop()


def test_guesses_on_partials_run_niced_and_answers_to_finals_do_not(tiny_backend):
    """A partial's generation thread lowers its own priority (emit runs on it); nothing else."""
    own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    nice = min(own + 5, 19)
    seen = []

    def emit(event):
        seen.append((event.kind, event.final,
                     os.getpriority(os.PRIO_PROCESS, threading.get_native_id())))
    engine = OracleEngine(tiny_backend, emit, max_tokens=10, nice=nice)
    engine.submit(transcript('hello there'))
    assert engine.tick() is not None
    assert wait_for(lambda: any(kind == DONE for kind, _, _ in seen))
    engine.submit(transcript('hello there robot', rev=1, final=True))
    assert engine.tick() is not None
    assert wait_for(lambda: any(kind == DONE and final for kind, final, _ in seen))
    assert {priority for _, final, priority in seen if not final} == {nice}, seen
    assert {priority for _, final, priority in seen if final} == {own}, seen
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == own


def test_a_final_with_the_guess_words_takes_the_guess_without_a_second_generation(tiny_backend):
    """Issue 27: the guess on a finished-looking partial is the answer when the final agrees."""
    events, prompts = [], []
    engine = OracleEngine(tiny_backend, events.append, max_tokens=12,
                          on_prompt=lambda restart, messages: prompts.append(messages))
    engine.submit(transcript('What is the capital of France?'))
    guess = engine.tick()
    assert guess is not None and guess.complete and not guess.final
    assert 'not finished' not in prompts[0][-1]['content'], 'a finished question has no note'
    assert wait_for(lambda: any(e.kind == DONE and e.reply_id == guess.reply_id for e in events))
    engine.submit(transcript('what is the capital of france', rev=1, final=True))
    answer = engine.tick()
    assert answer is not None and answer.final
    assert len(prompts) == 1, 'no second generation for the same words'
    mine = [e for e in events if e.reply_id == answer.reply_id]
    assert [e.kind for e in mine] == [RESET, APPEND, DONE]
    assert all(e.final for e in mine) and mine[-1].status == 'complete'
    guessed = ''.join(e.text for e in events if e.reply_id == guess.reply_id)
    assert mine[1].text == guessed
    assert engine.stats.promoted == 1 and engine.stats.answered == 1
    assert not engine.scheduler.final_pending
    engine.stop()


def test_a_final_that_says_more_is_generated_anew_and_a_running_guess_keeps_streaming(
        tiny_backend):
    events, prompts = [], []
    engine = OracleEngine(tiny_backend, events.append, max_tokens=40,
                          on_prompt=lambda restart, messages: prompts.append(messages))
    engine.submit(transcript('Where is the kitchen?'))
    guess = engine.tick()
    engine.submit(transcript('Where is the kitchen?', rev=1, final=True))
    answer = engine.tick()  # the guess is most likely still generating: it carries on
    assert len(prompts) == 1 and engine.stats.promoted == 1
    assert wait_for(lambda: any(e.kind == DONE and e.reply_id == answer.reply_id
                                for e in events))
    assert not any(e.kind == DONE and e.reply_id == guess.reply_id for e in events[
        next(i for i, e in enumerate(events) if e.reply_id == answer.reply_id):])
    engine.submit(transcript('Where is the kitchen and the fridge?', utt=2))
    engine.submit(transcript('Where is the kitchen and the fridge in it?', utt=2, rev=1,
                             final=True))
    engine.tick()
    assert len(prompts) == 2, 'different words: a generation of their own'
    assert engine.stats.promoted == 1
    engine.stop()


def test_a_reply_that_only_repeats_the_cut_off_turn_is_answered_again():
    """
    Issue 41's barge-in on the embedded 1.5B: cut off at "The capital of", asked about Japan.

    Shown its own cut-off turn, the model copies it and stops ("The capital
    of": no answer; deterministic at this cut). The engine notices before
    anything is said and answers without the interrupted exchange, both the
    final and a guess on the partial before it (which the final would take over).
    """
    backend = make_backend('llama_cpp', 'qwen2.5-coder-1.5b')
    backend.load(lambda step: None)
    events = []
    engine = OracleEngine(backend, events.append, max_tokens=30)
    engine.submit(transcript('What is the capital of France?', final=True))
    engine.hear_agent(' The capital of')
    for final in (False, True):
        events.clear()
        engine.submit(transcript('What is the capital of Japan?', utt=2, rev=final, final=final))
        engine.tick()
        assert wait_for(lambda: any(e.kind == DONE for e in events), 60)
        said = ''.join(e.text for e in events if e.kind == APPEND)
        assert 'Tokyo' in said and 'France' not in said, (final, said)
        assert [e.kind for e in events].count(RESET) == 1, 'one reply: the echo was never said'
    assert engine.stats.cut_echo >= 1
