# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The LLMs the oracle can load by name, without a model hub.

Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, 1.1 GB, the default) and
SmolLM2-135M-Instruct (Q4_1, 100 MB): their pins, licenses and where the
files may come from (a folder in $KAME_ROS_MODELS, the cache, the wheels
that carry them) are in ``kame_ros.models``; this maps the oracle's names
onto that table and its errors onto the backend's.
"""
from kame_ros.models import model_file, ModelError, MODELS
from kame_ros.oracle.backends.base import BackendError

EMBEDDED_MODELS = tuple(name for name, m in MODELS.items() if m.role in ('oracle', 'intents'))
# The best-answering model a registry ships that keeps the latency goals on 2 cores
# (docs/measurements.md, "The embedded model").
DEFAULT_MODEL = 'qwen2.5-coder-1.5b'


def embedded_model_path(name: str = DEFAULT_MODEL) -> str:
    """Return the verified GGUF of embedded model ``name`` (joined into the cache once)."""
    if name not in EMBEDDED_MODELS:
        raise BackendError(f'no embedded model {name!r}; choose one of {sorted(EMBEDDED_MODELS)}')
    try:
        return str(model_file(name))
    except ModelError as err:
        raise BackendError(f'embedded model: {err}') from err


def resolve_model(model: str) -> str:
    """Map '' to the default embedded model and an embedded name to its file; else as given."""
    if not model or model in EMBEDDED_MODELS:
        return embedded_model_path(model or DEFAULT_MODEL)
    return model
