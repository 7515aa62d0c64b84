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


class LLMBackend(ABC):
    """A chat model that streams a reply."""

    name = 'base'

    def load(self, progress: Progress) -> None:
        """Load weights or check the server; report steps through ``progress``."""

    @abstractmethod
    def stream(self, messages: Messages, max_tokens: int,
               cancel: threading.Event) -> Iterator[str]:
        """Yield reply text pieces until done, ``max_tokens`` or ``cancel``."""

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
