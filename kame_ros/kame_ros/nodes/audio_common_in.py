# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
audio_common_in: a robot's audio_common microphone topic onto audio/mic.

The microphone many robots already have is ``audio_capture`` (ReSpeaker,
USB arrays): chunks of raw bytes on ``audio/audio_stamped`` (or
``audio/audio``) whose format is only in the latched ``audio/audio_info``.
This node reads both, decodes each chunk with the info in force (any rate,
the PCM sample formats audio_capture offers, any channel count, any chunk
size), resamples it to the graph's 24 kHz and publishes 80 ms frames on
``audio/mic``, so the STT and the front-end need not know where audio comes
from. A chunk before the first AudioInfo, under an MP3 info, or that does not
decode is a counted drop with a throttled log line naming the reason; the
format is never guessed.
"""
from rclpy.node import Node

from kame_ros.ros.audio_common import (AUDIO_IN_QOS, info_of, INFO_QOS, info_topic_beside,
                                       messages, run_bridge, TYPES)
from kame_ros.ros.audio_msg import stamp_to_ns
from kame_ros.ros.audio_out import AudioOutput
from kame_ros.ros.config import ConfigError
from kame_ros.ros.diagnostics import Diagnostics, ERROR, Health, OK, WARN
from kame_ros.ros.params import declare
from kame_ros.ros.topics import MIC_AUDIO, MIC_INFO
from kame_ros.wire.audio import FrameRejected
from kame_ros.wire.audio_common import ChunkStream
from kame_ros.wire.drops import DropLedger


class AudioCommonIn(Node):
    """Subscribes to an audio_common stream and its AudioInfo; publishes graph frames."""

    def __init__(self, **kwargs) -> None:
        """Declare parameters, subscribe to the audio and info topics."""
        super().__init__('audio_common_in', **kwargs)
        self.audio_topic = declare(self, 'audio_topic', 'audio/audio_stamped',
                                   'audio_common topic to hear (audio_capture: '
                                   'audio/audio_stamped or audio/audio)')
        self.audio_type = declare(self, 'audio_type', 'AudioDataStamped',
                                  f'Message type of audio_topic: {" or ".join(TYPES)}')
        if self.audio_type not in TYPES:
            raise ConfigError(f'audio_type {self.audio_type!r}: use {" or ".join(TYPES)}')
        self.info_topic = declare(self, 'info_topic', '',
                                  'AudioInfo topic; empty = audio_info beside audio_topic')
        self.info_topic = self.info_topic or info_topic_beside(self.audio_topic)
        self.frame_id = declare(self, 'frame_id', 'mic_link', 'Header frame_id of the frames')
        msgs = messages()
        self.out = AudioOutput(self, MIC_AUDIO, self.frame_id, MIC_INFO,
                               {'source': f'audio_common:{self.audio_topic}'})
        self.stream = ChunkStream()
        self.info_error = ''
        self.drops = DropLedger()
        self.create_subscription(msgs.AudioInfo, self.info_topic, self._on_info, INFO_QOS)
        self.create_subscription(getattr(msgs, self.audio_type), self.audio_topic,
                                 self._on_audio, AUDIO_IN_QOS)
        self.diagnostics = Diagnostics(self, self._health)
        self.get_logger().info(f'hearing {self.audio_topic} ({self.audio_type}) with its format '
                               f'from {self.info_topic}')

    def _on_info(self, msg) -> None:
        info = info_of(msg)
        if not self.stream.set_info(info):
            return
        try:
            info.check()
            self.info_error = ''
            self.get_logger().info(f'stream: {info.rate} Hz, {info.channels} ch, '
                                   f'{info.sample_format}, {info.coding_format}')
        except FrameRejected as err:
            self.info_error = err.detail
            self.get_logger().error(f'cannot use {self.audio_topic}: {err.detail}')

    def _on_audio(self, msg) -> None:
        stamped = self.audio_type == 'AudioDataStamped'
        try:
            frames = self.stream.push(bytes(msg.audio.data if stamped else msg.data),
                                      stamp_to_ns(msg.header.stamp) if stamped else 0,
                                      self.get_clock().now().nanoseconds)
        except FrameRejected as err:
            self._drop(err.reason, f'{self.audio_topic} (format from {self.info_topic}): '
                                   f'{err.detail}')
            return
        for frame in frames:
            self.out.publish(frame.samples, frame.stamp_ns)

    def _drop(self, reason: str, detail: str) -> None:
        if self.drops.record(reason):
            self.get_logger().warning(
                f'dropped audio ({reason}, {self.drops.counts[reason]} so far): {detail}')

    def _health(self) -> Health:
        info = self.stream.info
        values = {'chunks': self.stream.chunks, 'frames_published': self.out.seq,
                  'nonfinite_samples': self.stream.nonfinite_samples, **self.drops.as_values()}
        if self.info_error:
            return Health(ERROR, self.info_error, values)
        if info is None:
            return Health(WARN, f'waiting for AudioInfo on {self.info_topic}', values)
        return Health(OK, f'{info.rate} Hz {info.sample_format} x{info.channels}', values)


def main(args: list[str] | None = None) -> None:
    """Console entry point: one error line and exit 1 without audio_common_msgs."""
    run_bridge('audio_common_in', AudioCommonIn, args)
