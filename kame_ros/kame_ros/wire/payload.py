# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The one payload protocol of every text topic, and its strict reading of a decoded envelope.

A payload is a frozen dataclass that names the envelope types it travels
as (``TYPES``), says its own type (``event_type``), gives its fields
(``payload()``) and is built back from a decoded envelope
(``from_event``). Every field is read with its declared type: a string
where an int belongs, or a bool where a number belongs, is a ValueError,
which a subscriber counts as a ``bad_payload`` drop (ros/text_io.py). A
``Topic`` names the payload it carries (ros/topics.py).
"""
from dataclasses import fields, MISSING
import types
import typing
from typing import Any, ClassVar, Protocol


class Payload(Protocol):
    """What every text topic's dataclass offers."""

    TYPES: ClassVar[tuple[str, ...]]

    @property
    def event_type(self) -> str:
        """Return the envelope type this value travels as."""

    def payload(self) -> dict[str, Any]:
        """Return the fields that follow the envelope."""

    @classmethod
    def from_event(cls, event: dict[str, Any]) -> 'Payload':
        """Build from a decoded envelope; raises ValueError on a missing or mistyped field."""


def read_fields(cls: type, event: dict[str, Any]) -> dict[str, Any]:
    """Return the dataclass ``cls``'s fields from ``event``, each of its declared type."""
    hints = typing.get_type_hints(cls)
    event_type = event.get('type', cls.__name__)
    values = {}
    for field in fields(cls):
        if field.name not in event:
            if field.default is MISSING and field.default_factory is MISSING:
                raise ValueError(f'{event_type}: missing field {field.name!r}')
            continue
        values[field.name] = checked(event_type, field.name, event[field.name],
                                     hints[field.name])
    return values


def checked(event_type: str, name: str, value: Any, hint: Any) -> Any:
    """Return value if it has the field's type (bool is not an int; an int is a float)."""
    kinds = [typing.get_origin(k) or k for k in typing.get_args(hint)] \
        if isinstance(hint, types.UnionType) else [typing.get_origin(hint) or hint]
    for kind in kinds:
        if isinstance(value, bool) and kind in (int, float):
            continue
        if kind is float and isinstance(value, int):
            return float(value)
        if isinstance(value, kind):
            return value
    raise ValueError(f'{event_type}: field {name!r} is {type(value).__name__}, '
                     f'not {" or ".join(k.__name__ for k in kinds)}')
