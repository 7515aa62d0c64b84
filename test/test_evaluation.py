# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The evaluation command runs the three systems on CPU and prints the three-row table."""
import subprocess
import sys

import pytest

pytest.importorskip('llama_cpp', reason='scripts/setup.sh installs llama-cpp-python')


def test_evaluation_prints_three_rows(tmp_path, domain_id):
    out = subprocess.run([sys.executable, '-m', 'kame_ros.tools.evaluate', '--questions', '2',
                          '--out', str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    rows = {line.split('|')[1].strip(): line for line in out.stdout.splitlines()
            if line.startswith('| ') and not line.startswith('| system')}
    assert list(rows) == ['direct (front-end alone)', 'cascaded (STT -> LLM -> TTS)',
                          'tandem (KAME)']
    # The LLM's knowledge reaches the cascaded and tandem replies, never the bare front-end.
    assert '0/2' in rows['direct (front-end alone)']
    assert '2/2' in rows['cascaded (STT -> LLM -> TTS)']
    assert (tmp_path / 'eval.png').stat().st_size > 10_000
