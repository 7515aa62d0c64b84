# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
audio_playback: play audio/speaker on the robot's speaker through a jitter buffer.

The writer thread owns the device and pulls exactly one frame per 80 ms
(the blocking write is the clock); when nothing is queued it writes
silence, so the device stays running and the next reply starts with only
the jitter buffer's prefill as added latency.
"""
import threading

from rclpy.node import Node

from kame_ros.audio.device import DeviceError, DeviceRetry, SoundSystem
from kame_ros.audio.frames import AudioFrame, float_to_int16, int16_to_float, SAMPLE_RATE
from kame_ros.audio.jitter import JitterBuffer
from kame_ros.audio.resample import StreamResampler
from kame_ros.ros.audio_in import AudioInput
from kame_ros.ros.diagnostics import Diagnostics, ERROR, Health, OK, WARN
from kame_ros.ros.params import declare
from kame_ros.ros.spin import run_nodes
from kame_ros.ros.topics import SPEAKER_AUDIO


class AudioPlayback(Node):
    """Subscribes to speaker frames and writes them to a PortAudio output."""

    def __init__(self, **kwargs) -> None:
        """Declare parameters, subscribe, start the device thread."""
        super().__init__('audio_playback', **kwargs)
        self.device = declare(self, 'device', '',
                              'Output device: name substring or index; empty = system default')
        self.device_rate = declare(self, 'device_rate', 0,
                                   'Device sample rate; 0 = 24000 if supported, else default',
                                   0, 192000)
        prefill = declare(self, 'prefill_frames', 2,
                          'Frames buffered before playing: latency vs. underruns', 1, 25)
        capacity = declare(self, 'capacity_frames', 50,
                           'Most frames queued; older ones are dropped beyond it', 2, 1000)
        self.retry_period_s = declare(self, 'retry_period_s', 2.0,
                                      'Wait between attempts to (re)open the device', 0.1, 60.0)
        self.jitter = JitterBuffer(prefill=prefill, capacity=max(capacity, prefill))
        self.state = 'starting'
        self.retry = DeviceRetry('speaker', self.retry_period_s, self.get_logger().error)
        self._stop = threading.Event()
        self.input = AudioInput(self, SPEAKER_AUDIO, self._on_frame, ordered=False)
        self.diagnostics = Diagnostics(self, self._health)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _on_frame(self, frame: AudioFrame) -> None:
        reason = self.jitter.push(frame.seq, frame.samples)
        if reason != 'ok' and self.input.drops.record(reason):
            self.get_logger().warning(f'speaker frame seq {frame.seq} dropped: {reason}')

    def _run(self) -> None:
        self.retry.run(self._play, self._stop)

    def _play(self, sound: SoundSystem) -> None:
        opened = sound.open_stream(self.device, False, self.device_rate, 1, 1920)
        resampler = StreamResampler(SAMPLE_RATE, opened.rate)
        self.get_logger().info(f'playing to {opened.name!r} at {opened.rate} Hz')
        self.state = 'playing'
        self.retry.opened()
        try:
            while not self._stop.is_set():
                frame = self.jitter.pop()
                if opened.rate != SAMPLE_RATE:
                    frame, _ = float_to_int16(resampler.process(int16_to_float(frame)))
                try:
                    opened.stream.write(frame.astype('<i2').tobytes())
                except (IOError, OSError) as err:
                    raise DeviceError(f'device {opened.name!r} lost: {err}') from err
        finally:
            opened.stream.close()

    def _health(self) -> Health:
        stats = self.jitter.stats
        level = ERROR if self.retry.error else OK if self.state == 'playing' else WARN
        return Health(level, self.retry.error or self.state, {
            'frames_played': stats.played, 'silence_frames': stats.silence,
            'queued': len(self.jitter), 'open_failures': self.retry.failures,
            **{f'jitter_{k}': v for k, v in stats.events.items()},
            **self.input.drops.as_values()})

    def close(self) -> None:
        """Stop the device thread."""
        self._stop.set()
        self._thread.join(timeout=3.0)


def main(args: list[str] | None = None) -> None:
    """Console entry point."""
    run_nodes([AudioPlayback], args)
