# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The ROS 2 distribution this process runs on, and what differs between those supported.

kame_ros runs on Jazzy (the LTS) and Kilted from one code base. Every place that
depends on which one runs asks this module, so there are no version checks
scattered through the nodes. A ROS setup script (or scripts/env.sh) sets
``ROS_DISTRO``; without it the installed rclpy wheel tells.
"""
from importlib import metadata
import os
from typing import Any, Callable

SUPPORTED = ('jazzy', 'kilted')
_BY_RCLPY_MAJOR = {3: 'humble', 7: 'jazzy', 9: 'kilted'}


def running_distro() -> str:
    """Return the distribution's name ('jazzy', 'kilted', ...), or 'unknown'."""
    name = os.environ.get('ROS_DISTRO', '').strip().lower()
    if name:
        return name
    try:
        major = int(metadata.version('ros-rclpy').split('.')[0])
    except (metadata.PackageNotFoundError, ValueError):
        return 'unknown'
    return _BY_RCLPY_MAJOR.get(major, 'unknown')


def bag_typestore():
    """
    Return the rosbags type store of the running distribution.

    A bag records each type's definition from this store, so a bag made here
    carries the definitions the robot's own distribution uses; rosbags' newest
    store stands in for a distribution it does not know yet.
    """
    from rosbags.typesys import get_typestore, Stores
    store = getattr(Stores, f'ROS2_{running_distro().upper()}', Stores.LATEST)
    return get_typestore(store)


def matched_events(on_matched: Callable[[int], None]) -> Any:
    """
    Return subscription event callbacks that report the matched publisher count.

    Matched events are new in Iron: on Humble (no ``rclpy.event_handler``)
    this returns None and the subscription reports nothing.
    """
    try:
        from rclpy.event_handler import SubscriptionEventCallbacks
    except ImportError:
        return None
    return SubscriptionEventCallbacks(matched=lambda info: on_matched(info.current_count))
