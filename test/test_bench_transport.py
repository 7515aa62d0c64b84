# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The transport benchmark runs end to end and reports both runs (numbers are not asserted)."""
import subprocess
import sys


def test_transport_benchmark_prints_table(tmp_path, domain_id):
    out = subprocess.run([sys.executable, '-m', 'kame_ros.bench.transport', '--frames', '12',
                          '--domain-id', str(domain_id), '--out', str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith('| ') and
            ('process' in line)]
    assert len(rows) == 2, out.stdout
    for row in rows:
        cells = [c.strip() for c in row.strip('|').split('|')]
        assert cells[1] == '12' and cells[6] == '0', row
    assert (tmp_path / 'transport.png').stat().st_size > 10_000
