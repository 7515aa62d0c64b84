# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Benchmarks: commands that print a table (median, p99, ratio to a baseline) and a plot."""
