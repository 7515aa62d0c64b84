# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The oracle LLM backends by name, their settings (each stated once) and building one."""
from dataclasses import dataclass, replace

from kame_ros.oracle.backends.base import BackendError, LLMBackend
from kame_ros.oracle.backends.embedded import resolve_model
from kame_ros.oracle.backends.hf import QUANTIZATIONS, TransformersBackend
from kame_ros.settings import setting

BACKENDS = ('transformers', 'llama_cpp', 'openai')


@dataclass(frozen=True)
class BackendConfig:
    """The LLM backend's settings: each default, description and range stated once."""

    backend: str = setting('llama_cpp', 'LLM backend', choices=BACKENDS)
    model: str = setting('', 'Model dir/GGUF file or embedded model name (transformers, '
                         'llama_cpp: qwen2.5-coder-1.5b, smollm2-135m) or served model name '
                         '(openai); empty = embedded Qwen2.5-Coder-1.5B-Instruct')
    quantization: str = setting('int8', 'transformers: none, int8 (CPU) or 4bit (CUDA)',
                                choices=QUANTIZATIONS)
    threads: int = setting(0, 'CPU threads for local models; 0 = the library default '
                           '(llama.cpp: half the cores to generate; torch: all)', 0, 256)
    base_url: str = setting('', 'openai: server URL, e.g. http://gpu-box:8000/v1')
    api_key_env: str = setting('OPENAI_API_KEY',
                               'openai: environment variable holding the API token')
    timeout_s: float = setting(10.0, 'openai: seconds to wait for the next streamed chunk',
                               0.1, 300.0)
    max_retries: int = setting(1, 'openai: connection retries', 0, 10)


def make_backend(kind: str, model: str = BackendConfig.model, **settings) -> LLMBackend:
    """Instantiate (not load) the backend ``kind``; ``settings`` are BackendConfig's fields."""
    return build_backend(replace(BackendConfig(), backend=kind, model=model, **settings))


def build_backend(config: BackendConfig) -> LLMBackend:
    """
    Instantiate (not load) the configured backend.

    For the local backends ``model`` is a path, a Hugging Face directory, an
    embedded model's name (``smollm2-135m``) or empty for the embedded default.
    """
    if config.backend == 'transformers':
        return TransformersBackend(resolve_model(config.model), config.quantization,
                                   threads=config.threads)
    if config.backend == 'llama_cpp':
        from kame_ros.oracle.backends.llama import LlamaCppBackend
        return LlamaCppBackend(resolve_model(config.model), threads=config.threads)
    if config.backend == 'openai':
        from kame_ros.oracle.backends.openai_compat import OpenAIBackend
        if not config.base_url:
            raise BackendError('the openai backend needs base_url (e.g. http://gpu-box:8000/v1)')
        return OpenAIBackend(config.base_url, config.model or 'default', config.api_key_env,
                             config.timeout_s, max_retries=config.max_retries)
    raise BackendError(f'unknown backend {config.backend!r}; choose one of {BACKENDS}')
