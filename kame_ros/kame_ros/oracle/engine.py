# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The oracle engine: scheduler + prompt + backend, on threads that never block the caller.

Transcripts and context are handed in from any thread; a poller applies
the scheduler every ``poll_interval_s``; each generation runs on its own
thread. Starting a new reply cancels the old one and, under the same lock
that guards emission, makes it stale, so no event of a superseded reply is
ever emitted after the first event of its successor, whatever the backend
does (a hung server thread is simply abandoned).

A reply's RESET goes out together with its first non-blank text, not when
the generation starts: the reference (SakanaAI/kame ``server_oracle.py``,
``LLMStreamManager._stream_llm_response``) does the same, so the previous
candidate keeps guiding the front-end during the LLM's time to first token
instead of a boundary followed by pad frames. A reply that never produces
text therefore never resets anything; only its DONE (with its status) is
emitted. Text passes ``ReplyGuard`` first: a reply that starts reciting the
instructions or repeating itself ends there, and what was cut is never
emitted.

A final never waits for work already done: when its words (case and
punctuation aside) are those of the guess under way or just finished, that
guess becomes the answer (``promote``) instead of a second generation of
the same reply. It is re-announced as the final's reply (RESET with the
final's ids, the text so far as one APPEND, DONE if it is over), keeps
streaming under the final's ids, and gets back the process's CPU priority.
With ``hold_guesses`` a guess stops once its opening is out (the words the
reply guard releases at once): on a server shared by a fleet, the rest of
a guess is mostly written for nobody (the next partial supersedes it) and
delays the other robots' answers. A final that confirms it has the backend
continue it from the words already written (``continue_reply``), so its
first text is still there at once.
Where the system refuses that priority (an unprivileged process cannot
undo a nice), the final is generated afresh at full priority instead: a
niced answer would starve behind the robot's other work. A final that
says more than the guess is generated anew; llama.cpp reuses the prompt
prefix the two share.

