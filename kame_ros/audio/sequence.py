# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Classify arriving sequence numbers: in order, gap, duplicate, late, or a restart."""
from dataclasses import dataclass
from enum import Enum


class SeqVerdict(Enum):
    """What a sequence number means relative to the stream seen so far."""

    NEXT = 'next'
    GAP = 'gap'
    DUPLICATE = 'duplicate'
    LATE = 'late'
    RESTART = 'restart'


@dataclass
class SeqCheck:
    """Verdict for one arrival; ``lost`` counts frames skipped by a gap."""

    verdict: SeqVerdict
    lost: int = 0


class SequenceTracker:
    """
    Follows one publisher's frame counter.

    A publisher that restarts (node relaunched mid-conversation) begins again
    near zero; a jump backwards larger than ``restart_window`` frames is taken
    as a new stream instead of dropping everything it sends as "late".
    """

    def __init__(self, restart_window: int = 50) -> None:
        """Begin with no stream seen."""
        self.restart_window = restart_window
        self.last: int | None = None

    def check(self, seq: int) -> SeqCheck:
        """Classify ``seq`` and advance the stream position when it is accepted."""
        if self.last is None:
            self.last = seq
            return SeqCheck(SeqVerdict.NEXT)
        if seq == self.last + 1:
            self.last = seq
            return SeqCheck(SeqVerdict.NEXT)
        if seq > self.last + 1:
            lost = seq - self.last - 1
            self.last = seq
            return SeqCheck(SeqVerdict.GAP, lost)
        if seq == self.last:
            return SeqCheck(SeqVerdict.DUPLICATE)
        if self.last - seq > self.restart_window:
            self.last = seq
            return SeqCheck(SeqVerdict.RESTART)
        return SeqCheck(SeqVerdict.LATE)
