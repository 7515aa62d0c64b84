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
Such a node that ended on an error (its ``error``: a file it cannot read)
makes the process exit non-zero, so a script or launch file sees it.
"""
import os
from pathlib import Path
import signal
import sys
import threading
import time
from typing import Sequence

import rclpy
from rclpy.exceptions import InvalidParameterTypeException, InvalidParameterValueException
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions


class Spinner:
    """Nodes spinning on their own executor threads; add more at any time."""

    def __init__(self) -> None:
        """No nodes yet."""
        self.stop = threading.Event()
        self._spun: list[tuple[Node, SingleThreadedExecutor, threading.Thread]] = []

    def add(self, node: Node) -> Node:
        """Start spinning ``node``; returns it."""
        executor = SingleThreadedExecutor(context=node.context)
        executor.add_node(node)
        thread = threading.Thread(target=self._spin, args=(executor,), daemon=True,
                                  name=f'spin-{node.get_name()}')
        thread.start()
        self._spun.append((node, executor, thread))
        return node

    def _spin(self, executor: SingleThreadedExecutor) -> None:
        try:
            while not self.stop.is_set() and executor.context.ok():
                executor.spin_once(timeout_sec=0.1)
        except ExternalShutdownException:
            pass
        finally:
            self.stop.set()

    def wait(self, poll_s: float = 0.1) -> None:
        """Block until every finite node finished, the stop flag is set, or Ctrl-C."""
        try:
            while not self.stop.is_set():
                finite = [getattr(n, 'finished', None) for n, _, _ in self._spun]
                finite = [f for f in finite if f is not None]
                if finite and all(f.is_set() for f in finite):
                    break
                time.sleep(poll_s)
        except KeyboardInterrupt:
            pass

    def shutdown(self) -> None:
        """Stop spinning, let nodes close (files, devices), destroy them."""
        self.stop.set()
        for _, _, thread in self._spun:
            thread.join(timeout=5.0)
        for node, _, _ in self._spun:
            close = getattr(node, 'close', None)
            if close is not None:
                close()
        for node, executor, _ in self._spun:
            executor.remove_node(node)
            node.destroy_node()
            executor.shutdown()


def spin_until_finished(nodes: Sequence[Node]) -> None:
    """Spin every node on its own executor thread; return when done or interrupted."""
    spinner = Spinner()
    for node in nodes:
        spinner.add(node)
    try:
        spinner.wait()
    finally:
        # A second Ctrl-C (or ros2 launch's SIGINT after the terminal's) must not cut the
        # shutdown short: nodes are writing files and releasing devices now.
        ignore_stop_signals()
        spinner.shutdown()


class Stopped(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived; ``signal_name`` says which (for a tool's last words)."""

    def __init__(self, signum: int) -> None:
        """Remember the signal."""
        super().__init__(signum)
        self.signal_name = signal.Signals(signum).name


def _interrupt(signum, frame) -> None:
    raise Stopped(signum)


def ignore_stop_signals() -> None:
    """Let a shutdown under way finish: a second Ctrl-C or SIGTERM must not cut it short."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def yield_idle_cores() -> None:
    """
    Let waiting OpenMP threads sleep instead of spinning (unless the user set the policy).

    llama.cpp and CTranslate2 (Whisper) share their work over OpenMP threads
    that spin while they wait for each other. With more runnable threads than
    cores (a robot's other processes, the STT beside the LLM) a spinning
    thread burns the time slice its partner needs: a 42-token prompt of the
    1.5B took 2.3-5.2 s under two CPU hogs, 1.6 s with passive waiting
    (0.85 -> 1.0 s idle). Set before any model library loads its OpenMP.
    """
    os.environ.setdefault('OMP_WAIT_POLICY', 'passive')


def init_ros(args: list[str] | None) -> None:
    """
    Init rclpy with ``args`` (ROS args, params files) for a process of kame_ros nodes.

    SIGINT/SIGTERM interrupt the main thread instead of shutting the context
    down underneath the nodes, so they can still close cleanly (a sink
    writes its file, devices are released) before rclpy shuts down. Both
    are installed unconditionally: a process started as a shell's
    background job inherits SIGINT ignored, and Python then leaves it
    ignored, so ``ros2 launch``'s SIGINT would go unheard.
    """
    yield_idle_cores()
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)


def run_nodes(node_classes: Sequence[type], args: list[str] | None = None) -> None:
    """Init rclpy, build the nodes, spin them until finished, shut down."""
    init_ros(args)
    try:
        try:
            nodes = [cls() for cls in node_classes]
        except (InvalidParameterValueException, InvalidParameterTypeException) as err:
            # a YAML or -p value out of its range, or of the wrong type (1 for a float)
            sys.exit(f'{Path(sys.argv[0]).name}: {err}')
        spin_until_finished(nodes)
        if any(getattr(n, 'finished', None) is not None and getattr(n, 'error', '')
               for n in nodes):
            sys.exit(1)  # the node logged why
    finally:
        rclpy.try_shutdown()
