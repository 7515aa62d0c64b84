# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Record kame_ros topics to a rosbag2 (MCAP) and play bags back, without rosbag2.

``rosbag2_py`` is not available from the PyPI wheels, so bags are written
and read with ``rosbags``; messages stay in the CDR bytes rclpy receives
(raw subscriptions) and publishes, so bags made here open in
``ros2 bag`` and bags from robots play here. A bag stores each type's
definition: those of kame_ros_interfaces are read from its installed .msg
files, so a bag's reader needs no kame_ros to decode it. Playback keeps the
original spacing of messages (optionally scaled).
"""
from importlib import import_module
from pathlib import Path
import threading
import time
from typing import Callable, Sequence

from rclpy.node import Node

from kame_ros.ros.distro import bag_typestore
from kame_ros.ros.topics import Topic


def agent_typestore():
    """Return the running distribution's type store with kame_ros_interfaces' types added."""
    from ament_index_python.packages import get_package_share_directory
    from rosbags.typesys import get_types_from_msg
    store = bag_typestore()
    share = Path(get_package_share_directory('kame_ros_interfaces'))
    types = {}
    for path in sorted((share / 'msg').glob('*.msg')):
        types.update(get_types_from_msg(path.read_text(), f'kame_ros_interfaces/msg/{path.stem}'))
    store.register(types)
    return store


def type_name(msg_type: type) -> str:
    """Return 'pkg/msg/Type' (e.g. kame_ros_interfaces/msg/AudioFrame) for a message class."""
    module = msg_type.__module__.split('.')
    return f'{module[0]}/msg/{msg_type.__name__}'


def type_class(name: str) -> type:
    """Import the rclpy message class named 'pkg/msg/Type'."""
    pkg, _, cls = name.split('/')
    return getattr(import_module(f'{pkg}.msg'), cls)


class BagRecorder:
    """Writes every message of ``topics`` (as received, CDR) to an MCAP rosbag2."""

    def __init__(self, node: Node, path: Path, topics: Sequence[Topic]) -> None:
        """Open the bag (the directory must not exist) and subscribe raw."""
        from rosbags.rosbag2 import StoragePlugin, Writer
        self.path = Path(path)
        self._writer = Writer(self.path, version=9, storage_plugin=StoragePlugin.MCAP)
        self._writer.open()
        store = agent_typestore()
        self._lock = threading.Lock()
        self._clock = node.get_clock()
        self.count = 0
        self._closed = False
        for topic in topics:
            name = node.resolve_topic_name(topic.name)
            connection = self._writer.add_connection(name, type_name(topic.msg_type),
                                                     typestore=store)
            node.create_subscription(topic.msg_type, topic.name,
                                     lambda data, c=connection: self._write(c, data),
                                     topic.qos, raw=True)

    def _write(self, connection, data: bytes) -> None:
        with self._lock:
            if not self._closed:
                self._writer.write(connection, self._clock.now().nanoseconds, data)
                self.count += 1

    def close(self) -> None:
        """Finish the bag (writes the metadata file)."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._writer.close()


def bag_types(path: Path) -> dict[str, str]:
    """Topic -> message type of every topic with messages in a rosbag2 directory."""
    from rosbags.rosbag2 import Reader
    with Reader(path) as reader:
        return {c.topic: c.msgtype for c in reader.connections if c.msgcount}


def read_bag(path: Path, topics: Sequence[str] | None = None) -> list[tuple[str, str, int, bytes]]:
    """(topic, type, timestamp_ns, CDR bytes) of every message, in time order."""
    from rosbags.rosbag2 import Reader
    with Reader(path) as reader:
        conns = [c for c in reader.connections if topics is None or c.topic in topics]
        return [(c.topic, c.msgtype, t, bytes(raw))
                for c, t, raw in reader.messages(connections=conns)]


