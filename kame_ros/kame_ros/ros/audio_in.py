# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Subscribe to an audio topic with validation, loss counting and throttled logs.

Every consumer of audio (sink, speaker, STT, front-end) receives through
this class, so bad input is handled once: a malformed, mis-rated, empty,
odd-sized or oversized frame, or a duplicate/late sequence number, becomes a
counted drop with a log line, and the callback only ever sees good frames.
A stream at another rate than 24 kHz is resampled and re-framed on the way
(RateAdapter): the callback always gets 80 ms frames at 24 kHz.
"""
from typing import Callable

from rclpy.node import Node

from kame_ros.audio.frames import AudioFrame, SAMPLE_RATE
from kame_ros.audio.rate_adapter import RateAdapter
from kame_ros.audio.sequence import SequenceTracker, SeqVerdict
from kame_ros.ros.audio_msg import msg_to_frame
from kame_ros.ros.distro import matched_events
from kame_ros.ros.topics import Topic
from kame_ros.wire.audio import FrameRejected
from kame_ros.wire.drops import DropLedger


class AudioInput:
    """
    A validated audio subscription.

    With ``ordered`` (the default) duplicates and late frames are dropped and
    gaps counted as ``lost``; without it frames pass in arrival order and
    reordering is left to the consumer (the playback jitter buffer).
    """

    def __init__(self, node: Node, topic: Topic, on_frame: Callable[[AudioFrame], None],
                 ordered: bool = True, on_matched: Callable[[int], None] | None = None) -> None:
        """Create the subscription; ``on_matched(publishers)`` when that count changes."""
        self._node = node
        self._on_frame = on_frame
        self._tracker = SequenceTracker() if ordered else None
        self._adapter = RateAdapter()
        self.drops = DropLedger()
        self.received = 0
        self.last_frame: AudioFrame | None = None
        events = matched_events(on_matched) if on_matched else None
        self.subscription = node.create_subscription(topic.msg_type, topic.name,
                                                     self._callback, topic.qos,
                                                     event_callbacks=events)

    def _callback(self, msg) -> None:
        try:
            frame = msg_to_frame(msg)
        except FrameRejected as err:
            self._drop(err.reason, err.detail)
            return
        if self._tracker is not None:
            check = self._tracker.check(frame.seq, frame.stamp_ns)
            if check.verdict in (SeqVerdict.DUPLICATE, SeqVerdict.LATE):
                self._drop(check.verdict.value, f'seq {frame.seq} after {self._tracker.last}')
                return
            if check.verdict is SeqVerdict.GAP:
                self._drop('lost', f'{check.lost} frame(s) missing before seq {frame.seq}',
                           check.lost)
            elif check.verdict is SeqVerdict.RESTART:
                self._node.get_logger().info(f'audio stream restarted at seq {frame.seq}')
                self._adapter.reset()
        self.received += 1
        frames = [frame] if frame.rate == SAMPLE_RATE else self._adapter.push(frame)
        for out in frames:
            self.last_frame = out
            self._on_frame(out)

    def close(self) -> None:
        """Destroy the subscription."""
        self._node.destroy_subscription(self.subscription)

    def _drop(self, reason: str, detail: str, n: int = 1) -> None:
        if self.drops.record(reason, n):
            self._node.get_logger().warning(
                f'dropped audio ({reason}, {self.drops.counts[reason]} so far): {detail}')
