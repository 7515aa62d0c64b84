# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Command-line tools that run whole agents: the main job and the evaluation."""
