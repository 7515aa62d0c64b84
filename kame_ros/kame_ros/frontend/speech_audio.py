# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""What the tts front-end needs to know of a synthesized sentence: its words' places, its edges."""
import numpy as np

from kame_ros.audio.frames import SAMPLE_RATE

ACK_TRIM_LEVEL = 200  # int16 amplitude below which a sentence's edges are silence
# hibari opens every sentence with ~0.3 s of silence: before a reply's first word that is
# dead air after the user's turn. A sentence keeps this much of it (a soft onset such as
# "Th" is quieter than ACK_TRIM_LEVEL for a few ms).
LEAD_SAMPLES = SAMPLE_RATE * 40 // 1000
# The acknowledgement keeps this much of its trailing silence: a reply ready while it plays
# follows after a pause, not run into it ("Okay.The capital").
ACK_GAP_SAMPLES = SAMPLE_RATE * 250 // 1000


def word_marks(text: str, start: int, samples: int) -> list[tuple[int, str]]:
    """
    Estimate where each word of a synthesized sentence starts (sample offsets).

    hibari gives no alignment; spreading the words over the audio in
    proportion to their characters is close enough to publish each word on
    ``frontend/text`` when it is heard, so an interrupted sentence reports
    only the words actually played (what the oracle's conversation needs).
    """
    tokens = text.split()
    total = sum(len(w) + 1 for w in tokens) or 1
    marks, chars = [], 0
    for word in tokens:
        marks.append((start + samples * chars // total, word))
        chars += len(word) + 1
    return marks


def trim(samples: np.ndarray, start: bool = True, end: bool = True,
         keep_start: int = 0, keep_end: int = 0) -> np.ndarray:
    """
    Cut hibari's leading and/or trailing silence (all of it for silent audio).

    ``keep_start`` / ``keep_end``: samples of that silence left next to the
    sound (at most what there is).
    """
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > ACK_TRIM_LEVEL)
    if not len(loud):
        return samples[:0]
    first = max(0, loud[0] - keep_start) if start else 0
    last = min(len(samples), loud[-1] + 1 + keep_end) if end else len(samples)
    return samples[first:last]
