# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros_soak for three minutes at real time, one process per node as on a robot.

Every frame the microphone published reaches the front-end and is
processed (none dropped), every question is transcribed and answered, no
reply fails, and each node's memory is sampled.
"""
import csv
import shutil
import subprocess

import pytest

pytest.importorskip('llama_cpp', reason='scripts/setup.sh installs llama-cpp-python')


def test_three_minutes_at_real_time_lose_no_frame_and_answer_every_turn(tmp_path, domain_id):
    out = tmp_path / 'soak'
    run = subprocess.run([shutil.which('kame_ros_soak'), '--minutes', '3', '--realtime-factor',
                          '1', '--sample-s', '3', '--out', str(out)],
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    with open(out / 'soak.csv') as f:
        rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
    assert len(rows) >= 30
    last = rows[-1]
    questions = 16  # three minutes at one question per 11 s
    assert last['audio_s'] >= 170.0, 'the front-end processed the whole conversation'
    assert last['frames_published'] == last['frames_in'] == last['frames'], last
    assert last['dropped_frames'] == 0, last
    assert last['stt_finals'] == questions and last['oracle_answered'] >= questions, last
    assert last['oracle_failed'] == 0
    for node in ('stt', 'oracle', 'frontend'):
        assert all(r[f'rss_{node}_mb'] > 50 for r in rows), f'memory of {node} is sampled'
    report = (out / 'soak.md').read_text()
    assert 'memory after warm-up' in report and 'dropped' in report
    assert (out / 'soak.png').stat().st_size > 10_000


def test_bad_arguments_are_one_line_and_exit_1(tmp_path):
    run = subprocess.run([shutil.which('kame_ros_soak'), '--minutes', '-1', '--out',
                          str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and 'must be > 0' in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and 'Traceback' not in run.stderr


def test_the_last_hour_is_judged_on_medians_not_single_samples():
    from kame_ros.tools.soak import last_hour
    # Two hours sampled every 5 s: 100 MiB, +30 MiB in the first hour, flat after, and
    # one 80 MiB spike (a sample taken mid-inference) inside the last five minutes.
    rows = [{'audio_s': t, 'rss_x_mb': 100 + 30 * min(t, 3600) / 3600} for t in range(0, 7201, 5)]
    rows[-10]['rss_x_mb'] += 80
    start, end, low, high = last_hour(rows, 'rss_x_mb')
    assert (start, end) == (130, 130), 'flat: the spike does not move the median'
    assert (low, high) == (130, 210)
