# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The oracle stream as events: reset, append, done.

KAME's front-end consumes the LLM's latest candidate reply as a timeline
that a new reply resets and later tokens extend. The events carry text
(the front-end tokenizes with its own tokenizer) and the reply/utterance
they belong to, so a consumer can always tell a superseded reply apart.
"""
from dataclasses import dataclass

RESET = 'oracle.reset'
APPEND = 'oracle.append'
DONE = 'oracle.done'
KINDS = (RESET, APPEND, DONE)


@dataclass(frozen=True)
class OracleEvent:
    """
    One step of the oracle stream.

    ``reply_id`` increases with every generation the scheduler starts; an
    event whose reply_id is below the newest seen is stale and must be
    ignored. ``text`` is the appended text for APPEND, empty otherwise;
    DONE's ``status`` says whether the reply completed, was cancelled or failed;
    ``final`` marks replies to a final transcript (the user finished the turn).
    ``epoch`` is when the oracle engine started (ns): a restarted oracle
    numbers its replies from 1 again, and (epoch, reply_id) keeps "newest"
    meaningful across the restart.
    """

    kind: str
    reply_id: int
    utterance_id: int
    revision: int
    text: str = ''
    status: str = ''
    final: bool = False
    epoch: int = 0

    @property
    def event_type(self) -> str:
        """Its kind in records and timelines: the kind."""
        return self.kind

    @property
    def order(self) -> tuple[int, int]:
        """Sort key across oracle restarts: (epoch, reply_id)."""
        return (self.epoch, self.reply_id)
