# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Run one or several kame_ros nodes in a process until they finish or are interrupted.

Nodes that have a natural end (a WAV source that played its file, a sink
that went idle) expose a ``finished`` event; the process exits once every
such node has finished, or runs until Ctrl-C if none has an end.
"""
import threading
from typing import Sequence

import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node


def spin_until_finished(nodes: Sequence[Node], poll_s: float = 0.1) -> None:
    """
    Spin ``nodes`` together on one executor thread.

    Device I/O and model work run in each node's own threads, so callbacks are
    short hand-offs and one thread serves them all; it also keeps shutdown
    free of callbacks racing node destruction.
    """
    executor = SingleThreadedExecutor()
    for node in nodes:
        executor.add_node(node)
    finite = [n.finished for n in nodes if getattr(n, 'finished', None) is not None]
    stop = threading.Event()

    def _watch() -> None:
        while not stop.wait(poll_s):
            if finite and all(f.is_set() for f in finite):
                stop.set()
                executor.wake()

    watcher = threading.Thread(target=_watch, daemon=True)
    watcher.start()
    try:
        while not stop.is_set() and rclpy.ok():
            executor.spin_once(timeout_sec=poll_s)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        stop.set()
        for node in nodes:
            close = getattr(node, 'close', None)
            if close is not None:
                close()
        for node in nodes:
            executor.remove_node(node)
            node.destroy_node()
        executor.shutdown()


def run_nodes(node_classes: Sequence[type], args: list[str] | None = None) -> None:
    """Init rclpy with ``args`` (ROS args, params files), build the nodes, spin, shut down."""
    rclpy.init(args=args)
    try:
        spin_until_finished([cls() for cls in node_classes])
    finally:
        rclpy.try_shutdown()
