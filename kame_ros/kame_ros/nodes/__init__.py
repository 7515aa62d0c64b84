# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""kame_ros nodes: thin ROS adapters over the core, one module per executable."""
