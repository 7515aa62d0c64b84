# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""kame_ros_bench_fleet as users run it: robots replaying a conversation on one real server."""
import json
import subprocess

import pytest

pytest.importorskip('llama_cpp.server', reason='scripts/setup.sh installs llama-cpp-python')


def test_the_fleet_benchmark_counts_what_robots_and_server_did(tmp_path):
    out = tmp_path / 'fleet'
    run = subprocess.run(['kame_ros_bench_fleet', '--robots', '1', '2', '--large-robots',
                          '--questions', '1', '--cancels', '2', '--out', str(out)],
                         capture_output=True, text=True, timeout=400)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    results = json.loads((out / 'fleet.json').read_text())
    rows = results['rows']
    assert [(r['robots'], r['guesses']) for r in rows] == [(1, 'on'), (1, 'off'),
                                                           (2, 'on'), (2, 'off')]
    for row in rows:
        assert row['finals'] == row['robots']
        assert len(row['first_text_s']) == row['finals'], 'every final answered'
        assert not any(row['faults'].values()) and row['failed'] == 0
        assert 0 < row['used_tokens'] <= row['generated_tokens'], row
        assert row['prompt_tokens'] > 0
        assert row['held'] == row['continued'] == 0, "llama-cpp-python's rows hold nothing"
        if row['guesses'] == 'on':
            assert row['started'] > row['finals'], 'the partials were guessed on'
        else:
            assert row['started'] == row['finals'], 'finals only: one request each'
    on, off = rows[2], rows[3]
    assert on['generated_tokens'] > off['generated_tokens'], 'guessing costs the server tokens'
    assert [c['stage'] for c in results['cancels']] == ['prompt', 'reply']
    for stage in results['cancels']:
        assert len(stage['tokens_after']) == 2 and max(stage['tokens_after']) <= 2, stage
    table = (out / 'fleet.md').read_text()
    assert table.count('| smollm2-135m |') == 4 and '| prompt | 2 |' in table
    assert (out / 'fleet.png').stat().st_size > 10_000


@pytest.mark.parametrize('args, says', [
    (['--robots', '0'], 'robots must be 1-32'),
    (['--questions', '99'], '--questions must be'),
    (['--model', 'no-such-model'], "no model 'no-such-model'"),
    (['--out', '/proc/fleet'], 'cannot write --out'),
    (['--llama-server', '/no/llama-server'], 'no llama-server at'),
])
def test_bad_arguments_are_one_clear_error_before_any_model_loads(args, says):
    run = subprocess.run(['kame_ros_bench_fleet', *args], capture_output=True, text=True,
                         timeout=30)
    assert run.returncode == 2
    assert says in run.stderr.strip().splitlines()[-1]
    assert 'Traceback' not in run.stderr
