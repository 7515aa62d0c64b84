# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
When a recorded source (wav_source, bag_play) may send its first message.

Its subscribers start at the same time as it does, and a replay whose first
second is lost to discovery is a different test. So the source holds its
first message until it sees ``wait_for_subscribers`` subscribers, then
``start_delay_s`` more: DDS discovery is not symmetric, and a subscriber this
node already sees may not see it yet (a reliable, volatile writer resends
only what its history still holds).
"""
from dataclasses import dataclass
import threading
from typing import Callable

from rclpy.node import Node

from kame_ros.ros.params import declare


@dataclass(frozen=True)
class StartHold:
    """How long a source holds its first message."""

    subscribers: int
    delay_s: float

    @classmethod
    def declare(cls, node: Node) -> 'StartHold':
        """Declare ``wait_for_subscribers`` and ``start_delay_s`` on ``node``; return them."""
        return cls(declare(node, 'wait_for_subscribers', 0,
                           'Hold the first message until this many subscribers matched (every '
                           'published topic), then start_delay_s', 0, 100),
                   declare(node, 'start_delay_s', 1.0,
                           'Wait before the first message so subscribers can match (a '
                           'subscriber this node sees may not see it yet)', 0.0, 600.0))

    def wait(self, subscriber_count: Callable[[], int], stop: threading.Event) -> bool:
        """Block until the first message may go (True), or ``stop`` is set (False)."""
        while subscriber_count() < self.subscribers:
            if stop.wait(0.05):
                return False
        return not stop.wait(self.delay_s)
