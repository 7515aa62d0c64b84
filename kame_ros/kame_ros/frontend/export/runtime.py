# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Run the exported front-end graphs on onnxruntime: TensorRT, then CUDA, then CPU.

The same code runs in CI on the CPU provider and on a Jetson with the
TensorRT provider (engines built on first use and cached on disk, so a
robot pays the build once). ``attach`` hands the temporal and depth graphs
to moshi's LMGen in place of its torch (or CUDA-graphed) step functions,
so moshi's own code still does the delays, token cache and sampling, draw
for draw.

Streaming state never leaves the device. Every graph's state lives in
torch tensors where the provider computes (host memory for the CPU
provider, GPU memory for CUDA and TensorRT), bound to the session by
pointer (onnxruntime IO binding); each step writes the new state into a
second set of tensors and the two sets swap (ping-pong), so a step copies
nothing and allocates nothing for its state. The KV caches, most of the
state, are not even rewritten: a graph only reads them and outputs the
step's new entry and its slot, which the runtime writes in place with
one ``index_copy_`` on the device (see ``attention.py``). A Moshi-7B
temporal KV cache is ~1.5 GB: copying it through numpy every 80 ms, as
plain ``session.run`` does, cannot hold 12.5 frames/s on any device. Step
inputs and outputs are bound the same way to tensors on the device, so
moshi samples from logits where they are; only the microphone samples
going in, the speaker samples coming out and the sampled tokens moshi
itself moves ever reach the host. ``binding=False`` runs the old
host-copy path, for the benchmark's before/after.
"""
import json
from pathlib import Path
import re
from typing import Callable

import numpy as np
import torch

from kame_ros.frontend.export.layout import (BoundaryNames, ExportError, INITIAL_STATE, LAYOUT,
                                             MANIFEST, version_mismatch)
from kame_ros.frontend.moshi_internals import streaming_state
from kame_ros.storage import cache_root

PROVIDER_ORDER = ('TensorrtExecutionProvider', 'CUDAExecutionProvider', 'CPUExecutionProvider')
ORT_TYPES = {'tensor(float)': torch.float32, 'tensor(float16)': torch.float16,
             'tensor(int64)': torch.int64, 'tensor(bool)': torch.bool,
             'tensor(int32)': torch.int32}
NUMPY_OF = {torch.float32: np.float32, torch.float16: np.float16, torch.int64: np.int64,
            torch.bool: np.bool_, torch.int32: np.int32}


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


def device_of(provider_names: list[str]) -> torch.device:
    """Return where the first provider computes: its tensors live there."""
    gpu = provider_names and provider_names[0] != 'CPUExecutionProvider'
    return torch.device('cuda' if gpu and torch.cuda.is_available() else 'cpu')


class StatefulGraph:
    """One exported step graph and the state it carries from call to call, on its device."""

    def __init__(self, path: Path, entry: dict, initial: list[np.ndarray], providers: list,
                 threads: int = 0, device: torch.device = torch.device('cpu'),
                 binding: bool = True) -> None:
        """Open an inference session on ``path``; state and outputs live on ``device``."""
        import onnxruntime as ort
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        # No busy-waiting between runs: spinning worker threads (one pool per graph, eleven
        # graphs) take the cores that torch's sampling, Mimi and the back-end need
        # (docs/measurements.md, "Figures behind the code").
        options.add_session_config_entry('session.intra_op.allow_spinning', '0')
        try:
            self.session = ort.InferenceSession(str(path), options, providers=providers)
        except Exception as err:  # noqa: B902 - onnxruntime raises its own exception types
            raise ExportError(f'{path}: {err}') from err
        self.device = device
        self.binding = binding
        self.inputs, self.outputs = entry['inputs'], entry['outputs']
        names = BoundaryNames.of(entry['state'], entry['caches'])
        self.state_in, self.state_out = names.state_in, names.state_out
        self.cache_in, self.appended = names.cache_in, names.appended
        self.initial = [torch.from_numpy(np.ascontiguousarray(a)).to(device) for a in initial]
        n = len(self.state_in)
        self.state = [t.clone() for t in self.initial[:n]]
        self._spare = [t.clone() for t in self.initial[:n]]
        self.caches = [t.clone() for t in self.initial[n:]]
        self._in = self._buffers(self.session.get_inputs(), self.inputs)
        self._out = self._buffers(self.session.get_outputs(), self.outputs)
        self._entries = self._buffers(self.session.get_outputs(), self.appended)
        # Every buffer is fixed, so the two bindings (state A -> B, then B -> A) are made once.
        self._bindings = [self._binding(self.state, self._spare),
                          self._binding(self._spare, self.state)] if binding else []
        self._phase = 0
        self.host_state_bytes = 0  # state bytes that went through the host (binding=False)

    def _buffers(self, declared: list, names: list[str]) -> list[torch.Tensor]:
        """Return one tensor on the device per named graph input or output."""
        by_name = {d.name: d for d in declared}
        return [torch.empty(by_name[n].shape, dtype=ORT_TYPES[by_name[n].type],
                            device=self.device) for n in names]

    def _binding(self, state: list[torch.Tensor], new_state: list[torch.Tensor]):
        """Bind inputs, ``state``, caches -> outputs, ``new_state``, entries by pointer, once."""
        binding = self.session.io_binding()
        kind, index = self.device.type, self.device.index or 0
        for names, tensors, bind in ((self.inputs, self._in, binding.bind_input),
                                     (self.state_in, state, binding.bind_input),
                                     (self.cache_in, self.caches, binding.bind_input),
                                     (self.outputs, self._out, binding.bind_output),
                                     (self.state_out, new_state, binding.bind_output),
                                     (self.appended, self._entries, binding.bind_output)):
            for name, tensor in zip(names, tensors):
                self._bind(bind, name, tensor, kind, index)
        return binding

    def reset(self) -> None:
        """Start a fresh stream (a copy on the device)."""
        for tensor, initial in zip(self.state + self.caches, self.initial):
            tensor.copy_(initial)

    def continue_from(self, other: 'StatefulGraph') -> None:
        """Start from another graph's state (the next codebook's depth step; on the device)."""
        for tensor, source in zip(self.state + self.caches, other.state + other.caches):
            tensor.copy_(source)

    def _append(self, entries: list[torch.Tensor]) -> None:
        """Write each cache's new entry into its slot, in place (axis 2: time)."""
        for cache, new, at in zip(self.caches, entries[0::2], entries[1::2]):
            cache.index_copy_(2, at.reshape(-1), new)

    def run(self, *inputs: torch.Tensor) -> list[torch.Tensor]:
        """
        Run one step; keep the new state; return the step's own outputs.

        The outputs are this graph's buffers, valid until its next run.
        """
        if not self.binding:
            return self._run_through_host(inputs)
        for buffer, value in zip(self._in, inputs):
            buffer.copy_(value.reshape(buffer.shape))
        if self.device.type == 'cuda':
            # torch's copies (inputs, cache entries, resets) are queued on torch's stream and
            # onnxruntime computes on its own: they must land first. The run itself returns
            # with its outputs ready (onnxruntime synchronizes its stream at the end of a run).
            torch.cuda.current_stream(self.device).synchronize()
        self.session.run_with_iobinding(self._bindings[self._phase])
        self._phase ^= 1
        self.state, self._spare = self._spare, self.state
        self._append(self._entries)
        return list(self._out)

    @staticmethod
    def _bind(bind: Callable, name: str, tensor: torch.Tensor, kind: str, index: int) -> None:
        # An empty tensor has no memory to point at: bound as a host buffer, nothing is copied.
        kind = kind if tensor.numel() else 'cpu'
        buffer = tensor.data_ptr() if tensor.numel() else np.empty(0, NUMPY_OF[tensor.dtype])
        bind(name, kind, index, NUMPY_OF[tensor.dtype], list(tensor.shape),
             buffer if isinstance(buffer, int) else buffer.ctypes.data)

    def _run_through_host(self, inputs: tuple[torch.Tensor, ...]) -> list[torch.Tensor]:
        """Run with plain ``session.run``: every state tensor and cache copied through numpy."""
        feeds = {name: t.cpu().numpy() for name, t in zip(self.inputs, inputs)}
        feeds.update({name: t.cpu().numpy() for name, t in zip(self.state_in, self.state)})
        feeds.update({name: t.cpu().numpy() for name, t in zip(self.cache_in, self.caches)})
        names = self.outputs + self.state_out + self.appended
        results = [torch.from_numpy(r).to(self.device)
                   for r in self.session.run(names, feeds)]
        n, m = len(self.outputs), len(self.outputs) + len(self.state_out)
        self.state = results[n:m]
        self._append(results[m:])
        self.host_state_bytes += sum(2 * t.nbytes for t in self.state) \
            + sum(t.nbytes for t in self.caches) + sum(t.nbytes for t in results[m:])
        return results[:n]


