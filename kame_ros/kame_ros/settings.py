# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Engine settings stated once: a dataclass field carries its default, description and range.

An engine's settings are a frozen dataclass next to the engine (``SttConfig``,
``BackendConfig``, ``FrontEndConfig``, ``SchedulerConfig``); its node declares
one ROS parameter per field from that field (``ros/params.declare_settings``),
and the launch file takes its choices from the same fields. So a default,
a range or the list of engines is written in one place, and the node, the
launch file and a test that builds the engine directly cannot disagree.
"""
from dataclasses import dataclass, Field, field, fields, MISSING
from typing import Any


@dataclass(frozen=True)
class Spec:
    """What a parameter needs besides its default: why it exists and what it accepts."""

    description: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()


def setting(default: Any, description: str, low: float | None = None,
            high: float | None = None, choices: tuple[str, ...] = ()) -> Any:
    """Return a dataclass field with its default and its ``Spec``."""
    if choices and default not in choices:
        raise ValueError(f'default {default!r} is not one of {choices}')
    return field(default=default, metadata={'spec': Spec(description, low, high, choices)})


def specs(config: type) -> list[tuple[Field, Spec]]:
    """Return every field of a settings dataclass with its Spec (a field without one fails)."""
    found = []
    for f in fields(config):
        if 'spec' not in f.metadata or f.default is MISSING:
            raise TypeError(f'{config.__name__}.{f.name} is not declared with setting()')
        found.append((f, f.metadata['spec']))
    return found


def choices(config: type, name: str) -> tuple[str, ...]:
    """Return the values a field accepts (the launch file's choices)."""
    return next(spec.choices for f, spec in specs(config) if f.name == name)


def check(config: Any) -> None:
    """Raise ValueError naming the first field outside its choices or range."""
    for f, spec in specs(type(config)):
        value = getattr(config, f.name)
        if spec.choices and value not in spec.choices:
            raise ValueError(f'{f.name} must be one of {", ".join(spec.choices)}, '
                             f'got {value!r}')
        if spec.low is not None and not spec.low <= value <= spec.high:
            raise ValueError(f'{f.name} must be in [{spec.low}, {spec.high}], got {value!r}')
