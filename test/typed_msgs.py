# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Tests publish and read the agent's typed topics through the package's own codecs."""
import time
from typing import Any

from rclpy.qos import HistoryPolicy, QoSProfile

from kame_ros.ros.audio_msg import ns_to_stamp, stamp_to_ns
from kame_ros.ros.topics import Topic


def typed(topic: Topic, value: Any, stamp_ns: int | None = None) -> Any:
    """Return ``value`` as ``topic``'s message, stamped now (or at ``stamp_ns``)."""
    msg = topic.codec.to_msg(value)
    msg.header.stamp = ns_to_stamp(time.time_ns() if stamp_ns is None else stamp_ns)
    return msg


def read(topic: Topic, msg: Any) -> Any:
    """Return the core's value of a received message (raises MessageRejected)."""
    return topic.codec.from_msg(msg)


def stamp_ns(msg: Any) -> int:
    """Return a message's header stamp in nanoseconds."""
    return stamp_to_ns(msg.header.stamp)


def every_sample(topic: Topic) -> QoSProfile:
    """
    Return ``topic``'s QoS with a history that keeps every sample until the test reads it.

    The state topics keep only their latest sample (latched, depth 1): a
    test that asserts a sequence of states lost one when its executor was
    slow (CI runs two test runs at once) and the next state came first.
    """
    return QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=100,
                      reliability=topic.qos.reliability, durability=topic.qos.durability)
