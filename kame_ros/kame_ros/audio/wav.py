# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
WAV read/write in the graph's format, with conversion from any WAV a user has.

Reading goes through libsndfile (the ``soundfile`` package): 8/16/24/32-bit
integer and 32/64-bit float PCM, WAVE_FORMAT_EXTENSIBLE (as sox writes
24-bit files), any rate and channel count. Writing stays with the standard
library: the graph only ever writes 16-bit mono.
"""
from pathlib import Path
import wave

import numpy as np

from kame_ros.audio.frames import float_to_int16, SAMPLE_RATE
from kame_ros.audio.resample import resample


def check_wav(path: str | Path) -> int:
    """
    Check that ``path`` is a readable, non-empty audio file; return its frame count.

    Raises ValueError with one line naming the file (missing, a directory,
    not audio, truncated, no samples), so tools refuse it before loading models.
    """
    import soundfile
    path = Path(path)
    if not path.exists():
        raise ValueError(f'{path}: no such file')
    if path.is_dir():
        raise ValueError(f'{path}: is a directory, not a WAV file')
    try:
        info = soundfile.info(str(path))
    except (RuntimeError, OSError) as err:
        raise ValueError(f'{path}: not a readable audio file ({str(err).splitlines()[0]})') \
            from err
    if info.frames <= 0:
        raise ValueError(f'{path}: has no samples')
    return info.frames


def read_wav(path: str | Path) -> tuple[np.ndarray, int]:
    """
    Read a WAV (any PCM or float format) as float32 mono and its sample rate.

    Raises ValueError with the file name for anything that is not readable
    audio, so a node can report a bad parameter instead of a stack trace.
    """
    import soundfile
    check_wav(path)
    try:
        data, rate = soundfile.read(str(path), dtype='float32', always_2d=True)
    except (RuntimeError, OSError) as err:
        raise ValueError(f'{path}: cannot read audio ({str(err).splitlines()[0]})') from err
    if not len(data):
        raise ValueError(f'{path}: has no samples')
    return np.nan_to_num(data.mean(axis=1)).astype(np.float32), rate


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
