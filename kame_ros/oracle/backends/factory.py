# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Build a backend by name."""
from kame_ros.oracle.backends.base import BackendError, LLMBackend
from kame_ros.oracle.backends.embedded import resolve_model

BACKENDS = ('transformers', 'llama_cpp', 'openai')


def make_backend(kind: str, model: str = '', quantization: str = 'int8', threads: int = 0,
                 base_url: str = '', api_key_env: str = 'OPENAI_API_KEY',
                 timeout_s: float = 10.0, max_retries: int = 1) -> LLMBackend:
    """
    Instantiate (not load) the backend ``kind``.

    For the local backends ``model`` is a path, a Hugging Face directory, an
    embedded model's name (``smollm2-135m``) or empty for the embedded default.
    """
    if kind == 'transformers':
        from kame_ros.oracle.backends.hf import TransformersBackend
        return TransformersBackend(resolve_model(model), quantization, threads=threads)
    if kind == 'llama_cpp':
        from kame_ros.oracle.backends.llama import LlamaCppBackend
        return LlamaCppBackend(resolve_model(model), threads=threads)
    if kind == 'openai':
        from kame_ros.oracle.backends.openai_compat import OpenAIBackend
        if not base_url:
            raise BackendError('the openai backend needs base_url (e.g. http://gpu-box:8000/v1)')
        return OpenAIBackend(base_url, model or 'default', api_key_env, timeout_s,
                             max_retries=max_retries)
    raise BackendError(f'unknown backend {kind!r}; choose one of {BACKENDS}')
