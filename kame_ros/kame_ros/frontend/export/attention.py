# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Streaming attention for export: the KV cache is read in place and only the new entry comes out.

An ONNX graph cannot write into its input, so moshi's in-place ring write
(``index_copy_`` into the cache, then attention over the cache) exports
as copies of the whole cache: a gather, a scatter, a concatenation, a
transpose and a scaled copy of the keys, per layer and step, about ten
copies of the cache where torch makes none. At Moshi 7B's 1.5 GB cache that is
the whole per-frame budget in memory traffic.

While a step is exported, each self-attention with a ring cache gets an
``AppendKVCache`` and a forward that attends in two parts: the cache as it
stands (the slots about to be overwritten masked out) and the step's own
keys and values (one per LM step, two per Mimi transformer step). The
graph reads the cache and outputs the new entries and the slots they
belong in; the runtime writes them into the cache on its device. The
result is moshi's attention: the same positions, the same mask
(``context`` and "never written"), the same softmax over the same
entries; only the order of the sum differs.
"""
from contextlib import contextmanager
from typing import Iterator

import torch

from kame_ros.frontend.moshi_internals import streaming_state


class AppendKVCache:
    """A ring cache split into keys and values that a step only reads, plus its new entries."""

    def __init__(self, keys: torch.Tensor, values: torch.Tensor,
                 end_offset: torch.Tensor) -> None:
        """Take a moshi ``RingKVCache``'s contents: keys, values ``[B, H, capacity, D]``."""
        self.keys = keys
        self.values = values
        self.end_offset = end_offset
        self.new_keys = self.new_values = self.index = None

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, offset: torch.Tensor,
               context: int | None) -> torch.Tensor:
        """Attend over the cache and the new entries; keep the entries and their slots."""
        capacity, steps = self.keys.shape[2], q.shape[2]
        slots = torch.arange(capacity, device=q.device)
        new = self.end_offset + torch.arange(steps, device=q.device)
        # Each slot holds the latest position p < end_offset with p = slot (mod capacity);
        # the slots the new entries take (moshi's ring write) are left out.
        previous = self.end_offset - 1
        positions = torch.cat([previous - (previous - slots) % capacity, new])
        overwritten = (slots - self.end_offset) % capacity < steps
        queries = offset.view(-1, 1, 1) + torch.arange(steps, device=q.device).view(-1, 1)
        delta = queries - positions
        allowed = (positions >= 0) & (delta >= 0)
        if context is not None:
            allowed = allowed & (delta < context)
        allowed = allowed & ~torch.cat([overwritten, torch.zeros_like(new, dtype=torch.bool)])
        scale = q.shape[-1] ** -0.5
        scores = torch.cat([torch.matmul(q, self.keys.transpose(-1, -2)),
                            torch.matmul(q, k.transpose(-1, -2))], dim=-1) * scale
        scores = scores.masked_fill(~allowed[:, None], float('-inf'))
        weights = torch.softmax(scores, dim=-1)
        out = (torch.matmul(weights[..., :capacity], self.values)
               + torch.matmul(weights[..., capacity:], v))
        self.new_keys, self.new_values, self.index = k, v, new % capacity
        self.end_offset = self.end_offset + steps
        return out


def _forward(module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor):
    """Moshi's self-attention step (projections, RoPE, weights per step), two-part attention."""
    from moshi.modules.transformer import apply_weights_per_step
    state = streaming_state(module)
    batch, steps = query.shape[:2]
    heads = module.num_heads
    projected = apply_weights_per_step(module.in_projs, module.weights_per_step_schedule, query,
                                       state.offset_cpu)
    q, k, v = projected.view(batch, steps, 3, heads, -1).permute(2, 0, 3, 1, 4)
    if module.rope:
        q, k = module.rope(q, k, state.offset, time_before_heads=False)
    x = state.kv_cache.attend(q, k, v, state.offset, module.context)
    x = x.permute(0, 2, 1, 3).reshape(batch, steps, -1)
    x = apply_weights_per_step(module.out_projs, module.weights_per_step_schedule, x,
                               state.offset_cpu)
    state.offset[:] = torch.where(state.exec_mask, state.offset + steps, state.offset)
    state.offset_cpu += steps
    return x


def _eligible(module) -> bool:
    """Causal self-attention with a ring cache and a KV head per query head (Moshi, Mimi)."""
    from moshi.modules.transformer import RingKVCache, StreamingMultiheadAttention
    state = streaming_state(module)
    return (isinstance(module, StreamingMultiheadAttention) and state is not None
            and isinstance(state.kv_cache, RingKVCache) and not module.cross_attention
            and module.causal and module.kv_repeat == 1)


@contextmanager
def append_only_caches(root: torch.nn.Module) -> Iterator[None]:
    """
    Give every eligible attention under ``root`` an ``AppendKVCache`` and the two-part forward.

    Inside a ``streaming()`` context, around an export; both are put back
    on exit, so the torch front-end is unchanged.
    """
    patched = []
    for module in root.modules():
        if not _eligible(module):
            continue
        state = streaming_state(module)
        ring = state.kv_cache
        patched.append((module, state, ring))
        state.kv_cache = AppendKVCache(ring.cache[0].clone(), ring.cache[1].clone(),
                                       ring.end_offset.clone())
        module.forward = _forward.__get__(module)
    try:
        yield
    finally:
        for module, state, ring in patched:
            state.kv_cache = ring
            del module.forward
