# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
AgentClient and the py_trees behaviours against the running agent over DDS.

The real stt (Whisper), oracle (the embedded LLM with an intent allowlist) and
tts front-end nodes run; the test is the robot's microphone (80 ms frames at
real time, silence until the user speaks) and its behaviour stack.
"""
import collections
import json
from pathlib import Path
import subprocess
import sys
import threading
import time

import numpy as np
import py_trees
from py_trees.common import Status

from kame_ros.audio.frames import FRAME_SAMPLES
from kame_ros.behaviours import Say, SetMuted, WaitForUtterance
from kame_ros.frontend.conversation import Turn
from kame_ros.ros.audio_out import AudioOutput
from kame_ros.ros.client import AgentClient
from kame_ros.ros.topics import AGENT_STATE, MIC_AUDIO
from kame_ros.tools.greeter import greeter_tree, tick_until_done
from kame_ros.wire.messages import SayStatus
from oracle_harness import ALLOWLIST
from speech_fixtures import hibari_speech
from typed_msgs import every_sample

GREETER = Path(sys.executable).parent / 'kame_ros_greeter'

LONG = ('Here is the full list of the rooms on this floor, one by one: the kitchen, the dining '
        'room, the living room, the library, the laundry, the office and the guest room.')


class Mic:
    """The robot's microphone: frames at real time, silence unless the user speaks."""

    def __init__(self, ros) -> None:
        self.node = ros.node('robot_microphone')
        self.out = AudioOutput(self.node, MIC_AUDIO, 'mic')
        self.pending: collections.deque = collections.deque()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def speak(self, samples: np.ndarray) -> None:
        padded = np.concatenate([samples, np.zeros(-len(samples) % FRAME_SAMPLES, np.int16)])
        self.pending.extend(padded.reshape(-1, FRAME_SAMPLES))

    def _run(self) -> None:
        t0 = time.monotonic()
        for k in range(10 ** 6):
            if self.stop.is_set():
                return
            frame = self.pending.popleft() if self.pending else np.zeros(FRAME_SAMPLES, np.int16)
            self.out.publish(frame, self.node.get_clock().now().nanoseconds)
            time.sleep(max(0.0, t0 + (k + 1) * 0.08 - time.monotonic()))


