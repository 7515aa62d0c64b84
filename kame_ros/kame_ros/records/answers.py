# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Which final transcripts of a run still wait for an answer.

A headless run ends once every final is answered, so this decides when
the agent is done. A final cut short by the next one (a pause inside the
question: "What is the capital? / of France.") is answered by the later
final's reply, whose prompt carries both: an answer covers every final
before it. Finals are kept in the order they came, not by utterance id,
because a restarted STT numbers its utterances from 0 again. An answer can
arrive before its final (they travel on different topics); it is kept
until the final comes.
"""


class AnswerLedger:
    """Finals in arrival order, and how many of them are answered."""

    def __init__(self) -> None:
        """Start with no finals."""
        self._finals: list[int] = []  # utterance ids, in arrival order
        self._answered = 0  # the first this many finals are answered
        self._early: set[int] = set()  # answers whose final has not arrived yet

    def final(self, utterance_id: int) -> None:
        """Record a final transcript."""
        self._finals.append(utterance_id)
        if utterance_id in self._early:
            self._early.discard(utterance_id)
            self._answered = len(self._finals)

    def answer(self, utterance_id: int) -> None:
        """Record a finished reply to a final: it and every final before it are answered."""
        for i in range(len(self._finals) - 1, self._answered - 1, -1):
            if self._finals[i] == utterance_id:
                self._answered = i + 1
                return
        self._early.add(utterance_id)

    def waiting(self) -> list[int]:
        """Utterance ids of the finals no reply has answered yet."""
        return self._finals[self._answered:]
