# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The STT's one error type, shared by every engine and the node (no engine imported)."""


class SttError(RuntimeError):
    """An STT engine cannot load its model (clear, user-facing message)."""
