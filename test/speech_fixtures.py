# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Speech the tests synthesize (hibari neural TTS, espeak-ng) and word error rate."""
from pathlib import Path
import subprocess

import numpy as np

from kame_ros.audio.frames import float_to_int16
from kame_ros.audio.wav import read_wav_24k
from kame_ros.words import words

SENTENCES = ['What is the capital of France?',
             'Please bring me a glass of water from the kitchen.',
             'How many legs does a spider have?',
             'Turn left at the end of the corridor and stop at the door.',
             'Can you tell me the weather for tomorrow morning?',
             'The battery is almost empty, go back to the charging station.']


def hibari_speech(text: str) -> np.ndarray:
    """Neural TTS, 24 kHz int16 (the default voice ships in the hibari-tts wheel)."""
    from hibari import Hibari
    samples, _ = float_to_int16(Hibari()(text, seed=0))
    return samples


def espeak_speech(text: str, voice: str, directory: Path) -> np.ndarray:
    """Formant TTS from Debian's espeak-ng, converted to 24 kHz int16."""
    path = directory / f'espeak-{voice}-{abs(hash(text))}.wav'
    subprocess.run(['espeak-ng', '-v', voice, '-s', '150', '-w', str(path), text], check=True)
    return read_wav_24k(path)


def word_errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """(edit distance in words, reference length)."""
    ref, hyp = words(reference), words(hypothesis)
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
    return row[len(hyp)], len(ref)
