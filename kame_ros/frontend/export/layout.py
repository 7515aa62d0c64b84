# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
What an export directory holds, and the error for one that is wrong.

Kept apart from the exporter so that the runtime (and the frontend node,
which names the error) can be imported without onnx and torch's exporter.
"""

MANIFEST = 'manifest.json'
INITIAL_STATE = 'initial_state.npz'
# 2: KV caches are read-only inputs and each step outputs its new entry (attention.py).
# A directory of another layout is exported again rather than run the old, copying way.
LAYOUT = 2


class ExportError(RuntimeError):
    """The exported directory is missing, incomplete or does not load."""
