# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Tiny Moshi-shaped checkpoints in moshi's real on-disk format, with random weights.

For tests and for the evaluation on machines without Moshi/KAME weights:
these models have the real structure (text + 2 x dep_q audio streams,
delays, depformer, Mimi with a split RVQ) and are saved exactly as moshi's
loaders read them: config.json, LM safetensors (plus ``oracle_emb.weight``
for KAME), Mimi safetensors with its own config, and a SentencePiece model
trained here. Their audio is noise and their own text random: they exercise
the machinery, not the conversation.

A freshly built Mimi has all-zero codebooks, so every sound would encode to
code 0 and nothing of the microphone would reach the LM. Each RVQ level is
therefore fitted (moshi's own k-means codebook initialisation) to the
residual latents of a few seconds of varied sound at build time: different
sounds give different codes.
"""
import json
from pathlib import Path

from kame_ros.frontend.moshi_internals import config

SENTENCES = ['ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz 0123456789 .,?!',
             'the robot is in the kitchen', 'paris is the capital of france',
             'what is the weather like today', 'hello there how are you',
             'the battery is low please charge me', 'i am going to the living room',
             'a spider has eight legs', 'water boils at one hundred degrees']


def tiny_lm_kwargs(text_card: int, dim: int = 32, layers: int = 2) -> dict:
    """Moshi-shaped LM kwargs: n_q = 2 * dep_q, len(delays) = n_q + 1."""
    return {'dim': dim, 'text_card': text_card, 'existing_text_padding_id': 3,
            'n_q': 4, 'dep_q': 2, 'card': 64, 'num_heads': 2, 'num_layers': layers,
            'hidden_scale': 4.125, 'causal': True, 'layer_scale': None, 'context': 250,
            'max_period': 10000, 'gating': 'silu', 'norm': 'rms_norm_f32',
            'positional_embedding': 'rope', 'depformer_dim': dim,
            'depformer_dim_feedforward': int(4.125 * dim), 'depformer_num_heads': 2,
            'depformer_num_layers': 1, 'depformer_layer_scale': None,
            'depformer_multi_linear': True, 'depformer_context': 8,
            'depformer_max_period': 10000, 'depformer_gating': 'silu',
            'depformer_pos_emb': 'none', 'depformer_weights_per_step': True,
            'delays': [0, 0, 1, 0, 1]}


def tiny_mimi_config() -> dict:
    """Mimi's architecture (24 kHz, 12.5 Hz, split RVQ) at a few percent of its width."""
    seanet = dict(config('seanet'), dimension=32, n_filters=4)
    transformer = dict(config('transformer'), d_model=32, num_heads=2, num_layers=1,
                       dim_feedforward=64, input_dimension=32, output_dimensions=[32])
    quantizer = dict(config('quantizer'), dimension=16, n_q=8, bins=64,
                     input_dimension=32, output_dimension=32)
    return dict(config('mimi'), seanet=seanet, transformer=transformer,
                quantizer=quantizer)


def fitting_audio(seconds: float = 16.0, rate: int = 24000, seed: int = 0):
    """Varied sound for fitting codebooks: tones, sweeps, noise bursts, pulses, silence."""
    import numpy as np
    rng = np.random.default_rng(seed)
    t = np.arange(int(rate * 0.4)) / rate
    pieces = []
    while sum(len(p) for p in pieces) < seconds * rate:
        kind = rng.integers(5)
        f0 = float(rng.uniform(80.0, 4000.0))
        if kind == 0:
            piece = np.sin(2 * np.pi * f0 * t)
        elif kind == 1:
            piece = np.sin(2 * np.pi * (f0 + f0 * t / t[-1]) * t)
        elif kind == 2:
            piece = rng.standard_normal(len(t)) * rng.uniform(0.05, 0.5)
        elif kind == 3:
            piece = np.sign(np.sin(2 * np.pi * f0 / 20 * t)) * 0.3
        else:
            piece = np.zeros(len(t))
        pieces.append(piece * rng.uniform(0.05, 0.8))
    return np.concatenate(pieces)[:int(seconds * rate)].astype(np.float32)


def fit_codebooks(mimi, audio) -> None:
    """Fit every RVQ level of a fresh Mimi to the residual of the levels before it."""
    import torch
    with torch.no_grad():
        latent = mimi._encode_to_unquantized_latent(torch.from_numpy(audio)[None, None])
        for rvq in (mimi.quantizer.rvq_first, mimi.quantizer.rvq_rest):
            residual = rvq.input_proj(latent)
            for layer in rvq.vq.layers:
                samples = layer.project_in(residual.transpose(1, 2)).reshape(-1, residual.shape[1])
                layer._codebook._init_embedding(samples)
                layer._codebook.register_buffer('_embedding', None, persistent=False)
                residual = residual - layer.decode(layer.encode(residual))


def train_tokenizer(directory: Path, vocab_size: int) -> Path:
    """Train a SentencePiece model with Moshi's special ids (unk 0, pad 3)."""
    import sentencepiece as spm
    corpus = directory / 'corpus.txt'
    corpus.write_text('\n'.join(SENTENCES * 20))
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(directory / 'tokenizer'), vocab_size=vocab_size,
        model_type='unigram', unk_id=0, bos_id=1, eos_id=2, pad_id=3,
        character_coverage=1.0, hard_vocab_limit=False, minloglevel=2)
    return directory / 'tokenizer.model'


def save_checkpoint(directory: Path, kame: bool, seed: int = 0, **lm_overrides) -> Path:
    """Build and save a random tiny Moshi (or KAME, with oracle_emb) checkpoint."""
    import torch
    from moshi.models import loaders
    from safetensors.torch import save_file
    directory.mkdir(parents=True, exist_ok=True)
    import sentencepiece
    tokenizer = train_tokenizer(directory, vocab_size=100)
    vocab = sentencepiece.SentencePieceProcessor(str(tokenizer)).vocab_size()
    lm_kwargs = tiny_lm_kwargs(text_card=vocab, **lm_overrides)
    torch.manual_seed(seed)
    lm = loaders.get_moshi_lm(None, lm_kwargs=lm_kwargs, dtype=torch.float32)
    state = {k: v.contiguous() for k, v in lm.state_dict().items()}
    if kame:
        # KAME initialises oracle_emb as a copy of the text embedding; perturb it so the
        # tests can tell the two tables apart.
        state['oracle_emb.weight'] = (state['text_emb.weight']
                                      + 0.1 * torch.randn_like(state['text_emb.weight']))
    save_file(state, str(directory / 'model.safetensors'))
    mimi_config = tiny_mimi_config()
    (directory / 'mimi_config.json').write_text(json.dumps(mimi_config))
    mimi = loaders.get_mimi(None, mimi_config)
    fit_codebooks(mimi, fitting_audio(seed=seed))
    save_file({k: v.contiguous() for k, v in mimi.state_dict().items()},
              str(directory / 'mimi.safetensors'))
    manifest = dict(lm_kwargs, moshi_name='model.safetensors', mimi_name='mimi.safetensors',
                    tokenizer_name=tokenizer.name, mimi_config_name='mimi_config.json')
    (directory / 'config.json').write_text(json.dumps(manifest))
    return directory
