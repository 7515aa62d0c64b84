# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Number utterances and their revisions, and stamp the audio they cover."""
import time

from kame_ros.stt.events import TranscriptEvent


class UtteranceTracker:
    """
    Turn engine text into TranscriptEvents with ids, revisions and audio spans.

    Engines only say "this is the text so far" or "this utterance is done";
    the tracker drops repeats of the same partial, numbers revisions, and
    closes the utterance on a final so the next text opens a new one.
    """

    def __init__(self) -> None:
        """Start before the first utterance."""
        self.utterance_id = 0
        self.revision = -1
        self.start_ns: int | None = None
        self.last_text = ''

    def begin(self, start_ns: int) -> None:
        """Speech began at ``start_ns`` (first frame's stamp)."""
        if self.start_ns is None:
            self.start_ns = start_ns

    def partial(self, text: str, end_ns: int) -> TranscriptEvent | None:
        """Return a new partial, or None if it says nothing new."""
        text = ' '.join(text.split())
        if not text or text == self.last_text or self.start_ns is None:
            return None
        self.last_text = text
        return self._event(text, False, end_ns)

    def final(self, text: str, end_ns: int) -> TranscriptEvent | None:
        """Close the utterance; None when nothing was recognised (noise)."""
        text = ' '.join(text.split())
        event = self._event(text, True, end_ns) if text and self.start_ns is not None else None
        self.utterance_id += 1
        self.revision, self.start_ns, self.last_text = -1, None, ''
        return event

    def _event(self, text: str, final: bool, end_ns: int) -> TranscriptEvent:
        self.revision += 1
        return TranscriptEvent(self.utterance_id, self.revision, text, final,
                               self.start_ns, end_ns, time.time_ns())
