# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
wav_sink: record an audio topic to a WAV plus a per-frame arrival log.

The CSV log (seq, stamp_ns, receive_ns) is what tests and benchmarks read
to prove order, completeness, pace and transport latency.
"""
import csv
from pathlib import Path
import threading
import time

import numpy as np
from rclpy.node import Node

from kame_ros.audio.frames import AudioFrame, FRAME_SAMPLES
from kame_ros.audio.wav import write_wav
from kame_ros.ros.audio_in import AudioInput
from kame_ros.ros.diagnostics import Diagnostics, Health, OK, WARN
from kame_ros.ros.params import declare
from kame_ros.ros.spin import run_nodes
from kame_ros.ros.topics import SPEAKER_AUDIO


class WavSink(Node):
    """Writes received frames to a WAV file; lost frames become silence."""

    def __init__(self, **kwargs) -> None:
        """Declare parameters and subscribe (default topic audio/speaker; remap as needed)."""
        super().__init__('wav_sink', **kwargs)
        self.path = Path(declare(self, 'path', 'kame_out.wav', 'WAV file to write'))
        self.log_path = declare(self, 'log_path', '',
                                'Per-frame CSV (seq, stamp_ns, receive_ns); empty = <path>.csv')
        self.idle_timeout_s = declare(
            self, 'idle_timeout_s', 0.0,
            'Write the file and finish after this long without frames (0 = never)', 0.0, 3600.0)
        self.fill_gaps = declare(self, 'fill_gaps', True,
                                 'Write silence for lost frames so the timeline stays true')
        self.finished = threading.Event()
        self._chunks: list[np.ndarray] = []
        self._log: list[tuple[int, int, int]] = []
        self._last_rx = None
        self._lock = threading.Lock()
        self.input = AudioInput(self, SPEAKER_AUDIO, self._on_frame, on_matched=self._on_matched)
        self.diagnostics = Diagnostics(self, self._health)
        if self.idle_timeout_s > 0:
            self.create_timer(0.1, self._check_idle)

    def _on_frame(self, frame: AudioFrame) -> None:
        now = self.get_clock().now().nanoseconds
        with self._lock:
            if self._log and self.fill_gaps:
                missing = frame.seq - self._log[-1][0] - 1
                self._chunks.extend(np.zeros(FRAME_SAMPLES, np.int16) for _ in range(missing))
            self._chunks.append(frame.samples)
            self._log.append((frame.seq, frame.stamp_ns, now))
            self._last_rx = time.monotonic()

    def _on_matched(self, publishers: int) -> None:
        # Frames published before a publisher is matched are lost to this recording (VOLATILE):
        # the line tells a user (and a test) when recording can begin.
        self.get_logger().info(f'matched {publishers} publisher(s)')

    def _check_idle(self) -> None:
        if (self._last_rx is not None and not self.finished.is_set()
                and time.monotonic() - self._last_rx > self.idle_timeout_s):
            self.write()
            self.finished.set()

    def write(self) -> None:
        """Write the WAV and the CSV log of everything received so far."""
        with self._lock:
            samples = np.concatenate(self._chunks) if self._chunks else np.zeros(0, np.int16)
            log = list(self._log)
        write_wav(self.path, samples)
        log_path = Path(self.log_path or f'{self.path}.csv')
        with open(log_path, 'w', newline='') as f:
            writer = csv.writer(f)
            writer.writerow(['seq', 'stamp_ns', 'receive_ns'])
            writer.writerows(log)
        self.get_logger().info(f'wrote {len(log)} frames to {self.path} and {log_path}')

    def _health(self) -> Health:
        drops = self.input.drops.as_values()
        return Health(WARN if drops else OK, f'{self.input.received} frames received',
                      {'frames_received': self.input.received, **drops})

    def close(self) -> None:
        """Write whatever arrived if the node is stopped before it finished."""
        if not self.finished.is_set():
            self.write()
            self.finished.set()


def main(args: list[str] | None = None) -> None:
    """Console entry point."""
    run_nodes([WavSink], args)
