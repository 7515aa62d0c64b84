# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Load Moshi or KAME checkpoints, from a local directory or the Hugging Face hub.

A KAME checkpoint is a Moshi checkpoint plus ``oracle_emb.*`` (the oracle
stream's embedding table, text vocabulary + 1 rows). Stock moshi refuses
unknown keys, so the LM state is loaded here: ``oracle_emb`` is split off into
its own module and everything else goes into moshi's own ``LMModel``,
unchanged. The layout is moshi's: ``config.json`` (LM kwargs plus
``moshi_name``, ``mimi_name``, ``tokenizer_name``, optional
``mimi_config_name``), LM and Mimi safetensors and a SentencePiece model;
without ``config.json`` the Moshi 7B defaults and file names apply.
"""
from dataclasses import dataclass, field
import json
from pathlib import Path
from typing import Callable

import torch

from kame_ros.frontend.compile_cache import key_compile_cache
from kame_ros.frontend.moshi_internals import config

Progress = Callable[[str], None]


class CheckpointError(RuntimeError):
    """A checkpoint is missing, incomplete or does not match its config."""


@dataclass
class FrontEndModels:
    """Everything the front-end runs, loaded and on one device."""

    lm: 'torch.nn.Module'
    oracle_emb: 'torch.nn.Module | None'
    mimi: 'torch.nn.Module'
    tokenizer: object
    gen_config: dict = field(default_factory=dict)  # the checkpoint's lm_gen_config

    @property
    def is_kame(self) -> bool:
        """Tell whether the checkpoint carries KAME's oracle embedding."""
        return self.oracle_emb is not None


def checkpoint_info(source: str):
    """Resolve a local directory or an ``hf://owner/repo`` (or ``owner/repo``) to file paths."""
    from moshi.models import loaders
    path = Path(source).expanduser()
    if path.is_dir():
        config = path / 'config.json'
        raw = json.loads(config.read_text()) if config.exists() else {}
        names = {key: raw.get(key, default) for key, default in (
            ('moshi_name', loaders.MOSHI_NAME), ('mimi_name', loaders.MIMI_NAME),
            ('tokenizer_name', loaders.TEXT_TOKENIZER_NAME))}
        for name in names.values():
            if not (path / name).is_file():
                raise CheckpointError(f'{path}: missing {name}')
        mimi_config = raw.get('mimi_config_name')
        return loaders.CheckpointInfo.from_hf_repo(
            'local', moshi_weights=path / names['moshi_name'],
            mimi_weights=path / names['mimi_name'], tokenizer=path / names['tokenizer_name'],
            config_path=config if config.exists() else None,
            mimi_config_path=path / mimi_config if mimi_config else None)
    if source.startswith('/') or source.startswith('.'):
        raise CheckpointError(f'checkpoint directory not found: {source}')
    return loaders.CheckpointInfo.from_hf_repo(source.removeprefix('hf://'))


def load_lm(info, device: str, dtype: torch.dtype) -> tuple:
    """Moshi's LMModel from the checkpoint, plus the KAME oracle embedding if present."""
    from moshi.models import loaders
    from moshi.models.lm_utils import ScaledEmbedding
    from safetensors.torch import load_file
    lm = loaders.get_moshi_lm(None, lm_kwargs=info.lm_config, device='meta', dtype=dtype)
    try:
        state = load_file(str(info.moshi_weights), device=str(device))
    except Exception as err:  # noqa: B902 - safetensors raises several unrelated types
        raise CheckpointError(f'{info.moshi_weights}: unreadable safetensors ({err})') from err
    oracle_state = {key.removeprefix('oracle_emb.'): state.pop(key)
                    for key in list(state) if key.startswith('oracle_emb.')}
    for key, value in state.items():
        if value.dtype.is_floating_point and not key.startswith(('condition_provider.',
                                                                 'fuser.')):
            state[key] = value.to(dtype)
    try:
        lm.load_state_dict(state, assign=True)
    except RuntimeError as err:
        raise CheckpointError(f'{info.moshi_weights} does not match its config: {err}') from err
    oracle_emb = None
    if oracle_state:
        kwargs = info.lm_config or config('lm')
        oracle_emb = ScaledEmbedding(lm.text_card + 1, lm.dim, norm=kwargs.get('norm_emb', False),
                                     zero_idx=lm.zero_token_id)
        try:
            oracle_emb.load_state_dict({k: v.to(dtype) for k, v in oracle_state.items()})
        except RuntimeError as err:
            raise CheckpointError(f'oracle_emb does not match the LM: {err}') from err
        oracle_emb = oracle_emb.to(device=device, dtype=dtype).eval()
    return lm.eval(), oracle_emb


def load_frontend_models(source: str, device: str = 'cpu', dtype: str = 'float32',
                         progress: Progress = print) -> FrontEndModels:
    """Load LM (+ oracle embedding), Mimi and the text tokenizer with progress messages."""
    try:
        import moshi  # noqa: F401 - a clear error beats an ImportError deep inside
    except ImportError as err:
        raise CheckpointError('the moshi package is not installed (pip install moshi)') from err
    progress(f'resolving checkpoint {source}')
    info = checkpoint_info(source)
    progress(f'torch.compile kernels: {key_compile_cache()}')
    progress(f'loading LM weights {Path(info.moshi_weights).name}')
    lm, oracle_emb = load_lm(info, device, getattr(torch, dtype))
    progress('loading Mimi codec')
    try:
        mimi = info.get_mimi(device=device)
    except RuntimeError as err:
        raise CheckpointError(f'{info.mimi_weights}: {err}') from err
    progress('loading text tokenizer')
    tokenizer = info.get_text_tokenizer()
    if tokenizer.vocab_size() > lm.text_card:
        raise CheckpointError(f'tokenizer has {tokenizer.vocab_size()} pieces, '
                              f'LM text vocabulary is {lm.text_card}')
    kind = 'KAME (oracle stream)' if oracle_emb is not None else 'stock Moshi'
    progress(f'ready: {kind}, LM {sum(p.numel() for p in lm.parameters()) / 1e6:.1f} M '
             f'parameters, {device}/{dtype}')
    return FrontEndModels(lm, oracle_emb, mimi, tokenizer, dict(info.lm_gen_config or {}))
