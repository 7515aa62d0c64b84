# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""LLM backends behind one streaming, cancellable interface."""
