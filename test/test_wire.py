# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Audio caps and text-event envelopes: round trips and every rejection reason."""
import numpy as np
import pytest

from kame_ros.audio.frames import FRAME_BYTES
from kame_ros.wire.audio import caps_string, decode_frame, FrameRejected, parse_caps
from kame_ros.wire.drops import DropLedger
from kame_ros.wire.text import decode_event, encode_event, EventRejected

GOOD = np.arange(1920, dtype=np.int16).astype('<i2').tobytes()


def test_caps_roundtrip():
    caps = parse_caps(caps_string(42))
    assert (caps.sample_format, caps.rate, caps.channels, caps.seq) == ('S16LE', 24000, 1, 42)
    frame = decode_frame(caps_string(7), 123, GOOD)
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
        decode_frame(caps, 0, data)
    assert err.value.reason == reason
    assert len(GOOD) == FRAME_BYTES


def test_text_event_roundtrip_and_rejections():
    text = encode_event('stt.partial', 3, 99, {'text': 'héllo', 'utterance_id': 1})
    event = decode_event(text, 'stt.partial')
    assert event['text'] == 'héllo' and event['seq'] == 3
    with pytest.raises(ValueError):
        encode_event('x', 0, 0, {'seq': 1})
    cases = {'bad_json': ['{not json', '[1, 2]'],
             'bad_version': ['{"v": 2, "type": "a", "seq": 1, "stamp_ns": 1}'],
             'bad_envelope': ['{"v": 1, "type": "a", "seq": "1", "stamp_ns": 1}'],
             'wrong_type': [encode_event('oracle.reset', 1, 1, {})],
             'oversized': ['x' * 70000]}
    for reason, texts in cases.items():
        for t in texts:
            with pytest.raises(EventRejected) as err:
                decode_event(t, 'stt.partial')
            assert err.value.reason == reason, t


def test_drop_ledger_throttles_per_reason():
    now = [0.0]
    ledger = DropLedger(interval_s=5.0, clock=lambda: now[0])
    assert ledger.record('empty') is True
    assert ledger.record('empty') is False
    assert ledger.record('odd_bytes') is True
    now[0] = 6.0
    assert ledger.record('empty', 3) is True
    assert ledger.counts['empty'] == 5 and ledger.total == 6
