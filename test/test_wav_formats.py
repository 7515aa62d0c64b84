# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Every WAV a user may have is read (libsndfile), and bad files are one clear error."""
import subprocess

import numpy as np
import pytest
import soundfile

from kame_ros.audio.wav import check_wav, read_wav_24k, write_wav

RATE = 24000
T = np.arange(RATE) / RATE
TONE = (0.5 * np.sin(2 * np.pi * 440 * T)).astype(np.float32)


def similar(samples: np.ndarray) -> float:
    """Correlation with the 440 Hz reference tone (1.0 = the same signal)."""
    x = samples.astype(np.float64)[:RATE]
    return float(np.corrcoef(x, TONE[:len(x)])[0, 1])


@pytest.mark.parametrize('subtype,rate,channels', [
    ('PCM_U8', 24000, 1), ('PCM_16', 24000, 1), ('PCM_24', 24000, 1), ('PCM_32', 24000, 1),
    ('FLOAT', 24000, 1), ('DOUBLE', 24000, 1), ('PCM_16', 16000, 1), ('PCM_16', 44100, 2),
    ('FLOAT', 48000, 6)])
def test_pcm_and_float_wavs_any_rate_and_channels(tmp_path, subtype, rate, channels):
    signal = np.sin(2 * np.pi * 440 * np.arange(rate) / rate) * 0.5
    path = tmp_path / f'{subtype}-{rate}-{channels}.wav'
    soundfile.write(str(path), np.repeat(signal[:, None], channels, axis=1), rate,
                    subtype=subtype)
    samples = read_wav_24k(path)
    assert abs(len(samples) - RATE) <= 2
    assert similar(samples) > 0.99, f'{subtype} {rate} Hz x{channels}'


def test_wave_format_extensible_as_sox_writes_it(tmp_path):
    write_wav(tmp_path / 'in.wav', TONE)
    subprocess.run(['sox', str(tmp_path / 'in.wav'), '-b', '24', str(tmp_path / 'ext.wav')],
                   check=True)
    assert b'\xfe\xff' in (tmp_path / 'ext.wav').read_bytes()[:40], 'WAVE_FORMAT_EXTENSIBLE'
    assert similar(read_wav_24k(tmp_path / 'ext.wav')) > 0.99


def test_bad_files_are_one_clear_error(tmp_path):
    (tmp_path / 'empty.wav').write_bytes(b'')
    (tmp_path / 'text.wav').write_text('hello, not audio')
    write_wav(tmp_path / 'good.wav', TONE)
    (tmp_path / 'truncated.wav').write_bytes((tmp_path / 'good.wav').read_bytes()[:30])
    write_wav(tmp_path / 'zero.wav', np.zeros(0, np.int16))
    (tmp_path / 'dir.wav').mkdir()
    for name, message in (('nope.wav', 'no such file'), ('empty.wav', 'not a readable'),
                          ('text.wav', 'not a readable'), ('truncated.wav', 'not a readable'),
                          ('zero.wav', 'no samples'), ('dir.wav', 'directory')):
        with pytest.raises(ValueError, match=message) as err:
            check_wav(tmp_path / name)
        assert name in str(err.value) and '\n' not in str(err.value)
    assert check_wav(tmp_path / 'good.wav') == RATE
