# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Open sound devices through PortAudio (pyaudio) in the graph's format when possible.

The device is asked for 24 kHz mono first; if it refuses, its own default
rate is used and the caller resamples. Failures become DeviceError with the
list of devices that do exist, the one message a user needs to fix a config.
"""
from dataclasses import dataclass
import os
import sys
import threading
from typing import Callable

from kame_ros.audio.frames import SAMPLE_RATE


class DeviceError(RuntimeError):
    """A sound device is missing, busy or broke mid-stream."""


@dataclass
class OpenStream:
    """A PortAudio stream and the rate/channels it actually runs at."""

    stream: object
    rate: int
    channels: int
    name: str


def _pyaudio():
    """Import pyaudio, silencing PortAudio's probe chatter on stderr."""
    try:
        import pyaudio
    except ImportError as err:
        raise DeviceError(f'pyaudio is not installed ({err}); apt install python3-pyaudio') \
            from err
    saved = os.dup(2)
    try:
        with open(os.devnull, 'w') as null:
            os.dup2(null.fileno(), 2)
            return pyaudio, pyaudio.PyAudio()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        sys.stderr.flush()


class SoundSystem:
    """One PortAudio session; open input/output streams by name or index."""

    def __init__(self) -> None:
        """Initialise PortAudio."""
        self.pyaudio, self.pa = _pyaudio()

    def devices(self, want_input: bool) -> list[tuple[int, str]]:
        """(index, name) of devices with input (or output) channels."""
        key = 'maxInputChannels' if want_input else 'maxOutputChannels'
        found = []
        for i in range(self.pa.get_device_count()):
            info = self.pa.get_device_info_by_index(i)
            if info[key] > 0:
                found.append((i, info['name']))
        return found

    def find(self, name: str, want_input: bool) -> int | None:
        """Index of the device named (substring) or numbered ``name``; None = default."""
        if not name:
            return None
        candidates = self.devices(want_input)
        if name.isdigit() and int(name) in {i for i, _ in candidates}:
            return int(name)
        for index, dev_name in candidates:
            if name.lower() in dev_name.lower():
                return index
        kind = 'input' if want_input else 'output'
        listing = ', '.join(f'{i}: {n}' for i, n in candidates) or 'none'
        raise DeviceError(f'no {kind} device matches {name!r}; {kind} devices: {listing}')

    def open_stream(self, name: str, want_input: bool, rate: int, channels: int,
                    block_samples: int) -> OpenStream:
        """Open a blocking stream; ``rate`` 0 tries 24 kHz then the device default."""
        index = self.find(name, want_input)
        try:
            info = (self.pa.get_device_info_by_index(index) if index is not None else
                    self.pa.get_default_input_device_info() if want_input else
                    self.pa.get_default_output_device_info())
        except (IOError, OSError) as err:
            raise DeviceError(f'no default {"input" if want_input else "output"} '
                              f'device ({err})') from err
        rates = [rate] if rate else [SAMPLE_RATE, int(info['defaultSampleRate'])]
        last_err = None
        for r in dict.fromkeys(rates):
            try:
                stream = self.pa.open(format=self.pyaudio.paInt16, channels=channels, rate=r,
                                      input=want_input, output=not want_input,
                                      input_device_index=index if want_input else None,
                                      output_device_index=None if want_input else index,
                                      frames_per_buffer=block_samples * r // SAMPLE_RATE)
                return OpenStream(stream, r, channels, info['name'])
            except (IOError, OSError, ValueError) as err:
                last_err = err
        raise DeviceError(f'cannot open {info["name"]!r} at {rates} Hz, '
                          f'{channels} ch: {last_err}')

    def close(self) -> None:
        """Release PortAudio."""
        self.pa.terminate()


def run_device_session(body: Callable[['SoundSystem'], None]) -> None:
    """
    Run ``body`` with a fresh PortAudio session.

    PortAudio enumerates devices once at initialisation, so every retry after
    a device went missing needs a new session to see it come back.
    """
    sound = SoundSystem()
    try:
        body(sound)
    finally:
        sound.close()


class DeviceRetry:
    """
    Keep a device session running: reopen after every failure, until stopped.

    A robot whose microphone is unplugged must say so once, clearly, and
    come back by itself when it returns, without flooding its log: the first
    failure and every 30th are reported through ``log_error``.
    """

    def __init__(self, what: str, retry_period_s: float,
                 log_error: Callable[[str], None]) -> None:
        """Name the device (``what``: "microphone", "speaker") for the messages."""
        self.what = what
        self.retry_period_s = retry_period_s
        self.log_error = log_error
        self.failures = 0
        self.error = ''

    def run(self, body: Callable[['SoundSystem'], None], stop: threading.Event) -> None:
        """Run ``body`` in fresh PortAudio sessions until ``stop`` is set."""
        while not stop.is_set():
            try:
                run_device_session(body)
            except DeviceError as err:
                self.failures += 1
                self.error = str(err)
                if self.failures == 1 or self.failures % 30 == 0:
                    self.log_error(f'{self.what} unavailable (attempt {self.failures}, retrying '
                                   f'every {self.retry_period_s:.1f} s): {err}')
                stop.wait(self.retry_period_s)

    def opened(self) -> None:
        """Forget past failures: the device is open."""
        self.failures, self.error = 0, ''
