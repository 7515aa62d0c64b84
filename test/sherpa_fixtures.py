# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
A streaming WeNet-CTC model in the exact ONNX interface sherpa-onnx runs, built by the tests.

No sherpa model ships in any package here, so the tests write one: the
six inputs (features, offset, required_cache_size, attention and conv
caches, attention mask), the three outputs and the metadata sherpa reads.
Its "acoustics" are hand-set instead of trained: each token owns a group
of mel bins and its logit is their mean log energy, while blank has a
fixed logit. A tone therefore decodes to the token of its frequency band
and silence to blank, which makes partials and endpointing predictable.
"""
from pathlib import Path

import numpy as np

MEL_BINS = 80
GROUP = 10
TOKENS = ['<blk>'] + [chr(ord('A') + i) for i in range(MEL_BINS // GROUP)]
CHUNK, LEFT, SUB, RIGHT = 16, 4, 4, 6
HEAD, BLOCKS, OUT, KERNEL = 2, 1, 8, 3


def build_wenet_ctc(directory: Path, blank_logit: float = 2.0,
                    position_limit: int | None = None) -> Path:
    """
    Write model.onnx and tokens.txt; returns the directory.

    ``position_limit`` gives the model a positional table of that many
    entries indexed by ``offset``, like a real WeNet model's fixed-size
    positional encoding: decoding fails in onnxruntime once a stream runs
    past it (a genuine run-time engine failure, for fault drills).
    """
    import onnx
    from onnx import helper, TensorProto
    directory.mkdir(parents=True, exist_ok=True)
    vocab = len(TOKENS)
    weights = np.zeros((MEL_BINS, vocab), np.float32)
    for k in range(1, vocab):
        weights[(k - 1) * GROUP:k * GROUP, k] = 1.0 / GROUP
    bias = np.zeros(vocab, np.float32)
    bias[0] = blank_logit
    cache = CHUNK * LEFT
    inputs = [
        helper.make_tensor_value_info('chunk', TensorProto.FLOAT, [1, 'T', MEL_BINS]),
        helper.make_tensor_value_info('offset', TensorProto.INT64, [1]),
        helper.make_tensor_value_info('required_cache_size', TensorProto.INT64, [1]),
        helper.make_tensor_value_info('att_cache', TensorProto.FLOAT,
                                      [BLOCKS, HEAD, cache, OUT // HEAD * 2]),
        helper.make_tensor_value_info('cnn_cache', TensorProto.FLOAT,
                                      [BLOCKS, 1, OUT, KERNEL - 1]),
        helper.make_tensor_value_info('att_mask', TensorProto.BOOL, [1, 1, cache + CHUNK]),
    ]
    outputs = [
        helper.make_tensor_value_info('log_probs', TensorProto.FLOAT, [1, CHUNK, vocab]),
        helper.make_tensor_value_info('r_att_cache', TensorProto.FLOAT,
                                      [BLOCKS, HEAD, cache, OUT // HEAD * 2]),
        helper.make_tensor_value_info('r_cnn_cache', TensorProto.FLOAT,
                                      [BLOCKS, 1, OUT, KERNEL - 1]),
    ]
    init = [helper.make_tensor('W', TensorProto.FLOAT, weights.shape, weights.flatten()),
            helper.make_tensor('b', TensorProto.FLOAT, bias.shape, bias),
            helper.make_tensor('starts', TensorProto.INT64, [1], [0]),
            helper.make_tensor('ends', TensorProto.INT64, [1], [CHUNK * SUB]),
            helper.make_tensor('axes', TensorProto.INT64, [1], [1]),
            helper.make_tensor('steps', TensorProto.INT64, [1], [SUB])]
    nodes = [
        helper.make_node('Slice', ['chunk', 'starts', 'ends', 'axes', 'steps'], ['sub']),
        helper.make_node('MatMul', ['sub', 'W'], ['mm']),
        helper.make_node('Add', ['mm', 'b'], ['logits' if position_limit is None else 'raw']),
        helper.make_node('LogSoftmax', ['logits'], ['log_probs'], axis=-1),
        helper.make_node('Identity', ['att_cache'], ['r_att_cache']),
        helper.make_node('Identity', ['cnn_cache'], ['r_cnn_cache']),
    ]
    if position_limit is not None:
        init.append(helper.make_tensor('positions', TensorProto.FLOAT, [position_limit],
                                       np.zeros(position_limit, np.float32)))
        nodes[3:3] = [helper.make_node('Gather', ['positions', 'offset'], ['position']),
                      helper.make_node('Add', ['raw', 'position'], ['logits'])]
    graph = helper.make_graph(nodes, 'toy_wenet_ctc', inputs, outputs, init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
    model.ir_version = 8
    meta = {'head': HEAD, 'num_blocks': BLOCKS, 'output_size': OUT,
            'cnn_module_kernel': KERNEL, 'right_context': RIGHT, 'subsampling_factor': SUB,
            'vocab_size': vocab}
    for key, value in meta.items():
        model.metadata_props.add(key=key, value=str(value))
    onnx.checker.check_model(model)
    onnx.save(model, str(directory / 'model.onnx'))
    (directory / 'tokens.txt').write_text(''.join(f'{t} {i}\n' for i, t in enumerate(TOKENS)))
    return directory


def band_tone_hz(token: str) -> float:
    """Return a frequency whose energy falls in the mel bins of ``token`` (16 kHz fbank)."""
    import math
    k = TOKENS.index(token) - 1
    center_bin = k * GROUP + GROUP / 2
    mel_low, mel_high = 1127 * math.log(1 + 20 / 700), 1127 * math.log(1 + 8000 / 700)
    mel = mel_low + (center_bin + 1) * (mel_high - mel_low) / (MEL_BINS + 1)
    return 700 * (math.exp(mel / 1127) - 1)
