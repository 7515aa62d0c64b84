# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
When to (re)start the oracle LLM: KAME's back-end policy as a small state machine.

The reference back-end polls the latest partial transcript every 0.5 s and
restarts generation when at least two new words were heard or a final
transcript arrived, at most five restarts per two seconds. Restarting on
every partial would waste the LLM on one-word changes; never restarting
would leave the front-end with a stale guess. One addition: a partial that
now reads as a finished sentence (``words.looks_complete``) restarts on a
single new word ("What is the capital of" -> "... of France?"): it is the
question the user most likely ends the turn with, so its guess is the
likeliest answer, and the oracle engine can hand that guess on as the
answer to the final when the final says the same words. The clock is
injected so the policy is tested exactly, without sleeping.
"""
from collections import deque
from dataclasses import dataclass
import time
from typing import Callable

from kame_ros.settings import setting
from kame_ros.stt.events import TranscriptEvent
from kame_ros.words import looks_complete


@dataclass(frozen=True)
class SchedulerConfig:
    """When to start a new reply: KAME's published defaults."""

    poll_interval_s: float = setting(0.5, 'How often to look at the latest transcript',
                                     0.05, 10.0)
    min_new_words: int = setting(2, 'New words that restart the reply', 1, 100)
    max_restarts: int = setting(5, 'Most restarts per window', 1, 100)
    restart_window_s: float = setting(2.0, 'Window of the restart limit', 0.1, 60.0)


@dataclass(frozen=True)
class Restart:
    """A decision to start a new reply from this transcript."""

    reply_id: int
    utterance_id: int
    revision: int
    user_text: str
    final: bool
    stream: int = 0
    complete: bool = False  # a partial that reads as a finished sentence


def new_word_count(now: str, then: str) -> int:
    """Words of ``now`` after its common prefix with ``then`` (revisions count as new)."""
    a, b = now.lower().split(), then.lower().split()
    common = 0
    while common < min(len(a), len(b)) and a[common] == b[common]:
        common += 1
    return len(a) - common


class OracleScheduler:
    """Follows transcripts and says when a new generation should start."""

    def __init__(self, config: SchedulerConfig = SchedulerConfig(),
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Start with no utterance heard."""
        self.config = config
        self._clock = clock
        self._latest: TranscriptEvent | None = None
        self._started: Restart | None = None
        self._restarts: deque[float] = deque()
        self._reply_id = 0
        self._stream = 0
        self.stale_events = 0
        self.rate_limited = 0
        self.stt_restarts = 0

    def on_transcript(self, event: TranscriptEvent) -> bool:
        """
        Take a partial/final; older utterances and revisions are stale and ignored (False).

        A restarted STT counts utterances from 0 again: a lower utterance id
        produced *after* the latest event starts a new stream instead of
        being dropped as stale.
        """
        latest = self._latest
        if (latest is not None and event.utterance_id < latest.utterance_id
                and event.stamp_ns > latest.stamp_ns):
            self._stream += 1
            self.stt_restarts += 1
        elif latest is not None and (
                event.utterance_id < latest.utterance_id
                or (event.utterance_id == latest.utterance_id
                    and (latest.final or event.revision < latest.revision))):
            self.stale_events += 1
            return False
        self._latest = event
        return True

    @property
    def final_pending(self) -> bool:
        """Tell whether the latest transcript is a final no generation has started for."""
        latest, started = self._latest, self._started
        return latest is not None and latest.final and bool(latest.text.strip()) and not (
            started is not None and started.final and started.stream == self._stream
            and started.utterance_id == latest.utterance_id)

    def retry(self, restart: Restart) -> None:
        """Let the next poll start ``restart``'s final again (its reply failed on the server)."""
        if self._started == restart and restart.final:
            self._started = None

    def poll(self) -> Restart | None:
        """Decide, now, whether to restart; call every ``poll_interval_s``."""
        event = self._latest
        if event is None or not event.text.strip():
            return None
        started = self._started
        same_utterance = (started is not None and started.stream == self._stream
                          and started.utterance_id == event.utterance_id)
        if same_utterance and started.final:
            return None
        heard = new_word_count(event.text, started.user_text if same_utterance else '')
        complete = not event.final and looks_complete(event.text)
        if not (event.final or heard >= self.config.min_new_words or (complete and heard)):
            return None
        now = self._clock()
        while self._restarts and now - self._restarts[0] >= self.config.restart_window_s:
            self._restarts.popleft()
        if len(self._restarts) >= self.config.max_restarts:
            self.rate_limited += 1
            return None
        self._restarts.append(now)
        self._reply_id += 1
        self._started = Restart(self._reply_id, event.utterance_id, event.revision, event.text,
                                event.final, self._stream, complete)
        return self._started
