# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Streaming speech-to-text core: transcript events and engines (no rclpy)."""
