# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""kame_ros_bench_hearing: its mixtures mean what they say, its bad arguments, a short real run."""
import numpy as np
import pytest

from cli_checks import fails_in_one_line_before_any_model
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
    reply = rng.normal(0, 5000, 3 * SAMPLE_RATE)
    stream = with_echo(speech, layout, reply, rng)
    alone = (2 * len(reply) + 3 * SAMPLE_RATE) / SAMPLE_RATE  # the reply twice, then quiet
    (clip,) = stream.layout
    assert (clip.start_s, clip.end_s) == (2.0 + alone, 3.0 + alone), 'the question moved along'
    user = slice(int(clip.start_s * SAMPLE_RATE), int(clip.end_s * SAMPLE_RATE))
    speaker = stream.speaker
    assert speaker[:len(reply)].any() and stream.mic[:len(reply)].std() > 1000, 'alone'
    first = np.flatnonzero(speaker[int(alone * SAMPLE_RATE):])[0] / SAMPLE_RATE + alone
    assert first < clip.start_s and speaker[user].any(), 'a barge-in'
    echo = stream.mic[int(alone * SAMPLE_RATE):] - speech
    assert abs(10 * np.log10(power(echo[speaker[int(alone * SAMPLE_RATE):] != 0])
                             / 2000 ** 2)) < 0.5


@pytest.mark.parametrize('args, message', [
    (['--questions', '0'], '--questions must be 1..'),
    (['--whisper-base', '/nonexistent'], 'no model.bin in /nonexistent'),
    (['--conditions', 'rain'], 'invalid choice'),
    (['--rows', 'speex'], 'invalid choice'),
    (['--rows', 'rnnoise', '--conditions', 'echo'], 'none of --rows runs on those --conditions'),
])
def test_bad_arguments_are_one_line_and_fail_before_any_model_loads(
        processes, tmp_path, args, message):
    fails_in_one_line_before_any_model(processes, 'kame_ros_bench_hearing', tmp_path / 'h', args,
                                       message)


def test_a_short_run_writes_the_table_and_the_plot(processes, tmp_path):
    """One question in three voices, clean and with the agent talking alone, then over the user."""
    out = tmp_path / 'h'
    proc = processes.start('kame_ros_bench_hearing', '--questions', '1', '--conditions',
                           'clean', 'echo', '--rows', 'none', 'default', '--out', str(out))
    assert proc.wait(timeout=600) == 0, processes.log(proc)
    first, second, third = (out / 'hearing.md').read_text().split('\n\n')
    rows = {line.split('|')[1].strip(): line for line in first.splitlines()
            if line.startswith('| ') and 'front end' not in line}
    assert set(rows) == {'none', 'default'}, rows
    clean = {row: int(line.split('|')[2].strip().rstrip('%')) for row, line in rows.items()}
    # The front end costs the clean questions nothing. (Whisper tiny.en misreads one espeak
    # en-us word here, "of France" as "and friends", with or without it: 2 of 18 words.)
    assert clean['default'] <= clean['none'] and clean['default'] <= 15, rows
    own = {line.split('|')[1].strip(): int(line.split('|')[5]) for line in second.splitlines()
           if line.startswith('| ') and 'front end' not in line}
    assert own['default'] == 0, 'the agent never hears itself as the user'
    assert own['none'] > 0, 'without the canceller it does: the count can fail'
    assert (out / 'hearing.png').stat().st_size > 0
    # The closed loop (issue 41): the reply pauses at the user's voice, not at their final.
    loop = {tuple(c.strip() for c in line.split('|')[1:3]): [c.strip() for c in line.split('|')]
            for line in third.splitlines() if line.startswith('| ') and 'barge-in' not in line}
    assert set(loop) == {(p, m) for p in ('voice', 'final') for m in ('echo path', 'no echo path')}
    silent = {key: float(row[6].split(' / ')[0]) for key, row in loop.items()}
    assert silent[('voice', 'no echo path')] < 0.5 and silent[('final', 'no echo path')] > 1.0, \
        silent
    assert silent[('voice', 'echo path')] < 1.0, silent
    assert all(int(row[4]) == 0 and int(row[7]) == 0 for row in loop.values()), \
        'no false barge-in, the agent never heard as the user'
    no_path = int(loop[('voice', 'no echo path')][3].rstrip('%'))
    assert no_path <= 20, 'with no echo path the user over the agent is heard'
