# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""kame_ros_bench_hearing: its mixtures mean what they say, its bad arguments, a short real run."""
import numpy as np
import pytest

from kame_ros.audio.frames import SAMPLE_RATE
from kame_ros.bench.hearing import Clip, power, room, with_echo, with_noise


def test_noise_is_mixed_at_the_snr_asked_for_over_the_speech():
    rng = np.random.default_rng(3)
    speech = np.zeros(SAMPLE_RATE * 4)
    speech[SAMPLE_RATE:2 * SAMPLE_RATE] = rng.normal(0, 3000, SAMPLE_RATE)
    layout = [Clip('x', 'v', 1.0, 2.0)]
    noise = rng.normal(0, 1, len(speech))
    for snr in (20, 10, 5, 0):
        mixed = with_noise(speech, layout, noise, snr)
        added = mixed - speech
        measured = 10 * np.log10(power(speech[SAMPLE_RATE:2 * SAMPLE_RATE]) / power(added))
        assert abs(measured - snr) < 0.1


def test_the_room_has_its_delay_and_direct_to_reverberant_ratio():
    impulse = np.zeros(SAMPLE_RATE)
    impulse[0] = 1.0
    response = room(impulse, np.random.default_rng(0), delay_s=0.03, gain=0.5)
    direct = int(0.03 * SAMPLE_RATE)
    assert np.abs(response[:direct]).max() < 1e-12 and response[direct] == pytest.approx(0.5)
    ratio = 10 * np.log10(response[direct] ** 2 / np.sum(response[direct + 1:] ** 2))
    assert ratio == pytest.approx(6.0, abs=0.01)


def test_the_agent_is_heard_at_the_users_level_and_starts_before_the_user():
    rng = np.random.default_rng(1)
    speech = np.zeros(SAMPLE_RATE * 6)
    speech[2 * SAMPLE_RATE:3 * SAMPLE_RATE] = rng.normal(0, 2000, SAMPLE_RATE)
    layout = [Clip('x', 'v', 2.0, 3.0)]
    mic, speaker = with_echo(speech, layout, rng.normal(0, 5000, 3 * SAMPLE_RATE), rng)
    first = np.flatnonzero(speaker)[0] / SAMPLE_RATE
    assert first < 2.0 and speaker[2 * SAMPLE_RATE:3 * SAMPLE_RATE].any(), 'a barge-in'
    echo = mic - speech
    assert abs(10 * np.log10(power(echo[speaker != 0]) / 2000 ** 2)) < 0.5


@pytest.mark.parametrize('args, message', [
    (['--questions', '0'], '--questions must be 1..'),
    (['--whisper-base', '/nonexistent'], 'no model.bin in /nonexistent'),
    (['--conditions', 'rain'], 'invalid choice'),
])
def test_bad_arguments_are_one_line_and_fail_before_any_model_loads(
        processes, tmp_path, args, message):
    proc = processes.start('kame_ros_bench_hearing', '--out', str(tmp_path / 'h'), *args)
    assert proc.wait(timeout=30) != 0
    log = processes.log(proc)
    assert message in log and 'Traceback' not in log and 'synthesizing' not in log, log


@pytest.mark.once
def test_a_short_run_writes_the_table_and_the_plot(processes, tmp_path):
    """One question in three voices, clean and with the agent talking over the user."""
    out = tmp_path / 'h'
    proc = processes.start('kame_ros_bench_hearing', '--questions', '1', '--conditions',
                           'clean', 'echo', '--out', str(out))
    assert proc.wait(timeout=600) == 0, processes.log(proc)
    table = (out / 'hearing.md').read_text()
    first, second = table.split('\n\n')
    rows = {line.split('|')[1].strip(): line for line in first.splitlines()
            if line.startswith('| ') and 'front end' not in line}
    assert {'none', 'webrtc ns', 'delay_gain', 'webrtc aec', 'default'} <= set(rows), rows
    assert '| 0% |' in rows['default'], 'the default hears the clean questions'
    aec = next(line for line in second.splitlines() if line.startswith('| webrtc aec |'))
    assert aec.split('|')[5].strip() == '0', 'AEC3: the agent never hears itself as the user'
    assert (out / 'hearing.png').stat().st_size > 0
