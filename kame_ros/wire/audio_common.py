# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The audio of ros-drivers/audio_common on the wire: AudioInfo plus raw chunks.

``audio_capture`` publishes bytes (``AudioData``/``AudioDataStamped``) whose
meaning is only in ``AudioInfo`` on a topic of its own, like CameraInfo for
images. This module turns one chunk, read with the info in force, into mono
int16 samples at the stream's rate (the rate adapter makes graph frames of
them), and refuses what it cannot read with a counter key, as
kame_ros.wire.audio does for the native frames. MP3 is refused, not decoded:
an MP3 stream cut into chunks has no seams a decoder can start at, and
``audio_capture`` gives raw PCM with ``format:=wave``.
"""
from dataclasses import dataclass

import numpy as np

from kame_ros.audio.frames import float_to_int16
from kame_ros.wire.audio import FrameRejected, MAX_WIRE_BYTES, RATES

# GStreamer sample formats audio_capture can be set to: numpy dtype and full scale.
SAMPLE_FORMATS = {
    'S16LE': ('<i2', 2.0 ** 15), 'S16BE': ('>i2', 2.0 ** 15),
    'S32LE': ('<i4', 2.0 ** 31), 'S32BE': ('>i4', 2.0 ** 31),
    'F32LE': ('<f4', 1.0), 'F32BE': ('>f4', 1.0),
    'S8': ('i1', 2.0 ** 7), 'U8': ('u1', 2.0 ** 7),
    'S24LE': (None, 2.0 ** 23),
}
MAX_CHANNELS = 16
# audio_common_msgs carries the chunk bytes of up to a second of 48 kHz stereo 32-bit audio.
MAX_CHUNK_BYTES = max(MAX_WIRE_BYTES, 48000 * 2 * 4)


@dataclass(frozen=True)
class StreamInfo:
    """What an AudioInfo message says about the chunks that follow it."""

    channels: int
    rate: int
    sample_format: str
    coding_format: str

    def check(self) -> None:
        """Raise FrameRejected if chunks under this info cannot be read."""
        coding = self.coding_format.strip().lower()
        if coding == 'mp3':
            raise FrameRejected('mp3', 'MP3 chunks are not decoded: run audio_capture with '
                                'format:=wave (raw PCM)')
        if coding not in ('wave', 'wav', 'raw', 'pcm', ''):
            raise FrameRejected('bad_format', f'coding format {self.coding_format!r}')
        if self.sample_format.upper() not in SAMPLE_FORMATS:
            raise FrameRejected('bad_format', f'sample format {self.sample_format!r}; readable: '
                                + ', '.join(SAMPLE_FORMATS))
        if not RATES[0] <= self.rate <= RATES[1]:
            raise FrameRejected('rate_mismatch',
                                f'{self.rate} Hz is outside {RATES[0]}-{RATES[1]}')
        if not 1 <= self.channels <= MAX_CHANNELS:
            raise FrameRejected('bad_format', f'{self.channels} channels')

    @property
    def sample_bytes(self) -> int:
        """Bytes of one sample of one channel."""
        dtype, _ = SAMPLE_FORMATS[self.sample_format.upper()]
        return 3 if dtype is None else np.dtype(dtype).itemsize


def decode_chunk(info: StreamInfo, data: bytes) -> tuple[np.ndarray, int]:
    """
    Turn one chunk into mono int16 samples at ``info.rate``; also return the non-finite count.

    Channels are averaged (a robot's array microphone to one voice channel);
    a NaN or infinite float sample becomes silence rather than reaching a
    model, and is counted for the caller's diagnostics.
    """
    info.check()
    size = len(data)
    if size == 0:
        raise FrameRejected('empty', 'no samples')
    if size > MAX_CHUNK_BYTES:
        raise FrameRejected('oversized', f'{size} bytes > {MAX_CHUNK_BYTES}')
    frame_bytes = info.sample_bytes * info.channels
    if size % frame_bytes:
        raise FrameRejected('odd_bytes', f'{size} bytes is not whole {info.channels}-channel '
                            f'{info.sample_format} samples')
    dtype, scale = SAMPLE_FORMATS[info.sample_format.upper()]
    if dtype is None:  # packed 24-bit little-endian
        raw = np.frombuffer(data, np.uint8).reshape(-1, 3).astype(np.int32)
        ints = raw[:, 0] | (raw[:, 1] << 8) | (raw[:, 2] << 16)
        x = np.where(ints >= 1 << 23, ints - (1 << 24), ints).astype(np.float32)
    else:
        x = np.frombuffer(data, dtype).astype(np.float32)
        if dtype == 'u1':
            x -= 128.0
    x = x.reshape(-1, info.channels).mean(axis=1) / scale
    return float_to_int16(x)
