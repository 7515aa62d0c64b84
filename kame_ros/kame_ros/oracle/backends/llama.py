# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
``llama_cpp`` backend: GGUF models through llama.cpp, the usual choice on a Jetson.

llama.cpp runs quantized GGUF weights natively (Q4/Q8 kernels, CUDA on
Jetson when built with it) and generates lazily, one token per iteration,
so stopping the iteration cancels between tokens. A prompt evaluation is
one long ``llama_decode`` with no token boundary (seconds for a 1.5B on two
cores), so a guess superseded by the user's final would hold the model
through it; llama.cpp's abort callback, polled between the graph's nodes,
ends it there. The abort works on the CPU backend only (llama.cpp's own
limit): with CUDA a cancelled prompt evaluation still runs to its end.
An abort loses the whole batch it interrupted, so prompts are evaluated in
batches of ``PROMPT_BATCH`` (16) tokens: an aborted guess keeps what it evaluated
before its last batch, and the next prompt (the same conversation with a
few more words) reuses it. With llama.cpp's usual 512 a guess aborted in its
prompt left nothing: the answer after it re-evaluated the whole prompt
(docs/measurements.md, "Figures behind the code").
llama.cpp reports an abort as a failed graph computation (four log lines,
one of them printed); those lines are the cancel, not a fault, so they are
kept out of the log while an abort this process asked for is under way.

Every prompt's tokens, those reused from the previous prompt and those
lost in aborted batches are counted for ``/diagnostics``: what the guesses
on partial transcripts cost, and how much of the question was evaluated
before the final.
"""
import ctypes
from dataclasses import dataclass
from pathlib import Path
import threading
from typing import Any, Iterator, Sequence

from kame_ros.oracle.backends.base import BackendError, LLMBackend, Messages, Progress

PROMPT_BATCH = 16  # tokens per prompt-evaluation batch: what an abort can lose (8 is slower)
# llama-cpp-python's chat completion samples with this repeat penalty (its default).
CHAT_REPEAT_PENALTY = 1.1
_ABORTING = threading.Event()  # set from an abort this process asked for until it returns
_LOG_FILTER = []  # the installed C log callback, kept referenced for the process's life


def _filter_abort_lines(llama_cpp) -> None:
    """Put a filter before llama-cpp-python's log handler (once per process)."""
    if _LOG_FILTER:
        return
    forward = llama_cpp._logger.llama_log_callback  # the handler llama-cpp-python installed

    @llama_cpp.llama_log_callback
    def log(level, text, data) -> None:
        if not _ABORTING.is_set():
            forward(level, text, data)
    llama_cpp.llama_log_set(log, ctypes.c_void_p(0))
    _LOG_FILTER.append(log)


def shared_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Return how many leading tokens ``a`` and ``b`` have in common."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


@dataclass
class PromptCounts:
    """Prompt tokens: every prompt's, those reused from the one before, those lost to aborts."""

    prompts: int = 0
    tokens: int = 0
    reused: int = 0
    lost: int = 0  # in batches an abort threw away
    last_tokens: int = 0  # the latest prompt: its tokens, and those it reused
    last_reused: int = 0

    @property
    def evaluated(self) -> int:
        """Prompt tokens llama.cpp was asked to evaluate."""
        return self.tokens - self.reused


def chat_formatter(llm):
    """
    Return the GGUF's chat template as llama-cpp-python builds it (None without one).

    The same template, tokens and special tokens its chat completion uses,
    so ``prompt_tokens`` names exactly the tokens a prompt evaluates.
    """
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter
    template = llm.metadata.get('tokenizer.chat_template')
    if template is None or llm.chat_format != 'chat_template.default':
        return None
    eos, bos = llm.token_eos(), llm.token_bos()

    def text(token: int) -> str:
        return llm.detokenize([token], special=True).decode('utf-8') if token != -1 else ''
    return Jinja2ChatFormatter(template=template, eos_token=text(eos), bos_token=text(bos),
                               stop_token_ids=[eos])


