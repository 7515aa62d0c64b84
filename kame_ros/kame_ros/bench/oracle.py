# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Benchmark the oracle back-end: time from a transcript to the first oracle text, and tokens/s.

Every backend available here runs the same questions through the real
OracleEngine (scheduler, prompt, streaming, events), with the embedded
SmolLM2-135M-Instruct (small enough for transformers in float; the knowledge
benchmark compares models). The baseline is the transformers backend unquantized.

    kame_ros_bench_oracle --repeats 3 --out out/bench_oracle
"""
import argparse
from pathlib import Path
import socket
import subprocess
import sys
import threading
import time
import urllib.request

from kame_ros.bench.report import LatencyStats, table
from kame_ros.oracle.backends.base import BackendError
from kame_ros.oracle.backends.embedded import embedded_model_path
from kame_ros.oracle.backends.factory import make_backend
from kame_ros.oracle.engine import OracleEngine
from kame_ros.oracle.events import APPEND, DONE
from kame_ros.stt.events import TranscriptEvent

QUESTIONS = ['What is the capital of France?', 'How many legs does a spider have?',
             'What color is the sky on a clear day?', 'Who wrote Romeo and Juliet?',
             'What is the boiling point of water?']
MODEL = 'smollm2-135m'


def run_backend(backend, repeats: int, count_tokens) -> tuple[list[float], list[float]]:
    """First-piece latencies (ms) and tokens/s of every reply."""
    first_ms, rates = [], []
    for utterance, question in enumerate(QUESTIONS * repeats, start=1):
        events = []
        done = threading.Event()

        def emit(event, events=events, done=done):
            events.append((time.perf_counter(), event))
            if event.kind == DONE:
                done.set()
        engine = OracleEngine(backend, emit, max_tokens=40)
        t0 = time.perf_counter()
        engine.submit(TranscriptEvent(utterance, 0, question, True, 0, 0, time.time_ns()))
        engine.tick()
        done.wait(120)
        pieces = [(t, e.text) for t, e in events if e.kind == APPEND]
        if not pieces or events[-1][1].status != 'complete':
            print(f'  [{backend.name}] no complete reply to {question!r}: '
                  f'{engine.stats.last_error}', flush=True)
            continue
        first_ms.append((pieces[0][0] - t0) * 1e3)
        tokens = count_tokens(''.join(text for _, text in pieces))
        if pieces[-1][0] > pieces[0][0]:
            rates.append(tokens / (pieces[-1][0] - pieces[0][0]))
    return first_ms, rates


def start_server(port: int) -> subprocess.Popen:
    """llama-cpp-python's OpenAI-compatible server on loopback."""
    proc = subprocess.Popen([sys.executable, '-m', 'llama_cpp.server',
                             '--model', embedded_model_path(MODEL), '--host', '127.0.0.1',
                             '--port', str(port), '--model_alias', 'smollm2'],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            urllib.request.urlopen(f'http://127.0.0.1:{port}/v1/models', timeout=1)
            return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise BackendError('llama.cpp server did not start')


def main(argv: list[str] | None = None) -> None:
    """Run every available backend, print the table, write Markdown and PNG."""
    parser = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    parser.add_argument('--repeats', type=int, default=2, help='passes over the questions')
    parser.add_argument('--out', type=Path, default=Path('out/bench_oracle'))
    opts = parser.parse_args(argv)
    opts.out.mkdir(parents=True, exist_ok=True)
    from transformers import AutoTokenizer
    gguf = Path(embedded_model_path(MODEL))
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)

    def count_tokens(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False)['input_ids'])

    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    configs = [('transformers fp32 (baseline)',
                lambda: make_backend('transformers', MODEL, quantization='none')),
               ('transformers int8',
                lambda: make_backend('transformers', MODEL, quantization='int8')),
               ('llama_cpp Q4_1 GGUF', lambda: make_backend('llama_cpp', MODEL)),
               ('openai -> llama.cpp server', lambda: make_backend(
                   'openai', 'smollm2', base_url=f'http://127.0.0.1:{port}/v1'))]
    rows, rates, loads = [], [], []
    server = None
    for name, factory in configs:
        print(f'[bench] {name}: loading...', flush=True)
        try:
            if name.startswith('openai'):
                server = start_server(port)
            backend = factory()
            t = time.perf_counter()
            backend.load(lambda step: print(f'  {step}', flush=True))
            load_s = time.perf_counter() - t
        except (BackendError, ImportError) as err:
            print(f'  skipped: {err}', flush=True)
            continue
        print(f'[bench] {name}: {len(QUESTIONS) * opts.repeats} questions...', flush=True)
        first, rate = run_backend(backend, opts.repeats, count_tokens)
        backend.close()
        rows.append(LatencyStats.of(name, first))
        rates.append(sorted(rate)[len(rate) // 2] if rate else float('nan'))
        loads.append(load_s)
    if server is not None:
        server.kill()
    if not rows:
        sys.exit('no backend could run')
    report = table(rows, rows[0], {'tokens/s (median)': [f'{r:.1f}' for r in rates],
                                   'load s': [f'{t:.1f}' for t in loads]})
    print('\nOracle: final transcript -> first oracle text (ms), embedded SmolLM2-135M-Instruct\n')
    print(report)
    (opts.out / 'oracle.md').write_text(report + '\n')
    plot(rows, rates, opts.out / 'oracle.png')
    print(f'\nwrote {opts.out}/oracle.md and oracle.png')


def plot(rows: list[LatencyStats], rates: list[float], path: Path) -> None:
    """Bars: first-text latency and tokens/s per backend."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.8))
    names = [r.name for r in rows]
    a.barh(names, [r.p50 for r in rows], xerr=[[0] * len(rows),
                                               [r.p99 - r.p50 for r in rows]], color='tab:blue')
    a.set_xlabel('transcript -> first oracle text, ms (p50, bar to p99)')
    b.barh(names, rates, color='tab:green')
    b.set_xlabel('tokens/s')
    b.set_yticklabels([])
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == '__main__':
    main()
