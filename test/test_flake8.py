# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""ROS-style flake8 (ament_flake8's configuration) over the whole package."""
from pathlib import Path

from ament_flake8.main import main_with_errors
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.linter
def test_flake8():
    config = str(Path(__file__).with_name('flake8.ini'))
    paths = [str(ROOT / d) for d in ('kame_ros', 'test')]
    rc, errors = main_with_errors(argv=['--config', config, *paths])
    assert rc == 0, f'{len(errors)} flake8 error(s):\n' + '\n'.join(errors)
