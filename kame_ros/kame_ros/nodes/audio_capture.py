# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
audio_capture: the robot's microphone onto audio/mic as 80 ms, 24 kHz frames.

A reader thread owns the device: blocking reads never touch the executor,
so a stalled or vanished device cannot block any other node in the
process. A missing or lost device is reported once, counted, and retried
every ``retry_period_s`` until it comes back.
"""
import threading

from rclpy.node import Node

from kame_ros.audio.clock import SampleClock
from kame_ros.audio.device import DeviceError, DeviceRetry, SoundSystem
from kame_ros.audio.framer import FrameAssembler
from kame_ros.audio.frames import float_to_int16, FRAME_NS, pcm_bytes_to_float, SAMPLE_RATE
from kame_ros.audio.resample import StreamResampler
from kame_ros.ros.audio_out import AudioOutput
from kame_ros.ros.diagnostics import Diagnostics, ERROR, Health, OK, WARN
from kame_ros.ros.params import declare
from kame_ros.ros.spin import run_nodes
from kame_ros.ros.topics import MIC_AUDIO, MIC_INFO


class AudioCapture(Node):
    """Reads a PortAudio input device and publishes frames."""

    def __init__(self, **kwargs) -> None:
        """Declare parameters and start the device thread."""
        super().__init__('audio_capture', **kwargs)
        self.device = declare(self, 'device', '',
                              'Input device: name substring or index; empty = system default')
        self.device_rate = declare(self, 'device_rate', 0,
                                   'Device sample rate; 0 = 24000 if supported, else default',
                                   0, 192000)
        self.channels = declare(self, 'channels', 1, 'Channels to open (mixed down to mono)',
                                1, 32)
        self.block_ms = declare(self, 'block_ms', 20,
                                'Device read size in ms (smaller = lower latency)', 5, 80)
        self.retry_period_s = declare(self, 'retry_period_s', 2.0,
                                      'Wait between attempts to (re)open the device', 0.1, 60.0)
        self.frame_id = declare(self, 'frame_id', 'mic_link', 'Header frame_id of the frames')
        self.out = AudioOutput(self, MIC_AUDIO, self.frame_id, MIC_INFO, {'source': 'device'})
        self.state = 'starting'
        self.retry = DeviceRetry('microphone', self.retry_period_s, self.get_logger().error)
        self.nonfinite_samples = 0
        self._stop = threading.Event()
        self.diagnostics = Diagnostics(self, self._health)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        self.retry.run(self._capture, self._stop)

    def _capture(self, sound: SoundSystem) -> None:
        block = SAMPLE_RATE * self.block_ms // 1000
        opened = sound.open_stream(self.device, True, self.device_rate, self.channels, block)
        resampler = StreamResampler(opened.rate, SAMPLE_RATE)
        assembler = FrameAssembler()
        device_block = block * opened.rate // SAMPLE_RATE
        self.get_logger().info(f'capturing from {opened.name!r} at {opened.rate} Hz, '
                               f'{opened.channels} ch')
        self.out.set_info('device', device=opened.name, device_rate=opened.rate,
                          device_channels=opened.channels)
        self.state = 'capturing'
        self.retry.opened()
        clock = SampleClock()
        try:
            while not self._stop.is_set():
                try:
                    data = opened.stream.read(device_block, exception_on_overflow=False)
                except (IOError, OSError) as err:
                    raise DeviceError(f'device {opened.name!r} lost: {err}') from err
                x = pcm_bytes_to_float(data, 2, opened.channels)
                samples, bad = float_to_int16(resampler.process(x))
                self.nonfinite_samples += bad
                for frame in assembler.push(samples):
                    lag_ns = int(assembler.pending * 1e9 / SAMPLE_RATE)
                    start_ns = self.get_clock().now().nanoseconds - lag_ns - FRAME_NS
                    self.out.publish(frame, clock.stamp(start_ns))
        finally:
            opened.stream.close()

    def _health(self) -> Health:
        if self.retry.error:
            level, message = ERROR, self.retry.error
        else:
            level, message = (OK if self.state == 'capturing' else WARN), self.state
        return Health(level, message,
                      {'frames_published': self.out.seq, 'open_failures': self.retry.failures,
                       'nonfinite_samples': self.nonfinite_samples})

    def close(self) -> None:
        """Stop the device thread."""
        self._stop.set()
        self._thread.join(timeout=3.0)


def main(args: list[str] | None = None) -> None:
    """Console entry point."""
    run_nodes([AudioCapture], args)
