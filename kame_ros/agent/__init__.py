# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Whole-agent runs: the conversation timeline, its table and plot (core, no rclpy)."""
