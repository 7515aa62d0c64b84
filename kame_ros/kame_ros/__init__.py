# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros: the KAME tandem voice agent packaged for ROS 2 robots.

The core never imports rclpy, so engines and tests use it without a ROS
graph: ``audio`` (frames, WAV, resampling, echo), ``wire`` (the values
every topic carries, what a received frame must be), ``settings``, ``models``, ``storage``,
``words`` and ``worker_thread`` at the bottom; above them the three wings,
``stt``, ``oracle`` and ``frontend``, each with its engine contract, its
settings and a factory, and ``records`` (a run's timeline and answer
ledger). ``ros`` puts the core on topics; ``nodes`` and ``behaviours`` are
the ROS programs; ``tools`` and ``bench`` are the command lines. The map,
with how a microphone frame and a final transcript travel: docs/architecture.md.
"""
