# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Publish 80 ms frames with a per-publisher sequence number."""
import numpy as np
from rclpy.node import Node

from kame_ros.audio.frames import AudioFrame, FRAME_SAMPLES, SAMPLE_RATE
from kame_ros.ros.audio_msg import frame_to_msg
from kame_ros.ros.text_io import TextOutput
from kame_ros.ros.topics import Topic
from kame_ros.wire.messages import AudioInfo


class AudioOutput:
    """Stamps, numbers and publishes frames; optionally latches a stream description."""

    def __init__(self, node: Node, topic: Topic, frame_id: str,
                 info_topic: Topic | None = None, info: dict | None = None,
                 lifecycle: bool = False) -> None:
        """Create the (lifecycle) publisher (and the latched info publisher)."""
        self._node = node
        self._lifecycle = lifecycle
        create = node.create_lifecycle_publisher if lifecycle else node.create_publisher
        self._pub = create(topic.msg_type, topic.name, topic.qos)
        self._info_out = None
        self.frame_id = frame_id
        self.seq = 0
        if info_topic is not None:
            self._info_out = TextOutput(node, info_topic)
            self.set_info(**(info or {}))

    def set_info(self, source: str = '', **details) -> None:
        """Latch a description of the stream (source, device, rates) for late joiners."""
        self._info_out.publish(AudioInfo(SAMPLE_RATE, FRAME_SAMPLES, 1, 'S16LE', self.frame_id,
                                         source, **details))

    def subscriber_count(self) -> int:
        """Subscriptions currently matched to the audio topic."""
        return self._pub.get_subscription_count()

    def publish(self, samples: np.ndarray, stamp_ns: int) -> AudioFrame:
        """Publish one frame stamped with its first sample's time; returns it."""
        frame = AudioFrame(self.seq, stamp_ns, samples)
        self._pub.publish(frame_to_msg(frame, self.frame_id))
        self.seq += 1
        return frame

    def close(self) -> None:
        """Destroy the publishers."""
        if self._lifecycle:
            self._node.destroy_lifecycle_publisher(self._pub)
        else:
            self._node.destroy_publisher(self._pub)
        if self._info_out is not None:
            self._info_out.close()
