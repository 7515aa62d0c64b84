# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Check what a user hands the main job before any model loads.

Loading the STT, LLM and TTS takes seconds; finding out afterwards that
``--input`` was a directory, or that the bag has no microphone topic, wastes
them, or ends in silence with exit 0. Each check raises InputError
with one line that names the file and what is wrong with it.
"""
from pathlib import Path

from kame_ros.audio.wav import check_wav
from kame_ros.ros.audio_common import BAG_TYPES, info_topic_beside
from kame_ros.ros.audio_msg import AUDIO_FRAME_TYPE, LEGACY_AUDIO_TYPE
from kame_ros.ros.bag import bag_types


class InputError(ValueError):
    """A bad --input, --bag, --topic or --out; the message is one line for the user."""


def check_input_wav(path: Path) -> None:
    """Check that the WAV exists, is audio and has samples."""
    try:
        check_wav(path)
    except ValueError as err:
        raise InputError(f'--input {err}') from err


def bag_topics(path: Path) -> dict[str, str]:
    """Topic -> message type of a rosbag2 directory (MCAP or SQLite)."""
    if not path.exists():
        raise InputError(f'--bag {path}: no such directory')
    try:
        return bag_types(path)
    except Exception as err:  # noqa: B902 - rosbags raises several unrelated types
        raise InputError(f'--bag {path}: not a readable rosbag2 ({err})') from err


AUDIO_TYPES = (AUDIO_FRAME_TYPE, LEGACY_AUDIO_TYPE, *BAG_TYPES)


def check_bag(path: Path, topic: str) -> None:
    """
    Check that the bag is readable and has audio messages on ``topic``.

    The audio is kame_ros's own (AudioFrame, or the CompressedImage frames of
    bags from before kame_ros_interfaces) or audio_common's
    (``audio_capture``'s AudioDataStamped or AudioData), whose AudioInfo must
    be recorded beside it: without it the format would be a guess.
    """
    topics = bag_topics(path)
    listed = ', '.join(f'{t} ({m})' for t, m in sorted(topics.items())) or 'none'
    if topics.get(topic) not in AUDIO_TYPES:
        raise InputError(f'--bag {path}: no audio on {topic}; its topics: {listed} '
                         '(choose one with --topic)')
    if topics[topic] in BAG_TYPES:
        info = info_topic_beside(topic)
        if topics.get(info) != 'audio_common_msgs/msg/AudioInfo':
            raise InputError(f'--bag {path}: {topic} is audio_common audio but {info} '
                             f'(its AudioInfo) is not in the bag; its topics: {listed}')


def check_out(directory: Path) -> None:
    """Check that the output directory can be created and written."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / '.kame_ros_write_test'
        probe.write_bytes(b'')
        probe.unlink()
    except OSError as err:
        raise InputError(f'--out {directory}: cannot write there ({err.strerror})') from err
