# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Frames, conversion, resampling, framing, WAV I/O and the sample clock."""
import numpy as np
import pytest

from audio_signals import dominant_frequency, tone

from kame_ros.audio.clock import SampleClock
from kame_ros.audio.framer import FrameAssembler
from kame_ros.audio.frames import (AudioFrame, float_to_int16, FRAME_NS, FRAME_SAMPLES,
                                   int16_to_float, pcm_bytes_to_float)
from kame_ros.audio.resample import resample, StreamResampler
from kame_ros.audio.wav import read_wav, read_wav_24k, write_wav


def test_frame_contract():
    frame = AudioFrame(3, 10, np.arange(FRAME_SAMPLES, dtype=np.int16))
    assert len(frame.to_bytes()) == 3840
    assert frame.end_ns == 10 + FRAME_NS
    with pytest.raises(ValueError):
        AudioFrame(0, 0, np.zeros(FRAME_SAMPLES - 1, np.int16))
    with pytest.raises(ValueError):
        AudioFrame(0, 0, np.zeros(FRAME_SAMPLES, np.float32))
    with pytest.raises(ValueError):
        AudioFrame(-1, 0, np.zeros(FRAME_SAMPLES, np.int16))


def test_float_int16_roundtrip_clips_and_counts_nonfinite():
    x = np.array([0.0, 0.5, -0.5, 2.0, -2.0, np.nan, np.inf], np.float32)
    y, bad = float_to_int16(x)
    assert bad == 2
    assert y.tolist() == [0, 16384, -16384, 32767, -32768, 0, 0]
    assert np.allclose(int16_to_float(y[:3]), [0, 0.5, -0.5])


@pytest.mark.parametrize('width', [1, 2, 3, 4])
def test_pcm_widths_and_stereo_mixdown(width):
    left = np.array([0.5, -0.25, 0.0, 0.75])
    right = np.array([0.5, 0.25, -0.5, 0.25])
    inter = np.stack([left, right], 1).reshape(-1)
    scale = 2 ** (8 * width - 1)
    ints = np.round(inter * (scale - 1)).astype(np.int64)
    if width == 1:
        data = (ints + 128).astype(np.uint8).tobytes()
    else:
        data = b''.join(int(v).to_bytes(width, 'little', signed=True) for v in ints)
    mono = pcm_bytes_to_float(data, width, 2)
    assert np.allclose(mono, (left + right) / 2, atol=2.0 / scale)


def test_pcm_rejects_partial_samples():
    with pytest.raises(ValueError, match='whole number'):
        pcm_bytes_to_float(b'\x00\x01\x02', 2, 1)
    with pytest.raises(ValueError, match='width'):
        pcm_bytes_to_float(b'\x00' * 10, 5, 1)


@pytest.mark.parametrize('rate', [8000, 16000, 22050, 44100, 48000])
def test_resample_keeps_pitch_and_length(rate):
    x = tone(440.0, 1.0, rate)
    y = resample(x, rate, 24000)
    assert abs(len(y) - 24000) <= 2
    assert abs(dominant_frequency(y) - 440.0) < 1.0


def test_stream_resampler_matches_one_shot_in_blocks():
    x = tone(1000.0, 1.0, 48000)
    stream = StreamResampler(48000, 24000)
    blocks = [stream.process(x[i:i + 913]) for i in range(0, len(x), 913)]
    y = np.concatenate(blocks + [stream.process(np.zeros(0, np.float32), last=True)])
    assert abs(len(y) - 24000) <= 2
    assert abs(dominant_frequency(y) - 1000.0) < 1.0
    # No seams: the block-wise output equals the one-shot conversion in the steady part.
    ref = resample(x, 48000, 24000)
    n = min(len(ref), len(y))
    assert np.max(np.abs(ref[1000:n - 1000] - y[1000:n - 1000])) < 1e-3


def test_stream_resampler_passthrough_and_bad_rate():
    x = tone(100.0, 0.1)
    assert StreamResampler(24000, 24000).process(x) is not None
    assert np.array_equal(StreamResampler(24000, 24000).process(x), x)
    with pytest.raises(ValueError):
        StreamResampler(0, 24000)


def test_frame_assembler_exact_frames_any_block_size():
    x = np.arange(FRAME_SAMPLES * 5 + 7).astype(np.int16)
    asm = FrameAssembler()
    frames = []
    for i in range(0, len(x), 333):
        frames += asm.push(x[i:i + 333])
    assert len(frames) == 5 and asm.pending == 7
    assert np.array_equal(np.concatenate(frames), x[:FRAME_SAMPLES * 5])
    tail = asm.flush()
    start = FRAME_SAMPLES * 5
    assert len(tail) == 1 and tail[0][:7].tolist() == list(range(start, start + 7))
    assert not tail[0][7:].any() and asm.flush() == []


def test_wav_roundtrip_and_conversion(tmp_path):
    samples = (np.random.default_rng(0).standard_normal(24000) * 3000).astype(np.int16)
    write_wav(tmp_path / 'a.wav', samples)
    back, rate = read_wav(tmp_path / 'a.wav')
    assert rate == 24000
    assert np.array_equal(read_wav_24k(tmp_path / 'a.wav'), samples)
    write_wav(tmp_path / 'b.wav', tone(300.0, 1.0, 16000), rate=16000)
    converted = read_wav_24k(tmp_path / 'b.wav')
    assert converted.dtype == np.int16 and abs(len(converted) - 24000) <= 2
    assert abs(dominant_frequency(converted) - 300.0) < 1.0


def test_sample_clock_steps_exactly_and_reanchors():
    clock = SampleClock()
    t0 = 1_000_000_000
    jitter = [0, 7_000_000, -5_000_000, 12_000_000]
    stamps = [clock.stamp(t0 + k * FRAME_NS + j) for k, j in enumerate(jitter)]
    assert stamps == [t0 + k * FRAME_NS for k in range(4)]
    late = t0 + 100 * FRAME_NS
    assert clock.stamp(late) == late and clock.reanchors == 1
    assert clock.stamp(late + FRAME_NS + 1000) == late + FRAME_NS


def test_speaking_detector_holds_over_short_pauses():
    from kame_ros.audio.levels import SpeakingDetector
    loud = (np.sin(np.arange(1920) / 5) * 8000).astype(np.int16)
    quiet = np.zeros(1920, np.int16)
    detector = SpeakingDetector(hold_frames=3)
    changes = [detector.update(f) for f in [quiet, loud, quiet, quiet, loud, quiet, quiet, quiet]]
    assert changes == [False, True, False, False, False, False, False, True]
    assert not detector.speaking