class LlamaCppBackend(LLMBackend):
    """GGUF chat model via llama-cpp-python."""

    name = 'llama_cpp'
    can_continue = True

    def __init__(self, model: str, context_tokens: int = 2048, threads: int = 0,
                 gpu_layers: int = 0) -> None:
        """Remember the settings; nothing heavy happens before ``load``."""
        self.model_path = model
        self.context_tokens = context_tokens
        self.threads = threads
        self.gpu_layers = gpu_layers
        self.llm = None
        # One llama.cpp context serves one generation at a time: a superseded reply
        # releases it at its next token or graph node, then the new one starts.
        self._busy = threading.Lock()
        self._cancel: threading.Event | None = None  # of the generation holding _busy
        self._abort = None  # the C callback; referenced here so it outlives the context
        self._formatter = None  # the GGUF's chat template: messages -> the prompt's tokens
        self._prompt: list[int] = []  # the tokens of the generation holding _busy
        self.counts = PromptCounts()

    def load(self, progress: Progress) -> None:
        """Map the GGUF file."""
        try:
            import llama_cpp
            from llama_cpp import Llama
        except ImportError as err:
            raise BackendError('llama-cpp-python is not installed (pip install '
                               'llama-cpp-python; on Jetson build it with CUDA)') from err
        if not Path(self.model_path).is_file():
            raise BackendError(f'model not found: {self.model_path}')
        progress(f'loading {self.model_path} with llama.cpp')
        try:
            self.llm = Llama(model_path=self.model_path, n_ctx=self.context_tokens,
                             n_threads=self.threads or None,
                             n_gpu_layers=self.gpu_layers, n_batch=PROMPT_BATCH, verbose=False)
        except (ValueError, RuntimeError) as err:
            raise BackendError(f'cannot load {self.model_path}: {err}') from err
        _filter_abort_lines(llama_cpp)
        self._formatter = chat_formatter(self.llm)
        self._abort = llama_cpp.ggml_abort_callback(self._should_abort)
        llama_cpp.llama_set_abort_callback(self.llm.ctx, self._abort, None)
        progress('ready')

    def prompt_tokens(self, messages: Messages, reply_start: str = '') -> list[int]:
        """
        Return the tokens llama-cpp-python's chat completion evaluates for ``messages``.

        With ``reply_start``, the prompt that continues that reply: the
        template's opening of the assistant's turn, then the reply so far.
        """
        if self._formatter is None:
            return []
        result = self._formatter(messages=messages)
        return self.llm.tokenize((result.prompt + reply_start).encode('utf-8'),
                                 add_bos=not result.added_special, special=True)

    def _should_abort(self, _data) -> bool:
        """Tell llama.cpp, between graph nodes, whether the running generation is cancelled."""
        cancel = self._cancel
        if cancel is None or not cancel.is_set():
            return False
        if not _ABORTING.is_set():  # the batch under evaluation is lost
            self.counts.lost += max(1, min(PROMPT_BATCH, len(self._prompt) - self.llm.n_tokens))
        _ABORTING.set()
        return True

    def stream(self, messages: Messages, max_tokens: int,
               cancel: threading.Event) -> Iterator[str]:
        """Yield content deltas of a streamed chat completion."""
        return self._run(messages, '', max_tokens, cancel)

    def continue_reply(self, messages: Messages, reply_start: str, max_tokens: int,
                       cancel: threading.Event) -> Iterator[str]:
        """
        Yield the rest of a reply that begins with ``reply_start``.

        The prompt is the chat prompt with the reply so far after it (the
        GGUF's template, as ``stream`` evaluates it), so llama.cpp reuses
        the tokens of the generation that wrote that start.
        """
        if self._formatter is None:
            raise BackendError(f'{Path(self.model_path).name} has no chat template: '
                               'a reply cannot be continued')
        return self._run(messages, reply_start, max_tokens, cancel)

    def _run(self, messages: Messages, reply_start: str, max_tokens: int,
             cancel: threading.Event) -> Iterator[str]:
        """Generate under the context's lock, cancellable between tokens and graph nodes."""
        if self.llm is None:
            raise BackendError('backend not loaded')
        with self._busy:
            if cancel.is_set():
                return
            tokens = self.prompt_tokens(messages, reply_start)
            self._count(tokens)
            self._cancel = cancel
            try:
                for piece in self._pieces(messages, tokens if reply_start else None, max_tokens):
                    if cancel.is_set():
                        return
                    if piece:
                        yield piece
            except RuntimeError:
                # An aborted llama_decode raises; llama-cpp-python has then kept only the
                # tokens evaluated before it, so the next generation starts clean.
                if not cancel.is_set():
                    raise
            finally:
                self._cancel = None
                _ABORTING.clear()

    def _pieces(self, messages: Messages, continued: list[int] | None,
                max_tokens: int) -> Iterator[str]:
        """
        Stream a chat completion, or the plain completion of a continued reply's tokens.

        The continuation samples as llama-cpp-python's chat completion does
        (its repeat penalty, the template's stop text and token), so a held
        reply goes on with the words it would have written unheld.
        """
        if continued is None:
            chunks = self.llm.create_chat_completion(messages=messages, max_tokens=max_tokens,
                                                     temperature=0.0, stream=True)
            for chunk in chunks:
                yield chunk['choices'][0]['delta'].get('content')
            return
        template = self._formatter(messages=messages)
        for chunk in self.llm.create_completion(
                continued, max_tokens=max_tokens, temperature=0.0, stream=True,
                repeat_penalty=CHAT_REPEAT_PENALTY, stop=template.stop,
                stopping_criteria=template.stopping_criteria):
            yield chunk['choices'][0]['text']

    def _count(self, tokens: list[int]) -> None:
        """Count a prompt about to be evaluated: llama.cpp reuses what it shares with the last."""
        reused = shared_prefix(self.llm.input_ids[:self.llm.n_tokens].tolist(), tokens)
        reused -= reused == len(tokens)  # a prompt evaluated whole: its last token again
        self._prompt = tokens
        counts = self.counts
        counts.prompts += 1
        counts.tokens += len(tokens)
        counts.reused += reused
        counts.last_tokens, counts.last_reused = len(tokens), reused

    def stats(self) -> dict[str, Any]:
        """Return the model file, threads and prompt-token counts."""
        counts = self.counts
        return {**super().stats(), 'model': Path(self.model_path).name, 'threads': self.threads,
                'prompt_tokens': counts.tokens, 'prompt_tokens_evaluated': counts.evaluated,
                'prompt_tokens_lost': counts.lost}

    def close(self) -> None:
        """Free the model."""
        if self.llm is not None:
            self.llm.close()
            self.llm = None
