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
therefore fitted by k-means to the residual latents of a few seconds of
varied sound at build time: different sounds give different codes.

The same bytes on every machine: torch's random initialisation and
float32 kernels differ in their last bits between CPUs (AVX-512, AVX2,
the portable build), and a codebook fitted in float32 inherits that, with
near-ties that the exported graph and torch then break differently. So
every weight is drawn by numpy (its generators are the same everywhere)
at the scale torch's own initialisation gives that tensor, and the
codebooks are fitted in float64 from a fixed start; ``test_tiny_checkpoint``
pins the resulting files' hashes.
"""
import json
import math
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


def numpy_weights(module, rng) -> None:
    """
    Redraw ``module``'s weights with numpy: the same bytes on every CPU.

    Constant tensors (norm scales, zero biases, unfitted codebooks) are
    exact already and kept. Every other tensor is drawn normal at the
    standard deviation of torch's initialisation rounded to a quarter
    octave, so the model keeps its scales but none of torch's last bits.
    """
    import numpy as np
    import torch
    with torch.no_grad():
        for _, tensor in sorted(module.state_dict(keep_vars=True).items()):
            if not tensor.is_floating_point() or tensor.numel() < 2:
                continue
            flat = tensor.detach().double().flatten()
            if bool((flat == flat[0]).all()):
                continue
            scale = 2.0 ** (round(4 * math.log2(float(flat.std()))) / 4)
            drawn = rng.standard_normal(tuple(tensor.shape)) * scale
            tensor.copy_(torch.from_numpy(drawn.astype(np.float32)))


def kmeans(samples, clusters: int, iterations: int = 50):
    """
    Plain k-means in float64 from a fixed start; returns the means.

    The start is every (n / clusters)-th sample, and an empty cluster
    keeps its mean: no random draw, so equal inputs give equal means.
    """
    import numpy as np
    samples = np.asarray(samples, np.float64)
    means = samples[np.linspace(0, len(samples) - 1, clusters).astype(int)].copy()
    for _ in range(iterations):
        distances = ((samples[:, None, :] - means[None, :, :]) ** 2).sum(-1)
        nearest = distances.argmin(1)
        counts = np.bincount(nearest, minlength=clusters)
        sums = np.zeros_like(means)
        np.add.at(sums, nearest, samples)
        filled = counts > 0
        means[filled] = sums[filled] / counts[filled, None]
    return means


def fit_codebooks(mimi, audio) -> None:
    """
    Fit every RVQ level of a fresh Mimi to the residual of the levels before it.

    The latents are computed in float64 and rounded to float32 before the
    fit: float64 convolutions still differ in their last bits from CPU to
    CPU, and a codebook mean near zero would carry those bits into the file.
    From there on every step (k-means, residuals) is exact or in a fixed order.
    """
    import copy

    import numpy as np
    import torch
    exact = copy.deepcopy(mimi).double()
    with torch.no_grad():
        latent = exact._encode_to_unquantized_latent(
            torch.from_numpy(audio.astype(np.float64))[None, None])
        for rvq, fitted in ((exact.quantizer.rvq_first, mimi.quantizer.rvq_first),
                            (exact.quantizer.rvq_rest, mimi.quantizer.rvq_rest)):
            projected = rvq.input_proj(latent).transpose(1, 2).reshape(-1, rvq.dimension)
            residual = projected.numpy().astype(np.float32).astype(np.float64)
            for layer in fitted.vq.layers:
                if not isinstance(layer.project_in, torch.nn.Identity):
                    raise ValueError('tiny Mimi codebooks are fitted without a projection')
                means = kmeans(residual, layer._codebook.codebook_size).astype(np.float32)
                codebook = layer._codebook
                codebook.embedding_sum.copy_(torch.from_numpy(means))
                codebook.cluster_usage.fill_(1.0)
                codebook._initialized.fill_(1.0)
                codebook.register_buffer('_embedding', None, persistent=False)
                # The next level fits what this one leaves, as the model will quantize it.
                used = means.astype(np.float64)
                nearest = ((residual[:, None, :] - used[None]) ** 2).sum(-1).argmin(1)
                residual = residual - used[nearest]


def train_tokenizer(directory: Path, vocab_size: int) -> Path:
    """
    Train a SentencePiece model with Moshi's special ids (unk 0, pad 3).

    Trained from memory into memory: a model trained from a file records
    that file's path, and the bytes would differ from folder to folder.
    """
    import io

    import sentencepiece as spm
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(SENTENCES * 20), model_writer=model, vocab_size=vocab_size,
        model_type='unigram', unk_id=0, bos_id=1, eos_id=2, pad_id=3,
        character_coverage=1.0, hard_vocab_limit=False, minloglevel=2)
    path = directory / 'tokenizer.model'
    path.write_bytes(model.getvalue())
    return path


def save_checkpoint(directory: Path, kame: bool, seed: int = 0, **lm_overrides) -> Path:
    """Build and save a random tiny Moshi (or KAME, with oracle_emb) checkpoint."""
    import numpy as np
    import torch
    from moshi.models import loaders
    from safetensors.torch import save_file
    directory.mkdir(parents=True, exist_ok=True)
    import sentencepiece
    tokenizer = train_tokenizer(directory, vocab_size=100)
    vocab = sentencepiece.SentencePieceProcessor(str(tokenizer)).vocab_size()
    lm_kwargs = tiny_lm_kwargs(text_card=vocab, **lm_overrides)
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    lm = loaders.get_moshi_lm(None, lm_kwargs=lm_kwargs, dtype=torch.float32)
    numpy_weights(lm, rng)
    state = {k: v.contiguous() for k, v in lm.state_dict().items()}
    if kame:
        # KAME initialises oracle_emb as a copy of the text embedding; perturb it so the
        # tests can tell the two tables apart.
        text = state['text_emb.weight']
        noise = rng.standard_normal(tuple(text.shape)).astype(np.float32)
        state['oracle_emb.weight'] = text + 0.1 * torch.from_numpy(noise)
    save_file(state, str(directory / 'model.safetensors'))
    mimi_config = tiny_mimi_config()
    (directory / 'mimi_config.json').write_text(json.dumps(mimi_config))
    mimi = loaders.get_mimi(None, mimi_config)
    numpy_weights(mimi, rng)
    fit_codebooks(mimi, fitting_audio(seed=seed))
    save_file({k: v.contiguous() for k, v in mimi.state_dict().items()},
              str(directory / 'mimi.safetensors'))
    manifest = dict(lm_kwargs, moshi_name='model.safetensors', mimi_name='mimi.safetensors',
                    tokenizer_name=tokenizer.name, mimi_config_name='mimi_config.json')
    (directory / 'config.json').write_text(json.dumps(manifest))
    return directory
