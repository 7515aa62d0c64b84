# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
A private PulseAudio server with a clocked null sink (speaker) and a pipe source (mic).

Runs as whatever user the tests run as (root in CI), on its own socket, so
it neither needs nor disturbs a desktop sound server.
"""
import os
from pathlib import Path
import shutil
import subprocess
import threading
import time

import numpy as np

CONFIG = """
load-module module-native-protocol-unix socket={dir}/native auth-anonymous=1
load-module module-null-sink sink_name=kame_speaker rate=24000 channels=1 format=s16le
load-module module-pipe-source source_name=kame_mic file={dir}/mic.fifo rate=24000 \
channels=1 format=s16le
set-default-sink kame_speaker
set-default-source kame_mic
"""


class PulseServer:
    """Start/stop the server; ``env`` points clients (PortAudio via ALSA) at it."""

    def __init__(self, directory: Path) -> None:
        if shutil.which('pulseaudio') is None:
            raise RuntimeError('pulseaudio is not installed (scripts/setup.sh installs it)')
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / 'default.pa').write_text(CONFIG.format(dir=self.dir))
        self.env = {'PULSE_SERVER': f'unix:{self.dir}/native',
                    'PULSE_RUNTIME_PATH': str(self.dir), 'PULSE_STATE_PATH': str(self.dir),
                    'XDG_RUNTIME_DIR': str(self.dir)}
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 15.0) -> None:
        self.proc = subprocess.Popen(
            ['pulseaudio', '--daemonize=no', '--exit-idle-time=-1', '-n', '--use-pid-file=no',
             f'--file={self.dir / "default.pa"}', '--log-target=stderr'],
            env={**os.environ, **self.env}, stdout=subprocess.DEVNULL,
            stderr=open(self.dir / 'pulse.log', 'w'))
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if subprocess.run(['pactl', 'info'], env={**os.environ, **self.env},
                              capture_output=True).returncode == 0:
                return
            time.sleep(0.2)
        raise RuntimeError('PulseAudio did not start: ' + (self.dir / 'pulse.log').read_text())

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)

    def feed_mic(self, samples: np.ndarray, rate: int = 24000) -> threading.Thread:
        """Write int16 samples into the pipe source at real-time pace (in a thread)."""
        def run():
            fd = os.open(self.dir / 'mic.fifo', os.O_WRONLY)
            try:
                block = rate // 50
                t0 = time.monotonic()
                for i in range(0, len(samples), block):
                    os.write(fd, samples[i:i + block].astype('<i2').tobytes())
                    delay = t0 + (i + block) / rate - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
            finally:
                os.close(fd)
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    def record_speaker(self) -> 'Recorder':
        """Start capturing what is played to the null sink (its monitor)."""
        return Recorder(self.env)


class Recorder:
    """parec on the speaker's monitor, read on a thread so nothing is missed."""

    def __init__(self, env: dict) -> None:
        self.proc = subprocess.Popen(['parec', '-d', 'kame_speaker.monitor', '--rate=24000',
                                      '--channels=1', '--format=s16le', '--raw'],
                                     env={**os.environ, **env}, stdout=subprocess.PIPE)
        self.chunks: list[bytes] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while chunk := self.proc.stdout.read1(4800):
            self.chunks.append(chunk)

    def wait_until_recording(self, timeout: float = 30.0) -> None:
        """Block until the monitor delivered 0.2 s, i.e. the recorder really hears the sink."""
        end = time.monotonic() + timeout
        while sum(map(len, self.chunks)) < 9600:
            if time.monotonic() > end:
                raise RuntimeError('parec delivered no audio from the speaker monitor')
            time.sleep(0.05)

    def stop(self) -> np.ndarray:
        """Stop and return what was heard, int16 at 24 kHz."""
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.thread.join(timeout=10)
        data = b''.join(self.chunks)
        return np.frombuffer(data[:len(data) // 2 * 2], '<i2')
