# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""A guess held after its opening, and the final that has the rest written: real llama.cpp."""
import time

import pytest

from kame_ros.oracle.backends.base import BackendError
from kame_ros.oracle.backends.factory import make_backend
from kame_ros.oracle.engine import OracleEngine
from kame_ros.oracle.events import APPEND, DONE, RESET
from kame_ros.ros.topics import DIAGNOSTICS
from kame_ros.stt.events import TranscriptEvent
from oracle_harness import OracleDriver
from polling import wait_for

pytest.importorskip('llama_cpp', reason='scripts/setup.sh installs llama-cpp-python')

QUESTION = 'Tell me about the city of Paris.'  # SmolLM2-135M answers it at length


@pytest.fixture(scope='module')
def backend():
    backend = make_backend('llama_cpp', 'smollm2-135m')
    backend.load(lambda step: None)
    yield backend
    backend.close()


def transcript(text, rev=0, final=False):
    return TranscriptEvent(1, rev, text, final, 0, 0, time.time_ns())


def answer(backend, hold):
    """Guess on the finished-looking partial, wait until it stops, confirm it with the final."""
    events = []
    engine = OracleEngine(backend, events.append, max_tokens=40, hold_guesses=hold)
    engine.submit(transcript(QUESTION))
    guess = engine.tick()
    assert guess is not None and not guess.final
    assert wait_for(lambda: engine.idle, timeout=60)
    written = engine._current.tokens
    guessed = [e for e in events if e.reply_id == guess.reply_id]
    engine.submit(transcript(QUESTION, rev=1, final=True))
    final = engine.tick()
    assert final is not None and final.final
    assert wait_for(lambda: any(e.kind == DONE and e.reply_id == final.reply_id
                                for e in events), timeout=60)
    engine.stop()
    return engine, written, guessed, [e for e in events if e.reply_id == final.reply_id]


def test_a_held_guess_stops_after_its_opening_and_its_final_has_the_rest_written(backend):
    engine, written, guessed, replied = answer(backend, hold=False)
    assert len(''.join(e.text for e in replied if e.kind == APPEND).split()) >= 12
    assert written >= 20, 'unheld, the guess writes its whole reply before the final'

    engine, written, guessed, replied = answer(backend, hold=True)
    assert engine.stats.held == 1 and engine.stats.continued == 1
    assert written <= 10, f'held after its opening (5 words), not {written} tokens'
    assert [e.kind for e in guessed] == [RESET, APPEND], 'a held guess is not done'
    opening = guessed[1].text
    assert len(opening.split()) >= 5
    # The final takes the opening at once (as one APPEND) and the rest follows it.
    assert [e.kind for e in replied[:2]] == [RESET, APPEND] and replied[1].text == opening
    assert replied[-1].kind == DONE and replied[-1].status == 'complete'
    held = ''.join(e.text for e in replied if e.kind == APPEND)
    # The rest goes on from the opening. (Its wording may part from an unheld run's: a 135M's
    # greedy choice turns on logits that move with how llama.cpp batched the prompt.)
    assert held.startswith(opening) and len(held.split()) >= 12, held
    assert held.count(opening.strip()) == 1, 'the reply was not begun again'
    # llama.cpp reused the guess's tokens: the rest's prompt is the guess's prompt and opening.
    assert backend.counts.last_tokens - backend.counts.last_reused <= 3, backend.counts


def test_a_guess_a_newer_partial_supersedes_stays_held_and_is_never_continued(backend):
    events = []
    engine = OracleEngine(backend, events.append, max_tokens=40, hold_guesses=True)
    engine.submit(transcript(QUESTION))
    first = engine.tick()
    assert wait_for(lambda: engine.idle, timeout=60) and engine.stats.held == 1
    engine.submit(transcript('Tell me about the city of Paris and its river.', rev=1, final=True))
    final = engine.tick()
    assert wait_for(lambda: any(e.kind == DONE and e.reply_id == final.reply_id
                                for e in events), timeout=60)
    engine.stop()
    assert engine.stats.continued == 0 and engine.stats.promoted == 0
    assert not any(e.kind == DONE and e.reply_id == first.reply_id for e in events)
    assert engine.stats.answered == 1


def test_hold_guesses_needs_a_backend_that_continues_replies(tiny_llama):
    backend = make_backend('transformers', str(tiny_llama))
    with pytest.raises(BackendError, match='the transformers backend cannot'):
        OracleEngine(backend, lambda event: None, hold_guesses=True)


def test_the_oracle_node_holds_guesses_when_asked_and_refuses_a_backend_that_cannot(
        ros, processes, tiny_llama):
    refused = processes.start('oracle', '--ros-args', '-p', 'backend:=transformers',
                              '-p', f'model:={tiny_llama}', '-p', 'hold_guesses:=true')
    oracle = processes.start('oracle', '--ros-args', '-p', 'model:=smollm2-135m',
                             '-p', 'hold_guesses:=true', '-p', 'max_tokens:=40',
                             '-r', '__ns:=/held')
    drv = OracleDriver(ros, '/held')
    diags = []
    drv.node.create_subscription(DIAGNOSTICS.msg_type, DIAGNOSTICS.name,
                                 diags.append, DIAGNOSTICS.qos)
    drv.wait_ready()
    drv.say(QUESTION, 1, 0)
    assert drv.wait_for(lambda ev: any(e.kind == APPEND for e in ev), 60)
    time.sleep(1.0)
    drv.say(QUESTION, 1, 1, final=True)
    assert drv.wait_for(lambda ev: any(e.kind == DONE and e.final for e in ev), 60)
    reply = drv.reply_text(next(e.reply_id for e in drv.kinds() if e.final))
    assert len(reply.split()) >= 12, reply

    def counted():
        for array in diags:
            for status in array.status:
                values = {kv.key: kv.value for kv in status.values}
                if 'oracle' in status.name and values.get('continued') == '1':
                    return values
        return None
    end = time.monotonic() + 10
    while counted() is None:
        assert time.monotonic() < end and oracle.poll() is None, processes.log(oracle)
        time.sleep(0.2)
    assert counted()['held'] == '1'
    end = time.monotonic() + 60
    while 'cannot configure the oracle' not in processes.log(refused):
        assert time.monotonic() < end and refused.poll() is None, processes.log(refused)
        time.sleep(0.2)
    log = processes.log(refused)
    assert 'cannot configure the oracle: hold_guesses needs a backend that can continue' in log
    assert 'Traceback' not in log and refused.poll() is None, 'a failed configure, not a crash'
