# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Declare parameters with descriptions and ranges in one line each.

Every parameter a kame_ros node reads is declared through here so that
``ros2 param describe`` always explains it and out-of-range values set at
run time are refused by rcl instead of reaching the audio loop.
"""
from typing import Any, TypeVar

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor
from rclpy.exceptions import ParameterUninitializedException
from rclpy.node import Node
from rclpy.parameter import Parameter

from kame_ros.settings import specs

Settings = TypeVar('Settings')


def declare(node: Node, name: str, default: Any, description: str,
            low: float | None = None, high: float | None = None,
            read_only: bool = False) -> Any:
    """
    Declare ``name`` and return its value (from YAML/CLI or the default).

    Calling it again for a declared parameter just returns the current
    value: a lifecycle node runs the same declarations in ``__init__`` (so
    ``ros2 param`` shows them at once) and again in ``on_configure`` (to read
    what was set meanwhile).
    """
    if node.has_parameter(name):
        return node.get_parameter(name).value
    descriptor = ParameterDescriptor(description=description, read_only=read_only)
    if low is not None and high is not None:
        if isinstance(default, bool):
            raise TypeError(f'{name}: ranges make no sense for bool')
        if isinstance(default, int):
            descriptor.integer_range = [IntegerRange(from_value=int(low), to_value=int(high),
                                                     step=1)]
        else:
            descriptor.floating_point_range = [FloatingPointRange(
                from_value=float(low), to_value=float(high), step=0.0)]
    return node.declare_parameter(name, default, descriptor).value


def declare_strings(node: Node, name: str, description: str) -> list[str]:
    """
    Declare a string-array parameter that may be left unset (then ``[]``).

    An empty list default would be typed as a byte array by rclpy and
    refuse the YAML's list of strings, so the type is declared explicitly;
    an unset one is then given an empty string array, so that ``ros2 param
    get/dump`` always have a value to show.
    """
    if not node.has_parameter(name):
        node.declare_parameter(name, Parameter.Type.STRING_ARRAY,
                               ParameterDescriptor(description=description))
    try:
        return list(node.get_parameter(name).value)
    except ParameterUninitializedException:
        node.set_parameters([Parameter(name, Parameter.Type.STRING_ARRAY, [])])
        return []


def declare_settings(node: Node, config: type[Settings]) -> Settings:
    """
    Declare one parameter per field of a settings dataclass and return the values read.

    Default, description and range come from the field (kame_ros.settings),
    so they are stated once; a field's choices are named in its description
    and checked by ``settings.check`` when the node configures.
    """
    values = {}
    for f, spec in specs(config):
        described = spec.description
        if spec.choices:
            described += f' (one of: {", ".join(spec.choices)})'
        values[f.name] = declare(node, f.name, f.default, described, spec.low, spec.high)
    return config(**values)
