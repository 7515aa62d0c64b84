# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Barge-in with a speaker that reacts: the hearing benchmark's echo stream, in a closed loop.

The open-loop echo condition plays the agent's reply to its end whatever
the user does. Here the reply is played frame by frame by the tts
front-end's own turn-taking (``frontend/turn_taking.py``): the default
audio front end and the STT (``stt.engine.hear``, as the stt node runs
them) say when the user speaks, the reply pauses, ends at the user's final
or resumes without one, and the microphone hears the room's echo of what
the speaker actually played (the room's response, convolved frame by
frame). Measured per run: the questions' word errors, false barge-ins
(pauses with no user speech: the agent talking alone, its own echo),
and the time from the user's first sound to the end of the frame in which
the reply first stood paused or ended (not its own pauses between words).
With ``barge_in`` 'final' the reply ends at the user's final (sooner than
the tts front-end, which ends it when the answer to that final starts).
A stream with no response is a microphone that never hears the speaker
(a file, a bag, a headset).
"""
from dataclasses import dataclass, field
import time

import numpy as np
from scipy.signal import fftconvolve

from kame_ros.audio.frames import AudioFrame, FRAME_NS, FRAME_SAMPLES, FRAME_SECONDS
from kame_ros.bench.hearing import Clip, default_front_end, Result, score, Stream, to_int16
from kame_ros.frontend.turn_taking import TurnTaking
from kame_ros.stt.engine import hear
from kame_ros.stt.whisper_engine import WhisperStt

NEAR_S = (0.2, 1.0)  # a pause this near a question (before its start, after its end) is its own


@dataclass
class BargeInResult:
    """One closed-loop run: the words heard, the pauses, how soon the agent fell silent."""

    heard: Result
    false_barge_ins: int = 0
    resumed: int = 0  # pauses that ended without a final: the reply went on
    silent_after_s: list[float] = field(default_factory=list)  # per question: user -> stopped
    never_silent: int = 0  # questions the agent talked through


def near_a_question(t: float, layout: list[Clip]) -> bool:
    """Tell whether ``t`` (s) falls on a question or just around it."""
    return any(c.start_s - NEAR_S[0] <= t <= c.end_s + NEAR_S[1] for c in layout)


def hear_closed_loop(stream: Stream, barge_in: str, model: str = '',
                     echo: bool = True) -> BargeInResult:
    """Replay ``stream`` with the speaker reacting to the user; ``echo`` False: no echo path."""
    speech = stream.speech
    response = stream.response if echo else np.zeros(1)
    heard: list[tuple[float, object]] = []
    fed = [0]
    stt = WhisperStt(lambda event: heard.append((fed[0] * FRAME_SECONDS, event)), model)
    stt.load(lambda step: None)
    processor, turns = default_front_end(), TurnTaking(barge_in)
    plan = sorted(stream.plan, key=lambda item: item[0])
    dropped = False
    echoed = np.zeros(len(speech) + len(response) + FRAME_SAMPLES)
    audio, speaking, finals, pauses, stopped = np.zeros(0), False, 0, 0, []
    result = BargeInResult(Result())
    for k in range(len(speech) // FRAME_SAMPLES):
        at = k * FRAME_SAMPLES
        while plan and plan[0][0] < at + FRAME_SAMPLES:  # a reply starts in this frame
            start, reply = plan.pop(0)
            audio, dropped = np.concatenate([np.zeros(max(0, start - at)), reply]), False
            turns.new_reply(k)
        out = np.zeros(FRAME_SAMPLES)
        held = turns.holds(reply_ready=len(audio) > 0)
        if not held:
            n = min(FRAME_SAMPLES, len(audio))
            out[:n], audio = audio[:n], audio[n:]
            turns.played(n, len(audio))
        stopped.append(held or dropped)  # the reply paused or ended by the user, not its pauses
        echoed[at:at + FRAME_SAMPLES + len(response) - 1] += fftconvolve(out, response)
        mic = to_int16(speech[at:at + FRAME_SAMPLES] + echoed[at:at + FRAME_SAMPLES])
        processor.reference(AudioFrame(k, k * FRAME_NS, to_int16(out)))
        now = hear(processor, stt, AudioFrame(k, k * FRAME_NS, mic))
        if now != speaking:
            speaking = now
            turns.speaking(now)
        fed[0] = k + 1
        while not stt.idle:
            time.sleep(0.001)
        if turns.barge_ins > pauses:
            pauses = turns.barge_ins
            result.false_barge_ins += not near_a_question(k * FRAME_SECONDS, stream.layout)
        new_finals = sum(e.final and bool(e.text.strip()) for _, e in heard)
        if new_finals > finals:
            finals = new_finals
            if (turns.interrupted() or barge_in == 'final') and len(audio):
                audio, dropped = np.zeros(0), True  # the user's final ends the reply
    stt.close()
    result.resumed = turns.resumed
    for clip in stream.layout:
        first = int(np.ceil(clip.start_s / FRAME_SECONDS))
        after = [i for i in range(first, len(stopped)) if stopped[i]]
        if after:
            result.silent_after_s.append((after[0] + 1) * FRAME_SECONDS - clip.start_s)
        else:
            result.never_silent += 1
    result.heard = score(heard, stream.layout, stt.compute_seconds / len(stream.layout), 0.0)
    return result


def table(results: dict[tuple[str, str], BargeInResult]) -> str:
    """Markdown: per barge-in policy and echo: word errors, false barge-ins, time to silence."""
    lines = ['| barge-in | microphone | word errors | false barge-ins (agent alone) | '
             'replies resumed | user -> agent silent p50 / max s | finals with no user speech |',
             '|---|---|---|---|---|---|---|']
    for (policy, mic), r in results.items():
        silent = r.silent_after_s
        timing = f'{np.median(silent):.2f} / {max(silent):.2f}' if silent else '-'
        lines.append(f'| {policy} | {mic} | {r.heard.wer:.0%} | {r.false_barge_ins} | '
                     f'{r.resumed} | {timing} | {r.heard.own_words} |')
    return '\n'.join(lines)
