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

from kame_ros.audio.frames import AudioFrame, float_to_int16, pcm_bytes_to_float
from kame_ros.audio.rate_adapter import RateAdapter
from kame_ros.wire.audio import FrameRejected, MAX_WIRE_BYTES, RATES

# Little-endian integer PCM, as WAV files hold it: kame_ros.audio.frames decodes it (width).
WAV_FORMATS = {'U8': 1, 'S16LE': 2, 'S24LE': 3, 'S32LE': 4}
# The other GStreamer sample formats audio_capture can be set to: numpy dtype and full scale.
OTHER_FORMATS = {
    'S16BE': ('>i2', 2.0 ** 15), 'S32BE': ('>i4', 2.0 ** 31),
    'F32LE': ('<f4', 1.0), 'F32BE': ('>f4', 1.0), 'S8': ('i1', 2.0 ** 7),
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
        if self.sample_format.upper() not in (*WAV_FORMATS, *OTHER_FORMATS):
            raise FrameRejected('bad_format', f'sample format {self.sample_format!r}; readable: '
                                + ', '.join([*WAV_FORMATS, *OTHER_FORMATS]))
        if not RATES[0] <= self.rate <= RATES[1]:
            raise FrameRejected('rate_mismatch',
                                f'{self.rate} Hz is outside {RATES[0]}-{RATES[1]}')
        if not 1 <= self.channels <= MAX_CHANNELS:
            raise FrameRejected('bad_format', f'{self.channels} channels')

    @property
    def sample_bytes(self) -> int:
        """Bytes of one sample of one channel."""
        name = self.sample_format.upper()
        return WAV_FORMATS.get(name) or np.dtype(OTHER_FORMATS[name][0]).itemsize


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
    name = info.sample_format.upper()
    if name in WAV_FORMATS:
        return float_to_int16(pcm_bytes_to_float(data, WAV_FORMATS[name], info.channels))
    dtype, scale = OTHER_FORMATS[name]
    x = np.frombuffer(data, dtype).astype(np.float32)
    return float_to_int16(x.reshape(-1, info.channels).mean(axis=1) / scale)


class ChunkStream:
    """
    One audio_common stream: chunks in, read with the AudioInfo in force; graph frames out.

    audio_common_in (the live topic) and bag_play (a recording of it) both
    read audio_capture's stream through this, so a bag replays exactly as
    the topic is heard.
    """

    def __init__(self) -> None:
        """No AudioInfo yet: every chunk is refused (``no_info``) until one comes."""
        self.info: StreamInfo | None = None
        self.chunks = 0
        self.nonfinite_samples = 0
        self._adapter = RateAdapter()

    def set_info(self, info: StreamInfo) -> bool:
        """Take an AudioInfo; return whether it changed the stream (the resampler restarts)."""
        if info == self.info:
            return False  # audio_capture repeats its info every 5 s
        self.info = info
        self._adapter.reset()
        return True

    def push(self, data: bytes, stamp_ns: int, arrival_ns: int) -> list[AudioFrame]:
        """
        Decode one chunk and return the 24 kHz, 80 ms frames it completes.

        ``stamp_ns`` is the chunk's first sample; 0 when unknown (AudioData, an
        unstamped header), and the chunk is then taken to have ended at
        ``arrival_ns``. Raises FrameRejected, ``no_info`` before any AudioInfo.
        """
        if self.info is None:
            raise FrameRejected('no_info', 'audio before any AudioInfo; waiting for it')
        samples, bad = decode_chunk(self.info, data)
        self.chunks += 1
        self.nonfinite_samples += bad
        if stamp_ns <= 0:
            stamp_ns = arrival_ns - len(samples) * 10**9 // self.info.rate
        return self._adapter.push(AudioFrame(self.chunks, stamp_ns, samples, self.info.rate))
