# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""A microphone at another rate becomes the graph's 24 kHz, 80 ms frames without seams."""
import numpy as np

from kame_ros.audio.frames import AudioFrame, FRAME_NS, FRAME_SAMPLES
from kame_ros.audio.rate_adapter import RateAdapter


def chunks(rate: int, size: int, seconds: float, t0: int = 5_000_000_000):
    t = np.arange(int(rate * seconds)) / rate
    tone = (np.sin(2 * np.pi * 440 * t) * 8000).astype(np.int16)
    for seq, start in enumerate(range(0, len(tone) - size + 1, size)):
        yield AudioFrame(seq, t0 + start * 10**9 // rate, tone[start:start + size], rate)


def test_16k_chunks_of_any_size_become_80ms_frames():
    adapter = RateAdapter()
    frames = [f for chunk in chunks(16000, 512, 2.0) for f in adapter.push(chunk)]
    assert len(frames) in (24, 25)  # 2 s at 24 kHz, minus the resampler's delay
    assert [f.seq for f in frames] == list(range(len(frames)))
    assert [f.stamp_ns - frames[0].stamp_ns for f in frames] == \
        [k * FRAME_NS for k in range(len(frames))]
    assert frames[0].stamp_ns == 5_000_000_000
    audio = np.concatenate([f.samples for f in frames[2:]]).astype(np.float64)
    spectrum = np.abs(np.fft.rfft(audio))
    peak_hz = np.argmax(spectrum) * 24000 / len(audio)
    assert abs(peak_hz - 440) < 5, 'the same tone at the graph rate, no seams'
    assert all(f.samples.shape == (FRAME_SAMPLES,) for f in frames)


def test_a_new_rate_or_a_restart_starts_a_new_stream():
    adapter = RateAdapter()
    first = [f for c in chunks(48000, 4800, 0.5) for f in adapter.push(c)]
    second = [f for c in chunks(16000, 1000, 0.5, t0=9_000_000_000) for f in adapter.push(c)]
    assert first and second and second[0].stamp_ns == 9_000_000_000
    assert second[0].seq == first[-1].seq + 1, 'numbering goes on for the subscriber'
    adapter.reset()
    again = [f for c in chunks(16000, 1000, 0.5, t0=12_000_000_000) for f in adapter.push(c)]
    assert again[0].stamp_ns == 12_000_000_000
