# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Publish and receive the typed non-audio topics, converting at the edge.

Like AudioInput for audio: a message the topic's codec refuses (oversized
text, a constant out of range, a partial on the final topic) becomes a
counted drop with a throttled log line, and the callback only ever sees
the core's dataclass (ros/messages.py).
"""
from typing import Any, Callable

from rclpy.node import Node

from kame_ros.ros.messages import MessageRejected
from kame_ros.ros.topics import Topic
from kame_ros.wire.drops import DropLedger


class TextOutput:
    """Converts, stamps and publishes the core's values on one topic."""

    def __init__(self, node: Node, topic: Topic, lifecycle: bool = False) -> None:
        """Create the (lifecycle) publisher."""
        self._node = node
        self._lifecycle = lifecycle
        self._to_msg = topic.codec.to_msg
        create = node.create_lifecycle_publisher if lifecycle else node.create_publisher
        self._pub = create(topic.msg_type, topic.name, topic.qos)

    def publish(self, value: Any) -> None:
        """Publish one value, stamped with the node's clock (sim time when it is used)."""
        msg = self._to_msg(value)
        msg.header.stamp = self._node.get_clock().now().to_msg()
        self._pub.publish(msg)

    def subscribers(self) -> int:
        """Return how many subscriptions the publisher has matched."""
        return self._pub.get_subscription_count()

    def close(self) -> None:
        """Destroy the publisher."""
        if self._lifecycle:
            self._node.destroy_lifecycle_publisher(self._pub)
        else:
            self._node.destroy_publisher(self._pub)


class TextInput:
    """A validated subscription to one typed topic: the callback gets its dataclass."""

    def __init__(self, node: Node, topic: Topic, on_event: Callable[[Any], None]) -> None:
        """Subscribe; ``on_event`` gets the topic's dataclass, never a refused message."""
        self._node = node
        self._from_msg = topic.codec.from_msg
        self._on_event = on_event
        self.drops = DropLedger()
        self.received = 0
        self.subscription = node.create_subscription(topic.msg_type, topic.name,
                                                     self._callback, topic.qos)

    def _callback(self, msg: Any) -> None:
        try:
            value = self._from_msg(msg)
        except MessageRejected as err:
            self._drop(err.reason, str(err))
            return
        self.received += 1
        self._on_event(value)

    def close(self) -> None:
        """Destroy the subscription."""
        self._node.destroy_subscription(self.subscription)

    def _drop(self, reason: str, detail: str) -> None:
        if self.drops.record(reason):
            self._node.get_logger().warning(
                f'dropped message ({reason}, {self.drops.counts[reason]} so far): {detail[:200]}')
