# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""A bag replayed with /clock: nodes with use_sim_time stamp on the bag's own time."""

import numpy as np
import pytest
from rclpy.serialization import serialize_message
from rosbags.rosbag2 import StoragePlugin, Writer

from kame_ros.audio.frames import AudioFrame, FRAME_NS, FRAME_SAMPLES
from kame_ros.ros.audio_msg import AUDIO_FRAME_TYPE, frame_to_msg
from kame_ros.ros.bag import agent_typestore
from kame_ros.ros.topics import SPEAKER_AUDIO, STT_FINAL
from polling import wait_for
from speech_fixtures import hibari_speech
from typed_msgs import read

pytestmark = pytest.mark.slow
BAG_T0 = 1_000_000_000_000_000_000  # 2001-09-09 01:46:40 UTC: far from the wall clock


def write_question_bag(path, samples: np.ndarray) -> int:
    """Write a bag of /audio/mic frames recorded at BAG_T0; return the bag's last time."""
    frames = [samples[i:i + FRAME_SAMPLES] for i in range(0, len(samples), FRAME_SAMPLES)]
    frames[-1] = np.pad(frames[-1], (0, FRAME_SAMPLES - len(frames[-1])))
    writer = Writer(path, version=9, storage_plugin=StoragePlugin.MCAP)
    writer.open()
    conn = writer.add_connection('/audio/mic', AUDIO_FRAME_TYPE, typestore=agent_typestore())
    for seq, frame in enumerate(frames):
        stamp = BAG_T0 + seq * FRAME_NS
        data = serialize_message(frame_to_msg(AudioFrame(seq, stamp, frame), 'mic_link'))
        writer.write(conn, stamp + FRAME_NS, data)
    writer.close()
    return BAG_T0 + len(frames) * FRAME_NS


def test_bag_replay_with_clock_stamps_on_bag_time(ros, processes, tmp_path):
    question = np.concatenate([np.zeros(12000, np.int16),
                               hibari_speech('What is the capital of France?'),
                               np.zeros(24000 * 3, np.int16)])
    bag_end = write_question_bag(tmp_path / 'bag', question)
    probe = ros.node('probe')
    finals, frames = [], []
    probe.create_subscription(STT_FINAL.msg_type, STT_FINAL.name,
                              lambda m: finals.append(read(STT_FINAL, m)), STT_FINAL.qos)
    probe.create_subscription(SPEAKER_AUDIO.msg_type, SPEAKER_AUDIO.name,
                              lambda m: frames.append(m.header.stamp.sec * 10**9
                                                      + m.header.stamp.nanosec),
                              SPEAKER_AUDIO.qos)
    stt = processes.start('stt', '--ros-args', '-p', 'use_sim_time:=true')
    processes.start('frontend', '--ros-args', '-p', 'backend:=tts', '-p', 'use_sim_time:=true')
    play = processes.start('bag_play', '--ros-args', '-p', f'path:={tmp_path / "bag"}',
                           '-p', 'clock:=true', '-p', 'wait_for_subscribers:=2')
    assert play.wait(timeout=120) == 0, processes.log(play)
    # The test is about the stamps, not the speed: a loaded machine (CI runs two distributions
    # at once) gets time, and a failure shows what the STT said.
    assert wait_for(lambda: finals, 60), f'the question was transcribed: {processes.log(stt)}'
    final = finals[0]
    assert final.text == 'What is the capital of France?'
    # Envelope stamp (node clock = /clock) and audio span: all on the bag's time.
    assert BAG_T0 < final.audio_start_ns < final.audio_end_ns <= final.stamp_ns
    assert final.stamp_ns < bag_end + 10**9, 'stamped with the bag time, not the wall clock'
    assert frames and all(BAG_T0 < s <= bag_end + FRAME_NS for s in frames), \
        'output frames follow the bag time'
