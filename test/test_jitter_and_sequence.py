# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Jitter buffer and sequence tracking under reordering, loss, duplicates, restarts."""
import numpy as np
import pytest

from kame_ros.audio.frames import FRAME_SAMPLES
from kame_ros.audio.jitter import JitterBuffer
from kame_ros.audio.sequence import SequenceTracker, SeqVerdict


def frame(v: int) -> np.ndarray:
    return np.full(FRAME_SAMPLES, v, np.int16)


def played(buf: JitterBuffer, n: int) -> list[int]:
    return [int(buf.pop()[0]) for _ in range(n)]


def test_prefill_then_reordered_frames_play_in_order():
    buf = JitterBuffer(prefill=3, capacity=10)
    assert buf.push(11, frame(11)) == 'ok'
    assert played(buf, 1) == [0] and buf.stats.silence == 1
    assert buf.push(10, frame(10)) == 'ok'
    assert buf.push(12, frame(12)) == 'ok'
    assert played(buf, 4) == [10, 11, 12, 0]
    assert buf.stats.played == 3 and buf.stats.events['underrun'] == 1


def test_gap_becomes_counted_silence_and_late_frame_is_refused():
    buf = JitterBuffer(prefill=2, capacity=10)
    for s in (1, 2, 4):
        buf.push(s, frame(s))
    assert played(buf, 3) == [1, 2, 0]
    assert buf.stats.events['lost'] == 1
    assert buf.push(3, frame(3)) == 'late'
    assert played(buf, 1) == [4]


def test_duplicate_refused_and_overflow_drops_oldest():
    buf = JitterBuffer(prefill=1, capacity=3)
    assert buf.push(5, frame(5)) == 'ok'
    assert buf.push(5, frame(5)) == 'duplicate'
    for s in (6, 7, 8):
        buf.push(s, frame(s))
    assert len(buf) == 3 and buf.stats.events['overflow'] == 1
    assert played(buf, 3) == [6, 7, 8]


def test_publisher_restart_resets_stream():
    buf = JitterBuffer(prefill=1, capacity=100, restart_window=50)
    buf.push(500, frame(1))
    played(buf, 1)
    assert buf.push(0, frame(2)) == 'ok'
    assert buf.stats.events['restart'] == 1
    assert played(buf, 1) == [2]


def test_bad_configuration_rejected():
    with pytest.raises(ValueError):
        JitterBuffer(prefill=0)
    with pytest.raises(ValueError):
        JitterBuffer(prefill=5, capacity=3)


def test_sequence_tracker_verdicts():
    t = SequenceTracker(restart_window=10)
    assert t.check(5).verdict is SeqVerdict.NEXT
    assert t.check(6).verdict is SeqVerdict.NEXT
    gap = t.check(9)
    assert gap.verdict is SeqVerdict.GAP and gap.lost == 2
    assert t.check(9).verdict is SeqVerdict.DUPLICATE
    assert t.check(7).verdict is SeqVerdict.LATE
    assert t.check(10).verdict is SeqVerdict.NEXT
    assert t.check(0).verdict is SeqVerdict.LATE
    t.last = 100
    assert t.check(0).verdict is SeqVerdict.RESTART and t.last == 0


def test_short_stream_restarted_is_a_new_stream_by_its_stamps():
    """A publisher restarted after 20 frames (< restart_window): newer stamps, new stream."""
    t = SequenceTracker()
    frame_ns = 80_000_000
    for seq in range(20):
        assert t.check(seq, 1_000 + seq * frame_ns).verdict is SeqVerdict.NEXT
    restart = t.check(0, 1_000 + 30 * frame_ns)
    assert restart.verdict is SeqVerdict.RESTART and t.last == 0
    assert t.check(1, 1_000 + 31 * frame_ns).verdict is SeqVerdict.NEXT
    assert t.check(0, 1_000 + 30 * frame_ns).verdict is SeqVerdict.LATE, 'a retransmission'
    assert t.check(0, 1_000).verdict is SeqVerdict.LATE, 'older in sequence and in time'
