# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Run the exported front-end graphs on onnxruntime: TensorRT, then CUDA, then CPU.

The same code runs in CI on the CPU provider and on a Jetson with the
TensorRT provider (engines built on first use and cached on disk, so a
robot pays the build once). Each graph keeps its own state between calls;
``attach`` hands the temporal and depth graphs to moshi's LMGen in place of
its torch (or CUDA-graphed) step functions, so moshi's own code still does
the delays, token cache and sampling, draw for draw.
"""
import json
from pathlib import Path
import re
from typing import Callable

import numpy as np
import torch

from kame_ros.frontend.export.layout import ExportError, INITIAL_STATE, MANIFEST

PROVIDER_ORDER = ('TensorrtExecutionProvider', 'CUDAExecutionProvider', 'CPUExecutionProvider')


def providers(cache_dir: Path, fp16: bool = False) -> list:
    """Return the best available providers in order, TensorRT with its engine cache."""
    import onnxruntime as ort
    available = set(ort.get_available_providers())
    chosen: list = []
    for name in PROVIDER_ORDER:
        if name not in available:
            continue
        if name == 'TensorrtExecutionProvider':
            cache_dir.mkdir(parents=True, exist_ok=True)
            chosen.append((name, {'trt_engine_cache_enable': True,
                                  'trt_engine_cache_path': str(cache_dir),
                                  'trt_timing_cache_enable': True,
                                  'trt_fp16_enable': fp16}))
        else:
            chosen.append(name)
    return chosen


class StatefulGraph:
    """One exported step graph and the state it carries from call to call."""

    def __init__(self, path: Path, entry: dict, initial: list[np.ndarray], providers: list,
                 threads: int = 0) -> None:
        """Open an inference session on ``path``."""
        import onnxruntime as ort
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        try:
            self.session = ort.InferenceSession(str(path), options, providers=providers)
        except Exception as err:  # noqa: B902 - onnxruntime raises its own exception types
            raise ExportError(f'{path}: {err}') from err
        self.inputs = entry['inputs']
        self.state_in = [f'state_in.{n}' for n in entry['state']]
        self.initial = initial
        self.state = list(initial)

    def reset(self) -> None:
        """Start a fresh stream."""
        self.state = list(self.initial)

    def run(self, *inputs: np.ndarray) -> list[np.ndarray]:
        """Run one step; keep the new state; return the step's own outputs."""
        feeds = dict(zip(self.inputs, inputs))
        feeds.update(zip(self.state_in, self.state))
        results = self.session.run(None, feeds)
        n = len(results) - len(self.state)
        self.state = results[n:]
        return results[:n]


