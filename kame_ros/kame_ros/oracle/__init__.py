# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The KAME back-end: an LLM that keeps re-predicting the reply as the user speaks."""
