# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Self-starting lifecycle nodes.

Nodes that load models are lifecycle nodes, so a supervisor can see
"loading" apart from "running" and reconfigure them; on a robot without a
lifecycle manager, ``autostart`` drives configure -> activate by itself,
as nav2's lifecycle manager would.
"""
from rclpy.lifecycle import LifecycleNode, TransitionCallbackReturn

from kame_ros.ros.params import declare


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
