# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The oracle against one real OpenAI-compatible server shared by robots: cancels and faults.

The server is llama-cpp-python's, serving the embedded SmolLM2-135M GGUF,
started by ``kame_ros.bench.llm_server`` (its /metrics count the tokens it
evaluates and generates; its fault switch refuses requests with a status).
"""
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from kame_ros.bench.llm_server import read_metrics, set_fault, settled as settled_metrics, \
    wait_until_up
from kame_ros.oracle.backends.base import LOST, OVERLOADED, REFUSED
from kame_ros.oracle.backends.embedded import embedded_model_path
from kame_ros.oracle.backends.openai_compat import OpenAIBackend
from kame_ros.oracle.engine import OracleEngine
from kame_ros.oracle.events import APPEND, DONE
from kame_ros.stt.events import TranscriptEvent
from polling import wait_for

pytest.importorskip('llama_cpp.server', reason='scripts/setup.sh installs llama-cpp-python')

QUESTION = 'What is the capital of France?'
# ~500 prompt tokens: long enough that a cancel lands inside the server's prompt evaluation.
LONG = ' '.join(f'Robot note {i}: the corridor by room {i} is clear.' for i in range(32))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Server:
    """The benchmark's counted llama.cpp server on loopback, restartable."""

    def __init__(self, log_path) -> None:
        self.port = free_port()
        self.base = f'http://127.0.0.1:{self.port}'
        self.log_path = log_path
        self.proc = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, '-m', 'kame_ros.bench.llm_server',
             '--model', embedded_model_path('smollm2-135m'), '--alias', 'smollm2',
             '--port', str(self.port), '--threads', '1'],
            stdout=open(self.log_path, 'a'), stderr=subprocess.STDOUT)
        wait_until_up(self.base, self.proc)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path / 'server.log')
    srv.start()
    yield srv
    srv.kill()


def backend_for(srv: Server, timeout_s: float = 5.0) -> OpenAIBackend:
    return OpenAIBackend(f'{srv.base}/v1', 'smollm2', timeout_s=timeout_s, max_retries=0)


def settled(srv: Server) -> dict[str, float]:
    """Return the server's counters once it serves no request."""
    return settled_metrics(srv.base)


def test_a_cancel_stops_the_request_on_the_server_also_during_its_prompt(server):
    backend = backend_for(server, timeout_s=60.0)
    messages = [{'role': 'user', 'content': LONG + ' Tell me a long story about this corridor.'}]
    # The prompt alone, measured: how long the server evaluates it.
    t0 = time.monotonic()
    first = next(iter(backend.stream(messages, 1, threading.Event())))
    prompt_s = time.monotonic() - t0
    assert first and prompt_s > 0.2, f'the prompt must take a while to evaluate ({prompt_s:.2f} s)'
    after_cancel = []
    for cancel_at in ('prompt', 'tokens'):
        # A new first line: the server's prompt cache holds none of it.
        messages = [{'role': 'user', 'content': f'Cancelled at the {cancel_at}. ' + LONG}]
        before = settled(server)
        cancel = threading.Event()
        pieces = []
        timer = threading.Timer(prompt_s / 4, cancel.set) if cancel_at == 'prompt' else None
        if timer:
            timer.start()
        t0 = time.monotonic()
        for piece in backend.stream(messages, 300, cancel):
            pieces.append(piece)
            if len(pieces) == 5:
                cancel.set()
        returned_s = time.monotonic() - t0
        at_cancel = read_metrics(server.base)
        end = settled(server)
        after_cancel.append(end['tokens_predicted_total'] - at_cancel['tokens_predicted_total'])
        if cancel_at == 'prompt':
            assert not pieces and returned_s < prompt_s / 2, \
                f'the stream returned after {returned_s:.2f} s; its prompt takes {prompt_s:.2f} s'
            assert end['tokens_predicted_total'] - before['tokens_predicted_total'] <= 2
        else:
            assert len(pieces) == 5
    assert max(after_cancel) <= 2, f'tokens generated after the cancel: {after_cancel}'
    assert backend.closed_on_cancel == 2
    # The server is free again: a question is answered.
    answer = ''.join(backend.stream([{'role': 'user', 'content': QUESTION}], 20,
                                    threading.Event()))
    assert 'Paris' in answer


