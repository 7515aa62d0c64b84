# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Moshi's streaming state made explicit: every state tensor as a named graph input and output.

moshi keeps streaming state (KV caches, offsets, convolution tails) in
Python objects next to its modules, all as tensors so that CUDA graphs can
replay a step. That same property lets a step be exported: a ``Slot``
points at one state tensor; during export it is replaced by a graph input
and read back, updated, as a graph output. Nothing in moshi is forked.
"""
from dataclasses import dataclass, fields

import torch


@dataclass(frozen=True)
class Slot:
    """One state tensor: its name and the object attribute that holds it."""

    name: str
    owner: object
    attr: str

    def get(self) -> torch.Tensor:
        """Return the tensor now held by the state."""
        return getattr(self.owner, self.attr)

    def put(self, value: torch.Tensor) -> None:
        """Put ``value`` in its place."""
        setattr(self.owner, self.attr, value)


def find_slots(root: torch.nn.Module, prefixes: tuple[str, ...] = ('',)) -> list[Slot]:
    """Return the state tensors of streaming submodules whose path starts with a prefix."""
    from moshi.modules.streaming import StreamingModule
    from moshi.modules.transformer import RingKVCache
    slots: list[Slot] = []
    for path, module in root.named_modules():
        if not path.startswith(prefixes) or not isinstance(module, StreamingModule):
            continue
        state = module._streaming_state
        if state is None:
            continue
        for f in fields(state):
            value = getattr(state, f.name)
            if isinstance(value, torch.Tensor):
                slots.append(Slot(f'{path}.{f.name}', state, f.name))
            elif isinstance(value, RingKVCache):
                slots += [Slot(f'{path}.{f.name}.cache', value, 'cache'),
                          Slot(f'{path}.{f.name}.end_offset', value, 'end_offset')]
    return slots


def set_step_counters(root: torch.nn.Module, step: int) -> None:
    """
    Set moshi's host-side step counters (``offset_cpu``) to ``step``.

    They pick per-step weights in the depth transformer; a graph exported
    for codebook ``step`` bakes that choice in, one graph per codebook.
    """
    for module in root.modules():
        state = getattr(module, '_streaming_state', None)
        if state is not None and hasattr(state, 'offset_cpu'):
            state.offset_cpu = step


class StepGraph(torch.nn.Module):
    """A step function with its state slots as extra inputs and outputs (for export)."""

    def __init__(self, step, slots: list[Slot], holder: torch.nn.Module) -> None:
        """``holder`` owns the weights ``step`` uses (so export sees them as parameters)."""
        super().__init__()
        self.step = step
        self.slots = slots
        self.holder = holder

    def forward(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """Bind state inputs, run the step, return its outputs then the new state."""
        n = len(inputs) - len(self.slots)
        for slot, value in zip(self.slots, inputs[n:]):
            slot.put(value.clone())
        outputs = self.step(*inputs[:n])
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        return tuple(outputs) + tuple(slot.get() for slot in self.slots)
