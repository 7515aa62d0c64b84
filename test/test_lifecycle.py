# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
stt and frontend through the real lifecycle services (autostart:=false), as a manager drives them.

configure -> activate -> deactivate -> cleanup -> configure with a changed
parameter -> activate: the new value is in effect, nothing is published
while inactive, and a second configure does not double the subscriptions.
"""
import time

from lifecycle_msgs.msg import Transition
from lifecycle_msgs.srv import ChangeState, GetState
import numpy as np
import pytest
from rcl_interfaces.msg import Parameter as ParameterMsg, ParameterType, ParameterValue
from rcl_interfaces.srv import SetParameters
from rclpy.action import ActionClient

from kame_ros.audio.wav import write_wav
from kame_ros.oracle.events import APPEND, DONE, OracleEvent, RESET
from kame_ros.ros.topics import (FRONTEND_TEXT, MIC_AUDIO, ORACLE_EVENTS, SAY_ACTION,
                                 SPEAKER_AUDIO, STT_FINAL)
from polling import wait_for
from speech_fixtures import hibari_speech
from typed_msgs import typed

pytestmark = pytest.mark.slow


class Manager:
    """A lifecycle manager of one node, over its real services."""

    def __init__(self, ros, name: str) -> None:
        self.node = ros.node(f'manager_{name}')
        self.change = self.node.create_client(ChangeState, f'/{name}/change_state')
        self.get = self.node.create_client(GetState, f'/{name}/get_state')
        self.params = self.node.create_client(SetParameters, f'/{name}/set_parameters')
        assert self.change.wait_for_service(60) and self.get.wait_for_service(10)

    def call(self, client, request, timeout=120.0):
        future = client.call_async(request)
        assert wait_for(future.done, timeout), 'service call timed out'
        return future.result()

    def transition(self, transition_id: int) -> None:
        result = self.call(self.change, ChangeState.Request(
            transition=Transition(id=transition_id)))
        assert result.success, transition_id

    def state(self) -> str:
        return self.call(self.get, GetState.Request()).current_state.label

    def set_string(self, name: str, value: str):
        value = ParameterValue(type=ParameterType.PARAMETER_STRING, string_value=value)
        return self.call(self.params, SetParameters.Request(
            parameters=[ParameterMsg(name=name, value=value)])).results[0]


def test_frontend_and_stt_lifecycle_by_hand(ros, processes, tmp_path):
    processes.start('frontend', '--ros-args', '-p', 'backend:=tts', '-p', 'autostart:=false',
                    '-p', 'acknowledgement:=Okay.')
    # The microphone here (a WAV) never hears the speaker, and the scripted reply may play over
    # the question: the default front end passes it as it came (issue 41).
    processes.start('stt', '--ros-args', '-p', 'autostart:=false')
    frontend, stt = Manager(ros, 'frontend'), Manager(ros, 'stt')
    assert frontend.state() == stt.state() == 'unconfigured'

    probe = ros.node('probe')
    frames_out, words, finals = [], [], []
    probe.create_subscription(SPEAKER_AUDIO.msg_type, SPEAKER_AUDIO.name, frames_out.append,
                              SPEAKER_AUDIO.qos)
    probe.create_subscription(FRONTEND_TEXT.msg_type, FRONTEND_TEXT.name,
                              lambda m: words.append(m.text),
                              FRONTEND_TEXT.qos)
    probe.create_subscription(STT_FINAL.msg_type, STT_FINAL.name,
                              lambda m: finals.append(m.text), STT_FINAL.qos)
    oracle = probe.create_publisher(ORACLE_EVENTS.msg_type, ORACLE_EVENTS.name, ORACLE_EVENTS.qos)
    mic = probe.create_publisher(MIC_AUDIO.msg_type, MIC_AUDIO.name, MIC_AUDIO.qos)
    question = tmp_path / 'q.wav'
    write_wav(question, np.concatenate([hibari_speech('Where is the kitchen?'),
                                        np.zeros(24000 * 2, np.int16)]))

    def speak(reply: int) -> None:
        """Play the question, then an oracle reply to its final, over DDS."""
        source = processes.start('wav_source', '--ros-args', '-p', f'path:={question}',
                                 '-p', 'wait_for_subscribers:=2', '-p', 'start_delay_s:=1.0',
                                 '-p', 'trailing_silence_s:=6.0')
        time.sleep(3.0)
        for kind, extra in ((RESET, {}), (APPEND, {'text': 'It is down the hall.'}),
                            (DONE, {'status': 'complete'})):
            oracle.publish(typed(ORACLE_EVENTS, OracleEvent(kind, reply, reply, 0, final=True,
                                                            epoch=1, **extra)))
        assert source.wait(timeout=60) == 0, processes.log(source)
        time.sleep(1.0)

    for manager in (frontend, stt):
        manager.transition(Transition.TRANSITION_CONFIGURE)
        manager.transition(Transition.TRANSITION_ACTIVATE)
    assert wait_for(lambda: mic.get_subscription_count() == 2, 30)
    speak(1)
    assert finals == ['Where is the kitchen?'], finals
    # (The acknowledgement is skipped when the scripted reply is ready before the final.)
    assert 'down the hall' in ''.join(words) and frames_out, 'active: heard and answered'

    for manager in (frontend, stt):
        manager.transition(Transition.TRANSITION_DEACTIVATE)
    n_frames, n_words, n_finals = len(frames_out), len(words), len(finals)
    speak(2)
    assert (len(frames_out), len(words), len(finals)) == (n_frames, n_words, n_finals), \
        'nothing is published while inactive'
    say = ActionClient(probe, SAY_ACTION.msg_type, SAY_ACTION.name)
    assert say.wait_for_server(timeout_sec=10), 'configured: the action is there'
    sent = say.send_goal_async(SAY_ACTION.msg_type.Goal(text='Hello there.'))
    assert wait_for(sent.done, 10) and not sent.result().accepted, \
        'a goal to an inactive voice is rejected at once, not left waiting'

    refused = frontend.set_string('acknowledgement', 'Right.')
    assert not refused.successful and 'read in configure' in refused.reason
    for manager in (frontend, stt):
        manager.transition(Transition.TRANSITION_CLEANUP)
    assert wait_for(lambda: mic.get_subscription_count() == 0, 10), 'cleanup unsubscribes'
    assert frontend.set_string('acknowledgement', 'Right.').successful
    for manager in (frontend, stt):
        manager.transition(Transition.TRANSITION_CONFIGURE)
        manager.transition(Transition.TRANSITION_ACTIVATE)
    assert frontend.state() == stt.state() == 'active'
    assert wait_for(lambda: mic.get_subscription_count() == 2, 30), 'one subscription each'
    speak(3)
    assert finals[-1] == 'Where is the kitchen?' and len(finals) == n_finals + 1
    assert 'Right.' in ''.join(words[n_words:]), 'the changed parameter is in effect'


def test_restarted_short_stream_is_heard(ros, processes, tmp_path):
    """Two recordings of under 50 frames played one after the other into one stt: both heard."""
    stt = processes.start('stt', '--ros-args')
    finals = []
    probe = ros.node('probe')
    probe.create_subscription(STT_FINAL.msg_type, STT_FINAL.name,
                              lambda m: finals.append(m.text), STT_FINAL.qos)
    for i, text in enumerate(('Where is the kitchen?', 'Stop right there.')):
        write_wav(tmp_path / f'{i}.wav', hibari_speech(text))
        source = processes.start('wav_source', '--ros-args', '-p', f'path:={tmp_path}/{i}.wav',
                                 '-p', 'wait_for_subscribers:=1', '-p', 'start_delay_s:=1.5',
                                 '-p', 'trailing_silence_s:=1.5')
        assert source.wait(timeout=120) == 0, processes.log(source)
        assert wait_for(lambda: len(finals) == i + 1, 15), (finals, processes.log(stt))
    assert finals == ['Where is the kitchen?', 'Stop right there.']
