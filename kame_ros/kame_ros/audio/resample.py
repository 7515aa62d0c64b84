# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Sample-rate conversion between devices/files and the 24 kHz graph rate.

soxr is used because it is the reference-quality resampler and has a true
streaming mode: capture blocks of any size convert without seams or drift.
"""
import numpy as np
import soxr


def resample(x: np.ndarray, in_rate: int, out_rate: int) -> np.ndarray:
    """Resample a whole float32 signal (files, test fixtures)."""
    x = np.asarray(x, dtype=np.float32)
    if in_rate == out_rate:
        return x
    return soxr.resample(x, in_rate, out_rate, quality='HQ').astype(np.float32)


class StreamResampler:
    """Stateful resampler for a live stream cut into arbitrary blocks."""

    def __init__(self, in_rate: int, out_rate: int) -> None:
        """Prepare a converter; identical rates pass audio through untouched."""
        if in_rate <= 0 or out_rate <= 0:
            raise ValueError(f'rates must be positive, got {in_rate} -> {out_rate}')
        self.in_rate = in_rate
        self.out_rate = out_rate
        self._stream = None
        if in_rate != out_rate:
            self._stream = soxr.ResampleStream(in_rate, out_rate, 1, dtype='float32',
                                               quality='HQ')

    def process(self, x: np.ndarray, last: bool = False) -> np.ndarray:
        """Convert the next block; ``last`` flushes the filter's tail."""
        x = np.asarray(x, dtype=np.float32)
        if self._stream is None:
            return x
        return self._stream.resample_chunk(x, last=last)
