# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Export one front-end's per-frame work as ONNX graphs with explicit state.

Four kinds of graph, each one 80 ms step with every streaming state
tensor as an input and its update as an output:

* ``mimi_encode``: 1920 samples -> the frame's audio codes (SEANet
  encoder, encoder transformer with its KV cache, downsampling, RVQ);
* ``temporal``: the LM's input tokens + ``condition_sum`` (KAME's oracle
  embedding) -> transformer output and text logits, with the KV cache;
* ``depth_<k>``: the depth transformer's step for codebook k (its per-step
  weights baked in) -> that codebook's logits;
* ``mimi_decode``: the generated codes -> 1920 output samples.

Sampling stays outside the graphs, in moshi's own code, so the exported
runtime draws exactly what the torch front-end draws from the same
logits. ``manifest.json`` names every input, output and state, each
graph's weight file and the versions of the packages that made it;
``initial_state.npz`` holds the state a fresh stream starts from. Every
graph keeps its weights in ``<graph>.onnx.data`` beside it, whatever its
size (``onnx_files``): Moshi 7B's temporal graph is far past protobuf's 2 GB.
"""
import json
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from kame_ros.audio.frames import FRAME_SAMPLES
from kame_ros.frontend.checkpoint import FrontEndModels
from kame_ros.frontend.export import onnx_files
from kame_ros.frontend.export.attention import append_only_caches
from kame_ros.frontend.export.layout import (BoundaryNames, INITIAL_STATE, LAYOUT, MANIFEST,
                                             package_versions, PRECISIONS)
from kame_ros.frontend.export.rewrite import rewrite_for_onnxruntime
from kame_ros.frontend.export.slots import find_slots, set_step_counters, Slot, StepGraph

ENCODER_PARTS = ('encoder', 'encoder_transformer', 'downsample')
DECODER_PARTS = ('upsample', 'decoder_transformer', 'decoder')
LM_GRAPHS = ('temporal', 'depth_')


def _export(graph: StepGraph, args: tuple, inputs: list[str], outputs: list[str],
            path: Path) -> dict:
    """Export one step graph; return its manifest entry."""
    state = [s.name for s in graph.states]
    caches = [s.name for s in graph.caches]
    names = BoundaryNames.of(state, caches)
    graph.eval()
    program = torch.onnx.export(graph, args, dynamo=True, verbose=False,
                                input_names=inputs + names.state_in + names.cache_in,
                                output_names=outputs + names.state_out + names.appended)
    program.save(str(path), external_data=True)
    rewrite_for_onnxruntime(path)
    return {'file': path.name, 'inputs': inputs, 'outputs': outputs, 'state': state,
            'caches': caches}


def _single_stream_kv_writes(slots: list[Slot]) -> None:
    """
    Switch the KV caches among ``slots`` to their batch-of-one write path.

    A RingKVCache that respects the per-batch execution mask writes with
    ``scatter_``, which becomes ONNX ScatterElements, an element-by-element
    kernel in onnxruntime (99 of 101 ms of the 39 M model's step). With one
    stream and every step executed, its ``index_copy_`` path is the same
    computation and exports as a slice write.
    """
    from moshi.modules.transformer import RingKVCache
    for slot in slots:
        if isinstance(slot.owner, RingKVCache):
            slot.owner.respect_exec_mask = False


def _quantize_int8(path: Path) -> None:
    """Dynamic int8 weights for MatMul/Gemm (onnxruntime's quantizer), in place."""
    from onnxruntime.quantization import quantize_dynamic, QuantType
    with onnx_files.edit(path) as source:
        quantize_dynamic(str(source), str(path), weight_type=QuantType.QInt8,
                         op_types_to_quantize=['MatMul', 'Gemm'], use_external_data_format=True)


def _to_fp16(path: Path) -> None:
    """Convert a graph's weights and arithmetic to float16 (onnxruntime's converter), in place."""
    from onnxruntime.quantization.onnx_model import ONNXModel
    from onnxruntime.transformers.float16 import convert_float_to_float16
    with onnx_files.edit(path) as source:
        # By path: the converter then infers shapes by path too (any size). It appends the
        # casts of kept float32 inputs last; onnx's checker wants the nodes in order.
        converted = ONNXModel(convert_float_to_float16(str(source), keep_io_types=True))
        converted.topological_sort()
        onnx_files.save(converted.model, path)


def _weight_only_int8(path: Path) -> None:
    """Int8 MatMul weights with a float scale per block of 32, activations float, in place."""
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer
    with onnx_files.edit(path) as source:
        quantizer = MatMulNBitsQuantizer(onnx_files.load(source), bits=8, block_size=32,
                                         is_symmetric=True)
        quantizer.process()
        onnx_files.save(quantizer.model.model, path)


CONVERT = {'int8': _quantize_int8, 'fp16': _to_fp16, 'int8w': _weight_only_int8}


def export_frontend(models: FrontEndModels, directory: Path, precision: str = 'fp32',
                    progress: Callable[[str], None] = print) -> Path:
    """Write every graph, the manifest and the initial state into ``directory``."""
    from moshi.utils.compile import no_compile
    if precision not in PRECISIONS:
        raise ValueError(f'precision must be one of {PRECISIONS}, got {precision!r}')
    directory.mkdir(parents=True, exist_ok=True)
    lm, mimi = models.lm, models.mimi
    manifest = {'layout': LAYOUT, 'precision': precision, 'dep_q': lm.dep_q,
                'num_codebooks': lm.num_codebooks, 'dim': lm.dim,
                'versions': package_versions(), 'graphs': {}}
    initial: dict[str, np.ndarray] = {}

    def add(name: str, graph: StepGraph, values: tuple, inputs: list[str],
            outputs: list[str]) -> None:
        progress(f'exporting {name} ({len(graph.states)} state tensors, '
                 f'{len(graph.caches)} caches)')
        _single_stream_kv_writes(graph.slots)
        state = graph.initial()
        manifest['graphs'][name] = _export(graph, (*values, *state), inputs, outputs,
                                           directory / f'{name}.onnx')
        for slot, value in zip(graph.slots, state):
            initial[f'{name}/{slot.name}'] = value.cpu().numpy()
        converted = name != 'mimi_encode' if precision == 'int8' else name.startswith(LM_GRAPHS)
        if precision in CONVERT and converted:
            CONVERT[precision](directory / f'{name}.onnx')
        manifest['graphs'][name]['data'] = onnx_files.data_files(directory / f'{name}.onnx')

    with no_compile(), torch.no_grad():
        pcm = torch.zeros(1, 1, FRAME_SAMPLES, device=lm.device)
        # One real pass first: the codebooks cache their embedding lazily, and a cache
        # filled during export would hold a placeholder instead of weights.
        mimi.decode(mimi.encode(pcm))
        with mimi.streaming(1), append_only_caches(mimi):
            slots = find_slots(mimi, ENCODER_PARTS)
            add('mimi_encode', StepGraph(mimi.encode, slots, mimi), (pcm,), ['pcm'], ['codes'])
            codes = torch.zeros(1, lm.dep_q, 1, dtype=torch.long, device=lm.device)
            slots = find_slots(mimi, DECODER_PARTS)
            add('mimi_decode', StepGraph(mimi.decode, slots, mimi), (codes,), ['codes'], ['pcm'])
        with lm.streaming(1), append_only_caches(lm.transformer):
            slots = find_slots(lm.transformer)
            tokens = torch.zeros(1, lm.num_codebooks, 1, dtype=torch.long, device=lm.device)
            condition = torch.zeros(1, 1, lm.dim, dtype=lm.dtype, device=lm.device)
            add('temporal', StepGraph(lm.forward_text, slots, lm),
                (tokens, condition), ['tokens', 'condition_sum'],
                ['transformer_out', 'text_logits'])
        for k in range(lm.dep_q):
            with lm.depformer.streaming(1), append_only_caches(lm.depformer):
                slots = find_slots(lm.depformer)
                set_step_counters(lm.depformer, k)
                token = torch.zeros(1, 1, 1, dtype=torch.long, device=lm.device)
                out = torch.zeros(1, 1, lm.dim, dtype=lm.dtype, device=lm.device)
                add(f'depth_{k}', StepGraph(lambda t, o, k=k: lm.forward_depformer(k, t, o),
                                            slots, lm),
                    (token, out), ['token', 'transformer_out'], ['logits'])
    np.savez(directory / INITIAL_STATE, **initial)
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=1))
    progress(f'wrote {len(manifest["graphs"])} graphs to {directory}')
    return directory
