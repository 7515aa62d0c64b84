# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Audio frames on the wire: PCM bytes plus a caps string.

Audio travels as ``sensor_msgs/msg/CompressedImage``: the only core message
with a ``std_msgs/Header`` (the capture stamp), a free-form ``format`` string
and an opaque byte payload. ``format`` holds GStreamer-style caps that fully
describe the payload and carry the sequence number, e.g.::

    audio/x-raw,format=S16LE,rate=24000,channels=1,seq=42

Everything survives rosbag record/replay because it is message content.
"""
from dataclasses import dataclass

import numpy as np

from kame_ros.audio.frames import AudioFrame, FRAME_BYTES, SAMPLE_RATE

MEDIA_TYPE = 'audio/x-raw'
SAMPLE_FORMAT = 'S16LE'
MAX_WIRE_BYTES = 64 * 1024
RATES = (8000, 192000)  # microphone rates accepted (and resampled to the graph's 24 kHz)


class FrameRejected(ValueError):
    """A received audio message that cannot be used; ``reason`` is a counter key."""

    def __init__(self, reason: str, detail: str) -> None:
        """Keep a short machine reason and a human detail apart."""
        super().__init__(f'{reason}: {detail}')
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class AudioCaps:
    """Parsed ``format`` string of an audio message."""

    sample_format: str
    rate: int
    channels: int
    seq: int


def caps_string(seq: int, rate: int = SAMPLE_RATE, channels: int = 1) -> str:
    """Caps for one outgoing frame."""
    return f'{MEDIA_TYPE},format={SAMPLE_FORMAT},rate={rate},channels={channels},seq={seq}'


def parse_caps(text: str) -> AudioCaps:
    """Parse caps; raises FrameRejected('bad_format') on anything malformed."""
    media, _, rest = text.partition(',')
    if media != MEDIA_TYPE:
        raise FrameRejected('bad_format', f'media type {media!r} is not {MEDIA_TYPE}')
    fields = {}
    for item in rest.split(','):
        key, sep, value = item.partition('=')
        if not sep:
            raise FrameRejected('bad_format', f'caps field {item!r} has no value')
        fields[key.strip()] = value.strip()
    try:
        return AudioCaps(fields['format'], int(fields['rate']), int(fields['channels']),
                         int(fields['seq']))
    except (KeyError, ValueError) as err:
        raise FrameRejected('bad_format', f'caps {text!r}: {err}') from err


def decode_frame(caps_text: str, stamp_ns: int, data: bytes) -> AudioFrame:
    """
    Validate one received message and turn it into an AudioFrame.

    The checks are ordered cheapest first and each failure names a counter,
    so a node can log and count bad input without ever raising past here.
    """
    size = len(data)
    if size > MAX_WIRE_BYTES:
        raise FrameRejected('oversized', f'{size} bytes > {MAX_WIRE_BYTES}')
    caps = parse_caps(caps_text)
    if caps.sample_format != SAMPLE_FORMAT:
        raise FrameRejected('bad_format', f'sample format {caps.sample_format}')
    if not RATES[0] <= caps.rate <= RATES[1]:
        raise FrameRejected('rate_mismatch', f'{caps.rate} Hz is outside {RATES[0]}-{RATES[1]}')
    if caps.channels != 1:
        raise FrameRejected('bad_format', f'{caps.channels} channels, graph is mono')
    if size == 0:
        raise FrameRejected('empty', 'no samples')
    if size % 2:
        raise FrameRejected('odd_bytes', f'{size} bytes is not whole int16 samples')
    if caps.rate == SAMPLE_RATE and size != FRAME_BYTES:
        raise FrameRejected('wrong_size', f'{size // 2} samples, frames are {FRAME_BYTES // 2}')
    if caps.seq < 0:
        raise FrameRejected('bad_format', f'negative seq {caps.seq}')
    samples = np.frombuffer(data, '<i2').astype(np.int16)
    return AudioFrame(caps.seq, stamp_ns, samples, caps.rate)
