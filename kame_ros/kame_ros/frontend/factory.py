# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Build the configured front-end: Moshi/KAME (torch or exported graphs) or the tts cascade.

Each backend's modules are imported only when it is chosen: a CPU-only
robot running tts never imports torch.
"""
from pathlib import Path
from typing import Callable

from kame_ros.frontend.engine import CHECKPOINT_DEFAULT, FrontEndConfig, FrontEndEngine

Progress = Callable[[str], None]


def build_frontend(config: FrontEndConfig, progress: Progress) -> FrontEndEngine:
    """Load the configured front-end (raises RuntimeError, ValueError, OSError, ImportError)."""
    if config.backend == 'tts':
        from kame_ros.frontend.tts_engine import TtsFrontEnd
        return TtsFrontEnd(config.voice, config.acknowledgement, barge_in=config.barge_in)
    if config.backend != 'moshi':
        raise ValueError(f'unknown backend {config.backend!r} (moshi or tts)')
    from kame_ros.frontend.checkpoint import load_frontend_models
    from kame_ros.frontend.moshi_engine import MoshiFrontEnd, SamplingConfig
    models = load_frontend_models(config.checkpoint, config.device, config.dtype,
                                  lambda step: progress(f'[moshi] {step}'))
    sampling = SamplingConfig(temp=_chosen(config.temp), temp_text=_chosen(config.temp_text))
    return MoshiFrontEnd(models, config.mode, sampling, config.seed,
                         config.guide_min_ready_tokens, _exported(config, models, progress))


def _exported(config: FrontEndConfig, models, progress: Progress):
    """Return the onnxruntime graphs when ``runtime`` is onnx (exported on first use)."""
    if config.runtime == 'torch':
        return None
    if config.runtime != 'onnx':
        raise ValueError(f'unknown runtime {config.runtime!r} (torch or onnx)')
    from kame_ros.frontend.export.runtime import default_export_dir, load_or_export
    directory = Path(config.onnx_dir) if config.onnx_dir else default_export_dir(
        config.checkpoint, config.onnx_precision)
    return load_or_export(models, directory, config.onnx_precision, config.trt_fp16,
                          progress=lambda step: progress(f'[onnx] {step}'))


def _chosen(value: float) -> float | None:
    """Return a sampling parameter the user set, None for the checkpoint's default."""
    return None if value == CHECKPOINT_DEFAULT else value
