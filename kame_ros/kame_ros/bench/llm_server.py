# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
A real OpenAI-compatible LLM server for the fleet benchmark and its tests, with counters.

It is llama-cpp-python's server (``llama_cpp.server``, unchanged, in a
process of its own) plus what that server lacks and llama.cpp's own
``llama-server --metrics`` has: ``GET /metrics`` in Prometheus text, with
llama.cpp's names for the tokens the server evaluated and generated
(``llamacpp:prompt_tokens_total``, ``llamacpp:tokens_predicted_total``) and
whether it is evaluating (``llamacpp:requests_processing``: 1 while a
prompt or token is evaluated), so
that the benchmark reads a llama-server the same way; and, for the fault
tests, ``POST /fault`` (``{"status": 503, "count": 2, "retry_after": 1}``):
the next ``count`` chat requests are refused with that status, as an
overloaded vLLM or llama-server refuses them.

The counts come from inside the server: every ``Llama.eval`` of a
request's prompt (what its prompt cache did not already hold) and every
sampled token. llama-cpp-python serves one request at a time (one
sequence; no parallel slots) and, by default, ends a streaming reply when
another request arrives (``interrupt_requests``): the launcher turns that
off, since on a server shared by robots it cuts one robot's reply short
for another's.

Run: ``python -m kame_ros.bench.llm_server --model FILE.gguf --port 8080``.
"""
import argparse
import sys
import threading
import time
import urllib.request

from kame_ros.oracle.backends.base import BackendError

COUNTERS = ('prompt_tokens_total', 'tokens_predicted_total', 'requests_processing',
            'requests_total', 'requests_refused_total')


class Counters:
    """The server's token and request counts (its request threads write, /metrics reads)."""

    def __init__(self) -> None:
        """Start at zero."""
        self._lock = threading.Lock()
        self.values = dict.fromkeys(COUNTERS, 0)

    def add(self, name: str, n: int = 1) -> None:
        """Count ``n`` more of ``name``."""
        with self._lock:
            self.values[name] += n

    def prometheus(self) -> str:
        """Return the counters as Prometheus text (llama.cpp's ``llamacpp:`` prefix)."""
        with self._lock:
            return ''.join(f'llamacpp:{name} {n}\n' for name, n in self.values.items())


def count_in_llama(counters: Counters) -> None:
    """Count every prompt token evaluated and every token sampled, in every Llama."""
    from llama_cpp import Llama
    generate, evaluate, sample = Llama.generate, Llama.eval, Llama.sample

    def counted_generate(self, tokens, *args, **kwargs):
        self._kame_prompt_pending = True  # the first eval of this request is its prompt
        return generate(self, tokens, *args, **kwargs)

    def counted_eval(self, tokens):
        if getattr(self, '_kame_prompt_pending', False):
            self._kame_prompt_pending = False
            counters.add('prompt_tokens_total', len(tokens))
        counters.add('requests_processing')  # (a request's prompt or token being evaluated)
        try:
            return evaluate(self, tokens)
        finally:
            counters.add('requests_processing', -1)

    def counted_sample(self, *args, **kwargs):
        counters.add('tokens_predicted_total')
        return sample(self, *args, **kwargs)

    Llama.generate, Llama.eval, Llama.sample = counted_generate, counted_eval, counted_sample


