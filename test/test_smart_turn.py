# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Smart Turn v3.2 (the pinned file from pipecat-ai's wheel) hears a mid-sentence pause as unfinished.

The pause is cut from one continuous synthesized question at a word
boundary that Whisper's word timestamps place, so the words before it
carry mid-sentence prosody, as a user's do who stops to think. (A phrase
synthesized on its own ends in a sentence's falling pitch, and Smart Turn
rightly calls that complete.)
"""
import numpy as np
import pytest

from kame_ros.audio.frames import FRAME_SECONDS, int16_to_float, SAMPLE_RATE
from kame_ros.audio.resample import resample
from kame_ros.bench.cascade import PIPECAT_STOP_S, pipecat_turn_end
from kame_ros.stt.smart_turn import COMPLETE, SmartTurn
from kame_ros.stt.vad import VAD_RATE
from speech_fixtures import hibari_speech

QUESTION, CUT_AFTER = 'Can you tell me about the weather?', 'about'


@pytest.fixture(scope='module')
def turn():
    return SmartTurn()


@pytest.fixture(scope='module')
def question():
    """Return the spoken question, int16 at 24 kHz, and the sample where "about" ends."""
    from faster_whisper import WhisperModel

    from kame_ros.stt.whisper_engine import embedded_whisper_dir
    speech = hibari_speech(QUESTION)
    whisper = WhisperModel(embedded_whisper_dir(), device='cpu', compute_type='int8')
    segments, _ = whisper.transcribe(resample(int16_to_float(speech), SAMPLE_RATE, VAD_RATE),
                                     word_timestamps=True, language='en', beam_size=1)
    ends = [w.end for s in segments for w in s.words if w.word.strip(' ?.,') == CUT_AFTER]
    assert len(ends) == 1, 'Whisper places the word'
    return speech, int(ends[0] * SAMPLE_RATE)


def heard(speech: np.ndarray, silence_s: float = 0.2) -> np.ndarray:
    """Return what the model hears at a pause: the speech, then ``silence_s``, at 16 kHz."""
    silence = np.zeros(int(silence_s * SAMPLE_RATE), np.float32)
    audio = np.concatenate([int16_to_float(speech), silence])
    return resample(audio, SAMPLE_RATE, VAD_RATE)


def test_the_whole_question_is_complete_and_its_first_half_is_not(turn, question):
    speech, cut = question
    whole, half = turn.probability(heard(speech)), turn.probability(heard(speech[:cut]))
    print(f'\nP(complete): whole question {whole:.3f}, cut after "{CUT_AFTER}" {half:.3f}')
    assert whole > 0.9 and half < COMPLETE
    assert turn.complete(heard(speech)) and not turn.complete(heard(speech[:cut]))


def test_the_pipecat_style_turn_waits_through_the_pause_and_ends_after_the_question(
        turn, question):
    speech, cut = question
    pause = np.zeros(int(0.7 * SAMPLE_RATE), np.int16)
    lead = np.zeros(SAMPLE_RATE // 2, np.int16)
    audio = np.concatenate([lead, speech[:cut], pause, speech[cut:],
                            np.zeros(int((PIPECAT_STOP_S + 1) * SAMPLE_RATE), np.int16)])
    start, end, deciding_s, verdicts = pipecat_turn_end(audio, turn)
    last_word = np.flatnonzero(np.abs(speech.astype(np.int32)) > 200)[-1]
    speech_end_s = (len(lead) + len(pause) + last_word) / SAMPLE_RATE
    end_s = end * FRAME_SECONDS
    assert verdicts[0] < COMPLETE, 'the pause after "about" was heard as unfinished'
    assert end_s > speech_end_s - 0.1, f'the turn ended at {end_s:.2f} s, inside the question'
    assert end_s < speech_end_s + 1.0 and verdicts[-1] > COMPLETE, 'Smart Turn ended it'
    assert deciding_s > 0
