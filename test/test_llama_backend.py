# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The llama.cpp backend cancels inside a prompt evaluation, and answers the same afterwards."""
import threading

import pytest

from kame_ros.oracle.backends.factory import make_backend

pytest.importorskip('llama_cpp', reason='scripts/setup.sh installs llama-cpp-python')

QUESTION = [{'role': 'user', 'content': 'What is the capital of France?'}]
# ~1000 tokens: SmolLM2-135M evaluates them in seconds on two cores, in one llama_decode per
# 512 tokens, with no token boundary where a between-tokens cancel could be noticed.
LONG = [{'role': 'user', 'content': 'Here is a list: '
         + ' '.join(f'item{i}' for i in range(320)) + '. Which item comes last?'}]


@pytest.fixture(scope='module')
def backend():
    backend = make_backend('llama_cpp', 'smollm2-135m')
    backend.load(lambda step: None)
    yield backend
    backend.close()


def test_a_cancel_during_the_prompt_evaluation_stops_it_there(backend, capfd):
    before = ''.join(backend.stream(QUESTION, 12, threading.Event()))
    assert before.strip()
    prompt_tokens = len(backend.llm.tokenize(LONG[0]['content'].encode()))
    assert prompt_tokens > 900

    cancel = threading.Event()
    pieces = []
    worker = threading.Thread(target=lambda: pieces.extend(backend.stream(LONG, 12, cancel)))
    worker.start()
    threading.Timer(0.3, cancel.set).start()  # the evaluation takes seconds
    worker.join(120)
    assert not worker.is_alive() and pieces == []
    # Only what was evaluated before the abort is kept: not the whole prompt, as a cancel
    # noticed at the first token would leave it.
    assert backend.llm.n_tokens < prompt_tokens
    # llama.cpp reports the abort as a failed computation; it is the cancel, not a fault.
    logged = capfd.readouterr().err
    assert 'removing memory module entries' not in logged and 'failed' not in logged, logged

    assert ''.join(backend.stream(QUESTION, 12, threading.Event())) == before
    # /diagnostics counts the prompt tokens: those llama.cpp evaluated are the ones named.
    tokens = backend.prompt_tokens(QUESTION)
    assert backend.llm.input_ids[:len(tokens)].tolist() == tokens
    stats = backend.stats()
    assert stats['prompt_tokens_lost'] >= 1, stats  # the aborted batch
    assert 0 < stats['prompt_tokens_evaluated'] < stats['prompt_tokens'], stats