def transcript(text, utt, final=True):
    return TranscriptEvent(utt, 0, text, final, 0, 0, time.time_ns())


class Robot:
    """One robot's oracle engine on the shared server, its events kept."""

    def __init__(self, srv: Server, timeout_s: float = 3.0) -> None:
        self.events = []
        self.engine = OracleEngine(backend_for(srv, timeout_s), self.events.append,
                                   max_tokens=24)
        self.engine.start()

    def ask(self, utt: int, timeout: float = 30.0) -> tuple[str, str, float]:
        """Say a final question; return the status and text of its last reply, and seconds."""
        t0 = time.monotonic()
        self.engine.submit(transcript(QUESTION, utt))
        assert wait_for(lambda: self._answer(utt) is not None, timeout), \
            f'no answer to {utt}: {self.engine.stats}'
        status, text = self._answer(utt)
        return status, text, time.monotonic() - t0

    def _answer(self, utt: int):
        replies = [e for e in self.events if e.utterance_id == utt and e.final]
        done = [e for e in replies if e.kind == DONE]
        if not done:
            return None
        if not self.engine.idle:
            return None  # a reply under way, or a failed one to be sent again after the backoff
        last = done[-1].reply_id
        return done[-1].status, ''.join(e.text for e in replies
                                        if e.kind == APPEND and e.reply_id == last)


def test_refusals_back_off_skip_guesses_and_the_final_is_answered(server):
    robot = Robot(server)
    try:
        status, text, _ = robot.ask(1)
        assert status == 'complete' and 'Paris' in text
        set_fault(server.base, 503, 2, retry_after=1)
        before = read_metrics(server.base)
        status, text, took = robot.ask(2)
        assert status == 'complete' and 'Paris' in text, 'answered once the server took it'
        stats = robot.engine.stats
        assert stats.server_faults[OVERLOADED] == 2 and stats.finals_retried == 2
        assert took >= 2.0, 'the Retry-After of each refusal was kept'
        # While backing off, guesses on partials are not sent at all.
        set_fault(server.base, 429, 1, retry_after=2)
        robot.engine.submit(transcript('What is the', 3, final=False))
        assert wait_for(lambda: robot.engine.stats.server_faults[OVERLOADED] == 3, 10)
        sent = read_metrics(server.base)['requests_total']
        robot.engine.submit(TranscriptEvent(3, 1, 'What is the capital of', False, 0, 0,
                                            time.time_ns()))
        time.sleep(1.0)
        assert read_metrics(server.base)['requests_total'] == sent, 'a guess went out'
        assert robot.engine.stats.held_by_backoff > 0
        assert read_metrics(server.base)['requests_total'] - before['requests_total'] == 4
    finally:
        robot.engine.stop()


def test_a_server_killed_mid_reply_and_restarted_is_used_again_within_seconds(server):
    robot = Robot(server)
    try:
        assert robot.ask(1)[0] == 'complete'
        os.kill(server.proc.pid, signal.SIGSTOP)  # hung: the read times out
        robot.engine.submit(transcript('Tell me a long story about a robot.', 2))
        assert wait_for(lambda: sum(robot.engine.stats.server_faults.values()) >= 1, 15)
        server.kill()  # and gone: refused from now on
        assert wait_for(lambda: robot.engine.stats.server_faults[REFUSED] >= 1, 15)
        server.start()
        back = time.monotonic()
        status, text, _ = robot.ask(3)
        assert status == 'complete' and 'Paris' in text
        assert time.monotonic() - back < 5.0, 'answered within 5 s of the server coming back'
        # Killed in the middle of a streamed reply: lost, counted, answered after a restart.
        robot.engine.submit(transcript(LONG + ' Tell me a long story about it.', 4))
        assert wait_for(lambda: any(e.kind == APPEND and e.utterance_id == 4
                                    for e in robot.events), 30)
        server.kill()
        assert wait_for(lambda: robot.engine.stats.server_faults[LOST] >= 1, 10)
        server.start()
        assert robot.ask(5)[0] == 'complete'
    finally:
        robot.engine.stop()
