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
    mic = next(line for line in out.stdout.splitlines() if line.startswith('| audio front end'))
    assert float(mic.split('|')[3]) > 0 and mic.strip().endswith('/12 |')
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


def test_memory_table_counts_the_real_moshi_7b(tmp_path):
    from kame_ros.bench.memory import footprint, report
    fp = footprint(3000)
    assert 7.6e9 < fp.lm_params < 7.8e9, 'Moshi 7B as moshi builds it'
    assert abs(fp.kv_temporal / 2**30 - 1.46) < 0.02, '2 x 32 layers x 3000 x 4096 x bf16'
    assert footprint(1500).kv_temporal * 2 == fp.kv_temporal
    table = report(fp, 3000, reserve_gib=3.0, runtime_gib=1.0)
    rows = {line.split('|')[1].strip(): line for line in table.splitlines()
            if line.startswith('| bf16') or line.startswith('| int')}
    assert set(rows) == {'bf16', 'int8', 'int4'}
    assert rows['bf16'].rstrip(' |').endswith('no | no | fits | fits')
    assert rows['int4'].split('|')[5].strip() == 'fits', 'int4 fits an Orin NX 16 GB'
    out = subprocess.run([sys.executable, '-m', 'kame_ros.bench.memory', '--context', '0'],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and '--context must be >= 1' in out.stderr
