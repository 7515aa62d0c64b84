# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""kame_ros_soak on one minute of conversation: every frame accounted, every turn heard."""
import csv
import shutil
import subprocess

import pytest

pytest.importorskip('llama_cpp', reason='scripts/setup.sh installs llama-cpp-python')


def test_short_soak_accounts_for_every_frame_and_turn(tmp_path, domain_id):
    out = tmp_path / 'soak'
    run = subprocess.run([shutil.which('kame_ros_soak'), '--minutes', '1', '--realtime-factor',
                          '3', '--sample-s', '2', '--out', str(out)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    with open(out / 'soak.csv') as f:
        rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
    assert len(rows) >= 5
    last = rows[-1]
    questions = 5  # one minute at one question per 11 s
    assert last['audio_s'] >= 55.0, 'the front-end processed the whole conversation'
    assert last['deadline_misses'] + last['dropped_frames'] <= last['frames']
    assert last['stt_finals'] == questions and last['oracle_failed'] == 0
    assert last['oracle_completed'] >= questions
    assert all(r['rss_mb'] > 100 for r in rows), 'memory of the agent process is sampled'
    report = (out / 'soak.md').read_text()
    assert 'memory:' in report and 'frame budget (80 ms)' in report
    assert (out / 'soak.png').stat().st_size > 10_000
