# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The core works without ROS: importing any module of it never loads rclpy or a ROS message.

The core is every layer below ``ros/`` (test_layers.py): audio, wire, stt,
oracle, frontend, agent, sub-packages included. A robot stack that embeds
the engines in its own process, or a test on a machine without ROS, needs
exactly this.
"""
from pathlib import Path
import subprocess
import sys

ROOT = Path(__file__).resolve().parents[1]
CORE = ('audio', 'wire', 'stt', 'oracle', 'frontend', 'agent')
ROS_PACKAGES = ('rclpy', 'rcl_interfaces', 'std_msgs', 'sensor_msgs', 'diagnostic_msgs',
                'std_srvs', 'builtin_interfaces')


def core_modules() -> list[str]:
    return sorted('kame_ros.' + '.'.join(p.relative_to(ROOT / 'kame_ros').with_suffix('').parts)
                  for d in CORE for p in (ROOT / 'kame_ros' / d).rglob('*.py')
                  if p.name != '__init__.py')


def test_core_modules_do_not_import_ros():
    core = core_modules()
    assert {m.split('.')[1] for m in core} == set(CORE)
    assert 'kame_ros.oracle.backends.llama' in core and 'kame_ros.frontend.export.runtime' in core
    code = ('import importlib, sys\n'
            f'for m in {core!r}: importlib.import_module(m)\n'
            f'bad = [m for m in sys.modules if m.split(".")[0] in {ROS_PACKAGES!r}]\n'
            'print(",".join(bad))\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == '', f'core imported ROS modules: {out.stdout}'


# Types that cross layers, and the implementations their users must not be made to load.
SHARED_TYPES = ['kame_ros.audio.frames', 'kame_ros.audio.levels', 'kame_ros.wire.text',
                'kame_ros.wire.messages', 'kame_ros.stt.events', 'kame_ros.stt.errors',
                'kame_ros.oracle.events', 'kame_ros.frontend.engine', 'kame_ros.agent.timeline']
IMPLEMENTATIONS = ('torch', 'moshi', 'transformers', 'llama_cpp', 'sherpa_onnx',
                   'faster_whisper', 'onnxruntime', 'hibari', 'matplotlib')


def test_shared_types_pull_in_no_implementation():
    code = ('import importlib, sys\n'
            f'for m in {SHARED_TYPES!r}: importlib.import_module(m)\n'
            f'bad = {{m.split(".")[0] for m in sys.modules}} & set({IMPLEMENTATIONS!r})\n'
            'print(",".join(sorted(bad)))\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == '', f'shared types loaded implementations: {out.stdout}'
