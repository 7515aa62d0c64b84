# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Humble on paper, checked where it can be: the package under Python 3.10.

ROS 2 Humble (Ubuntu 22.04, JetPack 6 on a Jetson) runs Python 3.10 and no
Humble wheels exist here, so this is the part of Humble support a machine
without Humble can check: every module compiles under 3.10, and the core
(no rclpy) imports and works there. docs/robot.md lists the ROS features the
nodes use and whether Humble has each.
"""
import glob
import os
from pathlib import Path
import shutil
import subprocess

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / 'kame_ros' / 'kame_ros'  # the Python package inside the ROS package
# The core's types that cross layers, and the plain-Python pieces the nodes are built on.
CORE_ON_310 = ['kame_ros.audio.frames', 'kame_ros.audio.levels', 'kame_ros.wire.audio',
               'kame_ros.wire.messages', 'kame_ros.stt.events', 'kame_ros.oracle.events',
               'kame_ros.frontend.engine', 'kame_ros.records.timeline', 'kame_ros.words']


def python310() -> str:
    """Python 3.10 from pyenv (or PATH): the interpreter Humble's robots run."""
    root = os.environ.get('PYENV_ROOT', str(Path.home() / '.pyenv'))
    found = sorted(glob.glob(f'{root}/versions/3.10*/bin/python3.10'))
    path = found[-1] if found else shutil.which('python3.10')
    assert path, 'Python 3.10 is needed for this check (pyenv install 3.10)'
    return path


@pytest.fixture(scope='module')
def venv310(tmp_path_factory) -> Path:
    """Make a Python 3.10 venv with what the core needs (numpy) and nothing of ROS."""
    venv = tmp_path_factory.mktemp('py310') / 'venv'
    subprocess.run([python310(), '-m', 'venv', str(venv)], check=True)
    subprocess.run([str(venv / 'bin/python'), '-m', 'pip', 'install', '-q',
                    '--disable-pip-version-check', 'numpy'], check=True, timeout=240)
    return venv


def test_every_module_compiles_under_python_310(tmp_path):
    result = subprocess.run([python310(), '-m', 'compileall', '-q', 'kame_ros'],
                            cwd=ROOT, capture_output=True, text=True,
                            env={**os.environ, 'PYTHONPYCACHEPREFIX': str(tmp_path)})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    compiled = list(tmp_path.rglob('*.cpython-310.pyc'))
    assert len(compiled) >= len(list((SOURCES).rglob('*.py'))), 'not every module'


def test_core_imports_and_runs_under_python_310(venv310, tmp_path):
    code = ('import importlib, sys\n'
            f'for m in {CORE_ON_310!r}: importlib.import_module(m)\n'
            'from kame_ros.words import looks_complete\n'
            'import numpy as np\n'
            'from kame_ros.audio.frames import AudioFrame, FRAME_SAMPLES\n'
            'f = AudioFrame(3, 10, np.ones(FRAME_SAMPLES, np.int16))\n'
            'print(sys.version_info[:2], looks_complete("It is Paris."), f.seq,'
            ' "rclpy" in sys.modules)\n')
    result = subprocess.run([str(venv310 / 'bin/python'), '-c', code], cwd=ROOT / 'kame_ros',
                            capture_output=True, text=True,
                            env={**os.environ, 'PYTHONPYCACHEPREFIX': str(tmp_path)})
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ['(3,', '10)', 'True', '3', 'False'], result.stdout
