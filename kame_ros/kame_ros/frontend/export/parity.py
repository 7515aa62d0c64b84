# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Does an exported front-end compute what torch computes? Checked step by step, teacher-forced.

Two free-running streams cannot answer that: where two candidates nearly
tie (two Mimi codes 1e-6 apart at distances of 1e-3, two logits within
float noise), torch and the graph may break the tie differently, both
right, and from there on the two streams are different conversations.
So torch runs the conversation once, recorded; then every exported graph
is given, step after step, the inputs torch's own step had, carrying its
state itself, and its outputs are compared with torch's:

* ``temporal`` and ``depth_k``: logits within ``LOGIT_TOLERANCE``, and the
  same argmax wherever torch's two best are further apart than that;
* ``mimi_encode``: every code the graph picks is a nearest centroid, in
  float64 on torch's latent, within ``DISTANCE_TOLERANCE`` (after the
  graph's own earlier codes of that frame);
* ``mimi_decode``: audio within ``AUDIO_TOLERANCE`` of full scale.

The tolerances are 16-55x the float noise measured between torch and
onnxruntime on the tiny checkpoint (codes 6e-6, logits 2e-6, audio 2e-7;
docs/components.md), and a cache slot off by one or a state not carried
breaks them by orders of magnitude (test_frontend_export).
"""
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch

from kame_ros.frontend.moshi_internals import streaming_state

LOGIT_TOLERANCE = 1e-4
DISTANCE_TOLERANCE = 1e-4
AUDIO_TOLERANCE = 1e-5  # of full scale


@dataclass
class TorchRecord:
    """What torch's front-end computed, step by step, for one conversation."""

    pcm: list[torch.Tensor] = field(default_factory=list)        # each frame's input
    latents: list[torch.Tensor] = field(default_factory=list)    # Mimi's unquantized latent
    codes: list[torch.Tensor] = field(default_factory=list)      # Mimi's codes
    temporal: list[tuple] = field(default_factory=list)   # tokens, condition, out, logits
    depth: list[list[tuple]] = field(default_factory=list)  # per frame: (token, logits) per k
    decoded: dict[int, tuple] = field(default_factory=dict)  # frame -> (codes, pcm)


class _RecordingCodec:
    """Mimi as MoshiFrontEnd uses it, keeping each frame's latent, codes and decoded audio."""

    def __init__(self, mimi, record: TorchRecord) -> None:
        self.mimi, self.record = mimi, record

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        latent = self.mimi._encode_to_unquantized_latent(x)
        codes = self.mimi.quantizer.encode(latent)
        self.record.pcm.append(x.clone())
        self.record.latents.append(latent.clone())
        self.record.codes.append(codes.clone())
        return codes

    def decode(self, codes: torch.Tensor) -> torch.Tensor:
        pcm = self.mimi.decode(codes)
        self.record.decoded[len(self.record.pcm) - 1] = (codes.clone(), pcm.clone())
        return pcm

    def reset_streaming(self) -> None:
        self.mimi.reset_streaming()


def record_torch(frontend, frames: list[np.ndarray],
                 events: dict[int, list] | None = None) -> TorchRecord:
    """
    Run ``frontend`` (a MoshiFrontEnd on torch) over ``frames``, recording every step.

    ``events`` maps a frame index to the oracle events delivered before it.
    """
    record = TorchRecord()
    lm = frontend.models.lm
    frontend.codec = _RecordingCodec(frontend.models.mimi, record)
    frontend.start()
    state = streaming_state(frontend.lm_gen)
    main = state.graphed_main

    def temporal(tokens, condition_sum, condition_cross):
        out, logits = main(tokens, condition_sum, condition_cross)
        condition = None if condition_sum is None else condition_sum.clone()
        record.temporal.append((tokens.clone(), condition, out.clone(), logits.clone()))
        record.depth.append([])
        return out, logits

    def depformer(k, token, transformer_out):
        logits = type(lm).forward_depformer(lm, k, token, transformer_out)
        record.depth[-1].append((token.clone(), logits.clone()))
        return logits

    state.graphed_main = temporal
    lm.forward_depformer = depformer
    try:
        for i, pcm in enumerate(frames):
            for event in (events or {}).get(i, []):
                frontend.on_oracle(event)
            frontend.step(pcm)
    finally:
        del lm.forward_depformer
        frontend.stop()
        frontend.codec = frontend.models.mimi
    return record


