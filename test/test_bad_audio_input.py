# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Malformed and disordered audio over DDS is counted and logged, never fatal."""
import time

from kame_ros_interfaces.msg import AudioFrame
import numpy as np
from rclpy.parameter import Parameter

from kame_ros.audio.frames import FRAME_SAMPLES
from kame_ros.audio.wav import read_wav_24k
from kame_ros.nodes.wav_sink import WavSink
from kame_ros.ros.topics import DIAGNOSTICS, SPEAKER_AUDIO
from polling import wait_for


def msg(seq: int, samples: np.ndarray, rate: int = 24000, channels: int = 1,
        encoding: str = 'S16LE') -> AudioFrame:
    return AudioFrame(seq=seq, sample_rate=rate, channels=channels, encoding=encoding,
                      samples=samples.astype(np.int16).tolist())


def test_bad_frames_are_dropped_by_reason(ros, tmp_path):
    sink = ros.add(WavSink(context=ros.context, parameter_overrides=[
        Parameter('path', value=str(tmp_path / 'out.wav'))]))
    probe = ros.node('probe')
    pub = probe.create_publisher(SPEAKER_AUDIO.msg_type, SPEAKER_AUDIO.name, SPEAKER_AUDIO.qos)
    diags = []
    probe.create_subscription(DIAGNOSTICS.msg_type, DIAGNOSTICS.name, diags.append,
                              DIAGNOSTICS.qos)
    assert wait_for(lambda: pub.get_subscription_count() > 0, 10.0)

    def good(seq, v):
        return msg(seq, np.full(FRAME_SAMPLES, v, np.int16))

    frame = np.ones(FRAME_SAMPLES, np.int16)
    bad = [msg(0, frame, rate=4000), msg(0, np.ones(2 * FRAME_SAMPLES - 1), channels=2),
           msg(0, frame[:0]), msg(0, np.ones(100_000)), msg(0, frame[:500]),
           msg(0, frame, encoding='F32LE')]
    ordered = [good(0, 1), good(1, 2), good(1, 2), good(3, 4), good(2, 3), good(4, 5)]
    for m in bad + ordered:
        pub.publish(m)
        time.sleep(0.01)

    counts = sink.input.drops.counts
    assert wait_for(lambda: sink.input.received == 4 and counts['late'] == 1, 10.0), \
        dict(counts)
    assert dict(counts) == {'rate_mismatch': 1, 'empty': 1, 'oversized': 1, 'wrong_size': 1,
                            'bad_format': 2, 'duplicate': 1, 'lost': 1, 'late': 1}
    sink.write()
    audio = read_wav_24k(tmp_path / 'out.wav')
    assert audio[::FRAME_SAMPLES].tolist() == [1, 2, 0, 4, 5], 'gap must be filled with silence'

    def reported():
        for array in diags:
            for status in array.status:
                values = {kv.key: kv.value for kv in status.values}
                if 'wav_sink' in status.name and values.get('drop_bad_format') == '2':
                    return True
        return False
    assert wait_for(reported, 5.0), 'drops not published on /diagnostics'
