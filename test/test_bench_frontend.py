# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The front-end benchmarks run and report per-frame tables (numbers not asserted)."""
import subprocess
import sys


def test_frontend_benchmark_prints_table(tmp_path):
    out = subprocess.run([sys.executable, '-m', 'kame_ros.bench.frontend', '--frames', '12',
                          '--sizes', 'tiny', '--out', str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith('| tiny')]
    assert len(rows) == 1, out.stdout
    cells = [c.strip() for c in rows[0].strip('|').split('|')]
    assert float(cells[2]) > 0 and float(cells[4]) > 0 and cells[6].endswith('%')
    assert (tmp_path / 'frontend.png').stat().st_size > 10_000


def test_export_benchmark_compares_torch_and_onnxruntime(tmp_path):
    out = subprocess.run([sys.executable, '-m', 'kame_ros.bench.export', '--frames', '12',
                          '--sizes', 'tiny', '--out', str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    rows = [line for line in out.stdout.splitlines() if line.startswith('| tiny')]
    names = [r.split('|')[1].strip() for r in rows]
    assert names == ['tiny torch (cpu)', 'tiny onnxruntime fp32 (state via host)',
                     'tiny onnxruntime fp32 (IO binding)']
    cells = [[c.strip() for c in row.strip('|').split('|')] for row in rows]
    assert float(cells[2][2]) > 0 and cells[2][-1] == 'CPUExecutionProvider'
    # The state's bytes through the host per frame: hundreds of kB before, none with binding.
    assert cells[1][8].endswith(' M') and float(cells[1][8][:-2]) > 0.1
    assert cells[2][8] == '0'
    assert (tmp_path / 'tiny_fp32' / 'manifest.json').exists()
    assert (tmp_path / 'export.png').stat().st_size > 10_000
