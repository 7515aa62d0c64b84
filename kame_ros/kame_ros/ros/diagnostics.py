# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Publish a node's health on /diagnostics once a second.

diagnostic_updater is not available from the PyPI wheels; this is the small
part of it kame_ros needs: one status per node, built by a callback that
reads the node's counters, so the hot path only increments integers.
"""
from dataclasses import dataclass, field
from typing import Callable

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rclpy.node import Node

from kame_ros.ros.heap import HeapWatch
from kame_ros.ros.topics import DIAGNOSTICS

OK = DiagnosticStatus.OK
WARN = DiagnosticStatus.WARN
ERROR = DiagnosticStatus.ERROR


@dataclass
class Health:
    """One status report: level, one-line message and key/value figures."""

    level: bytes = OK
    message: str = 'ok'
    values: dict[str, object] = field(default_factory=dict)


class Diagnostics:
    """Periodic /diagnostics publisher for one node."""

    def __init__(self, node: Node, report: Callable[[], Health], period_s: float = 1.0,
                 hardware_id: str = '') -> None:
        """Start the timer; ``report`` is called on the node's executor."""
        self._node = node
        self._report = report
        self._hardware_id = hardware_id
        self._pub = node.create_publisher(DIAGNOSTICS.msg_type, DIAGNOSTICS.name,
                                          DIAGNOSTICS.qos)
        self._heap = HeapWatch(node.get_name())
        self._timer = node.create_timer(period_s, self.publish)

    def publish(self) -> None:
        """Build and send the node's current status."""
        health = self._report()
        self._heap.tick()
        health.values.update(self._heap.values())
        status = DiagnosticStatus(
            level=health.level, name=f'kame_ros: {self._node.get_fully_qualified_name()}',
            message=health.message, hardware_id=self._hardware_id,
            values=[KeyValue(key=str(k), value=str(v)) for k, v in health.values.items()])
        array = DiagnosticArray(status=[status])
        array.header.stamp = self._node.get_clock().now().to_msg()
        self._pub.publish(array)
