# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""wav_source -> DDS -> wav_sink in separate processes: exact, ordered, complete, real time."""
import csv

import numpy as np

from kame_ros.audio.frames import FRAME_SAMPLES
from kame_ros.audio.wav import read_wav_24k, write_wav


def test_wav_roundtrip_between_processes(tmp_path, processes):
    rng = np.random.default_rng(1)
    n_frames = 50
    source = (rng.standard_normal(FRAME_SAMPLES * n_frames - 700) * 4000).astype(np.int16)
    write_wav(tmp_path / 'in.wav', source)
    sink = processes.start('wav_sink', '--ros-args', '-p', f'path:={tmp_path / "out.wav"}',
                           '-p', 'idle_timeout_s:=1.5', '-r', 'audio/speaker:=audio/mic')
    src = processes.start('wav_source', '--ros-args', '-p', f'path:={tmp_path / "in.wav"}',
                          '-p', 'wait_for_subscribers:=1', '-p', 'start_delay_s:=0.5')
    assert src.wait(timeout=30) == 0, processes.log(src)
    assert sink.wait(timeout=15) == 0, processes.log(sink)

    got = read_wav_24k(tmp_path / 'out.wav')
    expected = np.concatenate([source, np.zeros(700, np.int16)])
    assert len(got) == len(expected) == n_frames * FRAME_SAMPLES
    assert np.array_equal(got, expected), 'audio changed in transit'

    with open(tmp_path / 'out.wav.csv') as f:
        rows = [(int(r['seq']), int(r['stamp_ns']), int(r['receive_ns']))
                for r in csv.DictReader(f)]
    assert [r[0] for r in rows] == list(range(n_frames)), 'frames lost or out of order'
    span_s = (rows[-1][2] - rows[0][2]) / 1e9
    assert abs(span_s - (n_frames - 1) * 0.08) < 0.25, f'not real-time pace: {span_s:.2f} s'
    stamps = np.diff([r[1] for r in rows])
    assert np.all(stamps == 80_000_000), 'stamps must advance exactly one frame'
    assert 'Traceback' not in processes.log(sink) + processes.log(src)
