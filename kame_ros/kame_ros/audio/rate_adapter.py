# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Turn a microphone stream at any rate into the graph's 24 kHz, 80 ms frames.

Robots' microphones (and audio_common) often publish 16 or 48 kHz chunks of
whatever length the driver likes. soxr resamples the stream with its filter
state kept across chunks (no seams), and the frame assembler cuts 80 ms
frames; each output frame is numbered by this adapter and stamped with the
time of its first sample, counted from the stream's first chunk.
"""
from kame_ros.audio.framer import FrameAssembler
from kame_ros.audio.frames import (AudioFrame, float_to_int16, FRAME_NS, int16_to_float,
                                   SAMPLE_RATE)
from kame_ros.audio.resample import StreamResampler


class RateAdapter:
    """One stream of chunks at one rate in, graph frames out."""

    def __init__(self) -> None:
        """No stream yet."""
        self.rate: int | None = None
        self._seq = 0

    def reset(self) -> None:
        """Forget the stream (the publisher restarted): the next chunk starts a new one."""
        self.rate = None

    def push(self, chunk: AudioFrame) -> list[AudioFrame]:
        """Take one chunk at ``chunk.rate``; return the 24 kHz frames now complete."""
        if chunk.rate != self.rate:
            self.rate = chunk.rate
            self._resampler = StreamResampler(chunk.rate, SAMPLE_RATE)
            self._assembler = FrameAssembler()
            self._stamp_ns = chunk.stamp_ns
        samples, _ = float_to_int16(self._resampler.process(int16_to_float(chunk.samples)))
        frames = []
        for block in self._assembler.push(samples):
            frames.append(AudioFrame(self._seq, self._stamp_ns, block))
            self._seq += 1
            self._stamp_ns += FRAME_NS
        return frames
