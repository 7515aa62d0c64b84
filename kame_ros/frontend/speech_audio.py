# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""What the tts front-end needs to know of a synthesized sentence: its words' places, its edges."""
import numpy as np

ACK_TRIM_LEVEL = 200  # int16 amplitude below which a sentence's edges are silence


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


def trim(samples: np.ndarray, start: bool = True, end: bool = True) -> np.ndarray:
    """Cut hibari's leading and/or trailing silence (all of it for silent audio)."""
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > ACK_TRIM_LEVEL)
    if not len(loud):
        return samples[:0]
    return samples[loud[0] if start else 0:loud[-1] + 1 if end else len(samples)]
