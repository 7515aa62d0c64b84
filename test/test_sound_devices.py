# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""audio_capture and audio_playback against a real clocked PulseAudio server."""
import time

import numpy as np
import pytest

from audio_signals import active_seconds, dominant_frequency, tone
from kame_ros.audio.frames import float_to_int16
from kame_ros.audio.wav import read_wav_24k, write_wav
from kame_ros.ros.audio_msg import msg_to_frame
from kame_ros.ros.topics import MIC_AUDIO
from pulse import PulseServer


@pytest.fixture(scope='module')
def pulse(tmp_path_factory):
    server = PulseServer(tmp_path_factory.mktemp('pulse'))
    server.start()
    yield server
    server.stop()


def test_capture_hears_a_tone(pulse, processes, tmp_path, ros):
    capture = processes.start('audio_capture', env=pulse.env)
    sink = processes.start('wav_sink', '--ros-args', '-p', f'path:={tmp_path / "mic.wav"}',
                           '-p', 'idle_timeout_s:=1.0', '-r', 'audio/speaker:=audio/mic')
    probe = ros.node('probe')
    deadline = time.monotonic() + 60
    while (probe.count_publishers('/audio/mic') < 1 or probe.count_subscribers('/audio/mic') < 1
           or 'capturing from' not in processes.log(capture)):
        assert time.monotonic() < deadline, 'capture and sink never appeared on the graph'
        time.sleep(0.1)
    time.sleep(1.0)
    signal, _ = float_to_int16(tone(440.0, 3.0))
    pulse.feed_mic(signal).join(timeout=20)
    assert sink.wait(timeout=20) == 0, processes.log(sink)
    assert capture.poll() is None, 'capture must keep running after the source went quiet'
    got = read_wav_24k(tmp_path / 'mic.wav')
    heard_s = active_seconds(got)
    assert abs(heard_s - 3.0) < 0.1, f'fed 3 s of tone, captured {heard_s:.2f} s'
    assert abs(dominant_frequency(got) - 440.0) < 2.0
    log = processes.log(capture)
    assert 'capturing from' in log and 'Traceback' not in log


def test_playback_plays_a_tone(pulse, processes, tmp_path):
    write_wav(tmp_path / 'tone.wav', tone(1000.0, 2.0))
    playback = processes.start('audio_playback', env=pulse.env)
    recorder = pulse.record_speaker()
    recorder.wait_until_recording()
    source = processes.start('wav_source', '--ros-args', '-p', f'path:={tmp_path / "tone.wav"}',
                             '-p', 'wait_for_subscribers:=1', '-p', 'start_delay_s:=0.5',
                             '-r', 'audio/mic:=audio/speaker')
    assert source.wait(timeout=60) == 0, processes.log(source)
    time.sleep(1.0)
    heard = recorder.stop()
    played_s = active_seconds(heard)
    assert abs(played_s - 2.0) < 0.1, f'sent 2 s of tone, speaker played {played_s:.2f} s'
    assert abs(dominant_frequency(heard) - 1000.0) < 2.0
    assert playback.poll() is None
    assert 'playing to' in processes.log(playback)


def test_missing_device_one_clear_error_and_retries(pulse, processes):
    capture = processes.start('audio_capture', '--ros-args', '-p', 'device:=no_such_mic',
                              '-p', 'retry_period_s:=0.2', env=pulse.env)
    time.sleep(4.0)
    assert capture.poll() is None, 'a missing device must not end the node'
    capture.send_signal(2)
    capture.wait(timeout=10)
    log = processes.log(capture)
    assert log.count("no input device matches 'no_such_mic'") == 1, log
    assert 'input devices:' in log and 'Traceback' not in log


def test_capture_survives_device_loss(processes, ros, tmp_path):
    server = PulseServer(tmp_path / 'pulse')
    server.start()
    try:
        capture = processes.start('audio_capture', '--ros-args', '-p', 'retry_period_s:=0.5',
                                  env=server.env)
        heard = []
        probe = ros.node('mic_probe')
        probe.create_subscription(MIC_AUDIO.msg_type, MIC_AUDIO.name,
                                  lambda m: heard.append(msg_to_frame(m).samples), MIC_AUDIO.qos)
        deadline = time.monotonic() + 60
        while ('capturing from' not in processes.log(capture)
               or probe.count_publishers(MIC_AUDIO.name) < 1):
            assert time.monotonic() < deadline, 'capture never started'
            time.sleep(0.1)
        time.sleep(1.0)
        signal, _ = float_to_int16(tone(440.0, 1.0))
        server.feed_mic(signal).join(timeout=10)   # the pipe source only runs while fed
        time.sleep(0.5)
        before = len(heard)
        server.stop()                                      # the sound server dies
        time.sleep(3.0)
        assert capture.poll() is None, 'losing the device must not end the node'
        server.start()                                     # ... and comes back
        deadline = time.monotonic() + 30
        while processes.log(capture).count('capturing from') < 2:
            assert time.monotonic() < deadline, processes.log(capture)
            time.sleep(0.2)
        time.sleep(1.0)
        mark = len(heard)
        server.feed_mic(signal).join(timeout=10)
        time.sleep(1.0)
        after = np.concatenate(heard[mark:])
        assert before > 10 and abs(dominant_frequency(after) - 440.0) < 2.0
        log = processes.log(capture)
        assert 'lost' in log and 'Traceback' not in log
    finally:
        server.stop()
