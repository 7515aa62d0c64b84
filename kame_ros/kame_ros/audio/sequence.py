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

    A publisher that restarts (node relaunched mid-conversation, a second
    recording played into the same topic) begins again near zero. A frame
    that goes back in sequence but forward in time (its stamp is newer than
    the newest accepted frame's) is a new stream; so is a jump backwards of
    more than ``restart_window`` frames. Only a frame older in both is late:
    a reordered or retransmitted frame of the current stream.
    """

    def __init__(self, restart_window: int = 50) -> None:
        """Begin with no stream seen."""
        self.restart_window = restart_window
        self.last: int | None = None
        self.last_stamp_ns: int | None = None

    def check(self, seq: int, stamp_ns: int | None = None) -> SeqCheck:
        """Classify ``seq`` (stamped ``stamp_ns``) and advance when it is accepted."""
        verdict = self._classify(seq, stamp_ns)
        if verdict.verdict not in (SeqVerdict.DUPLICATE, SeqVerdict.LATE):
            self.last = seq
            if stamp_ns is not None:
                self.last_stamp_ns = stamp_ns
        return verdict

    def _classify(self, seq: int, stamp_ns: int | None) -> SeqCheck:
        if self.last is None or seq == self.last + 1:
            return SeqCheck(SeqVerdict.NEXT)
        if seq > self.last + 1:
            return SeqCheck(SeqVerdict.GAP, seq - self.last - 1)
        if seq == self.last:
            return SeqCheck(SeqVerdict.DUPLICATE)
        newer = (stamp_ns is not None and self.last_stamp_ns is not None
                 and stamp_ns > self.last_stamp_ns)
        if newer or self.last - seq > self.restart_window:
            return SeqCheck(SeqVerdict.RESTART)
        return SeqCheck(SeqVerdict.LATE)
