# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
audio_common_out: the agent's voice (audio/speaker) as audio_common messages.

A robot that already plays sound through ``audio_play`` (or records
audio_common bags) gets the agent's voice in its own format: every 80 ms
frame as ``AudioDataStamped`` (stamp = first sample) and ``AudioData``, with
a latched ``AudioInfo`` (24 kHz, mono, S16LE, wave). ``audio_play`` plays it
with ``format:=wave sample_rate:=24000`` in the namespace of these topics.
"""
from rclpy.node import Node

from kame_ros.audio.frames import AudioFrame, SAMPLE_RATE
from kame_ros.ros.audio_common import (AUDIO_OUT_QOS, info_msg, INFO_QOS, messages,
                                       run_bridge)
from kame_ros.ros.audio_in import AudioInput
from kame_ros.ros.audio_msg import ns_to_stamp
from kame_ros.ros.diagnostics import Diagnostics, Health, OK
from kame_ros.ros.params import declare
from kame_ros.ros.topics import SPEAKER_AUDIO


class AudioCommonOut(Node):
    """Republishes speaker frames as AudioDataStamped + AudioData, with a latched AudioInfo."""

    def __init__(self, **kwargs) -> None:
        """Declare the output namespace, latch the info, subscribe to the speaker."""
        super().__init__('audio_common_out', **kwargs)
        prefix = declare(self, 'topic_prefix', 'audio/agent',
                         'Namespace of the output topics: <prefix>/audio, <prefix>/audio_stamped, '
                         "<prefix>/audio_info (audio_capture's layout)").rstrip('/')
        self.frame_id = declare(self, 'frame_id', 'speaker_link', 'Header frame_id')
        self._msgs = messages()
        self._data = self.create_publisher(self._msgs.AudioData, f'{prefix}/audio',
                                           AUDIO_OUT_QOS)
        self._stamped = self.create_publisher(self._msgs.AudioDataStamped,
                                              f'{prefix}/audio_stamped', AUDIO_OUT_QOS)
        self._info = self.create_publisher(self._msgs.AudioInfo, f'{prefix}/audio_info',
                                           INFO_QOS)
        self._info.publish(info_msg(SAMPLE_RATE))
        self.published = 0
        self.input = AudioInput(self, SPEAKER_AUDIO, self._on_frame)
        self.diagnostics = Diagnostics(self, self._health)

    def _on_frame(self, frame: AudioFrame) -> None:
        audio = self._msgs.AudioData(data=frame.to_bytes())
        stamped = self._msgs.AudioDataStamped(audio=audio)
        stamped.header.stamp = ns_to_stamp(frame.stamp_ns)
        stamped.header.frame_id = self.frame_id
        self._stamped.publish(stamped)
        self._data.publish(audio)
        self.published += 1

    def _health(self) -> Health:
        return Health(OK, 'ok', {'frames_published': self.published,
                                 **self.input.drops.as_values()})


def main(args: list[str] | None = None) -> None:
    """Console entry point: one error line and exit 1 without audio_common_msgs."""
    run_bridge('audio_common_out', AudioCommonOut, args)
