# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""ROS 2 adapters: topic conventions, parameters, diagnostics, node running."""
