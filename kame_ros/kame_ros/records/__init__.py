# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Records of agent runs: the timeline (table, plot) and the answer ledger (core, no rclpy)."""
