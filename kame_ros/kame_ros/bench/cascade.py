# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The cascades a team wires from the usual speech parts: the latency benchmark's baselines.

whisper_ros -> llama_ros -> a TTS, with the agent's own components so
only the architecture differs: Silero VAD ends the turn after
``END_SILENCE_S`` of silence, Whisper tiny.en reads the utterance as the
agent reads it (``WhisperReader``), llama.cpp (the same GGUF, system
prompt and threads as the oracle) answers until its first sentence is
written, hibari synthesizes that sentence. Nothing runs ahead: each
stage starts when the one before it is done, which is what the cascade
is. The VAD runs on the audio's own time; the other stages are timed on
this machine's wall clock as they run, one after the other, so the figure
is what a user of that pipeline would wait here.

``PipecatCascade`` is the same pipeline with the turn ended as pipecat ends
it, the stronger baseline a team builds today: Silero VAD stops after
``PIPECAT_VAD_STOP_S`` (0.2 s) of silence, then Smart Turn v3.2 hears the
turn so far; complete ends it at once (its inference time counted),
incomplete waits for more speech, and ``PIPECAT_STOP_S`` of silence ends
it anyway (pipecat's ``stop_secs``).
"""
from dataclasses import dataclass
import re
import threading
import time

import numpy as np

from kame_ros.audio.frames import FRAME_SAMPLES, FRAME_SECONDS, int16_to_float, SAMPLE_RATE
from kame_ros.audio.resample import resample
from kame_ros.oracle.backends.factory import make_backend
from kame_ros.oracle.prompt import PromptBuilder
from kame_ros.stt.smart_turn import COMPLETE, SmartTurn
from kame_ros.stt.vad import SpeechSegmenter, VAD_RATE
from kame_ros.stt.whisper_engine import embedded_whisper_dir
from kame_ros.stt.whisper_read import WhisperReader

END_SILENCE_S = 0.6  # the common VAD end-of-turn setting (whisper_ros's default silence)
PIPECAT_VAD_STOP_S = 0.2  # pipecat's VAD stop with a turn model behind it
PIPECAT_STOP_S = 3.0  # pipecat's Smart Turn stop_secs: silence that ends any turn
FIRST_SENTENCE = re.compile(r'[.!?;:](\s|$)')  # where the tts front-end cuts, too


@dataclass
class CascadeTimes:
    """One question through the cascade; seconds after the end of the user's speech."""

    vad_end_s: float  # the VAD's end of turn
    transcript_s: float  # Whisper's text ready
    reply_text_s: float  # the LLM's first sentence written
    reply_audio_s: float  # its audio synthesized: the first reply word can play
    heard: str
    reply: str  # the first sentence
    reply_samples: int  # its audio's length at 24 kHz


class PlainCascade:
    """VAD -> Whisper -> llama.cpp -> hibari, each stage after the previous one."""

    def __init__(self, llm_threads: int = 0) -> None:
        """Load every stage (the same models the agent loads by default)."""
        from faster_whisper import WhisperModel
        from hibari import Hibari
        self.whisper = WhisperReader(WhisperModel(embedded_whisper_dir(), device='cpu',
                                                  compute_type='int8', cpu_threads=2))
        self.llm = make_backend('llama_cpp', threads=llm_threads)
        self.llm.load(lambda step: None)
        self.tts = Hibari()
        self.tts('Ready.')  # warm-up, as the agent's front-end does at start

    def end_of_turn(self, audio: np.ndarray) -> tuple[int, int, float]:
        """Return the turn's first and end frame, and seconds spent deciding after that frame."""
        vad = SpeechSegmenter(end_silence_s=END_SILENCE_S)
        start = None
        for k in range(len(audio) // FRAME_SAMPLES):
            step = vad.push(audio[k * FRAME_SAMPLES:(k + 1) * FRAME_SAMPLES])
            if step.started and start is None:
                start = k
            if step.ended and start is not None:
                return start, k + 1, 0.0
        raise ValueError('the VAD heard no complete turn in the question')

    def answer(self, audio: np.ndarray, speech_end_s: float) -> CascadeTimes:
        """Run one recorded question (24 kHz int16, silence after it) through the cascade."""
        start, end, deciding_s = self.end_of_turn(audio)
        vad_end_s = end * FRAME_SECONDS - speech_end_s + deciding_s
        utterance = audio[max(0, start - 4) * FRAME_SAMPLES:end * FRAME_SAMPLES]
        t0 = time.perf_counter()
        heard = self.whisper.read(resample(int16_to_float(utterance), SAMPLE_RATE, VAD_RATE))
        t_heard = time.perf_counter() - t0
        prompt = PromptBuilder()
        prompt.hear('user', heard)
        reply = ''
        for piece in self.llm.stream(prompt.messages(), 60, threading.Event()):
            reply += piece
            if FIRST_SENTENCE.search(reply):
                break
        found = FIRST_SENTENCE.search(reply)
        sentence = reply[:found.end()] if found else reply
        t_text = time.perf_counter() - t0
        voice = self.tts(sentence.strip() or 'Sorry.')
        t_audio = time.perf_counter() - t0
        return CascadeTimes(vad_end_s, vad_end_s + t_heard, vad_end_s + t_text,
                            vad_end_s + t_audio, heard, sentence.strip(), len(voice))


class PipecatCascade(PlainCascade):
    """The same stages with pipecat's end of turn: a 0.2 s VAD stop, then Smart Turn v3.2."""

    def __init__(self, llm_threads: int = 0) -> None:
        """Load the plain cascade's stages and the end-of-turn model."""
        super().__init__(llm_threads)
        self.turn = SmartTurn()

    def end_of_turn(self, audio: np.ndarray) -> tuple[int, int, float]:
        """End at the first short pause Smart Turn calls complete, or after a long silence."""
        start, end, deciding_s, _ = pipecat_turn_end(audio, self.turn)
        return start, end, deciding_s


def pipecat_turn_end(audio: np.ndarray, turn) -> tuple[int, int, float, list[float]]:
    """
    Find the end of the first turn in ``audio`` (24 kHz int16) as pipecat would.

    Returns the turn's first and end frame, the seconds Smart Turn took to
    call it complete (0 when the long silence ended it), and every
    probability Smart Turn gave on the way.
    """
    vad = SpeechSegmenter(end_silence_s=PIPECAT_VAD_STOP_S)
    start, quiet_since, verdicts = None, None, []
    for k in range(len(audio) // FRAME_SAMPLES):
        step = vad.push(audio[k * FRAME_SAMPLES:(k + 1) * FRAME_SAMPLES])
        if step.started:
            start = k if start is None else start
            quiet_since = None
        if step.ended and start is not None:
            heard = audio[max(0, start - 4) * FRAME_SAMPLES:(k + 1) * FRAME_SAMPLES]
            t0 = time.perf_counter()
            verdicts.append(turn.probability(resample(int16_to_float(heard), SAMPLE_RATE,
                                                      VAD_RATE)))
            if verdicts[-1] > COMPLETE:
                return start, k + 1, time.perf_counter() - t0, verdicts
            quiet_since = k + 1 - round(PIPECAT_VAD_STOP_S / FRAME_SECONDS)
        if quiet_since is not None and (k + 1 - quiet_since) * FRAME_SECONDS >= PIPECAT_STOP_S:
            return start, k + 1, 0.0, verdicts
    raise ValueError('the VAD heard no complete turn in the question')
