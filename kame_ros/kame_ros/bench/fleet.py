# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Fleet benchmark: N robots' oracles on one OpenAI-compatible LLM server.

Each simulated robot replays a recorded conversation's transcript stream
(``fleet_conversation.py``: partials and finals at the times one robot's
STT produced them) through its own ``OracleEngine`` with the ``openai``
backend, as ``llm_backend:=openai`` runs it on a robot; all of them talk to
one real server started here (``llm_server.py``: llama-cpp-python's server
with llama.cpp's token counters). The robots' conversations differ as
independent ones would: robot k asks the questions starting from the k-th,
has a robot context of its own (its name and room, in the system prompt,
so its prompts share with other robots' only the instructions before it)
and starts at its own point of the question period (seeded); identical
conversations would let the server's prompt cache serve one robot's
prompt from another's. Per row: the finals' time to the first reply text (the final's
submission to the first text of its answer), the requests the robots
started, cancelled, completed and failed, and from the server's /metrics
the prompt tokens it evaluated and the tokens it generated, beside the
tokens of the answers the robots used. Every N runs with guesses (the
oracle on every partial, as KAME does) and without (finals only): the
difference is the price of speculation on a shared server. With
``--llama-server BINARY`` the small model's rows run again on llama.cpp's
own server, a slot per robot (requests decoded side by side), and once
more with guesses held after their opening (``hold_guesses``: the rest is
written only for a final that confirms the guess; llama-server continues
a reply, llama-cpp-python's server cannot). Last, one robot
cancels requests at random moments of a long prompt's evaluation and of
its reply, and the server's counters say how many tokens it generated for
each after the cancel.
"""
import argparse
from dataclasses import asdict, dataclass, field
import json
from pathlib import Path
import random
import shutil
import socket
import subprocess
import sys
import threading
import time

import numpy as np

from kame_ros.bench.fleet_conversation import TRANSCRIPTS
from kame_ros.bench.llm_server import read_metrics, settled, wait_until_up
from kame_ros.oracle.backends.base import BackendError
from kame_ros.oracle.backends.embedded import EMBEDDED_MODELS, resolve_model
from kame_ros.oracle.backends.openai_compat import OpenAIBackend
from kame_ros.oracle.engine import OracleEngine
from kame_ros.oracle.events import APPEND, DONE, OracleEvent
from kame_ros.stt.events import TranscriptEvent

PERIOD_S = 9.5  # one question and its answer window in the recording
ANSWER_WAIT_S = 30.0  # after the last final, how long answers may still come
MAX_ROBOTS = 32
SLOT_CONTEXT = 4096  # llama-server: tokens of context per slot
GUESSES = ('on', 'held', 'off')


@dataclass
class FleetRow:
    """One run: a model, N robots, how they guess, and what the server and robots saw."""

    model: str
    server: str
    robots: int
    guesses: str  # GUESSES: on, held (after their opening) or off (finals only)
    first_text_s: list[float] = field(default_factory=list)  # per answered final
    finals: int = 0
    started: int = 0
    cancelled: int = 0
    completed: int = 0
    failed: int = 0
    prompt_tokens: float = 0.0  # evaluated by the server (its prompt cache aside)
    generated_tokens: float = 0.0
    used_tokens: int = 0  # of the answers the robots' finals got
    faults: dict[str, int] = field(default_factory=dict)
    held: int = 0  # guesses stopped after their opening
    continued: int = 0  # ... then written on for their final (a request each)

    def p(self, q: float) -> float:
        """Return a percentile of the first-text times (NaN with none)."""
        return float(np.percentile(self.first_text_s, q)) if self.first_text_s else float('nan')


def question_blocks() -> list[list[tuple[float, bool, str]]]:
    """
    Split the recording per question: its partials and final, timed from the question's start.

    A question's start is taken 1 s before its first partial (the STT's
    first read comes about a second into the speech).
    """
    blocks, block = [], []
    for row in TRANSCRIPTS:
        block.append(row)
        if row[1]:
            zero = block[0][0] - 1.0
            blocks.append([(at - zero, final, text) for at, final, text in block])
            block = []
    return blocks


def robot_script(index: int, questions: int) -> list[tuple[float, bool, str]]:
    """Return robot ``index``'s conversation: ``questions`` from the index-th on, one a period."""
    blocks = question_blocks()
    script = []
    for slot in range(questions):
        block = blocks[(index + slot) % len(blocks)]
        script += [(slot * PERIOD_S + at, final, text) for at, final, text in block]
    return script


class ReplayRobot:
    """One robot: its oracle engine on the server, fed the recorded transcripts on time."""

    def __init__(self, index: int, base_url: str, alias: str, offset_s: float, guesses: str,
                 questions: int, max_tokens: int) -> None:
        """Build the engine (nothing is sent before ``start``); ``guesses``: one of GUESSES."""
        self.offset_s = offset_s
        self.guesses = guesses != 'off'
        self.script = robot_script(index, questions)
        self.engine = OracleEngine(OpenAIBackend(base_url, alias, timeout_s=60.0, max_retries=0),
                                   self._emit, max_tokens=max_tokens,
                                   hold_guesses=guesses == 'held')
        self.engine.set_context(f'You are robot {index + 1}, in room {101 + index}.')
        self.submitted: dict[int, float] = {}  # utterance -> when its final was handed in
        self.first_text: dict[int, float] = {}  # utterance -> its answer's first text
        self.answers: dict[int, str] = {}  # utterance -> the answer's text, once complete
        self._texts: dict[int, list[str]] = {}
        self._said: list[str] = []  # answers to hand the engine as the agent's turns
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._replay, daemon=True, name='fleet-robot')

    def _emit(self, event: OracleEvent) -> None:
        """Keep the answers' timing and text (called under the engine's lock: no calls back)."""
        if not event.final:
            return
        now = time.monotonic()
        with self._lock:
            if event.kind == APPEND:
                self.first_text.setdefault(event.utterance_id, now)
                self._texts.setdefault(event.reply_id, []).append(event.text)
            elif event.kind == DONE and event.status == 'complete':
                text = ''.join(self._texts.get(event.reply_id, []))
                self.answers[event.utterance_id] = text
                self._said.append(text)

    def start(self, t0: float) -> None:
        """Start the engine and the replay, the conversation's zero at ``t0 + offset``."""
        self.t0 = t0 + self.offset_s
        self.engine.start()
        self.thread.start()

    def _replay(self) -> None:
        utterance, revision = 1, 0
        for at, final, text in self.script:
            time.sleep(max(0.0, self.t0 + at - time.monotonic()))
            with self._lock:
                said, self._said = self._said, []
            for text_said in said:
                self.engine.hear_agent(text_said)
            if final:
                self.submitted[utterance] = time.monotonic()
                self.engine.submit(TranscriptEvent(utterance, revision, text, True, 0, 0,
                                                   time.time_ns()))
                utterance, revision = utterance + 1, 0
            elif self.guesses:
                self.engine.submit(TranscriptEvent(utterance, revision, text, False, 0, 0,
                                                   time.time_ns()))
                revision += 1

    def done(self) -> bool:
        """Tell whether every final was handed in and answered (or given up on)."""
        return not self.thread.is_alive() and len(self.answers) >= len(self.submitted)


def free_port() -> int:
    """Return a free loopback port for the server."""
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Server:
    """
    The LLM server for one model, in its own process.

    llama-cpp-python's, counted (``llm_server.py``; one request at a time),
    or, given ``binary``, llama.cpp's ``llama-server`` with ``slots``
    parallel slots (continuous batching, a prompt cache per slot) and its
    own ``--metrics``.
    """

    def __init__(self, model_path: str, threads: int, log: Path, binary: str = '',
                 slots: int = 1) -> None:
        """Start it and wait until it answers (BackendError if it does not)."""
        self.base = f'http://127.0.0.1:{free_port()}'
        port = self.base.rsplit(':', 1)[1]
        if binary:
            self.name = f'llama-server -np {slots}'
            command = [binary, '-m', model_path, '--host', '127.0.0.1', '--port', port,
                       '-np', str(slots), '-c', str(SLOT_CONTEXT * slots), '-t', str(threads),
                       '--metrics', '--alias', 'fleet']
        else:
            self.name = 'llama-cpp-python'
            command = [sys.executable, '-m', 'kame_ros.bench.llm_server', '--model',
                       model_path, '--alias', 'fleet', '--port', port, '--threads', str(threads)]
        self.proc = subprocess.Popen(command, stdout=open(log, 'a'), stderr=subprocess.STDOUT)
        wait_until_up(self.base, self.proc)

    def settled(self) -> dict[str, float]:
        """Return the counters once no request is being served (the last one's tokens in)."""
        return settled(self.base)

    def stop(self) -> None:
        """Kill the server."""
        self.proc.kill()
        self.proc.wait(10)


def run_row(server: Server, model: str, robots: int, guesses: str, questions: int,
            max_tokens: int, count_tokens, seed: int) -> FleetRow:
    """Replay the conversation on ``robots`` robots at once; return the row."""
    rng = random.Random(seed)
    fleet = [ReplayRobot(k, f'{server.base}/v1', 'fleet', rng.uniform(0, PERIOD_S) if k else 0.0,
                         guesses, questions, max_tokens) for k in range(robots)]
    before = server.settled()
    t0 = time.monotonic() + 0.5
    for robot in fleet:
        robot.start(t0)
    end = t0 + PERIOD_S + max(robot.script[-1][0] for robot in fleet) + ANSWER_WAIT_S
    while time.monotonic() < end and not all(robot.done() for robot in fleet):
        time.sleep(0.2)
    for robot in fleet:
        robot.engine.stop()
    after = server.settled()
    row = FleetRow(model, server.name, robots, guesses)
    for robot in fleet:
        stats = robot.engine.stats
        row.finals += len(robot.submitted)
        row.first_text_s += [robot.first_text[u] - t for u, t in robot.submitted.items()
                             if u in robot.first_text]
        row.started += stats.restarts + stats.continued
        row.held += stats.held
        row.continued += stats.continued
        row.cancelled += stats.cancelled
        row.completed += stats.completed
        row.failed += stats.failed
        row.used_tokens += sum(count_tokens(text) for text in robot.answers.values())
        for kind, n in stats.server_faults.items():
            row.faults[kind] = row.faults.get(kind, 0) + n
    row.prompt_tokens = after['prompt_tokens_total'] - before['prompt_tokens_total']
    row.generated_tokens = after['tokens_predicted_total'] - before['tokens_predicted_total']
    return row


@dataclass
class CancelRow:
    """Cancels at one stage of a request: tokens the server generated after each, and the wait."""

    stage: str  # 'prompt' (while the server evaluates it) or 'reply' (while it streams)
    tokens_after: list[float] = field(default_factory=list)
    returned_ms: list[float] = field(default_factory=list)  # cancel -> the stream returned


# A prompt long enough that a cancel lands inside its evaluation (~600 tokens).
LONG_PROMPT = ' '.join(f'Robot note {i}: the corridor by room {i} is clear.' for i in range(40))


def cancel_rows(server: Server, cancels: int, seed: int) -> list[CancelRow]:
    """Cancel ``cancels`` requests per stage, one at a time; count what the server did after."""
    rng = random.Random(seed)
    backend = OpenAIBackend(f'{server.base}/v1', 'fleet', timeout_s=120.0, max_retries=0)

    def ask(k: int) -> list[dict[str, str]]:
        # A new first line each time: the server's prompt cache holds none of the prompt.
        return [{'role': 'user', 'content': f'Request {k}. {LONG_PROMPT} Tell me a story.'}]
    t0 = time.monotonic()
    next(iter(backend.stream(ask(-1), 1, threading.Event())))
    prompt_s = time.monotonic() - t0
    rows = [CancelRow('prompt'), CancelRow('reply')]
    for k in range(cancels * 2):
        row = rows[k % 2]
        server.settled()
        cancel, cancelled_at, pieces = threading.Event(), [], 0
        at_cancel: dict[str, float] = {}

        def stop() -> None:
            cancelled_at.append(time.monotonic())
            cancel.set()
            at_cancel.update(read_metrics(server.base))
        timer = threading.Timer(prompt_s * rng.uniform(0.1, 0.8), stop)
        if row.stage == 'prompt':
            timer.start()
        stop_after = rng.randint(1, 10)
        for _ in backend.stream(ask(k), 200, cancel):
            pieces += 1
            if row.stage == 'reply' and pieces == stop_after:
                stop()
        returned = time.monotonic()
        timer.cancel()
        if not cancelled_at:
            continue  # the request ended before its cancel came
        row.returned_ms.append((returned - cancelled_at[0]) * 1e3)
        row.tokens_after.append(server.settled()['tokens_predicted_total']
                                - at_cancel['tokens_predicted_total'])
    return rows


def cancel_table(rows: list[CancelRow]) -> str:
    """Return the cancel table's Markdown ('' without cancels)."""
    if not any(r.tokens_after for r in rows):
        return ''
    lines = ['| cancelled during | cancels | tokens generated after the cancel p50 / p90 / max '
             '| cancel -> stream returned p50 / max ms |', '|---|---|---|---|']
    for r in rows:
        if not r.tokens_after:
            continue
        tokens = np.asarray(r.tokens_after)
        lines.append(f'| {r.stage} | {len(tokens)} | {np.median(tokens):.0f} / '
                     f'{np.percentile(tokens, 90):.0f} / {tokens.max():.0f} | '
                     f'{np.median(r.returned_ms):.0f} / {max(r.returned_ms):.0f} |')
    return '\n'.join(lines)


def table(rows: list[FleetRow]) -> str:
    """Return the Markdown table: a line per run, p90 against the same model's N = 1."""
    head = ['model', 'server', 'robots', 'guesses', 'finals answered',
            'first reply text p50 / p90 s',
            'p90 / N=1 p90', 'requests started / cancelled / completed / failed',
            'guesses held / continued',
            'server prompt tokens', 'server generated tokens', 'answer tokens used',
            'generated / used']
    lines = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
    for r in rows:
        one = next((b for b in rows if (b.model, b.server, b.guesses) ==
                    (r.model, r.server, r.guesses) and b.robots == 1), r)
        lines.append('| ' + ' | '.join([
            r.model, r.server, str(r.robots), r.guesses,
            f'{len(r.first_text_s)}/{r.finals}', f'{r.p(50):.2f} / {r.p(90):.2f}',
            f'{r.p(90) / one.p(90):.2f}', f'{r.started} / {r.cancelled} / {r.completed} / '
            f'{r.failed}', f'{r.held} / {r.continued}', f'{r.prompt_tokens:.0f}',
            f'{r.generated_tokens:.0f}', str(r.used_tokens),
            f'{r.generated_tokens / r.used_tokens:.1f}' if r.used_tokens else '-']) + ' |')
    return '\n'.join(lines)


def plot(rows: list[FleetRow], path: Path) -> None:
    """First reply text p50 (solid) and p90 (dashed) against the number of robots."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    for model, server in dict.fromkeys((r.model, r.server) for r in rows):
        for guesses in GUESSES:
            line = sorted((r for r in rows if (r.model, r.server, r.guesses) ==
                           (model, server, guesses)), key=lambda r: r.robots)
            if not line:
                continue
            label = f'{model} ({server}), guesses {guesses}'
            n = [r.robots for r in line]
            drawn = ax.plot(n, [r.p(50) for r in line], marker='o', label=f'{label} p50')
            ax.plot(n, [r.p(90) for r in line], marker='x', linestyle='--',
                    color=drawn[0].get_color(), label=f'{label} p90')
    ax.set_xlabel('robots on one server')
    ax.set_ylabel('final -> first reply text (s)')
    ax.set_xscale('log', base=2)
    counts = sorted({r.robots for r in rows})
    ax.set_xticks(counts, [str(n) for n in counts])
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def robot_counts(text: str) -> list[int]:
    """Return one robot count, checked (argparse type)."""
    n = int(text)
    if not 1 <= n <= MAX_ROBOTS:
        raise argparse.ArgumentTypeError(f'robots must be 1-{MAX_ROBOTS}, not {n}')
    return n


def parse(argv: list[str] | None) -> argparse.Namespace:
    """Parse and check the command line before any model loads."""
    parser = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    parser.add_argument('--robots', type=robot_counts, nargs='+', default=[1, 2, 4, 8],
                        help='robot counts for the small model')
    parser.add_argument('--model', default='smollm2-135m',
                        help='small model: embedded name or GGUF file')
    parser.add_argument('--large-robots', type=robot_counts, nargs='*', default=[1, 2],
                        help='robot counts for the large model (none: skip it)')
    parser.add_argument('--large-model', default='qwen2.5-coder-1.5b')
    finals = sum(final for _, final, _ in TRANSCRIPTS)
    parser.add_argument('--questions', type=int, default=finals,
                        help=f'questions of the recording replayed (1-{finals})')
    parser.add_argument('--max-tokens', type=int, default=40)
    parser.add_argument('--threads', type=int, default=2, help="the server's CPU threads")
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--llama-server', default='', metavar='BINARY',
                        help="also run the small model's rows on llama.cpp's llama-server "
                        '(a slot per robot; its /metrics count a request at its end, so the '
                        'cancels run on llama-cpp-python only)')
    parser.add_argument('--cancels', type=int, default=10,
                        help='cancels per stage with the small model (0: none)')
    parser.add_argument('--out', type=Path, default=Path('out/fleet'))
    opts = parser.parse_args(argv)
    if not 1 <= opts.questions <= finals:
        parser.error(f'--questions must be 1-{finals}')
    if not 1 <= opts.max_tokens <= 512 or not 1 <= opts.threads <= 256 \
            or not 0 <= opts.cancels <= 100:
        parser.error('--max-tokens must be 1-512, --threads 1-256, --cancels 0-100')
    for name in [opts.model] + ([opts.large_model] if opts.large_robots else []):
        if name not in EMBEDDED_MODELS and not Path(name).is_file():
            parser.error(f'no model {name!r}: an embedded name ({", ".join(EMBEDDED_MODELS)}) '
                         'or a GGUF file')
    if opts.llama_server and not shutil.which(opts.llama_server):
        parser.error(f'no llama-server at {opts.llama_server!r}')
    try:
        opts.out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        parser.error(f'cannot write --out {opts.out}: {err.strerror}')
    return opts


def main(argv: list[str] | None = None) -> None:
    """Run every row, print the table, write fleet.md, fleet.json and fleet.png."""
    opts = parse(argv)
    plan = [(opts.model, opts.robots, '')]
    if opts.llama_server:
        plan.append((opts.model, opts.robots, opts.llama_server))
    if opts.large_robots:
        plan.append((opts.large_model, opts.large_robots, ''))
    rows, cancels = [], []
    for model, counts, binary in plan:
        try:
            path = resolve_model(model)
            from llama_cpp import Llama
            vocab = Llama(model_path=path, vocab_only=True, verbose=False)
            server = Server(path, opts.threads, opts.out / 'server.log', binary, max(counts))
        except (BackendError, OSError, ValueError) as err:
            sys.exit(f'kame_ros_bench_fleet: {model}: {err}')

        def count_tokens(text: str) -> int:
            return len(vocab.tokenize(text.encode(), add_bos=False)) if text else 0
        try:
            for robots in counts:
                for guesses in GUESSES if binary else ('on', 'off'):
                    print(f'[fleet] {model} on {server.name}: {robots} robot(s), guesses '
                          f'{guesses}...', flush=True)
                    row = run_row(server, model, robots, guesses, opts.questions,
                                  opts.max_tokens, count_tokens, opts.seed)
                    rows.append(row)
                    print(f'  first reply text p50 {row.p(50):.2f} s, p90 {row.p(90):.2f} s, '
                          f'{len(row.first_text_s)}/{row.finals} answered', flush=True)
            if model == opts.model and opts.cancels and not binary:
                print(f'[fleet] {model}: {opts.cancels} cancels per stage...', flush=True)
                cancels = cancel_rows(server, opts.cancels, opts.seed)
        finally:
            server.stop()
    report = '\n\n'.join(part for part in (table(rows), cancel_table(cancels)) if part)
    print('\n' + report)
    (opts.out / 'fleet.md').write_text(report + '\n')
    (opts.out / 'fleet.json').write_text(json.dumps(
        {'rows': [asdict(r) for r in rows], 'cancels': [asdict(c) for c in cancels]}, indent=1))
    plot(rows, opts.out / 'fleet.png')
    print(f'\nwrote {opts.out}/fleet.md, fleet.json, fleet.png')


if __name__ == '__main__':
    main()
