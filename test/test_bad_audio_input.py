# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Malformed and disordered audio over DDS is counted and logged, never fatal."""
import time

import numpy as np
from rclpy.parameter import Parameter
from sensor_msgs.msg import CompressedImage

from kame_ros.audio.frames import FRAME_SAMPLES
from kame_ros.audio.wav import read_wav_24k
from kame_ros.nodes.wav_sink import WavSink
from kame_ros.ros.topics import DIAGNOSTICS, SPEAKER_AUDIO
from kame_ros.wire.audio import caps_string
from polling import wait_for


def msg(caps: str, data: bytes) -> CompressedImage:
    m = CompressedImage()
    m.format = caps
    m.data = data
    return m


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
        return msg(caps_string(seq), np.full(FRAME_SAMPLES, v, np.int16).tobytes())

    bad = [msg(caps_string(0, rate=4000), bytes(3840)), msg(caps_string(0), bytes(3839)),
           msg(caps_string(0), b''), msg(caps_string(0), bytes(200_000)),
           msg(caps_string(0), bytes(1000)), msg('text/plain', bytes(3840))]
    ordered = [good(0, 1), good(1, 2), good(1, 2), good(3, 4), good(2, 3), good(4, 5)]
    for m in bad + ordered:
        pub.publish(m)
        time.sleep(0.01)

    counts = sink.input.drops.counts
    assert wait_for(lambda: sink.input.received == 4 and counts['late'] == 1, 10.0), \
        dict(counts)
    assert dict(counts) == {'rate_mismatch': 1, 'odd_bytes': 1, 'empty': 1, 'oversized': 1,
                            'wrong_size': 1, 'bad_format': 1, 'duplicate': 1, 'lost': 1,
                            'late': 1}
    sink.write()
    audio = read_wav_24k(tmp_path / 'out.wav')
    assert audio[::FRAME_SAMPLES].tolist() == [1, 2, 0, 4, 5], 'gap must be filled with silence'

    def reported():
        for array in diags:
            for status in array.status:
                values = {kv.key: kv.value for kv in status.values}
                if 'wav_sink' in status.name and values.get('drop_odd_bytes') == '1':
                    return True
        return False
    assert wait_for(reported, 5.0), 'drops not published on /diagnostics'