class ExportedFrontEnd:
    """Mimi encode/decode and the LM steps, from an exported directory."""

    def __init__(self, directory: Path, fp16: bool = False, threads: int = 0,
                 progress: Callable[[str], None] = print) -> None:
        """Load the manifest, the initial state and one session per graph."""
        directory = Path(directory)
        if not (directory / MANIFEST).is_file():
            raise ExportError(f'{directory}: no {MANIFEST} (export with kame_ros_export_frontend)')
        manifest = json.loads((directory / MANIFEST).read_text())
        try:
            initial = dict(np.load(directory / INITIAL_STATE))
        except (OSError, ValueError) as err:
            raise ExportError(f'{directory / INITIAL_STATE}: {err}') from err
        self.providers = providers(directory / 'trt_cache', fp16)
        self.provider_names = [p if isinstance(p, str) else p[0] for p in self.providers]
        progress(f'onnxruntime providers: {", ".join(self.provider_names)}')
        self.graphs: dict[str, StatefulGraph] = {}
        for name, entry in manifest['graphs'].items():
            progress(f'loading {entry["file"]}')
            try:
                state = [initial[f'{name}/{s}'] for s in entry['state']]
            except KeyError as err:
                raise ExportError(f'{directory}: initial state of {name} missing ({err})') \
                    from err
            self.graphs[name] = StatefulGraph(directory / entry['file'], entry, state,
                                              self.providers, threads)
        self.dep_q = manifest['dep_q']
        self.dim = manifest['dim']
        self.precision = manifest['precision']

    def reset(self) -> None:
        """Start a fresh conversation in every graph."""
        for graph in self.graphs.values():
            graph.reset()

    def reset_streaming(self) -> None:
        """Reset Mimi's encoder and decoder state (as MimiModel.reset_streaming does)."""
        self.graphs['mimi_encode'].reset()
        self.graphs['mimi_decode'].reset()

    def encode(self, pcm: torch.Tensor) -> torch.Tensor:
        """Return one frame's audio codes, like ``mimi.encode`` in streaming mode."""
        codes, = self.graphs['mimi_encode'].run(pcm.float().cpu().numpy())
        return torch.from_numpy(codes).to(pcm.device)

    def decode(self, codes: torch.Tensor) -> torch.Tensor:
        """Return one frame's audio, like ``mimi.decode`` in streaming mode."""
        pcm, = self.graphs['mimi_decode'].run(codes.cpu().numpy())
        return torch.from_numpy(pcm).to(codes.device)

    def temporal(self, tokens: torch.Tensor, condition_sum: torch.Tensor | None,
                 condition_cross: torch.Tensor | None = None) -> tuple:
        """Stand in for ``LMModel.forward_text`` (no condition = zeros: the sum is unchanged)."""
        if condition_cross is not None:
            raise ExportError('cross-attention conditioning is not exported')
        if condition_sum is None:
            condition = np.zeros((tokens.shape[0], 1, self.dim), np.float32)
        else:
            condition = condition_sum.float().cpu().numpy()
        out, logits = self.graphs['temporal'].run(tokens.cpu().numpy(), condition)
        return torch.from_numpy(out), torch.from_numpy(logits)

    def depth_step(self, lm_gen) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
        """Stand in for ``LMGen.depformer_step``: one graph per codebook, moshi's sampling."""
        from moshi.utils.sampling import sample_token

        def step(text_token: torch.Tensor, transformer_out: torch.Tensor) -> torch.Tensor:
            out = transformer_out.float().cpu().numpy()
            previous, tokens = text_token, []
            for k in range(self.dep_q):
                graph = self.graphs[f'depth_{k}']
                if k == 0:
                    graph.reset()
                else:
                    graph.state = list(self.graphs[f'depth_{k - 1}'].state)
                logits, = graph.run(previous[:, None, None].cpu().numpy(), out)
                token = sample_token(torch.from_numpy(logits), lm_gen.use_sampling, lm_gen.temp,
                                     lm_gen.top_k)[:, 0, 0]
                tokens.append(token)
                previous = token
            return torch.stack(tokens, dim=1)
        return step

    def attach(self, lm_gen) -> None:
        """Make a streaming LMGen run its steps on these graphs."""
        state = lm_gen._streaming_state
        if state is None:
            raise RuntimeError('enter lm_gen.streaming() first')
        if lm_gen.cfg_coef != 1.0:
            raise ExportError('classifier-free guidance is not exported')
        state.graphed_main = self.temporal
        state.graphed_depth = self.depth_step(lm_gen)


def default_export_dir(checkpoint: str, precision: str) -> Path:
    """Where a checkpoint's graphs are cached when no directory is given."""
    name = re.sub(r'[^A-Za-z0-9_.-]+', '_', checkpoint.strip('/'))[-80:]
    return Path.home() / '.cache' / 'kame_ros' / 'onnx' / f'{name}-{precision}'


def load_or_export(models, directory: Path, precision: str = 'fp32', fp16: bool = False,
                   threads: int = 0, progress: Callable[[str], None] = print) -> ExportedFrontEnd:
    """Open exported graphs, exporting them first if ``directory`` has none (once per robot)."""
    from kame_ros.frontend.export.exporter import export_frontend
    if not (Path(directory) / MANIFEST).is_file():
        progress(f'no exported graphs in {directory}: exporting (once)')
        export_frontend(models, Path(directory), precision, progress)
    return ExportedFrontEnd(directory, fp16, threads, progress)
