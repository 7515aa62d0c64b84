# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Signals and measurements shared by the audio tests."""
import numpy as np


def tone(freq: float, seconds: float, rate: int = 24000, amp: float = 0.3) -> np.ndarray:
    """Make a float32 sine."""
    t = np.arange(int(seconds * rate)) / rate
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def dominant_frequency(x: np.ndarray, rate: int = 24000) -> float:
    """Frequency of the strongest spectral peak (Hann window, parabolic refinement)."""
    x = np.asarray(x, dtype=np.float64)
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    k = int(np.argmax(spectrum[1:])) + 1
    a, b, c = np.log(spectrum[k - 1:k + 2] + 1e-12)
    offset = 0.5 * (a - c) / (a - 2 * b + c)
    return (k + offset) * rate / len(x)


def active_seconds(x: np.ndarray, rms_threshold: float = 1000.0, rate: int = 24000) -> float:
    """Seconds of 10 ms windows whose RMS (int16 scale) exceeds the threshold."""
    win = rate // 100
    n = len(x) // win
    rms = np.sqrt(np.mean(np.asarray(x[:n * win], np.float64).reshape(n, win) ** 2, axis=1))
    return float(np.sum(rms > rms_threshold)) * win / rate
