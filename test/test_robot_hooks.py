# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Hooks for behaviour stacks over DDS: say with completion, speaking state, mute/enable."""
import json
import time

import numpy as np
from std_msgs.msg import String
from std_srvs.srv import SetBool

from audio_signals import active_seconds
from kame_ros.audio.wav import read_wav_24k, write_wav
from kame_ros.ros.topics import AGENT_ENABLED, AGENT_SPEAKING, ENABLE_SERVICE, SAY, SAY_DONE


def test_say_completes_speaking_state_and_mute(ros, processes, tmp_path):
    write_wav(tmp_path / 'quiet.wav', np.zeros(24000 * 14, np.int16))
    sink = processes.start('wav_sink', '--ros-args', '-p', f'path:={tmp_path / "out.wav"}',
                           '-p', 'idle_timeout_s:=2.0')
    node = ros.node('behaviour_stack')
    end = time.monotonic() + 60
    while node.count_subscribers('/audio/speaker') < 1:
        assert time.monotonic() < end
        time.sleep(0.1)
    processes.start('frontend', '--ros-args', '-p', 'backend:=tts')
    processes.start('wav_source', '--ros-args', '-p', f'path:={tmp_path / "quiet.wav"}',
                    '-p', 'wait_for_subscribers:=1', '-p', 'start_delay_s:=0.5')
    say = node.create_publisher(SAY.msg_type, SAY.name, SAY.qos)
    done, speaking, enabled = [], [], []
    node.create_subscription(SAY_DONE.msg_type, SAY_DONE.name,
                             lambda m: done.append(json.loads(m.data)), SAY_DONE.qos)
    node.create_subscription(AGENT_SPEAKING.msg_type, AGENT_SPEAKING.name,
                             lambda m: speaking.append(m.data), AGENT_SPEAKING.qos)
    node.create_subscription(AGENT_ENABLED.msg_type, AGENT_ENABLED.name,
                             lambda m: enabled.append(m.data), AGENT_ENABLED.qos)
    enable = node.create_client(SetBool, ENABLE_SERVICE)
    assert enable.wait_for_service(timeout_sec=60)
    while say.get_subscription_count() < 1:
        time.sleep(0.1)
    time.sleep(1.5)

    def request(text, say_id, timeout=10.0):
        say.publish(String(data=json.dumps({'id': say_id, 'text': text})))
        end = time.monotonic() + timeout
        while not any(d['id'] == say_id for d in done):
            assert time.monotonic() < end, f'no completion for {say_id}'
            time.sleep(0.05)
        return next(d for d in done if d['id'] == say_id)

    assert request('Arrived at the kitchen.', 'k1')['status'] == 'spoken'
    assert True in speaking, 'agent/speaking went true while it spoke'

    def call(value):
        future = enable.call_async(SetBool.Request(data=value))
        end = time.monotonic() + 10
        while not future.done():
            assert time.monotonic() < end
            time.sleep(0.05)
        return future.result()
    assert call(False).success and enabled[-1] is False
    assert request('You should not hear this.', 'k2')['status'] == 'muted'
    assert call(True).success and enabled[-1] is True
    assert request('Going to the charging station.', 'k3')['status'] == 'spoken'
    assert sink.wait(timeout=60) == 0
    spoken = active_seconds(read_wav_24k(tmp_path / 'out.wav'), 300.0)
    assert 1.5 < spoken < 5.0, f'{spoken:.2f} s spoken: two announcements, not the muted one'
