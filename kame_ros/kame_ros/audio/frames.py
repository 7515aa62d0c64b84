# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The one audio frame every kame_ros component speaks.

Mimi (Moshi's codec) consumes 24 kHz mono audio in 80 ms steps of 1920
samples. Fixing the whole graph to that frame means the front-end never
re-blocks audio on its hot path and a sequence number maps 1:1 to a model step.
"""
from dataclasses import dataclass

import numpy as np

SAMPLE_RATE = 24000
FRAME_SAMPLES = 1920
FRAME_SECONDS = FRAME_SAMPLES / SAMPLE_RATE
FRAME_NS = 80_000_000
FRAME_BYTES = FRAME_SAMPLES * 2
INT16_FULL_SCALE = 32768.0


@dataclass(frozen=True)
class AudioFrame:
    """
    One 80 ms block of 24 kHz mono int16 audio (or, as received, a chunk at ``rate``).

    ``seq`` increases by one per frame from a given publisher, so receivers can
    count losses and reorderings; ``stamp_ns`` is the capture (or intended play)
    time of the first sample, in the ROS clock's nanoseconds. A microphone at
    another rate (16 kHz is common on robots) publishes chunks of any length
    at its own rate; ``RateAdapter`` turns them into graph frames.
    """

    seq: int
    stamp_ns: int
    samples: np.ndarray
    rate: int = SAMPLE_RATE

    def __post_init__(self) -> None:
        """Reject frames that would silently corrupt downstream models."""
        size_ok = (self.samples.shape == (FRAME_SAMPLES,) if self.rate == SAMPLE_RATE
                   else self.samples.ndim == 1 and len(self.samples) > 0)
        if self.samples.dtype != np.int16 or not size_ok:
            raise ValueError(
                f'AudioFrame needs int16[{FRAME_SAMPLES}] at {SAMPLE_RATE} Hz, got '
                f'{self.samples.dtype}{list(self.samples.shape)} at {self.rate} Hz')
        if self.seq < 0:
            raise ValueError(f'negative sequence number {self.seq}')

    def to_bytes(self) -> bytes:
        """Little-endian PCM bytes, the wire and WAV layout."""
        return self.samples.astype('<i2', copy=False).tobytes()

    @property
    def end_ns(self) -> int:
        """Time just after the last sample of the frame."""
        return self.stamp_ns + FRAME_NS


def float_to_int16(x: np.ndarray) -> tuple[np.ndarray, int]:
    """
    Convert float audio in [-1, 1] to int16, clipping and zeroing non-finite values.

    Returns the samples and how many were NaN/Inf, so callers can count them as
    bad input instead of letting a NaN propagate into a model.
    """
    x = np.asarray(x, dtype=np.float32)
    bad = ~np.isfinite(x)
    n_bad = int(bad.sum())
    if n_bad:
        x = np.where(bad, 0.0, x)
    scaled = np.clip(np.rint(x * INT16_FULL_SCALE), -32768, 32767)
    return scaled.astype(np.int16), n_bad


def int16_to_float(x: np.ndarray) -> np.ndarray:
    """Convert int16 samples to float32 in [-1, 1)."""
    return np.asarray(x, dtype=np.int16).astype(np.float32) / INT16_FULL_SCALE


def pcm_bytes_to_float(data: bytes, sample_width: int, channels: int) -> np.ndarray:
    """
    Decode interleaved little-endian PCM into a float32 mono signal.

    Multi-channel input is averaged to mono: microphones on robots are often
    stereo arrays, and the front-end wants one channel.
    """
    if channels < 1:
        raise ValueError(f'channels must be >= 1, got {channels}')
    frame_bytes = sample_width * channels
    if len(data) % frame_bytes:
        raise ValueError(
            f'{len(data)} bytes is not a whole number of {channels}-channel '
            f'{8 * sample_width}-bit samples')
    if sample_width == 2:
        x = np.frombuffer(data, '<i2').astype(np.float32) / INT16_FULL_SCALE
    elif sample_width == 4:
        x = np.frombuffer(data, '<i4').astype(np.float32) / 2.0 ** 31
    elif sample_width == 1:
        x = (np.frombuffer(data, np.uint8).astype(np.float32) - 128.0) / 128.0
    elif sample_width == 3:
        raw = np.frombuffer(data, np.uint8).reshape(-1, 3).astype(np.int32)
        ints = raw[:, 0] | (raw[:, 1] << 8) | (raw[:, 2] << 16)
        ints = np.where(ints >= 1 << 23, ints - (1 << 24), ints)
        x = ints.astype(np.float32) / 2.0 ** 23
    else:
        raise ValueError(f'unsupported sample width {sample_width} bytes')
    if channels > 1:
        x = x.reshape(-1, channels).mean(axis=1)
    return x
