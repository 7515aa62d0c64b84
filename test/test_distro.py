# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
One package on Jazzy and Kilted.

Setup picks the distribution, the venv records it, and the code asks
kame_ros.ros.distro (not rclpy's version) where the two differ.
"""
from importlib import metadata
import os
from pathlib import Path
import subprocess

import pytest

from kame_ros.ros.distro import bag_typestore, running_distro, SUPPORTED

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.ros
RCLPY_MAJOR = {'jazzy': 7, 'kilted': 9}


def test_the_venv_runs_the_distribution_it_records():
    """scripts/env.sh exports the recorded choice; the installed rclpy must be that one's."""
    record = Path(os.environ.get('VIRTUAL_ENV', '/nonexistent')) / 'kame_ros_distro'
    if not record.is_file():
        pytest.skip('not in a venv made by scripts/setup.sh (a robot sources its own ROS)')
    recorded = record.read_text().strip()
    assert recorded in SUPPORTED
    assert os.environ['ROS_DISTRO'] == recorded == running_distro()
    assert int(metadata.version('ros-rclpy').split('.')[0]) == RCLPY_MAJOR[recorded]


def test_without_ros_distro_the_rclpy_wheel_tells(monkeypatch):
    expected = os.environ.get('ROS_DISTRO')
    if expected not in RCLPY_MAJOR:
        pytest.skip('ROS_DISTRO does not name a distribution with rclpy wheels here')
    monkeypatch.delenv('ROS_DISTRO')
    assert running_distro() == expected


def test_bags_take_the_running_distributions_type_store(monkeypatch):
    # Kilted added nav_msgs/msg/Goals; Jazzy does not have it.
    monkeypatch.setenv('ROS_DISTRO', 'kilted')
    assert 'nav_msgs/msg/Goals' in bag_typestore().fielddefs
    monkeypatch.setenv('ROS_DISTRO', 'jazzy')
    assert 'nav_msgs/msg/Goals' not in bag_typestore().fielddefs
    monkeypatch.setenv('ROS_DISTRO', 'humble')  # no type description interfaces before Iron
    assert 'type_description_interfaces/msg/Field' not in bag_typestore().fielddefs
    monkeypatch.setenv('ROS_DISTRO', 'some-future-distro')
    assert 'nav_msgs/msg/Goals' in bag_typestore().fielddefs, 'the newest store stands in'


@pytest.mark.parametrize('value', ['humble', 'Jazzy', 'rolling', ' '])
def test_setup_refuses_an_unknown_distribution_before_installing_anything(tmp_path, value):
    venv = tmp_path / 'venv'
    env = {**os.environ, 'KAME_ROS_DISTRO': value, 'KAME_VENV': str(venv)}
    result = subprocess.run(['bash', 'scripts/setup.sh'], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert result.stdout == ''
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and f"unknown KAME_ROS_DISTRO '{value}'" in lines[0], lines
    assert 'jazzy' in lines[0] and 'kilted' in lines[0]
    assert not venv.exists()


def test_env_script_exports_the_recorded_distribution(tmp_path):
    venv = tmp_path / 'venv'
    venv.mkdir()
    (venv / 'kame_ros_distro').write_text('kilted\n')
    show = 'source scripts/env.sh && echo "$ROS_DISTRO $VIRTUAL_ENV"'
    env = {**os.environ, 'KAME_VENV': str(venv)}
    out = subprocess.run(['bash', '-c', show], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ['kilted', str(venv)]
