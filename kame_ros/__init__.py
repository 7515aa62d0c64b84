# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros: the KAME tandem voice agent packaged for ROS 2 robots.

Sub-packages ``audio`` and ``wire`` are the core: plain Python that never
imports rclpy, so engines and tests can use them without a ROS graph.
``ros`` and ``nodes`` are thin adapters that put the core on topics.
"""
