# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Moshi's streaming state made explicit: every state tensor as a named graph input and output.

moshi keeps streaming state (KV caches, offsets, convolution tails) in
Python objects next to its modules, all as tensors so that CUDA graphs can
replay a step. That same property lets a step be exported: a ``Slot``
points at one state tensor; during export it is replaced by a graph input
and read back, updated, as a graph output. A cache slot (the keys or the
values of an ``AppendKVCache``) is only read: the graph outputs its new
entry and the entry's index instead, so the runtime can write one entry
in place rather than copy the cache. Nothing in moshi is forked.
"""
from dataclasses import dataclass, fields

import torch

from kame_ros.frontend.moshi_internals import streaming_state


@dataclass(frozen=True)
class Slot:
    """One state tensor: its name and the object attribute that holds it."""

    name: str
    owner: object
    attr: str
    cache: bool = False

    def get(self) -> torch.Tensor:
        """Return the tensor now held by the state."""
        return getattr(self.owner, self.attr)

    def put(self, value: torch.Tensor) -> None:
        """Put ``value`` in its place."""
        setattr(self.owner, self.attr, value)

    def appended(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Return a cache slot's new entry and the index it goes to (after a step)."""
        return getattr(self.owner, f'new_{self.attr}'), self.owner.index


def find_slots(root: torch.nn.Module, prefixes: tuple[str, ...] = ('',)) -> list[Slot]:
    """Return the state tensors of streaming submodules whose path starts with a prefix."""
    from moshi.modules.streaming import StreamingModule
    from moshi.modules.transformer import RingKVCache

    from kame_ros.frontend.export.attention import AppendKVCache
    slots: list[Slot] = []
    for path, module in root.named_modules():
        if not path.startswith(prefixes) or not isinstance(module, StreamingModule):
            continue
        state = streaming_state(module)
        if state is None:
            continue
        for f in fields(state):
            value = getattr(state, f.name)
            if isinstance(value, torch.Tensor):
                slots.append(Slot(f'{path}.{f.name}', state, f.name))
            elif isinstance(value, RingKVCache):
                slots += [Slot(f'{path}.{f.name}.cache', value, 'cache'),
                          Slot(f'{path}.{f.name}.end_offset', value, 'end_offset')]
            elif isinstance(value, AppendKVCache):
                slots += [Slot(f'{path}.{f.name}.end_offset', value, 'end_offset'),
                          Slot(f'{path}.{f.name}.keys', value, 'keys', cache=True),
                          Slot(f'{path}.{f.name}.values', value, 'values', cache=True)]
    return slots


def set_step_counters(root: torch.nn.Module, step: int) -> None:
    """
    Set moshi's host-side step counters (``offset_cpu``) to ``step``.

    They pick per-step weights in the depth transformer; a graph exported
    for codebook ``step`` bakes that choice in, one graph per codebook.
    """
    for module in root.modules():
        state = streaming_state(module)
        if state is not None and hasattr(state, 'offset_cpu'):
            state.offset_cpu = step


class StepGraph(torch.nn.Module):
    """
    A step function with its state as extra inputs and outputs (for export).

    Inputs: the step's own, then the state slots, then the cache slots.
    Outputs: the step's own, the new state, then per cache slot its new
    entry and that entry's index.
    """

    def __init__(self, step, slots: list[Slot], holder: torch.nn.Module) -> None:
        """``holder`` owns the weights ``step`` uses (so export sees them as parameters)."""
        super().__init__()
        self.step = step
        self.states = [s for s in slots if not s.cache]
        self.caches = [s for s in slots if s.cache]
        self.holder = holder

    @property
    def slots(self) -> list[Slot]:
        """Every slot in input order: state, then caches."""
        return self.states + self.caches

    def initial(self) -> list[torch.Tensor]:
        """Return a copy of what every slot holds now (a fresh stream's state), in input order."""
        return [s.get().clone() for s in self.slots]

    def forward(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """Bind the state, run the step, return its outputs, the new state, the cache entries."""
        n = len(inputs) - len(self.slots)
        for slot, value in zip(self.states, inputs[n:]):
            slot.put(value.clone())
        for slot, value in zip(self.caches, inputs[n + len(self.states):]):
            slot.put(value)  # read only: the step writes its entry elsewhere
        outputs = self.step(*inputs[:n])
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        appended = tuple(t for slot in self.caches for t in slot.appended())
        return tuple(outputs) + tuple(slot.get() for slot in self.states) + appended
