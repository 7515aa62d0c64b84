# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Echo: the robot's own voice fed back into its microphone must not start a turn; a user must."""
import time

import numpy as np
import pytest

from kame_ros.audio.frames import AudioFrame
from kame_ros.ros.audio_msg import frame_to_msg
from kame_ros.ros.topics import MIC_AUDIO, SPEAKER_AUDIO, STT_FINAL, USER_SPEAKING
from speech_fixtures import hibari_speech, word_errors
from typed_msgs import read

DELAY_S, GAIN = 0.15, 0.5


def scenario():
    """Agent speech on the speaker; mic = its delayed, attenuated echo (+ a user later)."""
    agent = hibari_speech('The capital of France is Paris, a large city on the river Seine, '
                          'famous for its museums, its food and its long history.')
    user = hibari_speech('Stop talking and come here.')
    silence = np.zeros(24000 * 2, np.int16)
    speaker = np.concatenate([agent, silence, agent, silence]).astype(np.float64)
    delay = int(DELAY_S * 24000)
    mic = np.zeros_like(speaker)
    mic[delay:] = GAIN * speaker[:-delay]
    user_at = len(agent) + len(silence) + 24000                # barge-in 1 s into the reply
    mic[user_at:user_at + len(user)] += user
    mic += np.random.default_rng(0).normal(0, 20, len(mic))
    n = len(mic) // 1920 * 1920
    return (np.clip(speaker[:n], -32768, 32767).astype(np.int16),
            np.clip(mic[:n], -32768, 32767).astype(np.int16), user_at / 24000)


@pytest.mark.parametrize('cancel', [True, False])
def test_echo_does_not_start_a_turn_but_barge_in_does(ros, processes, cancel):
    speaker, mic, user_t = scenario()
    processes.start('stt', '--ros-args', '-p', f'echo_cancel:={str(cancel).lower()}')
    node = ros.node('echo_rig')
    spk = node.create_publisher(SPEAKER_AUDIO.msg_type, SPEAKER_AUDIO.name, SPEAKER_AUDIO.qos)
    mic_pub = node.create_publisher(MIC_AUDIO.msg_type, MIC_AUDIO.name, MIC_AUDIO.qos)
    finals, speaking = [], []
    node.create_subscription(STT_FINAL.msg_type, STT_FINAL.name,
                             lambda m: finals.append((time.monotonic(), read(STT_FINAL, m))),
                             STT_FINAL.qos)
    node.create_subscription(USER_SPEAKING.msg_type, USER_SPEAKING.name,
                             lambda m: speaking.append((time.monotonic(), m.data)),
                             USER_SPEAKING.qos)
    end = time.monotonic() + 120
    while mic_pub.get_subscription_count() < 1 or spk.get_subscription_count() < cancel:
        assert time.monotonic() < end, 'stt never subscribed'
        time.sleep(0.1)
    time.sleep(1.0)
    t0, stamp0 = time.monotonic(), time.time_ns()
    for k in range(len(mic) // 1920):
        stamp = stamp0 + k * 80_000_000
        spk.publish(frame_to_msg(AudioFrame(k, stamp, speaker[k * 1920:(k + 1) * 1920]), 'spk'))
        mic_pub.publish(frame_to_msg(AudioFrame(k, stamp, mic[k * 1920:(k + 1) * 1920]), 'mic'))
        time.sleep(max(0.0, t0 + (k + 1) * 0.08 - time.monotonic()))
    time.sleep(3.0)
    barge_in = t0 + user_t
    if not cancel:  # control: without the canceller the robot does hear itself
        assert [f for t, f in finals if t < barge_in], 'the echo should have been heard'
        return
    assert not [f for t, f in finals if t < barge_in], 'the robot heard itself as a user'
    assert not [v for t, v in speaking if v and t < barge_in]
    assert finals, 'the user speaking over the robot must start a turn'
    errors, n = word_errors('Stop talking and come here.', finals[-1][1].text)
    assert errors / n <= 0.4, finals[-1][1].text
