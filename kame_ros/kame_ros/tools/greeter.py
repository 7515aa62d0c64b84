# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros_greeter: the example behaviour tree (greet, listen, act on an allowlisted intent).

Run it beside the agent (``ros2 launch kame_ros agent.launch.py`` with an
``intents`` allowlist): it greets, waits for an intent, confirms it aloud
and acts. The act here is a log line; a robot puts its own behaviour
there (a nav2 ``goToPose`` for ``navigate_to``). Exit status 0 when the
tree succeeded, 1 when it failed or timed out.
"""
import argparse
import sys
import time
from typing import Callable

import py_trees
from py_trees.common import Status
import rclpy
from rclpy.node import Node

from kame_ros.behaviours import Say, WaitForIntent
from kame_ros.ros.client import AgentClient
from kame_ros.ros.spin import Spinner
from kame_ros.wire.messages import IntentMessage

Act = Callable[[IntentMessage], bool]


class ActOnIntent(py_trees.behaviour.Behaviour):
    """Run ``act`` on the intent the listening behaviour heard: SUCCESS if it returns True."""

    def __init__(self, name: str, listen: WaitForIntent, act: Act) -> None:
        """``listen`` holds the intent once it succeeded."""
        super().__init__(name)
        self.listen = listen
        self.act = act

    def update(self) -> Status:
        """Act once."""
        return Status.SUCCESS if self.act(self.listen.intent) else Status.FAILURE


def confirmation(intent: IntentMessage) -> str:
    """Say what the robot is about to do, in the allowlist's own words."""
    return f'Okay, I will {intent.description}.'


def greeter_tree(client: AgentClient, act: Act, greeting: str,
                 commands: tuple[str, ...] = ()) -> py_trees.behaviour.Behaviour:
    """Greet, listen for an intent (one of ``commands``, any if empty), confirm it, act."""
    listen = WaitForIntent('listen', client, commands)
    return py_trees.composites.Sequence('greet, listen, act', memory=True, children=[
        Say('greet', client, greeting),
        listen,
        Say('confirm', client, lambda: confirmation(listen.intent)),
        ActOnIntent('act', listen, act)])


def tick_until_done(root: py_trees.behaviour.Behaviour, timeout_s: float,
                    period_s: float = 0.1) -> Status:
    """Tick at ``1 / period_s`` Hz until the tree ends; RUNNING if it timed out."""
    tree = py_trees.trees.BehaviourTree(root)
    for _ in range(max(1, int(timeout_s / period_s))):
        tree.tick()
        if root.status in (Status.SUCCESS, Status.FAILURE):
            return root.status
        time.sleep(period_s)
    root.stop(Status.INVALID)  # cancels a say still playing
    return Status.RUNNING


def log_act(node: Node) -> Act:
    """Return the example's act: a log line where a robot would start its behaviour."""
    def act(intent: IntentMessage) -> bool:
        node.get_logger().info(f'act: {intent.command} ("{intent.user_text}")')
        return True
    return act


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    args = rclpy.utilities.remove_ros_args(sys.argv if argv is None else argv)
    parser = argparse.ArgumentParser(prog='kame_ros_greeter', description=__doc__.split('\n')[1])
    parser.add_argument('--greeting', default='Hello! What can I do for you?')
    parser.add_argument('--command', action='append', default=[],
                        help='an intent to act on (a name like navigate_to or a command); '
                             'repeat for more; default: any allowlisted intent')
    parser.add_argument('--timeout', type=float, default=120.0,
                        help='seconds to wait for the agent, then for the tree (default 120)')
    options = parser.parse_args(args[1:])
    if not options.timeout > 0 or not options.greeting.strip():
        parser.error('--timeout must be positive and --greeting not empty')
    rclpy.init(args=argv)
    spinner = Spinner()
    node = spinner.add(rclpy.create_node('greeter'))
    try:
        client = AgentClient(node)
        if not client.wait_until_active(options.timeout):
            sys.exit(f'kame_ros_greeter: no active agent in {options.timeout:.0f} s '
                     '(is agent.launch.py running, in this namespace and domain?)')
        root = greeter_tree(client, log_act(node), options.greeting, tuple(options.command))
        status = tick_until_done(root, options.timeout)
        print(py_trees.display.unicode_tree(root, show_status=True))
        if status != Status.SUCCESS:
            sys.exit(f'kame_ros_greeter: the tree ended {status.value}')
    finally:
        spinner.shutdown()
        rclpy.try_shutdown()
