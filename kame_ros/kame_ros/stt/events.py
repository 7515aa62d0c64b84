# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Transcript events: what the STT says, and when, about which audio.

KAME's back-end acts on partial transcripts while the user still talks, so
every event says which utterance it belongs to, how many times that
utterance's text has been revised, the span of audio it covers (ROS clock,
from the frames' stamps) and when it was produced (to measure STT latency).
"""
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from kame_ros.wire.payload import read_fields

PARTIAL = 'stt.partial'
FINAL = 'stt.final'


@dataclass(frozen=True)
class TranscriptEvent:
    """One partial or final transcript of one utterance (the payload protocol: wire/payload.py)."""

    TYPES: ClassVar[tuple[str, ...]] = (PARTIAL, FINAL)
    utterance_id: int
    revision: int
    text: str
    final: bool
    audio_start_ns: int
    audio_end_ns: int
    stamp_ns: int

    @property
    def event_type(self) -> str:
        """Wire type: stt.partial or stt.final."""
        return FINAL if self.final else PARTIAL

    def payload(self) -> dict[str, Any]:
        """Fields for the wire envelope (seq/stamp are the envelope's)."""
        data = asdict(self)
        del data['stamp_ns'], data['final']
        return data

    @classmethod
    def from_event(cls, event: dict[str, Any]) -> 'TranscriptEvent':
        """Build from a decoded wire envelope; raises ValueError on a missing or mistyped field."""
        ev = cls(**read_fields(cls, {**event, 'final': event.get('type') == FINAL}))
        if ev.utterance_id < 0 or ev.revision < 0:
            raise ValueError('negative utterance id or revision')
        return ev