A remote server that does not answer (refused, overloaded, silent, cut
off: ``ServerUnavailable``) makes the engine back off: for the server's
Retry-After, or 0.25 s doubling to ``BACKOFF_MAX_S`` while it keeps
failing. Meanwhile no guess is sent (a busy server shared by a fleet
gets the finals first); a final waits out the backoff and is then sent,
and a final whose reply the server failed is sent again after it, for
``FINAL_RETRY_S`` after the user finished. A reply that completes starts
the doubling over. A generation starts once the one it superseded has
ended (cancelled: a server request ends at once, a local model's within a
batch), so a robot has one request in flight on a shared server. The
front-end never waits on any of it: it keeps the last candidate it had.
"""
from collections import deque
from contextlib import closing
from dataclasses import dataclass, field
import os
import threading
import time
from typing import Callable

from kame_ros.oracle.backends.base import (BackendError, LLMBackend, SERVER_FAULTS,
                                           ServerUnavailable)
from kame_ros.oracle.events import APPEND, DONE, OracleEvent, RESET
from kame_ros.oracle.prompt import (AGENT, echoes_cut_reply, PromptBuilder, USER,
                                    without_cut_exchange)
from kame_ros.oracle.reply_guard import LEAK, REPETITION, ReplyGuard
from kame_ros.oracle.scheduler import OracleScheduler, Restart
from kame_ros.stt.events import TranscriptEvent
from kame_ros.words import looks_complete, words

BACKOFF_FIRST_S = 0.25
BACKOFF_MAX_S = 2.0  # a server back up is used again within this (plus one poll)
PREVIOUS_WAIT_S = 1.0  # the longest a generation waits for the one it superseded to end
FINAL_RETRY_S = 6.0  # later than this after the user's final, an answer is no longer sent


@dataclass
class OracleStats:
    """Counters and latencies for diagnostics and benchmarks."""

    restarts: int = 0
    completed: int = 0
    answered: int = 0  # completed replies to final transcripts: turns answered
    cancelled: int = 0
    failed: int = 0
    promoted: int = 0  # finals answered by the guess already under way or done
    promote_refused: int = 0  # ... that could not get its priority back: generated afresh
    held: int = 0  # guesses stopped after their opening (hold_guesses)
    continued: int = 0  # ... whose final then had the backend write the rest
    cut_prompt_leak: int = 0
    cut_repetition: int = 0
    cut_echo: int = 0  # replies written again: they only repeated the cut-off agent turn
    pieces: int = 0
    last_error: str = ''
    # A remote server's faults by kind (backends.base.SERVER_FAULTS), and the backing off.
    server_faults: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(SERVER_FAULTS, 0))
    held_by_backoff: int = 0  # polls skipped while backing off
    finals_retried: int = 0  # finals sent again after the server failed their reply
    # The latest replies only: a robot generates for days (diagnostics show the last 50).
    first_piece_s: deque[float] = field(default_factory=lambda: deque(maxlen=50))

    @property
    def backoffs(self) -> int:
        """Return the times the engine backed off: once per server fault."""
        return sum(self.server_faults.values())


@dataclass
class Generation:
    """One reply being generated, and what it said; the latest stays as ``current``."""

    restart: Restart  # the final's restart once a guess is promoted to its answer
    cancel: threading.Event
    pieces: list[str] = field(default_factory=list)  # the text emitted so far
    status: str = ''  # '' while running, then complete / cancelled / failed
    cut: str = ''  # the reply guard's reason, if it cut the reply
    niced: bool = False  # its thread (and the threads it started) run niced
    guard: ReplyGuard | None = None  # what may be said of it; kept for a continuation
    messages: list[dict[str, str]] = field(default_factory=list)
    written: str = ''  # everything the backend wrote, released or held by the guard
    tokens: int = 0  # pieces the backend streamed
    held: bool = False  # a guess stopped after its opening; a final may continue it


class OracleEngine:
    """Runs KAME's back-end loop over any LLMBackend."""

    def __init__(self, backend: LLMBackend, emit: Callable[[OracleEvent], None],
                 scheduler: OracleScheduler | None = None,
                 prompt: PromptBuilder | None = None, max_tokens: int = 60,
                 on_prompt: Callable[[Restart, list[dict[str, str]]], None] | None = None,
                 nice: int = 0, hold_guesses: bool = False) -> None:
        """
        ``emit`` is called (on engine threads) for every oracle event, in order.

        ``on_prompt`` sees each generation's messages as it starts (for logs
        and the ``oracle/prompt`` topic). ``nice`` lowers the CPU priority of
        each generation on a partial transcript (its thread and the threads
        it starts): on shared cores, a 1.5B model guessing while the user
        speaks otherwise delays the STT's end of turn, and with it the
        acknowledgement and the reply. The answer to a final runs at the
        process's own priority: a niced answer would starve behind any busy
        process of the robot. ``hold_guesses`` needs a backend that can
        continue a reply (BackendError otherwise).
        """
        if hold_guesses and not backend.can_continue:
            raise BackendError(f'hold_guesses needs a backend that can continue a reply; '
                               f'the {backend.name} backend cannot')
        self.backend = backend
        self.scheduler = scheduler or OracleScheduler()
        self.prompt = prompt or PromptBuilder()
        self.max_tokens = max_tokens
        self.nice = nice
        self.hold_guesses = hold_guesses
        self.stats = OracleStats()
        self.epoch = time.time_ns()
        self._emit = emit
        self._on_prompt = on_prompt
        self._lock = threading.Lock()
        self._current: Generation | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._poller: threading.Thread | None = None
        self._generation: threading.Thread | None = None
        self._backoff_until = 0.0
        self._faults_in_a_row = 0
        self._final_first_try: tuple[tuple[int, int], float] | None = None

    def submit(self, event: TranscriptEvent) -> None:
        """
        Hand in a transcript (any thread); a final one joins the conversation.

        A final wakes the poller at once instead of waiting up to
        ``poll_interval_s``: the turn is over, and every millisecond until the
        reply is time the user waits (the restart limit still applies). So
        does a partial that reads as a finished sentence: its guess is the
        likeliest answer, and the final that follows can take it over.
        """
        with self._lock:
            if not self.scheduler.on_transcript(event):
                return
            if event.final:
                self.prompt.hear(USER, event.text)
            if event.final or looks_complete(event.text):
                self._wake.set()  # a finished question is guessed at once, too

    @property
    def idle(self) -> bool:
        """
        Tell whether no reply is being generated and no final waits for one.

        ``kame_ros_agent --realtime-factor 0`` feeds the next frame only when
        every node is idle: the LLM then answers in no input time, so a replay
        measures what the agent says, not how fast this machine says it.
        """
        with self._lock:
            generating = self._generation is not None and self._generation.is_alive()
            return not generating and not self.scheduler.final_pending

    def hear_agent(self, text: str) -> None:
        """
        Hand in what the front-end actually said (any thread).

        It goes into the conversation the LLM sees, never into the
        scheduler: the agent's own speech does not restart the oracle.
        """
        with self._lock:
            self.prompt.hear(AGENT, text)

    def set_context(self, text: str) -> None:
        """Replace the robot-context text used by the next prompt."""
        with self._lock:
            self.prompt.context = text

    def start(self) -> None:
        """Start polling, and evaluate the start every prompt shares once, in the background."""
        self._stop.clear()
        with self._lock:
            self._generation = threading.Thread(
                target=self._warm_up, args=(self.prompt.messages('Hello', False, note=False),),
                daemon=True, name='oracle-warm-up')
            self._generation.start()
        self._poller = threading.Thread(target=self._poll_loop, daemon=True, name='oracle-poll')
        self._poller.start()

    def _warm_up(self, messages: list[dict[str, str]]) -> None:
        """
        Have the backend evaluate the system prompt before the first question.

        Every prompt starts with it, and llama.cpp reuses an evaluated prefix:
        without this the first guess of a session paid ~0.6 s for it (the
        1.5B on 2 cores) while the user waited. A guess that comes meanwhile
        waits for the backend, and gets the evaluated prefix. A backend that
        fails here fails again, counted, on the first real reply.
        """
        try:
            for _ in self.backend.stream(messages, 1, self._stop):
                break
        except Exception:  # noqa: B902 - a warm-up changes nothing but speed
            pass

    def stop(self) -> None:
        """Stop polling and cancel the running generation (does not wait for it)."""
        self._stop.set()
        self._wake.set()
        with self._lock:
            if self._current is not None:
                self._current.cancel.set()
        if self._poller is not None:
            self._poller.join(timeout=2.0)
        # A native backend (llama.cpp) must not be mid-token while the process exits: the
        # cancelled stream ends at its next token. A hung server thread is abandoned.
        generation = self._generation
        if generation is not None:
            generation.join(timeout=5.0)

    def _poll_loop(self) -> None:
        period = self.scheduler.config.poll_interval_s
        next_t = time.monotonic()
        while not self._stop.is_set():
            self.tick()
            if self._wake.wait(max(0.0, next_t + period - time.monotonic())):
                self._wake.clear()  # a final: poll now, keep the 0.5 s grid otherwise
            else:
                next_t += period

    def tick(self) -> Restart | None:
        """Apply the scheduler once; start a generation (or promote a guess) if it says so."""
        with self._lock:
            if time.monotonic() < self._backoff_until:
                self.stats.held_by_backoff += 1
                return None  # guesses skipped, a final kept for after the backoff
            restart = self.scheduler.poll()
            if restart is None:
                return None
            if restart.final and self._promote(restart):
                return restart
            if self._current is not None:
                self._current.cancel.set()
            generation = Generation(restart, threading.Event())
            self._current = generation
            if restart.final:
                key = (restart.stream, restart.utterance_id)
                if self._final_first_try is None or self._final_first_try[0] != key:
                    self._final_first_try = (key, time.monotonic())
            messages = self.prompt.messages('' if restart.final else restart.user_text,
                                            restart.final, note=not restart.complete)
            generation.messages = messages
            generation.guard = ReplyGuard(self.prompt.instructions())
            self.stats.restarts += 1
            if self._on_prompt is not None:
                self._on_prompt(restart, messages)
            self._start(generation)
        return restart

    def _start(self, generation: Generation) -> None:
        """
        Run ``generation`` (a held one: its rest) on a thread of its own (locked).

        Started under the lock: ``idle`` never sees the restart without its
        thread; the thread waits for the one it supersedes to end.
        """
        self._generation = threading.Thread(
            target=self._generate, args=(generation, self._generation), daemon=True,
            name=f'oracle-gen-{generation.restart.reply_id}')
        self._generation.start()

    def _promote(self, final: Restart) -> bool:
        """
        Make the current guess the answer to ``final`` if it says the same words (locked).

        Only a guess that is running or completed whole qualifies: a
        cancelled, failed or cut one is no answer.
        """
        guess = self._current
        if (guess is None or guess.restart.final or guess.status not in ('', 'complete')
                or guess.cut or guess.restart.stream != final.stream
                or guess.restart.utterance_id != final.utterance_id
                or words(guess.restart.user_text) != words(final.user_text)):
            return False
        if guess.niced and not self._restore_priority():
            self.stats.promote_refused += 1
            return False
        guess.niced = False
        guess.restart = final
        self.stats.promoted += 1
        if guess.pieces:
            self._emit_locked(final, RESET)
            self._emit_locked(final, APPEND, ''.join(guess.pieces))
        if guess.status:
            self.stats.answered += 1
            self._emit_locked(final, DONE, status=guess.status)
        elif guess.held:
            guess.held = False
            self.stats.continued += 1
            self._start(guess)
        return True

    def _restore_priority(self) -> bool:
        """
        Give every niced thread of this process the process's priority back; False if refused.

        A guess's thread is niced, and so are the threads the LLM library
        started from it (llama.cpp's worker threads inherit the priority they
        were created with). Only guesses are niced, and at a final every guess
        but the promoted one is stale, so all of them go back.
        """
        own = os.getpriority(os.PRIO_PROCESS, os.getpid())
        for task in os.listdir('/proc/self/task'):
            try:
                if os.getpriority(os.PRIO_PROCESS, int(task)) > own:
                    os.setpriority(os.PRIO_PROCESS, int(task), own)
            except ProcessLookupError:
                continue  # the thread ended meanwhile
            except PermissionError:
                return False
        return True

    def _back_off(self, fault: ServerUnavailable, restart: Restart) -> None:
        """Count a server fault, wait before the next request, keep a recent final (locked)."""
        self.stats.server_faults[fault.kind] = self.stats.server_faults.get(fault.kind, 0) + 1
        self._faults_in_a_row += 1
        wait = BACKOFF_FIRST_S * 2 ** (self._faults_in_a_row - 1)
        if fault.retry_after_s is not None:
            wait = fault.retry_after_s
        self._backoff_until = time.monotonic() + min(wait, BACKOFF_MAX_S)
        first = self._final_first_try
        if (restart.final and first is not None
                and first[0] == (restart.stream, restart.utterance_id)
                and time.monotonic() - first[1] < FINAL_RETRY_S):
            self.scheduler.retry(restart)
            self.stats.finals_retried += 1

    def _emit_locked(self, restart: Restart, kind: str, text: str = '', status: str = '') -> None:
        self._emit(OracleEvent(kind, restart.reply_id, restart.utterance_id, restart.revision,
                               text, status, restart.final, self.epoch))

    def _lower_priority(self, generation: Generation) -> None:
        """Nice this (guess's) thread, unless it was promoted to an answer before it ran."""
        with self._lock:
            if generation.restart.final:
                return
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), self.nice)
            generation.niced = True

    def _stream(self, generation: Generation, say: Callable[[str], bool],
                reply_start: str) -> tuple[str | None, bool]:
        """
        Stream one generation (or its rest) through its guard to ``say``.

        Return the tail the guard still holds (None when cancelled, cut or
        superseded) and whether the generation was held after its opening.
        """
        guard, cancel = generation.guard, generation.cancel
        if reply_start:
            pieces = self.backend.continue_reply(generation.messages, reply_start,
                                                 max(1, self.max_tokens - generation.tokens),
                                                 cancel)
        else:
            pieces = self.backend.stream(generation.messages, self.max_tokens, cancel)
        with closing(pieces):  # a held guess ends its request here, at once
            for piece in pieces:
                generation.written += piece
                generation.tokens += 1
                if cancel.is_set() or not say(guard.feed(piece)):
                    return None, False
                if guard.cut:
                    cancel.set()  # the reply is over: stop the backend generating
                    return None, False
                if self.hold_guesses and generation.pieces and self._hold(generation):
                    return None, True
        return (None if cancel.is_set() else guard.finish()), False

    def _hold(self, generation: Generation) -> bool:
        """Stop a guess whose opening is out until a final confirms it (False: a final's)."""
        with self._lock:
            if generation.restart.final:
                return False
            generation.held = True
            self.stats.held += 1
            return True

    def _generate(self, generation: Generation, previous: threading.Thread | None) -> None:
        """Write a reply (or, for a held guess its final confirmed, the rest of it)."""
        if self.nice and not generation.restart.final:
            self._lower_priority(generation)
        t0 = time.monotonic()
        if previous is not None:
            # One request in flight per robot: the superseded one (cancelled) ends first; a
            # server's request ends at once, a local model's within a batch. A hung one is
            # waited for no longer than this.
            previous.join(PREVIOUS_WAIT_S)
        cancel = generation.cancel
        status = 'complete'

        def say(text: str) -> bool:
            """Emit released text; False once this reply is no longer the current one."""
            if not text or not (generation.pieces or text.strip()):
                return True
            with self._lock:
                if self._current is not generation:
                    return False
                if not generation.pieces:
                    self.stats.first_piece_s.append(time.monotonic() - t0)
                    self._emit_locked(generation.restart, RESET)
                generation.pieces.append(text)
                self.stats.pieces += 1
                self._emit_locked(generation.restart, APPEND, text)
            return True
        try:
            tail, held = self._stream(generation, say, generation.written)
            if held:
                return  # not over: a final that confirms it has the rest written
            if tail is not None and not generation.pieces and \
                    echoes_cut_reply(generation.messages, tail):
                # Said nothing yet: answer again without the exchange the user interrupted.
                with self._lock:
                    self.stats.cut_echo += 1
                generation.messages = without_cut_exchange(generation.messages)
                generation.guard = ReplyGuard(self.prompt.instructions())
                generation.written, generation.tokens = '', 0
                tail, held = self._stream(generation, say, '')
                if held:
                    return
            if tail is not None:
                say(tail)
        except Exception as err:  # noqa: B902 - any backend failure is counted, never fatal
            status = 'failed'
            with self._lock:
                self.stats.failed += 1
                self.stats.last_error = f'{type(err).__name__}: {err}'
                if isinstance(err, ServerUnavailable):
                    self._back_off(err, generation.restart)
        guard = generation.guard
        if guard.cut:
            with self._lock:
                if guard.cut == LEAK:
                    self.stats.cut_prompt_leak += 1
                elif guard.cut == REPETITION:
                    self.stats.cut_repetition += 1
        if cancel.is_set() and status == 'complete' and not guard.cut:
            status = 'cancelled'
        with self._lock:
            generation.status, generation.cut = status, guard.cut
            if status == 'complete':
                self._faults_in_a_row = 0
                self.stats.completed += 1
                self.stats.answered += generation.restart.final
            elif status == 'cancelled':
                self.stats.cancelled += 1
            if self._current is generation:
                self._emit_locked(generation.restart, DONE, status=status)
