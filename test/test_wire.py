# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Received audio frames (and old bags' caps): every rejection reason, and the drop ledger."""
import numpy as np
import pytest

from kame_ros.audio.frames import FRAME_BYTES
from kame_ros.wire.audio import (AudioCaps, caps_string, checked_frame, decode_caps_frame,
                                 FrameRejected, parse_caps)
from kame_ros.wire.drops import DropLedger

GOOD = np.arange(1920, dtype=np.int16).astype('<i2').tobytes()


def test_caps_roundtrip():
    caps = parse_caps(caps_string(42))
    assert (caps.sample_format, caps.rate, caps.channels, caps.seq) == ('S16LE', 24000, 1, 42)
    frame = decode_caps_frame(caps_string(7), 123, GOOD)
    assert frame.seq == 7 and frame.stamp_ns == 123 and frame.samples[5] == 5


@pytest.mark.parametrize('caps,data,reason', [
    (caps_string(1, rate=4000), GOOD, 'rate_mismatch'),
    (caps_string(1, channels=2), GOOD, 'bad_format'),
    ('audio/x-raw,format=F32LE,rate=24000,channels=1,seq=1', GOOD, 'bad_format'),
    ('video/x-raw,format=S16LE,rate=24000,channels=1,seq=1', GOOD, 'bad_format'),
    ('audio/x-raw,format=S16LE,rate=24000,channels=1', GOOD, 'bad_format'),
    ('audio/x-raw,format=S16LE,rate=fast,channels=1,seq=1', GOOD, 'bad_format'),
    ('audio/x-raw,garbage', GOOD, 'bad_format'),
    ('', GOOD, 'bad_format'),
    (caps_string(1), b'', 'empty'),
    (caps_string(1), GOOD[:-1], 'odd_bytes'),
    (caps_string(1), GOOD[:1000], 'wrong_size'),
    (caps_string(1), GOOD + GOOD, 'wrong_size'),
    (caps_string(1), bytes(1 << 20), 'oversized'),
    (caps_string(-3), GOOD, 'bad_format'),
])
def test_decode_rejections(caps, data, reason):
    with pytest.raises(FrameRejected) as err:
        decode_caps_frame(caps, 0, data)
    assert err.value.reason == reason
    assert len(GOOD) == FRAME_BYTES


@pytest.mark.parametrize('caps,samples,reason', [
    (AudioCaps('S16LE', 24000, 1, 1), np.zeros(1 << 16), 'oversized'),
    (AudioCaps('F32LE', 24000, 1, 1), np.zeros(1920), 'bad_format'),
    (AudioCaps('S16LE', 7999, 1, 1), np.zeros(1920), 'rate_mismatch'),
    (AudioCaps('S16LE', 16000, 2, 1), np.zeros(640), 'bad_format'),
    (AudioCaps('S16LE', 16000, 1, 1), np.zeros(0), 'empty'),
    (AudioCaps('S16LE', 24000, 1, 1), np.zeros(1919), 'wrong_size'),
])
def test_checked_frame_refuses_by_reason(caps, samples, reason):
    """What a typed AudioFrame message says is checked as old caps were."""
    with pytest.raises(FrameRejected) as err:
        checked_frame(caps, 0, samples.astype(np.int16))
    assert err.value.reason == reason
    chunk = checked_frame(AudioCaps('S16LE', 16000, 1, 4), 9, np.arange(320, dtype=np.int16))
    assert (chunk.seq, chunk.stamp_ns, chunk.rate, int(chunk.samples[-1])) == (4, 9, 16000, 319)


def test_drop_ledger_throttles_per_reason():
    now = [0.0]
    ledger = DropLedger(interval_s=5.0, clock=lambda: now[0])
    assert ledger.record('empty') is True
    assert ledger.record('empty') is False
    assert ledger.record('odd_bytes') is True
    now[0] = 6.0
    assert ledger.record('empty', 3) is True
    assert ledger.counts['empty'] == 5 and ledger.total == 6
