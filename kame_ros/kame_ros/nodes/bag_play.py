# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""bag_play: replay a rosbag2 (MCAP or SQLite) into a live graph with its original timing."""
from pathlib import Path
import threading
import time
from typing import Callable

import numpy as np

from rclpy.node import Node

from kame_ros.audio.frames import FRAME_NS, FRAME_SAMPLES
from kame_ros.ros.audio_common import (AudioCommonMissing, bag_frames, BAG_TYPES,
                                       info_topic_beside)
from kame_ros.ros.audio_msg import LEGACY_AUDIO_TYPE, legacy_frames
from kame_ros.ros.audio_out import AudioOutput
from kame_ros.ros.bag import bag_types, BagPlayback
from kame_ros.ros.diagnostics import Diagnostics, ERROR, Health, OK
from kame_ros.ros.params import declare
from kame_ros.ros.spin import run_nodes
from kame_ros.ros.start_hold import StartHold
from kame_ros.ros.topics import AGENT_TOPICS, MIC_AUDIO

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
        self.start_hold = StartHold.declare(self)
        clock = declare(self, 'clock', False,
                        "Publish the bag's time on /clock (for nodes with use_sim_time)")
        remap_to = declare(self, 'remap_to', '',
                           'Publish the (single) replayed topic under this name, e.g. a '
                           "robot's /mic as /audio/mic; empty = its own name")
        self.trailing_silence_s = declare(
            self, 'trailing_silence_s', 0.0,
            'After the bag, keep the microphone open with this much silence on audio/mic',
            0.0, 3600.0)
        self.finished = threading.Event()
        self.file_done = threading.Event()
        self.error = ''
        self._stop = threading.Event()
        self.silence_out = AudioOutput(self, MIC_AUDIO, 'mic_link')
        try:
            rename = {topics[0]: remap_to} if remap_to and len(topics) == 1 else {}
            read, transform = audio_reading(self.path, topics)
            self.playback = BagPlayback(self, self.path, read, self.rate, KNOWN_QOS, clock,
                                        rename, transform)
        except (OSError, ValueError, KeyError, AudioCommonMissing) as err:
            self.playback, self.error = None, f'cannot play {self.path!r}: {err}'
            self.get_logger().error(self.error)
            self.finished.set()
        self.diagnostics = Diagnostics(self, self._health)
        self._starter = threading.Thread(target=self._start, daemon=True)
        if self.playback is not None:
            self._starter.start()

    def _start(self) -> None:
        if not self.start_hold.wait(self.playback.subscriber_count, self._stop):
            return
        self.get_logger().info(f'playing {len(self.playback.messages)} messages '
                               f'from {self.path}')
        self.playback.start()
        self.playback.finished.wait()
        self.file_done.set()
        self._trail()
        self.finished.set()

    def _trail(self) -> None:
        """Silence on audio/mic after the bag, stamped on from its last frame, in real time."""
        # With ``clock``, /clock goes on with it: the agent keeps time on the bag's clock.
        end = self.playback.audio_end_ns(f'/{MIC_AUDIO.name}')
        if end is None or not self.trailing_silence_s:
            return
        silence = np.zeros(FRAME_SAMPLES, np.int16)
        t0 = time.monotonic()
        for k in range(round(self.trailing_silence_s * 1e9 / FRAME_NS)):
            if self._stop.wait(max(0.0, t0 + k * FRAME_NS / 1e9 / self.rate - time.monotonic())):
                return
            self.playback.publish_clock(end + k * FRAME_NS)
            self.silence_out.publish(silence, end + k * FRAME_NS)

    def _health(self) -> Health:
        if self.error:
            return Health(ERROR, self.error)
        return Health(OK, 'finished' if self.finished.is_set() else 'playing',
                      {'published': self.playback.published})

    def close(self) -> None:
        """Stop playing."""
        self._stop.set()
        if self.playback is not None:
            self.playback.stop()
        self.finished.set()


def audio_reading(path: str, topics: list[str]) -> tuple[list[str], Callable | None]:
    """
    Return the topics to read and the transform that makes graph frames of a bag's audio.

    An audio_common topic (what ``audio_capture`` records) is replayed as the
    graph's frames, decoded with the AudioInfo recorded beside it; the
    CompressedImage frames of kame_ros bags from before its interface package
    are rewritten as AudioFrame messages.
    """
    types = bag_types(Path(path))
    audio = [t for t in topics if types.get(t) in BAG_TYPES]
    legacy = any(types.get(t) == LEGACY_AUDIO_TYPE for t in topics)
    if not audio and not legacy:
        return topics, None
    return (topics + [info_topic_beside(t) for t in audio],
            lambda messages: legacy_frames(bag_frames(messages, audio) if audio else messages))


def main(args: list[str] | None = None) -> None:
    """Console entry point."""
    run_nodes([BagPlay], args)
