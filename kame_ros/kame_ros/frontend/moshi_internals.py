# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The one place kame_ros reaches into moshi's private layout.

moshi exports no API for two things kame_ros needs: a streaming module's
state (KAME adds its oracle sum to the LM's state; the ONNX export reads
and rebinds every state tensor) and the configurations of Moshi 7B and
Mimi (the tiny test models and the memory benchmark are built from them).
Both are private, so a moshi release may move them; every use goes
through here, and ``check_layout`` (run by test_moshi_internals.py) says
what moved in one line instead of an AttributeError deep in an export.
"""
from typing import Any

STATE_ATTRIBUTE = '_streaming_state'


class MoshiLayoutError(RuntimeError):
    """The installed moshi does not have the private layout kame_ros was written against."""


def streaming_state(module: Any) -> Any | None:
    """Return a module's streaming state: None outside ``streaming()`` or for a plain module."""
    return getattr(module, STATE_ATTRIBUTE, None)


def config(name: str) -> dict:
    """Return a copy of one of moshi's built-in configurations: lm, mimi, seanet, ... ."""
    try:
        return dict(_configs()[name])
    except AttributeError as err:  # the installed moshi moved it
        raise MoshiLayoutError(_moved(str(err))) from err


def _configs() -> dict[str, dict]:
    """Read moshi's private configurations where moshi 0.2 keeps them."""
    from moshi.models import loaders
    return {'lm': loaders._lm_kwargs, 'mimi': loaders._mimi_config,
            'seanet': loaders._seanet_kwargs, 'transformer': loaders._transformer_kwargs,
            'quantizer': loaders._quantizer_kwargs}


def check_layout() -> None:
    """Raise MoshiLayoutError naming what the installed moshi no longer has."""
    import moshi
    from moshi.modules.streaming import StreamingModule
    try:
        _configs()
    except AttributeError as err:
        raise MoshiLayoutError(_moved(str(err), moshi.__version__)) from err
    # Read from the constructor's code: nothing is built.
    if STATE_ATTRIBUTE not in StreamingModule.__init__.__code__.co_names:
        raise MoshiLayoutError(_moved(f'StreamingModule.{STATE_ATTRIBUTE}', moshi.__version__))


def _moved(what: str, version: str = '') -> str:
    found = f' (moshi {version})' if version else ''
    return (f'the installed moshi{found} does not match kame_ros ({what}): kame_ros reaches '
            "into moshi's private layout (kame_ros/frontend/moshi_internals.py); install the "
            'moshi version scripts/setup.sh pins')
