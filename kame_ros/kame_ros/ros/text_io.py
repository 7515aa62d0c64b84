# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Publish and receive JSON text events (kame_ros.wire.text) with validation.

Like AudioInput for audio: garbage, oversized or wrong-type messages become
counted drops with a throttled log line, and the callback only ever sees
decoded, typed events.
"""
from typing import Any, Callable

from rclpy.node import Node
from std_msgs.msg import String

from kame_ros.ros.topics import Topic
from kame_ros.wire.drops import DropLedger
from kame_ros.wire.payload import Payload
from kame_ros.wire.text import decode_event, encode_event, EventRejected


class TextOutput:
    """Numbers, stamps and publishes events on one topic."""

    def __init__(self, node: Node, topic: Topic, lifecycle: bool = False) -> None:
        """Create the (lifecycle) publisher."""
        self._node = node
        self._lifecycle = lifecycle
        create = node.create_lifecycle_publisher if lifecycle else node.create_publisher
        self._pub = create(topic.msg_type, topic.name, topic.qos)
        self.seq = 0

    def publish(self, message: Payload) -> None:
        """Publish one event, stamped with the node's clock (sim time when it is used)."""
        stamp_ns = self._node.get_clock().now().nanoseconds
        self._pub.publish(String(data=encode_event(message.event_type, self.seq, stamp_ns,
                                                   message.payload())))
        self.seq += 1

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
    """A validated subscription to one event topic: its payload's types, strictly read."""

    def __init__(self, node: Node, topic: Topic, on_event: Callable[[Any], None]) -> None:
        """Subscribe; ``on_event`` gets the topic's payload dataclass, never a bad one."""
        self._node = node
        self._types = topic.event_types
        self._parse = topic.payload.from_event
        self._on_event = on_event
        self.drops = DropLedger()
        self.received = 0
        self.subscription = node.create_subscription(topic.msg_type, topic.name,
                                                     self._callback, topic.qos)

    def _callback(self, msg: String) -> None:
        try:
            event = decode_event(msg.data)
            if event['type'] not in self._types:
                raise EventRejected('wrong_type', f'{event["type"]} not in {self._types}')
            typed = self._parse(event)
        except ValueError as err:  # EventRejected (the envelope) included
            self._drop(drop_reason(err), str(err))
            return
        self.received += 1
        self._on_event(typed)

    def close(self) -> None:
        """Destroy the subscription."""
        self._node.destroy_subscription(self.subscription)

    def _drop(self, reason: str, detail: str) -> None:
        if self.drops.record(reason):
            self._node.get_logger().warning(
                f'dropped event ({reason}, {self.drops.counts[reason]} so far): {detail[:200]}')


def drop_reason(err: ValueError) -> str:
    """Return the counter key of a text that could not be read: the envelope's, or bad_payload."""
    return err.reason if isinstance(err, EventRejected) else 'bad_payload'
