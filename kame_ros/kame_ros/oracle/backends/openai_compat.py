# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
``openai`` backend: any OpenAI-compatible server (vLLM, llama.cpp server, Ollama).

For an offboard GPU. Every call has a connect timeout and a read timeout
between streamed chunks, so a server that hangs mid-reply fails that reply
instead of holding it forever; connection errors are retried with backoff
by the client. The token comes from an environment variable (never from a
parameter file that might be committed).
"""
import os
import threading
from typing import Any, Iterator

from kame_ros.oracle.backends.base import BackendError, LLMBackend, Messages, Progress


CHECK_TIMEOUT_S = 3.0


class OpenAIBackend(LLMBackend):
    """Chat completions over HTTP, streamed."""

    name = 'openai'

    def __init__(self, base_url: str, model: str, api_key_env: str = 'OPENAI_API_KEY',
                 timeout_s: float = 10.0, connect_timeout_s: float = 3.0,
                 max_retries: int = 1) -> None:
        """Create the client (no network until the first request)."""
        try:
            import openai
        except ImportError as err:
            raise BackendError('the openai package is not installed (pip install openai)') \
                from err
        self._openai = openai
        self.model = model
        self.client = openai.OpenAI(
            base_url=base_url, api_key=os.environ.get(api_key_env) or 'no-key',
            timeout=openai.Timeout(timeout_s, connect=connect_timeout_s),
            max_retries=max_retries)

    def load(self, progress: Progress) -> None:
        """Check the server answers; a dead server is reported, not fatal (it may come up)."""
        progress(f'checking {self.client.base_url}')
        try:  # a quick look: a hung server must not hold configure for a whole read timeout
            quick = self.client.with_options(timeout=CHECK_TIMEOUT_S, max_retries=0)
            models = [m.id for m in quick.models.list()]
            progress(f'server up, models: {", ".join(models) or "none listed"}')
        except self._openai.OpenAIError as err:
            progress(f'server not answering yet ({type(err).__name__}); will retry per reply')

    def stats(self) -> dict[str, Any]:
        """Return the served model and the server."""
        return {**super().stats(), 'model': self.model, 'server': str(self.client.base_url)}

    def stream(self, messages: Messages, max_tokens: int,
               cancel: threading.Event) -> Iterator[str]:
        """Yield content deltas; closing the stream on cancel frees the server slot."""
        try:
            stream = self.client.chat.completions.create(
                model=self.model, messages=messages, max_tokens=max_tokens, temperature=0.0,
                stream=True)
            with stream:
                for chunk in stream:
                    if cancel.is_set():
                        return
                    if chunk.choices and chunk.choices[0].delta.content:
                        yield chunk.choices[0].delta.content
        except self._openai.OpenAIError as err:
            raise BackendError(f'{type(err).__name__}: {err}') from err
