# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The core (audio, wire) must work without ROS: importing it never loads rclpy."""
from pathlib import Path
import subprocess
import sys

ROOT = Path(__file__).resolve().parents[1]


def test_core_modules_do_not_import_rclpy():
    core = sorted('kame_ros.' + '.'.join(p.relative_to(ROOT / 'kame_ros').with_suffix('').parts)
                  for d in ('audio', 'wire') for p in (ROOT / 'kame_ros' / d).glob('*.py')
                  if p.name != '__init__.py')
    assert len(core) >= 8
    code = ('import importlib, sys\n'
            f'for m in {core!r}: importlib.import_module(m)\n'
            'bad = [m for m in sys.modules if m.split(".")[0] in ("rclpy", "rcl_interfaces")]\n'
            'print(",".join(bad))\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == '', f'core imported ROS modules: {out.stdout}'
