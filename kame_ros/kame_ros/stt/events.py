# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Transcript events: what the STT says, and when, about which audio.

KAME's back-end acts on partial transcripts while the user still talks, so
every event says which utterance it belongs to, how many times that
utterance's text has been revised, the span of audio it covers (ROS clock,
from the frames' stamps) and when it was produced (to measure STT latency).
"""
from dataclasses import dataclass

PARTIAL = 'stt.partial'
FINAL = 'stt.final'


@dataclass(frozen=True)
class TranscriptEvent:
    """One partial or final transcript of one utterance (on the wire: msg/Transcript)."""

    utterance_id: int
    revision: int
    text: str
    final: bool
    audio_start_ns: int
    audio_end_ns: int
    stamp_ns: int

    @property
    def event_type(self) -> str:
        """Its kind in records and timelines: stt.partial or stt.final."""
        return FINAL if self.final else PARTIAL
