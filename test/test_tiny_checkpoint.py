# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The tests' tiny checkpoint is the same bytes everywhere; compiled kernels stay per CPU kind.

A test of the front-end means the same on the CI machine, a developer's and
a robot's only if the model under test is the same: its weights are drawn
by numpy and its codebooks fitted in float64 (kame_ros/frontend/tiny.py),
so neither torch's per-CPU random kernels nor float32 k-means decide them.
"""
import json
import os
import subprocess
import sys

import pytest
import torch

from kame_ros.frontend.compile_cache import CACHE_VARIABLE, cpu_key, key_compile_cache

# sha256 of the KAME checkpoint save_checkpoint(..., kame=True) writes (seed 0).
PINNED = {
    'config.json': '2561b426905ebd9860d6d1e16c3c9d49b06643d3e17c8b4078cc530108b23982',
    'mimi.safetensors': '8f7762222d4b04f7f7436be8881cc20c26480012a55285c16c564b634b2b0ed3',
    'mimi_config.json': '5c8ce0d8b6358965b21880487f6e9fe77aa1cf44985fdfd316ad64d3e2ff260c',
    'model.safetensors': 'c7894ed0147e2ffc13b89619b9bde4a56447a08e06f9790882310328bb100d21',
    'tokenizer.model': 'd508ea22f85ba06c20af0805a479046e89cb28ef0d703ca51625af33626878cc',
}
BUILD = """
import hashlib, json, sys, tempfile
from pathlib import Path
from kame_ros.frontend.tiny import save_checkpoint
d = save_checkpoint(Path(tempfile.mkdtemp()) / 'kame', kame=True)
print(json.dumps({f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in d.iterdir()}))
"""
# Compiled (moshi's torch.compile'd norm, RoPE, gating) against eager text logits.
COMPILED_VS_EAGER = """
import tempfile
from pathlib import Path
import torch
from moshi.utils.compile import no_compile
from kame_ros.frontend.checkpoint import load_frontend_models
from kame_ros.frontend.export.parity import record_torch, speech_like
from kame_ros.frontend.moshi_engine import MoshiFrontEnd
from kame_ros.frontend.tiny import save_checkpoint
models = load_frontend_models(str(save_checkpoint(Path(tempfile.mkdtemp()) / 'k', kame=True)),
                              progress=lambda s: None)
compiled = record_torch(MoshiFrontEnd(models, mode='plain'), speech_like(12))
with no_compile():
    eager = record_torch(MoshiFrontEnd(models, mode='plain'), speech_like(12))
print(max(float((a[3] - b[3]).abs().max()) for a, b in zip(compiled.temporal, eager.temporal)))
"""


def reachable_capabilities() -> list[str]:
    """Return the ATen kernel paths this CPU can run: the portable one and those up to its own."""
    ladder = ['default', 'avx2', 'avx512']
    own = torch.backends.cpu.get_cpu_capability().lower()
    return ladder[:ladder.index(own) + 1] if own in ladder else ['default', own]


def python(code: str, **env) -> str:
    """Run ``code`` in a fresh interpreter with ``env`` added (None removes); return stdout."""
    environment = {**os.environ, **{k: v for k, v in env.items() if v is not None}}
    for name in [k for k, v in env.items() if v is None]:
        environment.pop(name, None)
    done = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                          env=environment, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


def test_the_tiny_checkpoint_is_the_same_bytes_under_every_kernel_path():
    built = {cap: json.loads(python(BUILD, ATEN_CPU_CAPABILITY=cap))
             for cap in reachable_capabilities()}
    built['one thread'] = json.loads(python(BUILD, OMP_NUM_THREADS='1'))
    for path, hashes in built.items():
        assert hashes == PINNED, f'{path}: {hashes}'


def test_compiled_kernels_of_one_cpu_kind_are_not_run_by_another(tmp_path):
    """Without a folder per kind, the portable run loads AVX2 kernels: a C++ compile error."""
    capabilities = reachable_capabilities()
    if len(capabilities) < 2:
        pytest.fail(f'this CPU reaches only {capabilities}: the test needs two kernel paths')
    keys = {cap: python('from kame_ros.frontend.compile_cache import cpu_key; print(cpu_key())',
                        ATEN_CPU_CAPABILITY=cap) for cap in capabilities}
    assert len(set(keys.values())) == len(keys), keys
    for cap in reversed(capabilities):  # the widest first: its kernels are the dangerous ones
        difference = float(python(COMPILED_VS_EAGER, ATEN_CPU_CAPABILITY=cap,
                                  KAME_ROS_CACHE=str(tmp_path), **{CACHE_VARIABLE: None}))
        assert difference < 1e-4, f'{cap}: compiled logits differ from eager by {difference}'
    assert sorted(p.name for p in (tmp_path / 'torchinductor').iterdir()) == sorted(keys.values())


def test_a_compile_cache_the_user_chose_is_left_alone(tmp_path, monkeypatch):
    monkeypatch.delenv(CACHE_VARIABLE, raising=False)
    monkeypatch.setenv('KAME_ROS_CACHE', str(tmp_path))
    assert key_compile_cache() == tmp_path / 'torchinductor' / cpu_key()
    assert os.environ[CACHE_VARIABLE] == str(tmp_path / 'torchinductor' / cpu_key())
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / 'mine'))
    assert key_compile_cache() == tmp_path / 'mine'
