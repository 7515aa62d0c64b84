# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The standard ROS audio messages (ros-drivers/audio_common), an optional dependency.

``audio_common_msgs`` comes from the distribution on a robot (rosdep key
``audio_common_msgs``) and from ../shared/wheels/interop in scripts/setup.sh's
venv. The package runs without it; only the two bridge nodes need it, and
they say in one line how to install it.

QoS: audio is read BEST_EFFORT (matches both a RELIABLE publisher such as
``audio_capture`` and a sensor-data one such as whisper_ros's capturer) and
written RELIABLE as ``audio_capture`` does, so ``audio_play`` (RELIABLE)
matches. AudioInfo is latched both ways (RELIABLE, TRANSIENT_LOCAL, depth 1),
``audio_capture``'s own choice: a late bridge still learns the format.
"""
from importlib import import_module
import sys
from types import ModuleType

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

from kame_ros.ros.config import ConfigError
from kame_ros.ros.distro import running_distro
from kame_ros.ros.spin import run_nodes
from kame_ros.ros.topics import AUDIO_QOS, LATCHED_QOS
from kame_ros.wire.audio_common import StreamInfo

AUDIO_IN_QOS = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=50,
                          reliability=ReliabilityPolicy.BEST_EFFORT,
                          durability=DurabilityPolicy.VOLATILE)
# Written as the graph's own audio (AUDIO_QOS) and latched state (LATCHED_QOS) are.
AUDIO_OUT_QOS = AUDIO_QOS
INFO_QOS = LATCHED_QOS
TYPES = ('AudioDataStamped', 'AudioData')
BAG_TYPES = tuple(f'audio_common_msgs/msg/{name}' for name in TYPES)


class AudioCommonMissing(RuntimeError):
    """audio_common_msgs is not installed; the message says how to install it."""


def messages() -> ModuleType:
    """Return ``audio_common_msgs.msg``, or raise AudioCommonMissing with the fix."""
    try:
        return import_module('audio_common_msgs.msg')
    except ImportError:
        distro = running_distro()
        apt = f'ros-{distro}-audio-common-msgs' if distro != 'unknown' else 'audio_common_msgs'
        raise AudioCommonMissing(
            f'audio_common_msgs is not installed: apt install {apt} (rosdep key '
            "audio_common_msgs; in scripts/setup.sh's venv the wheel from "
            '../shared/wheels/interop)') from None


def run_bridge(name: str, node_class: type, args: list[str] | None) -> None:
    """Run a bridge executable: without audio_common_msgs or misconfigured, one line, exit 1."""
    try:
        messages()
        run_nodes([node_class], args)
    except (AudioCommonMissing, ConfigError) as err:
        sys.exit(f'{name}: {err}')


def info_of(msg) -> StreamInfo:
    """Read an audio_common_msgs/AudioInfo."""
    return StreamInfo(int(msg.channels), int(msg.sample_rate), str(msg.sample_format),
                      str(msg.coding_format))


def info_msg(rate: int, channels: int = 1, sample_format: str = 'S16LE'):
    """Build the AudioInfo of a raw PCM stream, as audio_capture with format:=wave sends it."""
    bits = 8 * StreamInfo(channels, rate, sample_format, 'wave').sample_bytes
    return messages().AudioInfo(channels=channels, sample_rate=rate, sample_format=sample_format,
                                bitrate=rate * channels * bits, coding_format='wave')


def info_topic_beside(audio_topic: str) -> str:
    """Return ``audio_info`` in the audio topic's namespace, where audio_capture puts it."""
    head, sep, _ = audio_topic.rstrip('/').rpartition('/')
    return f'{head}/audio_info' if sep else 'audio_info'


def bag_frames(recorded: list[tuple[str, str, int, bytes]],
               audio_topics: list[str]) -> list[tuple[str, str, int, bytes]]:
    """
    Turn a bag's audio_common chunks into graph frames, for replay into the agent.

    ``recorded`` are (topic, type, time, CDR) in time order, with the AudioInfo
    topic beside each of ``audio_topics``. Each chunk is decoded with the info
    recorded before it by the ChunkStream audio_common_in reads live, and its frames
    go out on the chunk's topic as the graph's audio message at the chunk's
    bag time (so renaming, /clock and the trailing silence of a replay work
    as for a bag of audio/mic). Raises ValueError if a stream cannot be read.
    """
    from rclpy.serialization import deserialize_message, serialize_message

    from kame_ros.ros.audio_msg import AUDIO_FRAME_TYPE, frame_to_msg, stamp_to_ns
    from kame_ros.wire.audio import FrameRejected
    from kame_ros.wire.audio_common import ChunkStream

    msgs = messages()
    info_topics = {info_topic_beside(t): t for t in audio_topics}
    streams = {t: ChunkStream() for t in audio_topics}
    out = []
    for topic, msgtype, t_ns, data in recorded:
        if topic in info_topics:
            streams[info_topics[topic]].set_info(
                info_of(deserialize_message(data, msgs.AudioInfo)))
            continue
        if topic not in streams:
            out.append((topic, msgtype, t_ns, data))
            continue
        stamped = msgtype.endswith('/AudioDataStamped')
        msg = deserialize_message(data, msgs.AudioDataStamped if stamped else msgs.AudioData)
        try:
            frames = streams[topic].push(bytes(msg.audio.data if stamped else msg.data),
                                         stamp_to_ns(msg.header.stamp) if stamped else 0, t_ns)
        except FrameRejected as err:
            if err.reason == 'no_info':
                continue  # as live: audio before its format is known is not guessed
            raise ValueError(f'{topic}: {err.detail}') from err
        out += [(topic, AUDIO_FRAME_TYPE, t_ns,
                 serialize_message(frame_to_msg(frame, 'mic_link'))) for frame in frames]
    return out