class BagPlayback:
    """
    Publishes a bag's messages with their original timing, on a thread.

    With ``clock`` it also publishes the bag's own time on ``/clock`` (every
    ``CLOCK_PERIOD_S`` and with each message, as ``ros2 bag play --clock``
    does), so nodes running with ``use_sim_time`` stamp on the bag's time.
    """

    CLOCK_PERIOD_S = 0.01

    def __init__(self, node: Node, path: Path, topics: Sequence[str] | None = None,
                 rate: float = 1.0, qos_by_topic: dict | None = None,
                 clock: bool = False, rename: dict[str, str] | None = None,
                 transform: Callable[[list], list] | None = None) -> None:
        """
        Load the bag and create a publisher per topic (same QoS as the live topic).

        ``rename`` publishes a bag topic under another name (a robot's /mic as
        /audio/mic); ``transform`` rewrites the messages read before that
        (audio_common chunks into graph frames).
        """
        rename = rename or {}
        read = read_bag(Path(path), topics)
        self.messages = [(rename.get(topic, topic), *rest)
                         for topic, *rest in (transform(read) if transform else read)]
        if not self.messages:
            raise ValueError(f'{path}: no messages on {topics or "any topic"}')
        self.rate = rate
        self._clock_pub = None
        if clock:
            from rosgraph_msgs.msg import Clock
            self._clock_msg = Clock
            # rclpy's time source subscribes BEST_EFFORT, depth 1; a reliable publisher matches.
            self._clock_pub = node.create_publisher(Clock, '/clock', 10)
        self.published = 0
        self.finished = threading.Event()
        self._stop = threading.Event()
        qos_by_topic = qos_by_topic or {}
        self._pubs = {}
        for topic, msgtype, _, _ in self.messages:
            if topic not in self._pubs:
                self._pubs[topic] = node.create_publisher(type_class(msgtype), topic,
                                                          qos_by_topic.get(topic, 10))
        self._thread = threading.Thread(target=self._run, daemon=True, name='bag-play')

    def audio_end_ns(self, topic: str) -> int | None:
        """End time of the last audio message replayed on ``topic`` (None: no such topic)."""
        from rclpy.serialization import deserialize_message

        from kame_ros.ros.audio_msg import msg_to_frame
        last = next((m for m in reversed(self.messages) if m[0] == topic), None)
        if last is None:
            return None
        frame = msg_to_frame(deserialize_message(last[3], type_class(last[1])))
        return frame.stamp_ns + len(frame.samples) * 1_000_000_000 // frame.rate

    def subscriber_count(self) -> int:
        """Smallest number of matched subscriptions over the bag's topics."""
        return min(p.get_subscription_count() for p in self._pubs.values())

    def start(self) -> None:
        """Begin playing."""
        self._thread.start()

    def _run(self) -> None:
        t_bag0 = self.messages[0][2]
        t0 = time.monotonic()
        clock = None
        if self._clock_pub is not None:
            clock = threading.Thread(target=self._tick, args=(t_bag0, t0), daemon=True,
                                     name='bag-clock')
            clock.start()
        for topic, _, stamp, data in self.messages:
            delay = t0 + (stamp - t_bag0) / 1e9 / self.rate - time.monotonic()
            if delay > 0 and self._stop.wait(delay):
                return
            self.publish_clock(stamp)
            self._pubs[topic].publish(data)
            self.published += 1
        self.finished.set()

    def _tick(self, t_bag0: int, t0: float) -> None:
        """Publish the bag's time on /clock until the playback ends."""
        while not (self._stop.is_set() or self.finished.is_set()):
            self.publish_clock(t_bag0 + int((time.monotonic() - t0) * self.rate * 1e9))
            self._stop.wait(self.CLOCK_PERIOD_S)

    def publish_clock(self, stamp_ns: int) -> None:
        """Publish ``stamp_ns`` on /clock (when playing with ``clock``): also after the bag."""
        if self._clock_pub is None:
            return
        msg = self._clock_msg()
        msg.clock.sec, msg.clock.nanosec = divmod(stamp_ns, 1_000_000_000)
        self._clock_pub.publish(msg)

    def stop(self) -> None:
        """Stop playing."""
        self._stop.set()