def build_app(model: str, alias: str, n_ctx: int, threads: int, counters: Counters):
    """llama-cpp-python's app for ``model``, with /metrics and /fault added."""
    from fastapi import Request
    from fastapi.responses import JSONResponse, PlainTextResponse
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings
    count_in_llama(counters)
    settings = {'model': model, 'model_alias': alias, 'n_ctx': n_ctx, 'verbose': False}
    if threads:
        settings.update(n_threads=threads, n_threads_batch=threads)
    app = create_app(server_settings=ServerSettings(interrupt_requests=False),
                     model_settings=[ModelSettings(**settings)])
    fault = {'status': 0, 'count': 0, 'retry_after': None}

    @app.get('/metrics')
    def metrics() -> PlainTextResponse:
        return PlainTextResponse(counters.prometheus())

    @app.post('/fault')
    async def set_fault(request: Request) -> JSONResponse:
        fault.update({'status': 0, 'count': 0, 'retry_after': None, **(await request.json())})
        return JSONResponse(fault)

    class FaultSwitch:
        """
        Counts chat requests; refuses them while the fault switch says so (pure ASGI).

        Not a BaseHTTPMiddleware: that one wraps the request's receive
        channel, and the server's streamed replies must see a client leave.
        """

        def __init__(self, inner) -> None:
            self.inner = inner

        async def __call__(self, scope, receive, send) -> None:
            if scope['type'] == 'http' and scope['path'].endswith('/chat/completions'):
                counters.add('requests_total')
                if fault['count'] > 0:
                    fault['count'] -= 1
                    counters.add('requests_refused_total')
                    headers = ({'Retry-After': str(fault['retry_after'])}
                               if fault['retry_after'] is not None else {})
                    refusal = JSONResponse({'error': {'message': 'refused (fault switch)'}},
                                           status_code=fault['status'], headers=headers)
                    await refusal(scope, receive, send)
                    return
            await self.inner(scope, receive, send)

    app.add_middleware(FaultSwitch)
    return app


def read_metrics(base: str, timeout: float = 5.0) -> dict[str, float]:
    """Return a server's ``llamacpp:`` counters from its /metrics (``base``: http://host:port)."""
    with urllib.request.urlopen(f'{base}/metrics', timeout=timeout) as response:
        text = response.read().decode()
    values = {}
    for line in text.splitlines():
        if line.startswith('llamacpp:') and ' ' in line:
            name, value = line.split()[:2]
            values[name.removeprefix('llamacpp:')] = float(value)
    return values


def settled(base: str, quiet_s: float = 0.3, timeout_s: float = 120.0) -> dict[str, float]:
    """
    Return the counters once the server is idle: not evaluating, and no count moved for a while.

    A prompt's evaluation moves no counter until it ends (hence the
    gauge); between two tokens the gauge is briefly 0 (hence the quiet).
    """
    end = time.monotonic() + timeout_s
    last, since = read_metrics(base), time.monotonic()
    while time.monotonic() < end:
        time.sleep(0.05)
        now = read_metrics(base)
        if now != last or now.get('requests_processing'):
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet_s:
            break
    return last


def set_fault(base: str, status: int, count: int, retry_after: float | None = None) -> None:
    """Have the server refuse its next ``count`` chat requests with ``status``."""
    body = f'{{"status": {status}, "count": {count}, "retry_after": ' \
           f'{"null" if retry_after is None else retry_after}}}'.encode()
    request = urllib.request.Request(f'{base}/fault', data=body, method='POST',
                                     headers={'Content-Type': 'application/json'})
    urllib.request.urlopen(request, timeout=5).close()


def wait_until_up(base: str, proc, timeout_s: float = 120.0) -> None:
    """Wait for the server's /metrics (BackendError: it exited or never answered)."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise BackendError(f'the LLM server exited ({proc.returncode})')
        try:
            read_metrics(base, timeout=1.0)
            return
        except OSError:
            time.sleep(0.2)
    raise BackendError(f'the LLM server did not answer within {timeout_s:.0f} s')


def main(argv: list[str] | None = None) -> None:
    """Serve ``--model`` on ``--host:--port`` until killed."""
    parser = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    parser.add_argument('--model', required=True, help='GGUF file')
    parser.add_argument('--alias', default='default', help='the model name clients ask for')
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, default=8080)
    parser.add_argument('--n-ctx', type=int, default=4096)
    parser.add_argument('--threads', type=int, default=0, help='0: llama.cpp default')
    opts = parser.parse_args(argv)
    import uvicorn
    try:
        app = build_app(opts.model, opts.alias, opts.n_ctx, opts.threads, Counters())
    except (OSError, ValueError) as err:
        sys.exit(f'llm_server: cannot load {opts.model}: {err}')
    uvicorn.run(app, host=opts.host, port=opts.port, log_level='warning')


if __name__ == '__main__':
    main()
