# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Audio core: 80 ms Mimi frames, conversion, resampling, jitter buffer, WAV I/O."""
