# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
A turn is a turn, not every pause: questions with mid-sentence pauses, through the whole agent.

The user pauses half a second inside each question. A pause after an
unfinished phrase ("How many legs does") must not end the turn; a pause
after a phrase Whisper hears as complete ("What is the capital?") may, but
the user still hears one acknowledgement per question and one answer.
"""
import numpy as np
import pytest

from kame_ros.audio.wav import write_wav
from kame_ros.records.timeline import read_events
from speech_fixtures import hibari_speech

pytest.importorskip('llama_cpp', reason='scripts/setup.sh installs llama-cpp-python')

RATE = 24000
QUESTIONS = [('How many legs does', 'a spider have?'), ('What is the capital', 'of France?')]
KEY_WORDS = [('legs', 'spider'), ('capital', 'france')]
PAUSE_S, ANSWER_WINDOW_S = 0.5, 8.0


def trimmed(text: str) -> np.ndarray:
    """Return speech without the synthesizer's leading and trailing silence (exact pauses)."""
    speech = hibari_speech(text)
    loud = np.flatnonzero(np.abs(speech.astype(np.int32)) > 200)
    return speech[loud[0]:loud[-1] + 1]


def recording() -> tuple[np.ndarray, list[float]]:
    """Return the questions, a pause inside each, and each question's start (s)."""
    silence = lambda s: np.zeros(int(s * RATE), np.int16)  # noqa: E731
    pieces, starts, t = [silence(1.0)], [], 1.0
    for first, second in QUESTIONS:
        starts.append(t)
        for piece in (trimmed(first), silence(PAUSE_S), trimmed(second),
                      silence(ANSWER_WINDOW_S)):
            pieces.append(piece)
            t += len(piece) / RATE
    return np.concatenate(pieces), starts


def test_pauses_inside_a_question_give_one_acknowledgement_and_one_answer(processes, tmp_path):
    audio, starts = recording()
    write_wav(tmp_path / 'paused.wav', audio)
    run = processes.start('kame_ros_agent', '--input', str(tmp_path / 'paused.wav'),
                          '--out', str(tmp_path / 'out'))
    assert run.wait(timeout=300) == 0, processes.log(run)
    start, events = read_events(tmp_path / 'out')
    bounds = [start + s for s in starts] + [float('inf')]
    for k in range(len(QUESTIONS)):
        turn = [e for e in events if bounds[k] <= e.t < bounds[k + 1]]
        finals = [e.text for e in turn if e.kind == 'stt.final']
        spoken = ''.join(e.text for e in turn if e.kind == 'frontend.text').split()
        assert spoken.count('Okay.') == 1, (finals, spoken)
        assert spoken[0] == 'Okay.' and len(spoken) > 2, (finals, spoken)
        if k == 0:
            assert len(finals) == 1, f'a pause after an unfinished phrase ended the turn: {finals}'
        heard = ' '.join(finals).lower()
        assert all(w in heard for w in KEY_WORDS[k]), finals
