# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""ROS-style docstring checks (ament_pep257) over the package sources."""
from pathlib import Path

from ament_pep257.main import main
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.linter
def test_pep257():
    rc = main(argv=[str(ROOT / 'kame_ros' / 'kame_ros'), str(ROOT / 'kame_ros' / 'launch')])
    assert rc == 0, 'pep257 found docstring problems (see output above)'
