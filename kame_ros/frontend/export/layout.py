# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
What an export directory holds, and the error for one that is wrong.

Kept apart from the exporter so that the runtime (and the frontend node,
which names the error) can be imported without onnx and torch's exporter.
"""

MANIFEST = 'manifest.json'
INITIAL_STATE = 'initial_state.npz'


class ExportError(RuntimeError):
    """The exported directory is missing, incomplete or does not load."""
