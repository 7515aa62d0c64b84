# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Over DDS: the oracle's prompt is the conversation as both sides said it.

User finals and the current partial come from the STT topics, the agent's
side from what the front-end really published on ``frontend/text``; the
agent's own speech never restarts the oracle. Run with the tts front-end
(hibari) and with the tiny KAME front-end; the oracle is the embedded
default model on llama.cpp.
"""
import time

import numpy as np
import pytest

from kame_ros.audio.wav import write_wav
from kame_ros.frontend.tiny import save_checkpoint
from kame_ros.oracle.prompt import unfinished
from kame_ros.ros.topics import FRONTEND_TEXT, ORACLE_PROMPT
from kame_ros.wire.messages import AgentText
from oracle_harness import OracleDriver
from polling import wait_for
from typed_msgs import read, typed


def letters(text: str) -> str:
    """Text without its spacing (a word can be split across two turns' pieces)."""
    return ''.join(text.split())


@pytest.mark.slow
@pytest.mark.parametrize('frontend', ['tts', 'kame'])
def test_prompt_carries_both_sides_of_the_conversation(ros, processes, tmp_path, frontend):
    if frontend == 'kame':
        args = ['-p', f'checkpoint:={save_checkpoint(tmp_path / "kame", kame=True)}']
    else:
        args = ['-p', 'backend:=tts']
    processes.start('oracle', '--ros-args', '-p', 'backend:=llama_cpp', '-p', 'max_tokens:=20')
    processes.start('frontend', '--ros-args', *args)
    drv = OracleDriver(ros)
    prompts, spoken = [], []
    drv.node.create_subscription(ORACLE_PROMPT.msg_type, ORACLE_PROMPT.name,
                                 lambda m: prompts.append(read(ORACLE_PROMPT, m)),
                                 ORACLE_PROMPT.qos)
    drv.node.create_subscription(FRONTEND_TEXT.msg_type, FRONTEND_TEXT.name,
                                 lambda m: spoken.append(read(FRONTEND_TEXT, m)),
                                 FRONTEND_TEXT.qos)
    drv.wait_ready()
    assert wait_for(lambda: drv.node.count_publishers(FRONTEND_TEXT.name) > 0, 120), \
        'frontend never came up'
    write_wav(tmp_path / 'mic.wav', (np.random.default_rng(0).standard_normal(24000 * 8) * 200)
              .astype(np.int16))
    source = processes.start('wav_source', '--ros-args', '-p', f'path:={tmp_path / "mic.wav"}',
                             '-p', 'wait_for_subscribers:=1')

    drv.say('What is the capital of France?', 1, 0, final=True)
    assert wait_for(lambda: len(prompts) == 1, 30), 'the final started a reply'
    assert source.wait(timeout=120) == 0, processes.log(source)
    time.sleep(2.0)  # the last frames' text is in
    assert spoken, 'the front-end said something'
    assert len(prompts) == 1, "the agent's own speech never restarts the oracle"

    drv.say('and what about', 2, 0)
    drv.say('and what about Germany', 2, 1)
    assert wait_for(lambda: len(prompts) == 2, 30), 'the next user words restart it'
    messages = prompts[-1].messages[1:]
    user = [m['content'] for m in messages if m['role'] == 'user']
    agent = [m['content'] for m in messages if m['role'] == 'assistant']
    assert 'What is the capital of France?' in user
    assert user[-1] == unfinished('and what about Germany'), 'the current partial, unfinished'
    said = ''.join(e.text for e in spoken if not e.filler)
    assert letters(''.join(agent)) == letters(said), \
        'the agent side is exactly what the front-end published, fillers aside'

    roles = [m['role'] for m in messages]
    assert all(a != b for a, b in zip(roles, roles[1:])), 'turns alternate'


def test_an_acknowledgement_is_heard_but_not_part_of_the_conversation(ros, processes):
    """A filler on frontend/text stays out of the prompt; the reply words after it are in."""
    processes.start('oracle', '--ros-args', '-p', 'backend:=llama_cpp', '-p', 'max_tokens:=8')
    drv = OracleDriver(ros)
    prompts = []
    drv.node.create_subscription(ORACLE_PROMPT.msg_type, ORACLE_PROMPT.name,
                                 lambda m: prompts.append(read(ORACLE_PROMPT, m)),
                                 ORACLE_PROMPT.qos)
    said = drv.node.create_publisher(FRONTEND_TEXT.msg_type, FRONTEND_TEXT.name,
                                     FRONTEND_TEXT.qos)
    drv.wait_ready()
    assert wait_for(lambda: said.get_subscription_count() > 0, 30)
    drv.say('What is the capital of France?', 1, 0, final=True)
    assert wait_for(lambda: len(prompts) == 1, 30)
    heard = [AgentText(1, None, ' Okay.', filler=True), AgentText(9, None, ' Paris is'),
             AgentText(12, None, ' lovely.')]
    for words in heard:
        said.publish(typed(FRONTEND_TEXT, words))
    time.sleep(1.0)
    drv.say('And Spain?', 2, 0, final=True)
    assert wait_for(lambda: len(prompts) == 2, 30)
    agent = [m['content'] for m in prompts[-1].messages if m['role'] == 'assistant']
    assert agent == ['Paris is lovely.'], agent
