# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Lifecycle conventions shared by the stt, oracle and frontend nodes.

As in ros2/demos ``lifecycle_py``: parameters are declared in ``__init__``
(so ``ros2 param`` lists them at once) and read in ``on_configure``; every
topic and service is created in ``on_configure`` and destroyed in
``on_cleanup``; outputs are lifecycle publishers, so nothing leaves an
inactive node. A parameter read in configure cannot change what a
configured node does, so ``ros2 param set`` is refused with the reason
while the node is configured, never accepted and ignored. On a robot
without a lifecycle manager, ``autostart`` drives configure -> activate by
itself, as nav2's lifecycle manager would.
"""
from typing import Any, Callable

from rcl_interfaces.msg import SetParametersResult
from rclpy.lifecycle import LifecycleNode, TransitionCallbackReturn

from kame_ros.ros.params import declare
from kame_ros.ros.topics import Topic

RUNTIME_PARAMETERS = {'use_sim_time', 'autostart', 'start_type_description_service'}


def enable_autostart(node: LifecycleNode) -> None:
    """Declare ``autostart`` and, if true, configure+activate once the executor runs."""
    if not declare(node, 'autostart', True,
                   'Configure and activate at start-up without a lifecycle manager'):
        return
    timer = None

    def start() -> None:
        node.destroy_timer(timer)
        if node.trigger_configure() == TransitionCallbackReturn.SUCCESS:
            node.trigger_activate()
    timer = node.create_timer(0.0, start)


def refuse_changes_while_configured(node: LifecycleNode,
                                    configured: Callable[[], bool]) -> None:
    """Refuse ``ros2 param set`` of configure-time parameters, with the reason, when configured."""
    names = set(node.get_parameters_by_prefix('')) - RUNTIME_PARAMETERS

    def guard(parameters) -> SetParametersResult:
        locked = sorted(p.name for p in parameters if p.name in names) if configured() else []
        if locked:
            return SetParametersResult(
                successful=False,
                reason=f'{", ".join(locked)}: read in configure; deactivate, cleanup, set, '
                       'then configure again')
        return SetParametersResult(successful=True)
    node.add_on_set_parameters_callback(guard)


class Interfaces:
    """Everything a lifecycle node creates in configure, destroyed together in cleanup."""

    def __init__(self, node: LifecycleNode) -> None:
        """Track interfaces of ``node``."""
        self.node = node
        self._closers: list[Callable[[], Any]] = []

    def track(self, item: Any) -> Any:
        """Track an object with a ``close()`` (TextInput, AudioOutput...); returns it."""
        self._closers.append(item.close)
        return item

    def publisher(self, topic: Topic):
        """Create and track a lifecycle publisher; it is silent while inactive."""
        pub = self.node.create_lifecycle_publisher(topic.msg_type, topic.name, topic.qos)
        self._closers.append(lambda: self.node.destroy_lifecycle_publisher(pub))
        return pub

    def subscription(self, topic: Topic, callback: Callable):
        """Create and track a subscription."""
        sub = self.node.create_subscription(topic.msg_type, topic.name, callback, topic.qos)
        self._closers.append(lambda: self.node.destroy_subscription(sub))
        return sub

    def service(self, srv_type: type, name: str, callback: Callable):
        """Create and track a service."""
        srv = self.node.create_service(srv_type, name, callback)
        self._closers.append(lambda: self.node.destroy_service(srv))
        return srv

    def release(self) -> None:
        """Destroy everything, newest first."""
        while self._closers:
            self._closers.pop()()
