# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
How much memory the Moshi-7B front-end needs, and which Jetson it fits.

Counted from the real architecture, not quoted: moshi's own ``LMModel``
and Mimi are built with Moshi 7B's configuration (moshi's ``lm`` configuration)
on torch's meta device (shapes, no memory), and every figure follows from
their tensors: weights at bf16 / int8 / int4 (int4 with a bf16 scale per
group of 32), the temporal transformer's KV cache at the configured
context, the depth transformer's, Mimi's weights and streaming state, and
the per-step activations. Jetson memory is shared by CPU and GPU, so the
rest of the robot (OS, ROS, STT, oracle LLM) is a reserve to subtract
(``--reserve-gib``; the soak measured ~1 GiB for stt + oracle + nodes) and
the CUDA context and TensorRT/cuBLAS workspaces another
(``--runtime-gib``): both are assumptions, printed as such.

    kame_ros_bench_memory [--context 3000] [--out out/bench_memory]
"""
import argparse
from dataclasses import dataclass
from pathlib import Path

from kame_ros.frontend.moshi_internals import config

GIB = 2 ** 30
JETSONS = {'Orin Nano 8 GB': 8, 'Orin NX 16 GB': 16, 'AGX Orin 32 GB': 32, 'AGX Orin 64 GB': 64}
WEIGHT_BYTES = {'bf16': 2.0, 'int8': 1.0 + 2 / 128, 'int4': 0.5 + 2 / 32}  # + group scales


@dataclass(frozen=True)
class Footprint:
    """Bytes of each part of the front-end, from the model's shapes."""

    lm_params: int
    mimi_params: int
    kv_temporal: int  # bf16
    kv_depth: int
    mimi_state: int
    activations: int

    def total(self, weights: str) -> float:
        """Return the front-end's bytes with LM weights at ``weights`` precision."""
        return (self.lm_params * WEIGHT_BYTES[weights] + self.mimi_params * 2 + self.kv_temporal
                + self.kv_depth + self.mimi_state + self.activations)


def footprint(context: int) -> Footprint:
    """Build Moshi 7B and Mimi on the meta device and measure their parts."""
    import torch
    from moshi.models import loaders
    kwargs = dict(config('lm'), context=context)
    lm = loaders.get_moshi_lm(None, lm_kwargs=kwargs, device='meta', dtype=torch.bfloat16)
    mimi = loaders.get_mimi(None, device='meta')
    dim, layers = kwargs['dim'], kwargs['num_layers']
    kv_temporal = 2 * layers * context * dim * 2  # K and V, bf16
    kv_depth = (2 * kwargs['depformer_num_layers'] * kwargs['depformer_context']
                * kwargs['depformer_dim'] * 2)
    mimi_cfg = config('transformer')
    mimi_state = 2 * (2 * mimi_cfg['num_layers'] * mimi_cfg['context'] * mimi_cfg['d_model'] * 4)
    hidden = int(kwargs['hidden_scale'] * dim) * 2 // 3  # gated MLP width
    # One token per step: the largest live tensors of a layer, scores over the context, logits.
    activations = 4 * (4 * dim + 2 * hidden + kwargs['num_heads'] * context
                       + kwargs['text_card'] + kwargs['dep_q'] * kwargs['card'])
    return Footprint(sum(p.numel() for p in lm.parameters()),
                     sum(p.numel() for p in mimi.parameters()),
                     kv_temporal, kv_depth, mimi_state, activations)


def report(fp: Footprint, context: int, reserve_gib: float, runtime_gib: float) -> str:
    """Markdown: the parts, then each precision's total against each Jetson."""
    parts = ['| part | size |', '|---|---|',
             f'| LM weights ({fp.lm_params / 1e9:.2f} B parameters), bf16 | '
             f'{fp.lm_params * WEIGHT_BYTES["bf16"] / GIB:.2f} GiB |',
             f'| LM weights, int8 (+ bf16 scale per 128) | '
             f'{fp.lm_params * WEIGHT_BYTES["int8"] / GIB:.2f} GiB |',
             f'| LM weights, int4 (+ bf16 scale per 32) | '
             f'{fp.lm_params * WEIGHT_BYTES["int4"] / GIB:.2f} GiB |',
             f'| temporal KV cache, context {context}, bf16 | {fp.kv_temporal / GIB:.2f} GiB |',
             f'| depth KV cache | {fp.kv_depth / 2**20:.2f} MiB |',
             f'| Mimi weights ({fp.mimi_params / 1e6:.0f} M), bf16 | '
             f'{fp.mimi_params * 2 / GIB:.2f} GiB |',
             f'| Mimi streaming state (fp32) | {fp.mimi_state / 2**20:.1f} MiB |',
             f'| activations per 80 ms step (fp32) | {fp.activations / 2**20:.2f} MiB |',
             f'| CUDA context, TensorRT/cuBLAS workspaces (assumed) | {runtime_gib:.1f} GiB |',
             f'| rest of the robot: OS, ROS, STT, oracle (assumed) | {reserve_gib:.1f} GiB |']
    head = ['LM weights', 'front-end GiB', 'with runtime + reserve GiB', *JETSONS]
    fits = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
    for weights in WEIGHT_BYTES:
        need = fp.total(weights) / GIB + runtime_gib + reserve_gib
        cells = [weights, f'{fp.total(weights) / GIB:.2f}', f'{need:.1f}']
        cells += ['fits' if need <= size * 1e9 / GIB * 0.93 else 'no'
                  for size in JETSONS.values()]
        fits.append('| ' + ' | '.join(cells) + ' |')
    note = ('Jetson sizes are GB (1e9 bytes); "fits" leaves 7 % of them for the kernel and '
            'carve-outs. The KV cache '
            'scales with the context: --context 1500 halves it.')
    return '\n'.join(parts) + '\n\n' + '\n'.join(fits) + '\n\n' + note


def main(argv: list[str] | None = None) -> None:
    """Print and write the Moshi-7B memory table."""
    parser = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    parser.add_argument('--context', type=int, default=3000, help='temporal context (frames)')
    parser.add_argument('--reserve-gib', type=float, default=3.0,
                        help='memory the rest of the robot needs (assumed)')
    parser.add_argument('--runtime-gib', type=float, default=1.0,
                        help='CUDA context and workspaces (assumed)')
    parser.add_argument('--out', type=Path, default=Path('out/bench_memory'))
    opts = parser.parse_args(argv)
    if opts.context < 1 or opts.reserve_gib < 0 or opts.runtime_gib < 0:
        parser.exit(1, 'kame_ros_bench_memory: --context must be >= 1, the reserves >= 0\n')
    table = report(footprint(opts.context), opts.context, opts.reserve_gib, opts.runtime_gib)
    print(f'Moshi 7B front-end memory (context {opts.context} frames)\n')
    print(table)
    opts.out.mkdir(parents=True, exist_ok=True)
    (opts.out / 'memory.md').write_text(table + '\n')
    print(f'\nwrote {opts.out}/memory.md')


if __name__ == '__main__':
    main()
