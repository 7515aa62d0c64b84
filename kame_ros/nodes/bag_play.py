# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""bag_play: replay a rosbag2 (MCAP or SQLite) into a live graph with its original timing."""
import threading

from rclpy.node import Node

from kame_ros.nodes.monitor import AGENT_TOPICS
from kame_ros.ros.bag import BagPlayback
from kame_ros.ros.diagnostics import Diagnostics, ERROR, Health, OK
from kame_ros.ros.params import declare
from kame_ros.ros.spin import run_nodes

KNOWN_QOS = {f'/{t.name}': t.qos for t in AGENT_TOPICS}


class BagPlay(Node):
    """Publishes the chosen topics of a bag, then finishes."""

    def __init__(self, **kwargs) -> None:
        """Declare parameters, load the bag, start when subscribers are there."""
        super().__init__('bag_play', **kwargs)
        self.path = declare(self, 'path', '', 'rosbag2 directory to play')
        topics = declare(self, 'topics', ['/audio/mic'],
                         'Topics to replay (absolute names); others in the bag are skipped')
        self.rate = declare(self, 'rate', 1.0, 'Playback speed (1.0 = original timing)',
                            0.01, 100.0)
        self.wait_for_subscribers = declare(
            self, 'wait_for_subscribers', 0,
            'Hold playback until every replayed topic has this many subscribers', 0, 100)
        clock = declare(self, 'clock', False,
                        "Publish the bag's time on /clock (for nodes with use_sim_time)")
        self.finished = threading.Event()
        self.error = ''
        try:
            self.playback = BagPlayback(self, self.path, topics, self.rate, KNOWN_QOS, clock)
        except (OSError, ValueError, KeyError) as err:
            self.playback, self.error = None, f'cannot play {self.path!r}: {err}'
            self.get_logger().error(self.error)
            self.finished.set()
        self.diagnostics = Diagnostics(self, self._health)
        self._starter = threading.Thread(target=self._start, daemon=True)
        if self.playback is not None:
            self._starter.start()

    def _start(self) -> None:
        while self.playback.subscriber_count() < self.wait_for_subscribers:
            if self.finished.wait(0.05):
                return
        self.get_logger().info(f'playing {len(self.playback.messages)} messages '
                               f'from {self.path}')
        self.playback.start()
        self.playback.finished.wait()
        self.finished.set()

    def _health(self) -> Health:
        if self.error:
            return Health(ERROR, self.error)
        return Health(OK, 'finished' if self.finished.is_set() else 'playing',
                      {'published': self.playback.published})

    def close(self) -> None:
        """Stop playing."""
        if self.playback is not None:
            self.playback.stop()
        self.finished.set()


def main(args: list[str] | None = None) -> None:
    """Console entry point."""
    run_nodes([BagPlay], args)
