# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
``openai`` backend: any OpenAI-compatible server (vLLM, llama.cpp server, Ollama).

For an offboard GPU, often one server for a fleet of robots. Every call
has a connect timeout and a read timeout between streamed chunks, so a
server that hangs mid-reply fails that reply instead of holding it
forever. A cancelled reply closes its connection at once, also while the
server is still evaluating the prompt and nothing has streamed yet: the
socket is shut down from a watcher thread, so the server sees the client
gone (llama.cpp's server and vLLM then stop the request) instead of
writing a reply nobody reads. Server faults are raised as
``ServerUnavailable`` by kind (refused, overloaded, timeout, lost,
http_error) so that the oracle can back off; a stream that ends without a
finish reason is ``lost`` (llama-cpp-python's server, by default, ends one
client's stream when another client's request arrives). The token comes
from an environment variable (never from a parameter file that might be
committed).
"""
import os
import socket
import threading
from typing import Any, Iterator

from kame_ros.oracle.backends.base import (BackendError, HTTP_ERROR, LLMBackend, LOST,
                                           Messages, OVERLOADED, Progress, REFUSED,
                                           ServerUnavailable, TIMEOUT)


CHECK_TIMEOUT_S = 3.0
WATCH_S = 0.05  # how often the cancel watcher looks whether its reply ended by itself
# The request body's flags that continue the last (assistant) message: vLLM's, llama.cpp's.
CONTINUE = {'continue_final_message': True, 'add_generation_prompt': False}


class OpenAIBackend(LLMBackend):
    """Chat completions over HTTP, streamed."""

    name = 'openai'
    can_continue = True

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
        self.closed_on_cancel = 0  # requests whose connection a cancel shut

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
        """Return the served model, the server, and the requests a cancel closed."""
        return {**super().stats(), 'model': self.model, 'server': str(self.client.base_url),
                'closed_on_cancel': self.closed_on_cancel}

    def stream(self, messages: Messages, max_tokens: int,
               cancel: threading.Event) -> Iterator[str]:
        """Yield content deltas until the reply's finish reason; a cancel closes the request."""
        return self._request(messages, max_tokens, cancel, None)

    def continue_reply(self, messages: Messages, reply_start: str, max_tokens: int,
                       cancel: threading.Event) -> Iterator[str]:
        """
        Yield the rest of a reply: ``reply_start`` is sent as the assistant's unfinished turn.

        With vLLM's ``continue_final_message`` (llama.cpp's llama-server
        takes the same flags) the chat template leaves that turn open and
        the server streams only what follows it; its prompt cache already
        holds the prompt and, mostly, the start. A server that ignores the
        flags answers wrongly (llama-cpp-python's opens a new turn after
        it): docs/robot.md names the servers checked.
        """
        return self._request(messages + [{'role': 'assistant', 'content': reply_start}],
                             max_tokens, cancel, CONTINUE)

    def _request(self, messages: Messages, max_tokens: int, cancel: threading.Event,
                 extra_body: dict[str, bool] | None) -> Iterator[str]:
        try:
            stream = self.client.chat.completions.create(
                model=self.model, messages=messages, max_tokens=max_tokens, temperature=0.0,
                stream=True, extra_body=extra_body)
        except self._openai.OpenAIError as err:
            raise self._fault(err, streaming=False) from err
        done = threading.Event()
        threading.Thread(target=self._close_on_cancel, args=(stream.response, cancel, done),
                         daemon=True, name='openai-cancel').start()
        finished = False
        try:
            with stream:
                for chunk in stream:
                    if cancel.is_set():
                        return
                    choice = chunk.choices[0] if chunk.choices else None
                    if choice is not None and choice.delta.content:
                        yield choice.delta.content
                    finished = finished or bool(choice is not None and choice.finish_reason)
        except Exception as err:  # noqa: B902 - the HTTP library's errors, by kind below
            if cancel.is_set():
                return  # the watcher shut the socket under the read
            raise self._fault(err, streaming=True) from err
        finally:
            done.set()
        if not finished and not cancel.is_set():
            raise ServerUnavailable(LOST, 'the reply stream ended without a finish reason '
                                    '(the server cut it short)')

    def _close_on_cancel(self, response: Any, cancel: threading.Event,
                         done: threading.Event) -> None:
        """Shut the request's socket as soon as ``cancel`` is set (until the reply ends)."""
        while not cancel.wait(WATCH_S):
            if done.is_set():
                return
        if done.is_set():
            return
        network = response.extensions.get('network_stream')
        sock = network.get_extra_info('socket') if network is not None else None
        if sock is None:
            response.close()  # no socket to shut: ends the read at its next chunk
            return
        try:
            sock.shutdown(socket.SHUT_RDWR)  # wakes the blocked read; the server sees EOF
            self.closed_on_cancel += 1
        except OSError:
            pass  # the connection had already closed

    def _fault(self, err: Exception, streaming: bool) -> BackendError:
        """Classify a failed request: a server fault to back off from, or a plain error."""
        openai = self._openai
        text = f'{type(err).__name__}: {err}'
        if isinstance(err, openai.APIStatusError):
            status = err.status_code
            if status in (429, 503):
                return ServerUnavailable(OVERLOADED, text, retry_after(err.response))
            if status >= 500 or status == 408:
                return ServerUnavailable(HTTP_ERROR, text)
            return BackendError(text)  # 4xx: a wrong model, key or request; not transient
        if isinstance(err, openai.APITimeoutError) or 'Timeout' in type(err).__name__:
            return ServerUnavailable(TIMEOUT, text)
        if isinstance(err, openai.APIConnectionError) and not streaming:
            return ServerUnavailable(REFUSED, text)
        if streaming or isinstance(err, openai.APIConnectionError):
            return ServerUnavailable(LOST, text)
        return BackendError(text)


def retry_after(response: Any) -> float | None:
    """Return a Retry-After header's seconds (a number; an HTTP date is ignored)."""
    try:
        value = float(response.headers.get('retry-after', ''))
    except (TypeError, ValueError):
        return None
    return value if value >= 0 else None