def wait(condition, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, what
        time.sleep(0.05)


def test_client_and_trees_say_listen_act_cancel_mute(ros, processes, tmp_path):
    params = tmp_path / 'oracle.yaml'
    params.write_text(json.dumps({'oracle': {'ros__parameters': {
        'backend': 'llama_cpp', 'max_tokens': 20, 'intents': ALLOWLIST}}}))
    # This microphone is a separate stream that never hears the speaker, as on a headset: the
    # stt's default front end finds no echo path and passes the user talking over the robot
    # as it came (issue 41; the echo path's own barge-in is test_echo.py's).
    stt = processes.start('stt', '--ros-args')
    oracle = processes.start('oracle', '--ros-args', '--params-file', str(params))
    processes.start('frontend', '--ros-args', '-p', 'backend:=tts')
    question = hibari_speech('Please go to the kitchen.')
    node = ros.node('behaviour_stack')
    client = AgentClient(node)
    finals, acted, turns = [], [], []
    client.on_final(finals.append)
    node.create_subscription(AGENT_STATE.msg_type, AGENT_STATE.name,
                             lambda m: turns.append(Turn(m.state)), every_sample(AGENT_STATE))
    mic = Mic(ros)
    try:
        assert client.wait_until_active(180), 'the front-end became active'
        wait(lambda: 'stt active' in processes.log(stt) and 'oracle active'
             in processes.log(oracle), 180, 'stt and oracle active')
        time.sleep(2.0)  # their subscriptions match the microphone and each other

        # The example tree: greet (a say that completes), listen for an allowlisted intent,
        # confirm, act. While it listens the robot says something long, and the user talks
        # over it: the final transcript interrupts the say (barge-in) and, scored by the
        # oracle, becomes the intent the waiting behaviour acts on.
        root = greeter_tree(client, lambda intent: acted.append(intent) or True,
                            'Hello! Where should I go?', ('navigate_to',))
        tree = py_trees.trees.BehaviourTree(root)
        greet, listen = root.children[:2]
        wait(lambda: tree.tick() or greet.status == Status.SUCCESS, 30, 'the greeting')
        assert greet.handle.status is SayStatus.SPOKEN
        long_say = client.say(LONG)
        wait(lambda: client.speaking, 30, 'the long say plays')
        mic.speak(question)
        assert long_say.result(60) is not None, 'the long say ended'
        assert long_say.status is SayStatus.INTERRUPTED, 'the user talked over it'
        assert tick_until_done(root, 120) == Status.SUCCESS, \
            py_trees.display.unicode_tree(root, show_status=True)
        assert [i.command for i in acted] == ['navigate_to(kitchen)']
        assert listen.intent.user_text == finals[-1].text and 'kitchen' in finals[-1].text.lower()
        confirm = root.children[2].handle
        assert confirm.text == 'Okay, I will go to the kitchen.' and \
            confirm.status is SayStatus.SPOKEN
        wait(lambda: not client.speaking, 60, 'the oracle reply ends')
        # agent/state, as AgentClient follows it: speaking while the reply played, idle
        # after it (never left thinking: the turn was answered).
        wait(lambda: client.conversation.turn is Turn.IDLE, 10, f'idle at the end: {turns}')
        assert Turn.SPEAKING in turns, turns

        # A say the tree abandons is cancelled; while muted, a say ends muted at once and a
        # say that was playing when the mute came ends muted too.
        say = Say('long', client, LONG)
        tree = py_trees.trees.BehaviourTree(say)
        wait(lambda: tree.tick() or client.speaking, 30, 'the tree says it')
        say.stop(Status.INVALID)
        assert say.handle.result(10) is not None and say.handle.status is SayStatus.CANCELLED
        wait(lambda: not client.speaking, 10, 'the agent stops speaking')
        playing = client.say(LONG)
        wait(lambda: client.speaking, 30, 'the long say plays again')
        mute = SetMuted('mute', client, muted=True)
        muted_say = Say('while muted', client, 'You should not hear this.')
        root = py_trees.composites.Sequence('mute then say', memory=True,
                                            children=[mute, muted_say])
        assert tick_until_done(root, 30) == Status.FAILURE
        assert mute.status == Status.SUCCESS and client.enabled is False
        assert muted_say.handle.status is SayStatus.MUTED
        assert playing.result(10) is not None and playing.status is SayStatus.MUTED
        assert tick_until_done(SetMuted('unmute', client, muted=False), 30) == Status.SUCCESS
        assert client.enabled is True

        # An utterance with the words the behaviour waits for.
        hear = WaitForUtterance('hear kitchen', client, any_of=['the kitchen'])
        tree = py_trees.trees.BehaviourTree(hear)
        tree.tick()
        mic.speak(question)
        assert tick_until_done(hear, 60) == Status.SUCCESS
        assert 'kitchen' in hear.heard.text.lower()
    finally:
        mic.stop.set()
        mic.thread.join(timeout=5)
        client.destroy()


def test_greeter_refuses_bad_arguments_and_says_when_no_agent_is_there(domain_id):
    for args, code, message in [
            (['--timeout', '0'], 2, 'error: --timeout must be positive'),
            (['--timeout', 'soon'], 2, "error: argument --timeout: invalid float value: 'soon'"),
            (['--timeout', '2'], 1, 'kame_ros_greeter: no active agent in 2 s')]:
        result = subprocess.run([str(GREETER), *args], capture_output=True, text=True, timeout=60)
        assert result.returncode == code, (args, result.stderr)
        assert message in result.stderr.strip().splitlines()[-1], (args, result.stderr)
        assert 'Traceback' not in result.stderr
