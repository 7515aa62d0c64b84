# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Audio frames on the wire: what a received frame must be, checked once.

The agent's audio travels as ``kame_ros_interfaces/msg/AudioFrame`` (a
header stamped at the first sample, a sequence number, rate, channels,
encoding and int16 samples; ``ros/audio_msg.py`` converts). Every receiver
checks the same things in the same order, cheapest first, and each failure
names the counter it is dropped under, so a node logs and counts bad input
without ever raising past here.

Bags recorded before kame_ros_interfaces carry the frames as
``sensor_msgs/CompressedImage``: PCM bytes with GStreamer-style caps in
``format`` (``audio/x-raw,format=S16LE,rate=24000,channels=1,seq=42``).
``decode_caps_frame`` reads those, so old bags still replay.
"""
from dataclasses import dataclass

import numpy as np

from kame_ros.audio.frames import AudioFrame, FRAME_SAMPLES, SAMPLE_RATE

MEDIA_TYPE = 'audio/x-raw'
SAMPLE_FORMAT = 'S16LE'
MAX_WIRE_BYTES = 64 * 1024
MAX_SAMPLES = MAX_WIRE_BYTES // 2
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
    """What a received frame says it is (a typed message's fields, or old caps)."""

    sample_format: str
    rate: int
    channels: int
    seq: int


def checked_frame(caps: AudioCaps, stamp_ns: int, samples: np.ndarray) -> AudioFrame:
    """Validate one received frame (caps, then samples) and return it; raises FrameRejected."""
    if len(samples) > MAX_SAMPLES:
        raise FrameRejected('oversized', f'{len(samples)} samples > {MAX_SAMPLES}')
    if caps.sample_format != SAMPLE_FORMAT:
        raise FrameRejected('bad_format', f'sample format {caps.sample_format!r}')
    if not RATES[0] <= caps.rate <= RATES[1]:
        raise FrameRejected('rate_mismatch', f'{caps.rate} Hz is outside {RATES[0]}-{RATES[1]}')
    if caps.channels != 1:
        raise FrameRejected('bad_format', f'{caps.channels} channels, graph is mono')
    if len(samples) == 0:
        raise FrameRejected('empty', 'no samples')
    if caps.rate == SAMPLE_RATE and len(samples) != FRAME_SAMPLES:
        raise FrameRejected('wrong_size', f'{len(samples)} samples, frames are {FRAME_SAMPLES}')
    if caps.seq < 0:
        raise FrameRejected('bad_format', f'negative seq {caps.seq}')
    return AudioFrame(caps.seq, stamp_ns, np.array(samples, np.int16), caps.rate)  # owned


def caps_string(seq: int, rate: int = SAMPLE_RATE, channels: int = 1) -> str:
    """Caps of one frame as the CompressedImage bags of earlier versions carry them."""
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


def decode_caps_frame(caps_text: str, stamp_ns: int, data: bytes) -> AudioFrame:
    """Read one frame of an earlier version's bag (caps + PCM bytes); raises FrameRejected."""
    if len(data) > MAX_WIRE_BYTES:
        raise FrameRejected('oversized', f'{len(data)} bytes > {MAX_WIRE_BYTES}')
    if len(data) % 2:
        raise FrameRejected('odd_bytes', f'{len(data)} bytes is not whole int16 samples')
    return checked_frame(parse_caps(caps_text), stamp_ns, np.frombuffer(data, '<i2'))
