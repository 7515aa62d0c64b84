# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The core works without ROS: importing any module of it never loads rclpy or a ROS message.

The core is every layer below ``ros/`` (test_layers.py): audio, wire, stt,
oracle, frontend, records, sub-packages included, and the modules words,
storage, models, settings and worker_thread. A robot stack that embeds
the engines in its own process, or a test on a machine without ROS, needs
exactly this.
"""
from pathlib import Path
import subprocess
import sys

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / 'kame_ros' / 'kame_ros'  # the Python package inside the ROS package
CORE = ('audio', 'wire', 'stt', 'oracle', 'frontend', 'records')
CORE_MODULES = ('words', 'storage', 'models', 'settings', 'worker_thread')
ROS_PACKAGES = ('rclpy', 'rcl_interfaces', 'std_msgs', 'sensor_msgs', 'diagnostic_msgs',
                'std_srvs', 'builtin_interfaces')


def core_modules() -> list[str]:
    return sorted('kame_ros.' + '.'.join(p.relative_to(SOURCES).with_suffix('').parts)
                  for d in CORE for p in (SOURCES / d).rglob('*.py')
                  if p.name != '__init__.py') + [f'kame_ros.{m}' for m in CORE_MODULES]


def loaded_packages(modules: list[str], packages: tuple[str, ...]) -> str:
    """Import ``modules`` in a fresh interpreter; return which of ``packages`` got loaded."""
    code = ('import importlib, sys\n'
            f'for m in {modules!r}: importlib.import_module(m)\n'
            f'bad = {{m.split(".")[0] for m in sys.modules}} & set({packages!r})\n'
            'print(",".join(sorted(bad)))\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    return out.stdout.strip()


def test_core_modules_do_not_import_ros():
    core = core_modules()
    assert {m.split('.')[1] for m in core} == set(CORE) | set(CORE_MODULES)
    assert 'kame_ros.oracle.backends.llama' in core and 'kame_ros.frontend.export.runtime' in core
    bad = loaded_packages(core, ROS_PACKAGES)
    assert bad == '', f'core imported ROS modules: {bad}'


# Types that cross layers, and the implementations their users must not be made to load.
SHARED_TYPES = ['kame_ros.audio.frames', 'kame_ros.audio.levels', 'kame_ros.wire.audio',
                'kame_ros.wire.messages', 'kame_ros.stt.events', 'kame_ros.stt.errors',
                'kame_ros.oracle.events', 'kame_ros.frontend.engine', 'kame_ros.records.timeline',
                'kame_ros.frontend.conversation']
IMPLEMENTATIONS = ('torch', 'moshi', 'transformers', 'llama_cpp', 'sherpa_onnx',
                   'faster_whisper', 'onnxruntime', 'hibari', 'matplotlib')


def test_shared_types_pull_in_no_implementation():
    bad = loaded_packages(SHARED_TYPES, IMPLEMENTATIONS)
    assert bad == '', f'shared types loaded implementations: {bad}'
