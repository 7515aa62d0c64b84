# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The speech front-end: Moshi/KAME stepping 80 ms frames, fed by the oracle stream."""
