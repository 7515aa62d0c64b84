# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
What an export directory holds, and the error for one that is wrong.

Kept apart from the exporter so that the runtime (and the frontend node,
which names the error) can be imported without onnx and torch's exporter.
"""

from dataclasses import dataclass
from importlib import metadata

MANIFEST = 'manifest.json'
INITIAL_STATE = 'initial_state.npz'
# 2: KV caches are read-only inputs and each step outputs its new entry (attention.py).
# A directory of another layout is exported again rather than run the old, copying way.
LAYOUT = 2
# fp32; int8: dynamic int8 (weights and activations, CPU); fp16: the LM graphs converted to
# float16 (inputs, outputs and state stay float32 at the graph boundary); int8w: weight-only
# int8 for the LM graphs (MatMulNBits, 8 bits, a scale per block of 32; activations float).
PRECISIONS = ('fp32', 'int8', 'fp16', 'int8w')
# The packages whose versions shape the exported graphs (torch's exporter, moshi's modules,
# onnxscript, onnx, onnx-ir) or their numerics (onnxruntime, numpy): pinned in what CI
# installs, written into the manifest, compared when an export is loaded.
EXPORT_PACKAGES = ('torch', 'moshi', 'onnxscript', 'onnx', 'onnx-ir', 'onnxruntime', 'numpy')
_DISTRIBUTIONS = {'onnxruntime': ('onnxruntime', 'onnxruntime-gpu')}


class ExportError(RuntimeError):
    """The exported directory is missing, incomplete or does not load."""


@dataclass(frozen=True)
class BoundaryNames:
    """
    The ONNX names of a step graph's state and KV-cache inputs and outputs.

    Spelled here once: the exporter gives the graph these names and the
    runtime binds its buffers by them, rebuilt from the manifest entry.
    """

    state_in: list[str]
    state_out: list[str]
    cache_in: list[str]
    # Per cache, its new entries then their slots: cache_new.<name>, cache_at.<name>.
    appended: list[str]

    @classmethod
    def of(cls, state: list[str], caches: list[str]) -> 'BoundaryNames':
        """Name the boundary of a graph with these state and cache slots."""
        return cls(state_in=[f'state_in.{n}' for n in state],
                   state_out=[f'state_out.{n}' for n in state],
                   cache_in=[f'cache_in.{n}' for n in caches],
                   appended=[f'{kind}.{n}' for n in caches for kind in ('cache_new', 'cache_at')])


def package_versions() -> dict[str, str | None]:
    """Return the installed version of each of ``EXPORT_PACKAGES`` (None: not installed)."""
    found: dict[str, str | None] = {}
    for package in EXPORT_PACKAGES:
        found[package] = None
        for distribution in _DISTRIBUTIONS.get(package, (package,)):
            try:
                found[package] = metadata.version(distribution)
                break
            except metadata.PackageNotFoundError:
                continue
    return found


def version_mismatch(recorded: dict | None) -> str | None:
    """Say in one line which export packages differ from those ``recorded``; None if none."""
    recorded = recorded or {}
    now = package_versions()
    changed = [p for p in EXPORT_PACKAGES if recorded.get(p) != now[p]]
    if not changed:
        return None
    return ('exported with ' + ', '.join(f'{p} {recorded.get(p, "unrecorded")}' for p in changed)
            + '; this machine has ' + ', '.join(f'{p} {now[p]}' for p in changed)
            + ': export again (kame_ros_export_frontend) if the front-end misbehaves')
