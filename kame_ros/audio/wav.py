# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""WAV read/write in the graph's format, with conversion from any PCM WAV."""
from pathlib import Path
import wave

import numpy as np

from kame_ros.audio.frames import float_to_int16, pcm_bytes_to_float, SAMPLE_RATE
from kame_ros.audio.resample import resample


def read_wav(path: str | Path) -> tuple[np.ndarray, int]:
    """
    Read a PCM WAV as float32 mono and its sample rate.

    Raises ValueError with the file name for anything that is not a readable
    PCM WAV, so a node can report a bad parameter instead of a stack trace.
    """
    path = Path(path)
    try:
        with wave.open(str(path), 'rb') as f:
            rate, width, channels = f.getframerate(), f.getsampwidth(), f.getnchannels()
            data = f.readframes(f.getnframes())
    except (wave.Error, EOFError) as err:
        raise ValueError(f'{path}: not a PCM WAV file ({err})') from err
    return pcm_bytes_to_float(data, width, channels), rate


def read_wav_24k(path: str | Path) -> np.ndarray:
    """Read any PCM WAV as 24 kHz mono int16, ready to cut into frames."""
    x, rate = read_wav(path)
    samples, _ = float_to_int16(resample(x, rate, SAMPLE_RATE))
    return samples


def write_wav(path: str | Path, samples: np.ndarray, rate: int = SAMPLE_RATE) -> None:
    """Write mono int16 samples as a 16-bit PCM WAV."""
    samples = np.asarray(samples)
    if samples.dtype != np.int16:
        samples, _ = float_to_int16(samples)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), 'wb') as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(samples.astype('<i2').tobytes())
