# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Benchmark the front-end's 80 ms loop: per-frame compute by model size, and the oracle's cost.

Random-weight Moshi-shaped models (the real architecture at several
widths) run the full frame: Mimi encode -> LM step -> Mimi decode. For each
size, the baseline is upstream moshi (plain LMGen) and the comparison is
this package's front-end with KAME's oracle stream active on every frame,
on the same model, interleaved in the same process. A separate row times
full-size Mimi alone, the codec every real checkpoint uses.

    kame_ros_bench_frontend --frames 150 --out out/bench_frontend
"""
import argparse
import copy
from pathlib import Path
import time

import numpy as np
import torch

from kame_ros.audio.frames import AudioFrame, float_to_int16, FRAME_NS, int16_to_float
from kame_ros.audio.mic_processing import MicProcessingConfig, MicProcessor
from kame_ros.bench.report import LatencyStats, plot_frames
from kame_ros.frontend.checkpoint import FrontEndModels
from kame_ros.frontend.moshi_engine import MoshiFrontEnd
from kame_ros.frontend.moshi_internals import config
from kame_ros.oracle.events import OracleEvent

SIZES = {  # name: (dim, layers, heads, depformer dim, depformer layers)
    'tiny': (32, 2, 2, 32, 1),
    'small': (256, 4, 4, 128, 2),
    'medium': (512, 8, 8, 256, 4),
    'large': (1024, 12, 16, 512, 4),
    # Past protobuf's 2 GB in float32 (the temporal graph ~2.3 GB): the export road Moshi 7B
    # takes, on a CPU (kame_ros_bench_export --sizes xl).
    'xl': (2048, 8, 16, 1024, 4),
    'moshi7b': (4096, 32, 32, 1024, 6),  # Moshi's real shape: GPU only (scripts/gpu_bench.sh)
}
CPU_SIZES = ['tiny', 'small', 'medium', 'large']


def lm_kwargs(dim: int, layers: int, heads: int, dep_dim: int, dep_layers: int) -> dict:
    """Moshi 7B's LM hyper-parameters with the size knobs replaced (8 + 8 codebooks)."""
    return dict(config('lm'), dim=dim, num_layers=layers, num_heads=heads,
                depformer_dim=dep_dim, depformer_num_layers=dep_layers,
                depformer_num_heads=max(1, dep_dim // 64),
                depformer_dim_feedforward=int(4.125 * dep_dim), text_card=32000, card=2048)


def small_mimi():
    """Mimi's structure at 1/8 width: codec cost small enough to see the LM's."""
    from moshi.models import loaders
    seanet = dict(config('seanet'), dimension=64, n_filters=8)
    transformer = dict(config('transformer'), d_model=64, num_heads=4, num_layers=2,
                       dim_feedforward=256, input_dimension=64, output_dimensions=[64])
    quantizer = dict(config('quantizer'), dimension=64, input_dimension=64,
                     output_dimension=64)
    return loaders.get_mimi(None, dict(config('mimi'), seanet=seanet,
                                       transformer=transformer, quantizer=quantizer))


class _WordTokenizer:
    """Deterministic text tokenizer standing in for Moshi's 32k SentencePiece model."""

    def vocab_size(self) -> int:
        return 32000

    def encode(self, text: str) -> list[int]:
        return [100 + (hash(w) % 30000) for w in text.split()]

    def id_to_piece(self, token_id: int) -> str:
        return f'\u2581w{token_id}'

    def is_control(self, token_id: int) -> bool:
        return token_id < 3


class UpstreamLoop:
    """Plain moshi per frame as its server runs it: int16 -> encode -> LMGen.step -> decode."""

    def __init__(self, models: FrontEndModels) -> None:
        from contextlib import ExitStack
        from moshi.models.lm import LMGen
        self.models = models
        self.device = models.lm.device
        self.gen = LMGen(models.lm)
        self.stack = ExitStack()
        self.stack.enter_context(models.mimi.streaming(1))
        self.stack.enter_context(self.gen.streaming(1))
        self.first = True

    @torch.no_grad()
    def step(self, pcm: np.ndarray) -> float:
        t0 = time.perf_counter()
        x = torch.from_numpy(int16_to_float(pcm)).to(self.device)[None, None]
        codes = self.models.mimi.encode(x)
        if self.first:  # moshi/server.py: reset Mimi after the first encoded frame
            self.models.mimi.reset_streaming()
            self.first = False
        tokens = self.gen.step(codes)
        if tokens is not None:
            float_to_int16(self.models.mimi.decode(tokens[:, 1:])[0, 0].float().cpu().numpy())
        return (time.perf_counter() - t0) * 1e3


def compare(models: FrontEndModels, frames: list) -> tuple[list, list]:
    """
    Run upstream and the KAME front-end on two copies of one model, alternating per frame.

    Alternating frame by frame puts both under the same machine load, so the
    difference is the oracle stream (embedding lookup + add) and nothing else.
    """
    twin = FrontEndModels(copy.deepcopy(models.lm), models.oracle_emb,
                          copy.deepcopy(models.mimi), models.tokenizer)
    upstream = UpstreamLoop(twin)
    fe = MoshiFrontEnd(models, mode='kame')
    fe.start()
    fe.on_oracle(OracleEvent('oracle.reset', 1, 1, 0))
    fe.on_oracle(OracleEvent('oracle.append', 1, 1, 0,
                             ' '.join(f'w{i}' for i in range(len(frames))) + ' '))
    up, ours = [], []
    for pcm in frames:
        up.append(upstream.step(pcm))
        ours.append(fe.step(pcm).compute_ms)
    fe.stop()
    upstream.stack.close()
    return up[3:], ours[3:]


def main(argv: list[str] | None = None) -> None:
    """Run every size, print the table, write Markdown and a PNG."""
    from moshi.models import loaders
    from moshi.models.lm_utils import ScaledEmbedding
    parser = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    parser.add_argument('--frames', type=int, default=150)
    parser.add_argument('--sizes', nargs='+', default=CPU_SIZES, choices=list(SIZES))
    parser.add_argument('--threads', type=int, default=0, help='torch threads (0 = default)')
    parser.add_argument('--device', default='cpu', help='cpu or cuda')
    parser.add_argument('--dtype', default='float32', choices=['float32', 'bfloat16'])
    parser.add_argument('--full-mimi', action='store_true',
                        help='run the loop with full-size Mimi (default: 1/8-width Mimi)')
    parser.add_argument('--out', type=Path, default=Path('out/bench_frontend'))
    opts = parser.parse_args(argv)
    if opts.threads:
        torch.set_num_threads(opts.threads)
    opts.out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    frames = [(rng.standard_normal(1920) * 3000).astype(np.int16) for _ in range(opts.frames)]
    torch.manual_seed(0)
    dtype = getattr(torch, opts.dtype)
    mimi = (loaders.get_mimi(None, device=opts.device) if opts.full_mimi else
            small_mimi().to(opts.device))
    rows, series = [], {}
    for name in opts.sizes:
        kwargs = lm_kwargs(*SIZES[name])
        lm = loaders.get_moshi_lm(None, lm_kwargs=kwargs, device=opts.device, dtype=dtype)
        oracle_emb = ScaledEmbedding(lm.text_card + 1, lm.dim, zero_idx=-1).to(
            device=opts.device, dtype=dtype).eval()
        models = FrontEndModels(lm, oracle_emb, mimi, _WordTokenizer())
        n_params = sum(p.numel() for p in lm.parameters()) / 1e6
        print(f'[bench] {name}: LM {n_params:.0f} M parameters, {opts.frames} frames, '
              'upstream and KAME alternating...', flush=True)
        upstream, ours = compare(models, frames)
        up, kame = (LatencyStats.of(f'{name} upstream LMGen', upstream),
                    LatencyStats.of(f'{name} KAME front-end', ours))
        rows.append((name, n_params, up, kame))
        series[name] = ours
    print('[bench] full-size Mimi codec alone...', flush=True)
    big = loaders.get_mimi(None, device=opts.device)
    codec = []
    with torch.no_grad(), big.streaming(1):
        for pcm in frames[:30]:
            t0 = time.perf_counter()
            x = torch.from_numpy(int16_to_float(pcm)).to(opts.device)[None, None]
            big.decode(big.encode(x)).cpu()
            codec.append((time.perf_counter() - t0) * 1e3)
    codec_stats = LatencyStats.of('Mimi (full size) encode+decode', codec[3:])
    mic_ms = mic_frontend_ms(frames)
    mic = LatencyStats.of('audio front end', mic_ms)
    lines = ['| model | LM params | upstream p50 ms | upstream p99 ms | KAME p50 ms | '
             'KAME p99 ms | oracle overhead (p50) | frames over 80 ms (KAME) |',
             '|---|---|---|---|---|---|---|---|']
    for name, n_params, up, kame in rows:
        over = sum(t > 80 for t in series[name])
        lines.append(f'| {name} | {n_params:.0f} M | {up.p50:.2f} | {up.p99:.2f} | '
                     f'{kame.p50:.2f} | {kame.p99:.2f} | {(kame.p50 / up.p50 - 1) * 100:+.1f}% | '
                     f'{over}/{len(series[name])} |')
    lines.append(f'| Mimi full size, codec only | - | {codec_stats.p50:.2f} | '
                 f'{codec_stats.p99:.2f} | - | - | - | - |')
    lines.append(f'| audio front end of the microphone (stt node, default stages) | - | '
                 f'{mic.p50:.2f} | {mic.p99:.2f} | - | - | - | '
                 f'{sum(t > 80 for t in mic_ms)}/{len(mic_ms)} |')
    report = '\n'.join(lines)
    mimi_kind = 'full-size' if opts.full_mimi else '1/8-width'
    print(f'\nFront-end per-frame compute on {opts.device}/{opts.dtype} ({mimi_kind} Mimi '
          'encode + LM step + Mimi decode; budget 80 ms)\n')
    print(report)
    (opts.out / 'frontend.md').write_text(report + '\n')
    plot_frames(series, opts.out / 'frontend.png', 'KAME front-end per-frame compute')
    print(f'\nwrote {opts.out}/frontend.md and frontend.png')


def mic_frontend_ms(frames: list[np.ndarray]) -> list[float]:
    """Time the stt node's audio front end (its default stages) on the same frames, echoed."""
    processor = MicProcessor(MicProcessingConfig())
    times = []
    for k, pcm in enumerate(frames):
        processor.reference(AudioFrame(k, k * FRAME_NS, pcm))
        t0 = time.perf_counter()
        processor.process(AudioFrame(k, k * FRAME_NS, pcm))
        times.append((time.perf_counter() - t0) * 1e3)
    return times


if __name__ == '__main__':
    main()