class ExportedFrontEnd:
    """Mimi encode/decode and the LM steps, from an exported directory."""

    def __init__(self, directory: Path, fp16: bool = False, threads: int = 0,
                 progress: Callable[[str], None] = print, binding: bool = True) -> None:
        """Load the manifest, the initial state and one session per graph."""
        directory = Path(directory)
        if not (directory / MANIFEST).is_file():
            raise ExportError(f'{directory}: no {MANIFEST} (export with kame_ros_export_frontend)')
        manifest = json.loads((directory / MANIFEST).read_text())
        if manifest.get('layout') != LAYOUT:
            raise ExportError(f'{directory}: exported by another kame_ros version (layout '
                              f'{manifest.get("layout", 1)}, this one reads {LAYOUT}): '
                              'export again')
        try:
            initial = dict(np.load(directory / INITIAL_STATE))
        except (OSError, ValueError) as err:
            raise ExportError(f'{directory / INITIAL_STATE}: {err}') from err
        mismatch = version_mismatch(manifest.get('versions'))
        if mismatch:
            progress(f'warning: {directory}: {mismatch}')
        self.providers = providers(directory / 'trt_cache', fp16)
        self.provider_names = [p if isinstance(p, str) else p[0] for p in self.providers]
        self.device = device_of(self.provider_names)
        progress(f'onnxruntime providers: {", ".join(self.provider_names)} '
                 f'(state on {self.device})')
        self.graphs: dict[str, StatefulGraph] = {}
        for name, entry in manifest['graphs'].items():
            progress(f'loading {entry["file"]}')
            missing = [f for f in entry.get('data', []) if not (directory / f).is_file()]
            if missing:
                raise ExportError(f'{directory}: {entry["file"]} needs its weights '
                                  f'{", ".join(missing)}, which are missing: copy the whole '
                                  'folder, or export again')
            try:
                state = [initial[f'{name}/{s}'] for s in entry['state'] + entry['caches']]
            except KeyError as err:
                raise ExportError(f'{directory}: initial state of {name} missing ({err})') \
                    from err
            self.graphs[name] = StatefulGraph(directory / entry['file'], entry, state,
                                              self.providers, threads, self.device, binding)
        self.dep_q = manifest['dep_q']
        self.dim = manifest['dim']
        self.precision = manifest['precision']
        self._no_condition = torch.zeros((1, 1, self.dim), device=self.device)

    @property
    def host_state_bytes(self) -> int:
        """State bytes copied between host and graphs so far (0 with IO binding)."""
        return sum(g.host_state_bytes for g in self.graphs.values())

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
        codes, = self.graphs['mimi_encode'].run(pcm.float())
        return codes.clone().to(pcm.device)

    def decode(self, codes: torch.Tensor) -> torch.Tensor:
        """Return one frame's audio, like ``mimi.decode`` in streaming mode."""
        pcm, = self.graphs['mimi_decode'].run(codes)
        return pcm.clone().to(codes.device)

    def temporal(self, tokens: torch.Tensor, condition_sum: torch.Tensor | None,
                 condition_cross: torch.Tensor | None = None) -> tuple:
        """Stand in for ``LMModel.forward_text`` (no condition = zeros: the sum is unchanged)."""
        if condition_cross is not None:
            raise ExportError('cross-attention conditioning is not exported')
        condition = self._no_condition if condition_sum is None else condition_sum.float()
        out, logits = self.graphs['temporal'].run(tokens, condition)
        return out, logits

    def depth(self, k: int, token: torch.Tensor, transformer_out: torch.Tensor) -> torch.Tensor:
        """
        Stand in for ``LMModel.forward_depformer(k, ...)`` within one frame's depth pass.

        Codebook 0 starts the depth transformer afresh; codebook k starts
        from the state codebook k - 1 left (as moshi's streaming depformer does).
        """
        graph = self.graphs[f'depth_{k}']
        if k == 0:
            graph.reset()
        else:
            graph.continue_from(self.graphs[f'depth_{k - 1}'])
        logits, = graph.run(token, transformer_out)
        return logits

    def depth_step(self, lm_gen) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
        """Stand in for ``LMGen.depformer_step``: one graph per codebook, moshi's sampling."""
        from moshi.utils.sampling import sample_token

        def step(text_token: torch.Tensor, transformer_out: torch.Tensor) -> torch.Tensor:
            previous, tokens = text_token, []
            for k in range(self.dep_q):
                logits = self.depth(k, previous[:, None, None], transformer_out)
                token = sample_token(logits.float(), lm_gen.use_sampling, lm_gen.temp,
                                     lm_gen.top_k)[:, 0, 0]
                tokens.append(token)
                previous = token
            return torch.stack(tokens, dim=1)
        return step

    def attach(self, lm_gen) -> None:
        """Make a streaming LMGen run its steps on these graphs."""
        state = streaming_state(lm_gen)
        if state is None:
            raise RuntimeError('enter lm_gen.streaming() first')
        if lm_gen.cfg_coef != 1.0:
            raise ExportError('classifier-free guidance is not exported')
        state.graphed_main = self.temporal
        state.graphed_depth = self.depth_step(lm_gen)


def default_export_dir(checkpoint: str, precision: str) -> Path:
    """Where a checkpoint's graphs are cached when no directory is given."""
    name = re.sub(r'[^A-Za-z0-9_.-]+', '_', checkpoint.strip('/'))[-80:]
    return cache_root() / 'onnx' / f'{name}-{precision}'


def load_or_export(models, directory: Path, precision: str = 'fp32', fp16: bool = False,
                   threads: int = 0, progress: Callable[[str], None] = print) -> ExportedFrontEnd:
    """Open exported graphs, exporting them first if ``directory`` has none (once per robot)."""
    from kame_ros.frontend.export.exporter import export_frontend
    manifest = Path(directory) / MANIFEST
    if not manifest.is_file():
        progress(f'no exported graphs in {directory}: exporting (once)')
        export_frontend(models, Path(directory), precision, progress)
    elif json.loads(manifest.read_text()).get('layout') != LAYOUT:
        progress(f'graphs in {directory} were exported by another kame_ros version: exporting')
        export_frontend(models, Path(directory), precision, progress)
    return ExportedFrontEnd(directory, fp16, threads, progress)
