# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Run one or several kame_ros nodes in a process until they finish or are interrupted.

Each node gets its own single-threaded executor on its own thread, exactly
as if ``ros2 launch`` had started it in a process of its own: a slow model
load in one node's lifecycle callback can never stall another node's audio
callbacks. Nodes that have a natural end (a WAV source that played its
file, a sink that went idle) expose a ``finished`` event; the process exits
once every such node has finished, or runs until Ctrl-C if none has an end.
"""
import signal
import threading
import time
from typing import Sequence

import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions


def _spin(executor: SingleThreadedExecutor, stop: threading.Event) -> None:
    try:
        while not stop.is_set() and executor.context.ok():
            executor.spin_once(timeout_sec=0.1)
    except ExternalShutdownException:
        pass
    finally:
        stop.set()


def spin_until_finished(nodes: Sequence[Node], poll_s: float = 0.1) -> None:
    """Spin every node on its own executor thread; return when done or interrupted."""
    stop = threading.Event()
    executors = []
    threads = []
    for node in nodes:
        executor = SingleThreadedExecutor(context=node.context)
        executor.add_node(node)
        executors.append(executor)
        thread = threading.Thread(target=_spin, args=(executor, stop), daemon=True,
                                  name=f'spin-{node.get_name()}')
        thread.start()
        threads.append(thread)
    finite = [n.finished for n in nodes if getattr(n, 'finished', None) is not None]
    try:
        while not stop.is_set():
            if finite and all(f.is_set() for f in finite):
                break
            time.sleep(poll_s)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=5.0)
        for node in nodes:
            close = getattr(node, 'close', None)
            if close is not None:
                close()
        for node, executor in zip(nodes, executors):
            executor.remove_node(node)
            node.destroy_node()
            executor.shutdown()


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def run_nodes(node_classes: Sequence[type], args: list[str] | None = None) -> None:
    """
    Init rclpy with ``args`` (ROS args, params files), build the nodes, spin, shut down.

    SIGINT/SIGTERM interrupt the main thread instead of shutting the context
    down underneath the nodes, so they can still close cleanly (a sink
    writes its file, devices are released) before rclpy shuts down.
    """
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        spin_until_finished([cls() for cls in node_classes])
    finally:
        rclpy.try_shutdown()
