# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
AudioFrame <-> kame_ros_interfaces/msg/AudioFrame, and the frames of earlier versions' bags.

What a received frame must be is checked in ``kame_ros.wire.audio``; this
module only moves fields. ``legacy_frames`` rewrites a bag's
``sensor_msgs/CompressedImage`` frames (kame_ros before its interface
package) into the typed message, so a bag recorded then replays now.
"""
from array import array

from builtin_interfaces.msg import Time
from kame_ros_interfaces.msg import AudioFrame as AudioFrameMsg
import numpy as np

from kame_ros.audio.frames import AudioFrame
from kame_ros.wire.audio import AudioCaps, checked_frame, decode_caps_frame, SAMPLE_FORMAT

AUDIO_FRAME_TYPE = 'kame_ros_interfaces/msg/AudioFrame'
LEGACY_AUDIO_TYPE = 'sensor_msgs/msg/CompressedImage'


def stamp_to_ns(stamp: Time) -> int:
    """ROS time message to integer nanoseconds."""
    return stamp.sec * 1_000_000_000 + stamp.nanosec


def ns_to_stamp(ns: int) -> Time:
    """Integer nanoseconds to a ROS time message."""
    return Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def frame_to_msg(frame: AudioFrame, frame_id: str) -> AudioFrameMsg:
    """Build the wire message for one frame."""
    msg = AudioFrameMsg(seq=frame.seq, sample_rate=frame.rate, channels=1,
                        encoding=SAMPLE_FORMAT)
    msg.header.stamp = ns_to_stamp(frame.stamp_ns)
    msg.header.frame_id = frame_id
    msg.samples = array('h', frame.to_bytes())
    return msg


def msg_to_frame(msg: AudioFrameMsg) -> AudioFrame:
    """Validate and convert; raises kame_ros.wire.audio.FrameRejected."""
    caps = AudioCaps(msg.encoding, msg.sample_rate, msg.channels, msg.seq)
    return checked_frame(caps, stamp_to_ns(msg.header.stamp),
                         np.frombuffer(msg.samples, np.int16))


Recorded = list[tuple[str, str, int, bytes]]  # (topic, type, time, CDR) as read_bag returns


def legacy_frames(recorded: Recorded) -> Recorded:
    """
    Rewrite a bag's CompressedImage frames as AudioFrame messages; other messages pass.

    ``recorded`` is (topic, type, time, CDR) as ``read_bag`` returns it. A frame
    that was bad when recorded stays out, as a live subscriber would drop it.
    """
    from rclpy.serialization import deserialize_message, serialize_message
    from sensor_msgs.msg import CompressedImage

    from kame_ros.wire.audio import FrameRejected

    out = []
    for topic, msgtype, t_ns, data in recorded:
        if msgtype != LEGACY_AUDIO_TYPE:
            out.append((topic, msgtype, t_ns, data))
            continue
        old = deserialize_message(data, CompressedImage)
        try:
            frame = decode_caps_frame(old.format, stamp_to_ns(old.header.stamp), bytes(old.data))
        except FrameRejected:
            continue
        out.append((topic, AUDIO_FRAME_TYPE, t_ns,
                    serialize_message(frame_to_msg(frame, old.header.frame_id))))
    return out
