# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
wav_source: a virtual microphone that plays a WAV file onto audio/mic.

Used headless (answer a recorded question) and in tests. Frames leave at
the pace a real microphone would deliver them: frame k is stamped with the
time of its first sample and published when its last sample "arrives",
scheduled against absolute deadlines so the rate never drifts.
"""
import threading
import time
from typing import Callable

import numpy as np
from rclpy.node import Node
from rosgraph_msgs.msg import Clock

from kame_ros.audio.framer import FrameAssembler
from kame_ros.audio.frames import FRAME_NS, FRAME_SAMPLES
from kame_ros.audio.wav import read_wav_24k
from kame_ros.ros.audio_msg import ns_to_stamp
from kame_ros.ros.audio_out import AudioOutput
from kame_ros.ros.diagnostics import Diagnostics, ERROR, Health, OK
from kame_ros.ros.params import declare
from kame_ros.ros.spin import run_nodes
from kame_ros.ros.start_hold import StartHold
from kame_ros.ros.topics import MIC_AUDIO, MIC_INFO


class WavSource(Node):
    """Publishes a WAV file as 80 ms frames at real-time pace."""

    def __init__(self, **kwargs) -> None:
        """Declare parameters, load the file, start the pacing thread."""
        super().__init__('wav_source', **kwargs)
        self.path = declare(self, 'path', '', 'PCM WAV to publish (any rate/channels; '
                            'converted to 24 kHz mono)')
        self.realtime_factor = declare(
            self, 'realtime_factor', 1.0,
            'Pace relative to real time: 1.0 = 12.5 frames/s, 0.0 = as fast as possible',
            0.0, 1000.0)
        self.loop = declare(self, 'loop', False, 'Start the file again when it ends')
        self.start_hold = StartHold.declare(self)
        self.trailing_silence_s = declare(
            self, 'trailing_silence_s', 0.0,
            'Keep publishing silence this long after the file, as an open microphone would',
            0.0, 3600.0)
        self.frame_id = declare(self, 'frame_id', 'mic_link', 'Header frame_id of the frames')
        clock = declare(self, 'clock', False,
                        "Publish the file's own time on /clock (for use_sim_time replays "
                        'faster or slower than real time)')
        self._clock_pub = self.create_publisher(Clock, '/clock', 10) if clock else None
        # In-process callers (kame_ros_agent) may hold each frame until the agent kept up.
        self.gate: Callable[[], bool] | None = None
        self.file_done = threading.Event()
        self.finished = threading.Event()
        self._stop = threading.Event()
        self.error = ''
        self._frames = []
        try:
            assembler = FrameAssembler()
            self._frames = assembler.push(read_wav_24k(self.path)) + assembler.flush()
            self._silence = [np.zeros(FRAME_SAMPLES, np.int16)] * round(
                self.trailing_silence_s * 1e9 / FRAME_NS)
        except (OSError, ValueError) as err:
            self.error = f'cannot read WAV {self.path!r}: {err}'
            self.get_logger().error(self.error)
            self.finished.set()
        self.out = AudioOutput(self, MIC_AUDIO, self.frame_id, MIC_INFO,
                               {'source': 'wav', 'path': self.path})
        self.diagnostics = Diagnostics(self, self._health)
        self._thread = threading.Thread(target=self._run, daemon=True)
        if self._frames:
            self.get_logger().info(f'{self.path}: {len(self._frames)} frames '
                                   f'({len(self._frames) * FRAME_SAMPLES / 24000:.1f} s)')
            self._thread.start()

    def _run(self) -> None:
        if not self.start_hold.wait(self.out.subscriber_count, self._stop):
            return
        # Paced on the wall clock (scaled by realtime_factor). Stamped on the node clock: with
        # /clock published here, the file's own time (every node then runs on it, whatever
        # the pace); without it, the wall-clock time each frame goes out.
        period_ns = FRAME_NS / self.realtime_factor if self.realtime_factor > 0 else 0
        step_ns = FRAME_NS if self._clock_pub is not None else period_ns
        t0 = time.monotonic_ns()
        stamp0 = self.get_clock().now().nanoseconds or time.time_ns()
        k = 0
        frames = self._frames
        while not self._stop.is_set():
            for samples in frames:
                delay = (t0 + (k + 1) * period_ns - time.monotonic_ns()) / 1e9
                if delay > 0 and self._stop.wait(delay):
                    return
                while self.gate is not None and not self.gate():
                    if self._stop.wait(0.005):
                        return
                stamp = stamp0 + int(k * step_ns) if step_ns else \
                    self.get_clock().now().nanoseconds or time.time_ns()
                if self._clock_pub is not None:
                    self._clock_pub.publish(Clock(clock=ns_to_stamp(stamp + FRAME_NS)))
                self.out.publish(samples, stamp)
                k += 1
            if frames is self._frames:
                self.get_logger().info(f'published {self.out.seq} frames of {self.path}')
                self.file_done.set()
            if self.loop:
                continue
            if frames is self._silence or not self._silence:
                break
            frames = self._silence
        self.diagnostics.publish()  # the final count, before the node goes away
        self.finished.set()

    def _health(self) -> Health:
        if self.error:
            return Health(ERROR, self.error)
        return Health(OK, 'finished' if self.finished.is_set() else 'playing',
                      {'frames_published': self.out.seq, 'frames_in_file': len(self._frames)})

    def close(self) -> None:
        """Stop publishing (called before the node is destroyed)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2.0)


def main(args: list[str] | None = None) -> None:
    """Console entry point."""
    run_nodes([WavSource], args)
