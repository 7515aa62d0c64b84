# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""moshi's private layout is reached in one module, which says clearly when moshi moved it."""
import json

from moshi.models import loaders
from moshi.modules.conv import StreamingConv1d
import pytest

from kame_ros.frontend.checkpoint import load_frontend_models
from kame_ros.frontend.moshi_engine import MoshiFrontEnd, SamplingConfig
from kame_ros.frontend.moshi_internals import (check_layout, config, MoshiLayoutError,
                                               streaming_state)
from kame_ros.frontend.tiny import save_checkpoint


def test_the_installed_moshi_has_the_layout_kame_ros_uses():
    check_layout()
    assert config('lm')['dim'] == 4096 and config('mimi')['sample_rate'] == 24000
    conv = StreamingConv1d(1, 1, 3, causal=True)
    assert streaming_state(conv) is None, 'no state outside streaming()'
    with conv.streaming(1):
        assert streaming_state(conv) is not None
    assert streaming_state(object()) is None


def test_a_moved_configuration_is_named_with_the_fix(monkeypatch):
    monkeypatch.delattr(loaders, '_lm_kwargs')
    with pytest.raises(MoshiLayoutError, match=r'_lm_kwargs.*moshi_internals.py.*setup.sh'):
        check_layout()
    with pytest.raises(MoshiLayoutError, match='_lm_kwargs'):
        config('lm')


def test_sampling_defaults_come_from_the_checkpoint(tmp_path):
    """A checkpoint's lm_gen_config sets LMGen's sampling; a parameter the user set wins."""
    directory = save_checkpoint(tmp_path / 'ckpt', kame=False)
    settings = json.loads((directory / 'config.json').read_text())
    settings['lm_gen_config'] = {'temp': 0.3, 'top_k_text': 5}
    (directory / 'config.json').write_text(json.dumps(settings))
    models = load_frontend_models(str(directory), progress=lambda step: None)
    assert models.gen_config == {'temp': 0.3, 'top_k_text': 5}
    stated = MoshiFrontEnd(models, mode='plain').lm_gen
    assert (stated.temp, stated.top_k_text) == (0.3, 5)
    assert (stated.temp_text, stated.top_k) == (0.7, 250), "LMGen's own for the rest"
    chosen = MoshiFrontEnd(models, mode='plain', sampling=SamplingConfig(temp=0.9)).lm_gen
    assert (chosen.temp, chosen.top_k_text) == (0.9, 5)
