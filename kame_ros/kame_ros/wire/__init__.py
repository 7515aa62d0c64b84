# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Wire formats of kame_ros topics, independent of rclpy.

Only message types from core ROS 2 packages are used (no interface package
to build), so the metadata a robot needs to measure latency and loss, a
capture timestamp and a per-publisher sequence number, is carried inside
those messages in a documented, versioned way: docs/topics.md.
"""
