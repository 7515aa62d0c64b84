# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Hooks for behaviour stacks over DDS: the Say action, speaking state, mute/enable.

The Say action is driven with the real ``ros2 action send_goal`` (as a
robot engineer tries it, and as a tree's action node calls it) and with
rclpy's ActionClient where a test needs the moment of the cancel.
"""
import os
import subprocess
import threading
import time

import numpy as np
from rclpy.action import ActionClient
from std_msgs.msg import Bool
from std_srvs.srv import SetBool

from audio_signals import active_seconds
from kame_ros.audio.wav import read_wav_24k, write_wav
from kame_ros.ros.audio_msg import msg_to_frame
from kame_ros.ros.topics import (AGENT_ENABLED, AGENT_SPEAKING, AGENT_STATE, ENABLE_SERVICE,
                                 FRONTEND_TEXT, SAY_ACTION, SPEAKER_AUDIO, STT_FINAL,
                                 USER_SPEAKING)
from kame_ros.stt.events import TranscriptEvent
from kame_ros.wire.messages import SayStatus
from kame_ros.words import words
from polling import wait_for
from typed_msgs import every_sample, typed

LONG = ('This is a long announcement about the robot, the kitchen, the charging station '
        'and the garden, which goes on for several seconds so that it can be cancelled.')
WARNING = 'Stand back please, the robot is moving towards the charging station now.'
SEND_GOAL = ['ros2', 'action', 'send_goal', '/agent/say', 'kame_ros_interfaces/action/Say']


def test_every_way_a_say_ends_has_its_result_code():
    """The action's status constants are named as SayStatus's members (say_action reads them)."""
    result = SAY_ACTION.msg_type.Result
    codes = {status: getattr(result, status.name) for status in SayStatus}
    assert sorted(codes.values()) == list(range(len(SayStatus))), codes


def start_voice(ros, processes, tmp_path, seconds: int):
    """Start a tts front-end fed silence for ``seconds``, its voice written to out.wav."""
    write_wav(tmp_path / 'quiet.wav', np.zeros(24000 * seconds, np.int16))
    sink = processes.start('wav_sink', '--ros-args', '-p', f'path:={tmp_path / "out.wav"}',
                           '-p', 'idle_timeout_s:=2.0')
    node = ros.node('behaviour_stack')
    assert wait_for(lambda: node.count_subscribers('/audio/speaker') >= 1, 60)
    processes.start('frontend', '--ros-args', '-p', 'backend:=tts')
    processes.start('wav_source', '--ros-args', '-p', f'path:={tmp_path / "quiet.wav"}',
                    '-p', 'wait_for_subscribers:=1', '-p', 'start_delay_s:=0.5')
    client = ActionClient(node, SAY_ACTION.msg_type, SAY_ACTION.name)
    assert client.wait_for_server(timeout_sec=60)
    assert wait_for(lambda: node.count_publishers('/audio/speaker') >= 1, 30)
    time.sleep(1.5)
    return node, client, sink


def send_goal(node, client, text: str, timeout: float = 20.0, interruptible: bool = True):
    """Send a goal with rclpy; return (goal handle, feedback list)."""
    feedback = []
    future = client.send_goal_async(SAY_ACTION.msg_type.Goal(text=text,
                                                             interruptible=interruptible),
                                    feedback_callback=lambda f: feedback.append(f.feedback))
    assert wait_for(future.done, timeout)
    goal = future.result()
    assert goal.accepted
    return goal, feedback


def result_of(goal, timeout: float = 30.0):
    future = goal.get_result_async()
    assert wait_for(future.done, timeout)
    return future.result()


def test_say_action_from_the_cli_gives_word_feedback_and_a_spoken_result(
        ros, processes, tmp_path):
    node, client, sink = start_voice(ros, processes, tmp_path, 14)
    speaking, said, states = [], [], []
    node.create_subscription(AGENT_SPEAKING.msg_type, AGENT_SPEAKING.name,
                             lambda m: speaking.append(m.data), every_sample(AGENT_SPEAKING))
    node.create_subscription(FRONTEND_TEXT.msg_type, FRONTEND_TEXT.name, said.append,
                             FRONTEND_TEXT.qos)
    node.create_subscription(AGENT_STATE.msg_type, AGENT_STATE.name,
                             lambda m: states.append(m.state), every_sample(AGENT_STATE))
    out = subprocess.run([*SEND_GOAL, "{text: 'Hello there, I have arrived at the kitchen.'}",
                          '--feedback'], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ))
    assert out.returncode == 0, out.stdout + out.stderr
    fed = [line.split(':', 1)[1].strip() for line in out.stdout.splitlines()
           if line.strip().startswith('word:')]
    assert words(' '.join(fed)) == words('Hello there, I have arrived at the kitchen.'), out.stdout
    assert 'status_text: spoken' in out.stdout, out.stdout
    assert 'Goal finished with status: SUCCEEDED' in out.stdout, out.stdout
    assert True in speaking, 'agent/speaking went true while it spoke'
    goal_id = next(line.split('ID:')[1].strip() for line in out.stdout.splitlines()
                   if 'Goal accepted with ID:' in line)
    assert said and {w.say_id for w in said} == {f'goal-{goal_id}'}, \
        'each word on frontend/text names the goal it was said for'
    state = AGENT_STATE.msg_type
    assert wait_for(lambda: states[-1:] == [state.IDLE], 10), states
    assert states[states.index(state.SPEAKING):] == [state.SPEAKING, state.IDLE], \
        'agent/state: speaking while the goal played, idle after'
    assert sink.wait(timeout=60) == 0
    spoken = active_seconds(read_wav_24k(tmp_path / 'out.wav'), 300.0)
    assert 1.0 < spoken < 5.0, f'{spoken:.2f} s spoken: one announcement'


def test_a_goal_cancelled_mid_sentence_ends_cancelled_and_the_voice_stops(
        ros, processes, tmp_path):
    node, client, _ = start_voice(ros, processes, tmp_path, 40)
    loud: list[float] = []  # arrival time of every frame with the agent's voice in it
    node.create_subscription(SPEAKER_AUDIO.msg_type, SPEAKER_AUDIO.name,
                             lambda m: loud.append(time.monotonic())
                             if np.abs(msg_to_frame(m).samples).max() > 300 else None,
                             SPEAKER_AUDIO.qos)
    # The CLI: a goal sent with send_goal, cancelled with the action's cancel service (Ctrl-C
    # cannot: rclpy's signal handler shuts the CLI's context down before it sends the cancel).
    cli = subprocess.Popen([*SEND_GOAL, f"{{text: '{LONG}'}}", '--feedback'],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(cli.stdout), daemon=True)
    reader.start()
    assert wait_for(lambda: sum('word:' in line for line in lines) >= 3, 60), lines
    cancel_cli = subprocess.run(['ros2', 'service', 'call', '/agent/say/_action/cancel_goal',
                                 'action_msgs/srv/CancelGoal', '{}'],
                                capture_output=True, text=True, timeout=60)
    assert cancel_cli.returncode == 0, cancel_cli.stdout + cancel_cli.stderr
    assert cli.wait(timeout=30) == 0
    reader.join(timeout=5)
    text = ''.join(lines)
    assert 'status_text: cancelled' in text, text
    assert 'Goal finished with status: CANCELED' in text, text
    # rclpy's client: the voice stops within a frame of the cancel's answer.
    goal, feedback = send_goal(node, client, LONG)
    assert wait_for(lambda: len(feedback) >= 3, 30)
    cancel = goal.cancel_goal_async()
    assert wait_for(cancel.done, 10)
    answered = time.monotonic()
    assert len(cancel.result().goals_canceling) == 1
    result = result_of(goal)
    assert result.result.status_text == 'cancelled', result.result
    assert result.result.spoken_text, 'the words played before the cancel'
    time.sleep(1.0)
    after = [round(t - answered, 3) for t in loud if t > answered]
    assert len(after) <= 1, f'voice frames after the cancel was answered, at {after} s'


def test_mute_ends_goals_muted_and_unmute_speaks_again(ros, processes, tmp_path):
    node, client, sink = start_voice(ros, processes, tmp_path, 14)
    enabled = []
    node.create_subscription(AGENT_ENABLED.msg_type, AGENT_ENABLED.name,
                             lambda m: enabled.append(m.data), every_sample(AGENT_ENABLED))
    enable = node.create_client(SetBool, ENABLE_SERVICE)
    assert enable.wait_for_service(timeout_sec=60)

    def call(value):
        future = enable.call_async(SetBool.Request(data=value))
        assert wait_for(future.done, 10)
        return future.result()

    goal, _ = send_goal(node, client, 'Arrived at the kitchen.')
    assert result_of(goal).result.status_text == 'spoken'
    assert call(False).success and enabled[-1] is False
    goal, _ = send_goal(node, client, 'You should not hear this.')
    assert result_of(goal).result.status_text == 'muted'
    assert call(True).success and enabled[-1] is True
    goal, _ = send_goal(node, client, '')
    assert result_of(goal).result.status_text == 'empty'
    goal, _ = send_goal(node, client, 'Going to the charging station.')
    assert result_of(goal).result.status_text == 'spoken'
    assert sink.wait(timeout=60) == 0
    spoken = active_seconds(read_wav_24k(tmp_path / 'out.wav'), 300.0)
    assert 1.5 < spoken < 5.0, f'{spoken:.2f} s spoken: two announcements, not the muted one'


def test_the_users_turn_ends_a_goal_interrupted_unless_it_is_not_interruptible(
        ros, processes, tmp_path):
    """Thinking until the agent sounds; a final ends a goal INTERRUPTED, a warning SPOKEN."""
    node, client, _ = start_voice(ros, processes, tmp_path, 40)
    final = node.create_publisher(STT_FINAL.msg_type, STT_FINAL.name, STT_FINAL.qos)
    user = node.create_publisher(USER_SPEAKING.msg_type, USER_SPEAKING.name, USER_SPEAKING.qos)
    states = []
    node.create_subscription(AGENT_STATE.msg_type, AGENT_STATE.name,
                             lambda m: states.append(m.state), every_sample(AGENT_STATE))
    assert wait_for(lambda: final.get_subscription_count() >= 1, 30)
    # agent/state through a turn with the voice idle: the user speaks, stops, their final
    # comes (thinking until the agent sounds: here the acknowledgement), then idle.
    state = AGENT_STATE.msg_type
    for speaking in (True, False):
        user.publish(Bool(data=speaking))
        time.sleep(0.5)
    final.publish(typed(STT_FINAL, TranscriptEvent(9, 0, 'Hello?', True, 0, 0, 0)))
    assert wait_for(lambda: states[-3:] == [state.THINKING, state.SPEAKING, state.IDLE], 20), \
        states
    assert states[-5:-3] == [state.LISTENING, state.IDLE], states
    for utterance, interruptible in enumerate((True, False)):
        goal, feedback = send_goal(node, client, WARNING, interruptible=interruptible)
        assert wait_for(lambda: len(feedback) >= 2, 30)
        final.publish(typed(STT_FINAL, TranscriptEvent(utterance, 0, 'Where are you going?',
                                                       True, 0, 0, 0)))
        result = result_of(goal).result
        expected = 'interrupted' if interruptible else 'spoken'
        assert result.status_text == expected, (interruptible, result)
        assert (result.spoken_text.count(' ') < 7) == interruptible, result.spoken_text
