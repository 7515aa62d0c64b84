# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The front-end's per-frame graphs exported to ONNX, and the runtime that runs them."""