@dataclass
class Parity:
    """How far an export's outputs are from torch's; ``failures`` says which checks broke."""

    worst: dict[str, float] = field(default_factory=dict)  # per check, the worst difference
    compared: dict[str, int] = field(default_factory=dict)  # per check, how many outputs
    failures: list[str] = field(default_factory=list)

    def measure(self, check: str, difference: float, tolerance: float, where: str) -> None:
        """Count one comparison; a difference over ``tolerance`` is a failure, named."""
        self.compared[check] = self.compared.get(check, 0) + 1
        self.worst[check] = max(self.worst.get(check, 0.0), difference)
        if difference > tolerance:
            self.failures.append(f'{check} {where}: differs by {difference:.3g} '
                                 f'(tolerance {tolerance:g})')

    @property
    def ok(self) -> bool:
        """Return whether every output was within its tolerance."""
        return not self.failures


def _logits(parity: Parity, check: str, ours: torch.Tensor, theirs: torch.Tensor,
            where: str) -> None:
    ours, theirs = ours.double().ravel(), theirs.double().ravel()
    parity.measure(check, float((ours - theirs).abs().max()), LOGIT_TOLERANCE, where)
    top2 = theirs.topk(2).values
    if float(top2[0] - top2[1]) > LOGIT_TOLERANCE:  # a clear winner must win here too
        parity.measure(f'{check} argmax', float(ours.argmax() != theirs.argmax()), 0.5, where)


def _codes(parity: Parity, quantizer, latent: torch.Tensor, codes: torch.Tensor,
           frame: int) -> None:
    """Check each exported code is a nearest centroid (float64, after its own earlier codes)."""
    x = latent.double()
    level = 0
    for rvq in (quantizer.rvq_first, quantizer.rvq_rest):
        weight = rvq.input_proj.weight.double()
        residual = torch.nn.functional.conv1d(x, weight)[0, :, 0]
        for layer in rvq.vq.layers:
            if level == codes.shape[1]:  # the model uses its first dep_q levels only
                return
            centroids = layer._codebook.embedding.double()
            distances = (centroids - residual).norm(dim=1)
            chosen = int(codes[0, level, 0])
            parity.measure('mimi_encode', float(distances[chosen] - distances.min()),
                           DISTANCE_TOLERANCE, f'frame {frame} level {level}')
            residual = residual - centroids[chosen]
            level += 1


@torch.no_grad()
def compare(exported, record: TorchRecord, models,
            progress: Callable[[str], None] = lambda s: None) -> Parity:
    """Feed ``exported`` (an ExportedFrontEnd) torch's inputs, step by step; compare outputs."""
    parity = Parity()
    exported.reset()
    for frame, pcm in enumerate(record.pcm):
        codes = exported.encode(pcm)
        _codes(parity, models.mimi.quantizer, record.latents[frame], codes, frame)
        if frame == 0:
            exported.reset_streaming()
        if frame in record.decoded:
            torch_codes, torch_pcm = record.decoded[frame]
            audio = exported.decode(torch_codes)
            parity.measure('mimi_decode', float((audio - torch_pcm).abs().max()),
                           AUDIO_TOLERANCE, f'frame {frame}')
    for frame, (tokens, condition, out, logits) in enumerate(record.temporal):
        our_out, our_logits = exported.temporal(tokens, condition)
        _logits(parity, 'temporal', our_logits, logits, f'frame {frame}')
        parity.measure('temporal state', float((our_out - out).abs().max()),
                       LOGIT_TOLERANCE, f'frame {frame}')
        for k, (token, depth_logits) in enumerate(record.depth[frame]):
            _logits(parity, f'depth_{k}', exported.depth(k, token, out), depth_logits,
                    f'frame {frame}')
    progress('parity: ' + ', '.join(f'{check} {parity.worst[check]:.2g} over '
                                    f'{parity.compared[check]}' for check in parity.worst))
    return parity


def speech_like(frames: int, seed: int = 0) -> list[np.ndarray]:
    """Return a gated tone in noise as int16 80 ms frames: sound Mimi encodes into varied codes."""
    rng = np.random.default_rng(seed)
    t = np.arange(1920 * frames) / 24000
    tone = 6000 * np.sin(2 * np.pi * 220 * t) * (np.sin(2 * np.pi * 0.7 * t) > 0)
    pcm = (tone + rng.standard_normal(len(t)) * 800).astype(np.int16)
    return [pcm[k * 1920:(k + 1) * 1920] for k in range(frames)]
