# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The oracle node over DDS: KAME's restart rules, ordering, bad input, a real answer."""
import time

from kame_ros_interfaces.msg import AgentWord, Transcript
import pytest

from kame_ros.oracle.events import APPEND, DONE
from kame_ros.ros.topics import DIAGNOSTICS, FRONTEND_TEXT, ORACLE_PROMPT
from oracle_harness import OracleDriver
from typed_msgs import stamp_ns


def test_restart_rules_order_and_rate_limit_over_dds(ros, processes, tiny_llama):
    oracle = processes.start('oracle', '--ros-args', '-p', 'backend:=transformers',
                             '-p', f'model:={tiny_llama}', '-p', 'quantization:=none',
                             '-p', 'poll_interval_s:=0.2', '-p', 'max_tokens:=30')
    drv = OracleDriver(ros)
    diags, restarts_ns = [], []
    drv.node.create_subscription(DIAGNOSTICS.msg_type, DIAGNOSTICS.name, diags.append,
                                 DIAGNOSTICS.qos)
    # Each generation's prompt goes out the moment the scheduler restarts (under its lock);
    # a reply's reset goes out later, with its first complete clause.
    drv.node.create_subscription(ORACLE_PROMPT.msg_type, ORACLE_PROMPT.name,
                                 lambda m: restarts_ns.append(stamp_ns(m)),
                                 ORACLE_PROMPT.qos)
    drv.wait_ready()

    drv.say('what', 1, 0)
    time.sleep(0.8)
    assert drv.resets() == [], 'one word must not start a reply'
    drv.say('what is the', 1, 1)
    assert drv.wait_for(lambda ev: len([e for e in ev if e.kind == 'oracle.reset']) == 1, 5)
    assert drv.resets()[0].revision == 1
    drv.say('what is the capital', 1, 2)
    time.sleep(0.8)
    assert len(drv.resets()) == 1, 'one new word must not restart'
    drv.say('what is the capital of france', 1, 3, final=True)
    assert drv.wait_for(lambda ev: any(e.kind == DONE and e.reply_id == 2 for e in ev), 30)
    assert drv.resets()[1].revision == 3
    assert drv.done(2).status == 'complete'
    assert any(e.kind == APPEND and e.reply_id == 2 for e in drv.kinds())

    # A talkative user: two new words every 0.1 s for 4 s -> at most 5 restarts per 2 s.
    t0 = time.time_ns()
    words = []
    for i in range(40):
        words += [f'word{i}', f'more{i}']
        drv.say(' '.join(words), 2, i)
        time.sleep(0.1)
    time.sleep(0.5)
    times = [stamp / 1e9 for stamp in restarts_ns if stamp >= t0]
    assert len(times) >= 8, 'the poller must keep restarting while words arrive'
    for t in times:  # prompt stamps trail the scheduler's clock by well under 50 ms
        assert sum(1 for u in times if t <= u < t + 1.95) <= 5, 'rate limit broken'
    drv.assert_most_recent_wins()

    # Messages the types cannot refuse are dropped and counted (a final on the partial
    # topic, 100 kB of text, a text token below -1); the node keeps answering.
    said = drv.node.create_publisher(FRONTEND_TEXT.msg_type, FRONTEND_TEXT.name,
                                     FRONTEND_TEXT.qos)
    while not said.get_subscription_count():
        time.sleep(0.05)
    time.sleep(0.3)
    drv.partial.publish(Transcript(utterance_id=2, revision=99, text='the end', final=True))
    drv.partial.publish(Transcript(utterance_id=2, revision=99, text='x' * 100_000))
    said.publish(AgentWord(token=-7, text='garbled'))
    n = len(drv.resets())
    drv.say('and one more question please', 3, 0, final=True)
    assert drv.wait_for(lambda ev: len([e for e in ev if e.kind == 'oracle.reset']) > n, 10)
    assert oracle.poll() is None

    def dropped(reason):
        for array in diags:
            for status in array.status:
                values = {kv.key: kv.value for kv in status.values}
                if 'oracle' in status.name and values.get(f'drop_{reason}'):
                    return True
        return False
    assert drv.wait_for(lambda _: all(dropped(r) for r in ('wrong_type', 'bad_payload',
                                                           'oversized')), 5)


def test_embedded_default_answers_paris(ros, processes):
    processes.start('oracle', '--ros-args', '-p', 'max_tokens:=40')
    drv = OracleDriver(ros)
    drv.wait_ready()
    drv.say('What is the capital of France?', 1, 0, final=True)
    assert drv.wait_for(lambda ev: any(e.kind == DONE for e in ev), 60)
    reply = drv.reply_text(1)
    assert 'Paris' in reply, reply


def test_robot_context_reaches_the_next_prompt(ros, processes):
    pytest.importorskip('llama_cpp', reason='scripts/setup.sh installs llama-cpp-python')
    processes.start('oracle', '--ros-args', '-p', 'backend:=llama_cpp', '-p', 'max_turns:=0')
    drv = OracleDriver(ros)
    drv.wait_ready()

    def ask(text, utterance):
        drv.say(text, utterance, 0, final=True)
        assert drv.wait_for(lambda ev: any(e.kind == DONE and e.utterance_id == utterance
                                           for e in ev), 60)
        reply_id = next(e.reply_id for e in drv.kinds() if e.utterance_id == utterance)
        return drv.reply_text(reply_id)

    drv.set_context('battery at 15 percent')
    time.sleep(0.5)
    assert '15' in ask('What is your battery level?', 1)
    drv.set_context('the robot is in the kitchen')
    time.sleep(0.5)
    assert 'kitchen' in ask('Where are you?', 2).lower()
