# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Cut a stream of arbitrary-size blocks into exact 1920-sample frames."""
import numpy as np

from kame_ros.audio.frames import FRAME_SAMPLES


class FrameAssembler:
    """
    Accumulates samples and yields whole frames; remainders wait for more input.

    Devices deliver whatever block size the driver likes (and resampling
    changes it again), but the graph only carries whole 80 ms frames.
    """

    def __init__(self, frame_samples: int = FRAME_SAMPLES) -> None:
        """Start empty."""
        self.frame_samples = frame_samples
        self._pending = np.zeros(0, dtype=np.int16)

    def push(self, samples: np.ndarray) -> list[np.ndarray]:
        """Add int16 samples; return every frame now complete."""
        self._pending = np.concatenate([self._pending, np.asarray(samples, np.int16)])
        n = len(self._pending) // self.frame_samples
        frames = [self._pending[i * self.frame_samples:(i + 1) * self.frame_samples]
                  for i in range(n)]
        self._pending = self._pending[n * self.frame_samples:]
        return frames

    def flush(self) -> list[np.ndarray]:
        """Return the remainder zero-padded to one frame (or nothing if empty)."""
        if not len(self._pending):
            return []
        frame = np.zeros(self.frame_samples, dtype=np.int16)
        frame[:len(self._pending)] = self._pending
        self._pending = np.zeros(0, dtype=np.int16)
        return [frame]

    @property
    def pending(self) -> int:
        """Return how many samples wait for a frame to fill."""
        return len(self._pending)
