# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The interface every oracle LLM backend implements.

``stream`` yields text pieces as the model produces them and must notice
``cancel`` between pieces: the scheduler supersedes a reply whenever the
user says more, and a stale generation must stop costing compute at once.
"""
from abc import ABC, abstractmethod
import threading
from typing import Any, Callable, Iterator

Progress = Callable[[str], None]
Messages = list[dict[str, str]]


class BackendError(RuntimeError):
    """The backend cannot load or cannot answer (clear, user-facing message)."""


# Why a server did not answer (ServerUnavailable.kind), as /diagnostics counts them.
REFUSED = 'refused'  # no connection: the server is down or restarting
OVERLOADED = 'overloaded'  # 429 / 503: it is up but will not take the request now
TIMEOUT = 'timeout'  # it accepted the request and went silent
LOST = 'lost'  # the connection broke, or the stream ended before the reply did
HTTP_ERROR = 'http_error'  # any other error status
SERVER_FAULTS = (REFUSED, OVERLOADED, TIMEOUT, LOST, HTTP_ERROR)


class ServerUnavailable(BackendError):
    """
    A remote server did not answer this time; it may a little later.

    The oracle backs off on these (one server, many robots: retrying at
    once is what keeps a busy server busy) and keeps ``retry_after_s`` when
    the server said how long to wait.
    """

    def __init__(self, kind: str, message: str, retry_after_s: float | None = None) -> None:
        """``kind``: one of SERVER_FAULTS."""
        super().__init__(message)
        self.kind = kind
        self.retry_after_s = retry_after_s


class LLMBackend(ABC):
    """A chat model that streams a reply."""

    name = 'base'
    can_continue = False  # ``continue_reply`` works: a reply can stop and go on later

    def load(self, progress: Progress) -> None:
        """Load weights or check the server; report steps through ``progress``."""

    @abstractmethod
    def stream(self, messages: Messages, max_tokens: int,
               cancel: threading.Event) -> Iterator[str]:
        """Yield reply text pieces until done, ``max_tokens`` or ``cancel``."""

    def continue_reply(self, messages: Messages, reply_start: str, max_tokens: int,
                       cancel: threading.Event) -> Iterator[str]:
        """
        Yield the rest of a reply to ``messages`` that begins with ``reply_start``.

        The oracle can then stop a guess once its opening is written and
        have the rest written only if the user's final confirms it (a shared
        server writes no replies nobody hears); the model goes on from the
        words already said instead of writing the reply again.
        """
        raise BackendError(f'the {self.name} backend cannot continue a reply')

    def score(self, messages: Messages, prefix: str, continuations: list[str]) -> list[float]:
        """
        Mean log-probability per token of each continuation after the prompt and ``prefix``.

        Scoring fixed texts is how intents stay inside the allowlist (see
        kame_ros.oracle.intents); a backend that cannot read its model's
        probabilities says so clearly.
        """
        raise BackendError(f'the {self.name} backend cannot score text; intents need the '
                           'transformers backend')

    def stats(self) -> dict[str, Any]:
        """Return the backend's own counters for /diagnostics (its name, at least)."""
        return {'backend': self.name}

    def close(self) -> None:
        """Release the model or connection."""
