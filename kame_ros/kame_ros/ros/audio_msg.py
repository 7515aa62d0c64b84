# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""AudioFrame <-> sensor_msgs/CompressedImage (see kame_ros.wire.audio)."""
from builtin_interfaces.msg import Time
from sensor_msgs.msg import CompressedImage

from kame_ros.audio.frames import AudioFrame
from kame_ros.wire.audio import caps_string, decode_frame


def stamp_to_ns(stamp: Time) -> int:
    """ROS time message to integer nanoseconds."""
    return stamp.sec * 1_000_000_000 + stamp.nanosec


def ns_to_stamp(ns: int) -> Time:
    """Integer nanoseconds to a ROS time message."""
    return Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def frame_to_msg(frame: AudioFrame, frame_id: str) -> CompressedImage:
    """Build the wire message for one frame."""
    msg = CompressedImage()
    msg.header.stamp = ns_to_stamp(frame.stamp_ns)
    msg.header.frame_id = frame_id
    msg.format = caps_string(frame.seq, frame.rate)
    msg.data = frame.to_bytes()
    return msg


def msg_to_frame(msg: CompressedImage) -> AudioFrame:
    """Validate and decode; raises kame_ros.wire.audio.FrameRejected."""
    return decode_frame(msg.format, stamp_to_ns(msg.header.stamp), bytes(msg.data))
