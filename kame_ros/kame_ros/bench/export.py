# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Benchmark the exported front-end against torch: per-frame compute, same model, same run.

For each model size (random weights, Moshi's architecture, 1/8-width
Mimi), the KAME front-end runs the same frames with the oracle active on
every frame, first on torch (the baseline), then on the exported graphs
under onnxruntime (each of ``--precisions``): once with the
streaming state copied through the host every step (plain
``session.run``, the runtime before IO binding) and once with it kept on
the device (IO binding, what the node runs). The "state bytes via host
per frame" column counts what the state copies cost. Export time is
reported too (time and size on disk): a robot pays it once.

    kame_ros_bench_export --sizes tiny small medium --frames 150 --out out/bench_export
    kame_ros_bench_export --sizes xl --precisions fp32 fp16 --frames 8   # past 2 GB
"""
import argparse
from pathlib import Path
import time

import numpy as np
import torch

from kame_ros.bench.frontend import _WordTokenizer, lm_kwargs, SIZES, small_mimi
from kame_ros.bench.report import LatencyStats, plot_frames, table
from kame_ros.frontend.checkpoint import FrontEndModels
from kame_ros.frontend.export.exporter import export_frontend, PRECISIONS
from kame_ros.frontend.export.runtime import ExportedFrontEnd
from kame_ros.frontend.moshi_engine import MoshiFrontEnd
from kame_ros.oracle.events import OracleEvent

WARMUP = 3


def run(models: FrontEndModels, frames: list, exported: ExportedFrontEnd | None) -> list[float]:
    """Per-frame compute (ms) of the KAME front-end with the oracle on every frame."""
    fe = MoshiFrontEnd(models, mode='kame', exported=exported)
    fe.start()
    fe.on_oracle(OracleEvent('oracle.reset', 1, 1, 0))
    fe.on_oracle(OracleEvent('oracle.append', 1, 1, 0,
                             ' '.join(f'w{i}' for i in range(len(frames))) + ' '))
    times = [fe.step(pcm).compute_ms for pcm in frames]
    fe.stop()
    return times[WARMUP:]


def build(name: str, device: str) -> FrontEndModels:
    """Random-weight models of one size."""
    from moshi.models import loaders
    from moshi.models.lm_utils import ScaledEmbedding
    torch.manual_seed(0)
    lm = loaders.get_moshi_lm(None, lm_kwargs=lm_kwargs(*SIZES[name]), device=device,
                              dtype=torch.float32)
    oracle_emb = ScaledEmbedding(lm.text_card + 1, lm.dim, zero_idx=-1).to(device).eval()
    return FrontEndModels(lm, oracle_emb, small_mimi().to(device), _WordTokenizer())


def main(argv: list[str] | None = None) -> None:
    """Export each size, time torch and the exported runtime, print and write the table."""
    parser = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    parser.add_argument('--frames', type=int, default=150)
    parser.add_argument('--sizes', nargs='+', default=['tiny', 'small', 'medium'],
                        choices=list(SIZES))
    parser.add_argument('--precisions', nargs='+', default=['fp32'], choices=PRECISIONS,
                        help='exported precisions to time (fp16, int8w: the LM graphs)')
    parser.add_argument('--fp16', action='store_true', help='TensorRT: build fp16 engines')
    parser.add_argument('--device', default='cpu', help='torch baseline device: cpu or cuda')
    parser.add_argument('--out', type=Path, default=Path('out/bench_export'))
    opts = parser.parse_args(argv)
    opts.out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    frames = [(rng.standard_normal(1920) * 3000).astype(np.int16) for _ in range(opts.frames)]
    rows, series = [], {}
    extra = {'p50 / torch, same model': [], 'p99 / own p50': [],
             'state bytes via host per frame': [], 'export s': [], 'export GB': [],
             'providers': []}
    for name in opts.sizes:
        models = build(name, opts.device)
        n_params = sum(p.numel() for p in models.lm.parameters()) / 1e6
        print(f'[bench] {name} ({n_params:.0f} M): torch, {opts.frames} frames...', flush=True)
        times = run(models, frames, None)
        baseline = LatencyStats.of(f'{name} torch ({opts.device})', times)
        rows.append(baseline)
        series[baseline.name] = times
        extra['p50 / torch, same model'].append('1.00')
        extra['p99 / own p50'].append(f'{baseline.p99 / baseline.p50:.2f}')
        extra['state bytes via host per frame'].append('-')
        extra['export s'].append('-')
        extra['export GB'].append('-')
        extra['providers'].append('-')
        cpu_models = models if opts.device == 'cpu' else build(name, 'cpu')
        for precision in opts.precisions:
            t0 = time.perf_counter()
            directory = export_frontend(cpu_models, opts.out / f'{name}_{precision}', precision,
                                        progress=lambda s: print(f'[bench]   {s}', flush=True))
            export_s = time.perf_counter() - t0
            size_gb = sum(f.stat().st_size for f in directory.iterdir() if f.is_file()) / 1e9
            for binding in (False, True):
                runtime = ExportedFrontEnd(directory, fp16=opts.fp16, progress=lambda s: None,
                                           binding=binding)
                how = 'IO binding' if binding else 'state via host'
                print(f'[bench] {name}: exported {precision}, {how}, {opts.frames} frames...',
                      flush=True)
                times = run(models, frames, runtime)
                stats = LatencyStats.of(f'{name} onnxruntime {precision} ({how})', times)
                rows.append(stats)
                series[stats.name] = times
                extra['p50 / torch, same model'].append(f'{stats.p50 / baseline.p50:.2f}')
                extra['p99 / own p50'].append(f'{stats.p99 / stats.p50:.2f}')
                per_frame = runtime.host_state_bytes / len(frames)
                extra['state bytes via host per frame'].append(f'{per_frame / 1e6:.2f} M'
                                                               if per_frame else '0')
                extra['export s'].append(f'{export_s:.0f}' if not binding else '')
                extra['export GB'].append(f'{size_gb:.2f}' if not binding else '')
                extra['providers'].append(runtime.provider_names[0])
    report = table(rows, rows[0], extra)
    print('\nPer-frame compute, KAME front-end with the oracle on every frame (budget 80 ms); '
          'p50 / baseline is against the first row\n')
    print(report)
    (opts.out / 'export.md').write_text(report + '\n')
    plot_frames(series, opts.out / 'export.png', 'torch vs exported front-end')
    print(f'\nwrote {opts.out}/export.md and export.png')


if __name__ == '__main__':
    main()
