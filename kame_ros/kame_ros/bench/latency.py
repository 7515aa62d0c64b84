# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros_bench_latency: how soon the agent answers, as a user hears it, beside two cascades.

Spoken questions (the knowledge benchmark's, in turn in three voices:
hibari, espeak-ng American, espeak-ng British) run through the whole agent
at real time (``kame_ros_agent``, default configuration), idle and under
CPU hogs. Every time is from the end of the user's speech as the input
itself has it (the last sample above the speech level, not the agent's
VAD): first agent sound, first word of the reply (the acknowledgement
aside), the answer word; and the stages between: the STT's final, the
reply's text, its audio. In the same run and under the same load, the
same questions go through two cascades of the same parts (``cascade.py``):
the plain one (a 0.6 s VAD silence ends the turn) and the pipecat-style one
(a 0.2 s VAD stop, then Smart Turn v3.2); their first reply words are the
baselines the ratios divide by.

    kame_ros_bench_latency --out out/latency
"""
import argparse
from dataclasses import asdict, dataclass
from pathlib import Path
import shutil
import subprocess
import sys

import numpy as np

from kame_ros.audio.wav import read_wav_24k
from kame_ros.bench.cascade import CascadeTimes, PipecatCascade, PlainCascade
from kame_ros.bench.knowledge import espeak_voice, run_agent, score
from kame_ros.bench.knowledge_set import Question, QUESTIONS
from kame_ros.bench.report import write_results
from kame_ros.frontend.speech_audio import word_marks
from kame_ros.oracle.events import APPEND, RESET
from kame_ros.records.timeline import AGENT_SPEECH_START, read_events
from kame_ros.ros.spin import yield_idle_cores
from kame_ros.stt.events import FINAL
from kame_ros.tools.evaluate import build_input, hibari_voice
from kame_ros.words import words

VOICES = {'hibari': hibari_voice, 'espeak-us': lambda: espeak_voice('en-us'),
          'espeak-gb': lambda: espeak_voice('en-gb')}
LOADS = ('idle', 'hogs')
HOG = 'while True: pass'
SPEECH_LEVEL = 300  # int16 amplitude: above it a sample is speech, below it silence or hiss


@dataclass
class Timing:
    """One question, one system, one load: seconds after the end of the user's speech."""

    question: str
    voice: str
    first_sound_s: float | None
    reply_word_s: float | None
    answer_s: float | None
    correct: bool
    final_s: float | None = None  # the STT's final transcript
    reply_text_s: float | None = None  # the reply's first text (the cascade: its sentence)


def speech_spans(wav: Path, clips: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Each clip's speech, from its first to its last sample above the speech level."""
    audio = read_wav_24k(wav).astype(np.int32)
    spans = []
    for start, end in clips:
        clip = audio[int(start * 24000):int(end * 24000)]
        loud = np.flatnonzero(np.abs(clip) > SPEECH_LEVEL)
        if not len(loud):
            raise ValueError(f'no speech in the clip at {start:.2f} s of {wav}')
        spans.append((start + loud[0] / 24000, start + (loud[-1] + 1) / 24000))
    return spans


def agent_timings(run: Path, spans: list[tuple[float, float]], questions: list[Question],
                  voices: list[str]) -> list[Timing]:
    """Score a run's events per question (the knowledge benchmark's scoring, plus the stages)."""
    answers = score(run, spans, questions)
    start, events = read_events(run)
    timings = []
    for k, answer in enumerate(answers):
        t_end = start + spans[k][1]
        t_next = start + spans[k + 1][0] if k + 1 < len(spans) else float('inf')
        window = [e for e in events if t_end - 3.0 <= e.t < t_next]
        after = [e for e in window if e.t >= start + spans[k][0]]
        final = next((e.t - t_end for e in after if e.kind == FINAL), None)
        sound = next((max(0.0, e.t - t_end) for e in window
                      if e.kind == AGENT_SPEECH_START and e.t >= t_end - 0.2), None)
        reset = next((e.t for e in after if e.kind == RESET and '(final)' in e.text), None)
        text = next((e.t - t_end for e in after if e.kind == APPEND and reset is not None
                     and e.t >= reset), None)
        timings.append(Timing(answer.question, voices[k], sound, answer.first_word_s,
                              answer.answer_s, answer.correct, final, text))
    return timings


BASELINES = ('plain cascade', 'pipecat-style cascade')  # the report's ratios, in this order


def cascade_timings(cascade: PlainCascade, wav: Path, spans: list[tuple[float, float]],
                    questions: list[Question], voices: list[str]) -> list[Timing]:
    """Each question's audio (0.5 s before its speech, 3.5 s after) through a cascade."""
    audio = read_wav_24k(wav)
    timings = []
    for k, (question, (start, end)) in enumerate(zip(questions, spans)):
        lead = min(0.5, start)
        clip = audio[int((start - lead) * 24000):int((end + 3.5) * 24000)]
        t: CascadeTimes = cascade.answer(clip, end - start + lead)
        # When the answer word plays: where the agent's tts front-end would place it.
        said = [offset for offset, word in word_marks(t.reply, 0, t.reply_samples)
                if set(words(word)) & set(question.answers)]
        answer = t.reply_audio_s + said[0] / 24000 if said else None
        timings.append(Timing(question.text, voices[k], t.reply_audio_s, t.reply_audio_s,
                              answer, answer is not None, t.transcript_s, t.reply_text_s))
    return timings


def hogs(count: int) -> list[subprocess.Popen]:
    """Start ``count`` processes that each keep a core busy (stopped by the caller)."""
    return [subprocess.Popen([sys.executable, '-c', HOG]) for _ in range(count)]


def pct(values: list, q: float) -> float | None:
    """Return the q-th percentile of the defined values (None when there are none)."""
    v = [x for x in values if x is not None]
    return float(np.percentile(v, q)) if v else None


def cell(values: list) -> str:
    """'p50 / p90' in seconds."""
    p50, p90 = pct(values, 50), pct(values, 90)
    return 'n/a' if p50 is None else f'{p50:.2f} / {p90:.2f}'


def report(rows: dict[tuple[str, str], list[Timing]]) -> str:
    """Return the headline table (ratios to the cascade under the same load) and the stages."""
    lines = ['| system | load | first sound p50 / p90 s | first reply word p50 / p90 s | '
             'reply word p50 / plain cascade p50 | / pipecat-style cascade p50 | '
             'answer word p50 / p90 s | right |',
             '|---|---|---|---|---|---|---|---|']
    for (system, load), timings in rows.items():
        mine = pct([t.reply_word_s for t in timings], 50)
        ratios = []
        for baseline in BASELINES:
            base = pct([t.reply_word_s for t in rows.get((baseline, load), [])], 50)
            ratios.append(f'{mine / base:.2f}' if base and mine is not None else 'n/a')
        right = sum(t.correct for t in timings)
        lines.append(f'| {system} | {load} | {cell([t.first_sound_s for t in timings])} | '
                     f'{cell([t.reply_word_s for t in timings])} | {" | ".join(ratios)} | '
                     f'{cell([t.answer_s for t in timings])} | {right}/{len(timings)} |')
    lines += ['', '| system | load | end of speech -> final (cascade: transcript) p50 / p90 s | '
              '-> reply text p50 / p90 s | -> reply audio (first reply word) p50 / p90 s |',
              '|---|---|---|---|---|']
    for (system, load), timings in rows.items():
        lines.append(f'| {system} | {load} | {cell([t.final_s for t in timings])} | '
                     f'{cell([t.reply_text_s for t in timings])} | '
                     f'{cell([t.reply_word_s for t in timings])} |')
    return '\n'.join(lines)


def plot(rows: dict[tuple[str, str], list[Timing]], path: Path) -> None:
    """First reply word per question: each system and load, one row of dots."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 1 + 0.6 * len(rows)))
    for y, ((system, load), timings) in enumerate(rows.items()):
        xs = [t.reply_word_s for t in timings if t.reply_word_s is not None]
        ax.scatter(xs, [y] * len(xs), s=16, alpha=0.6)
        if xs:
            ax.plot([np.median(xs)] * 2, [y - 0.3, y + 0.3], color='black', lw=1.5)
    ax.set_yticks(range(len(rows)), [f'{s}, {load}' for s, load in rows])
    ax.set_xlabel("first reply word, s after the end of the user's speech (bar: median)")
    ax.set_xlim(left=0)
    ax.set_title('kame_ros_bench_latency')
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    """Synthesize, run agent and cascade per load, print and write the tables and the plot."""
    p = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    p.add_argument('--out', type=Path, default=Path('out/latency'))
    p.add_argument('--questions', type=int, default=24,
                   help=f'how many of the {len(QUESTIONS)} questions (spread over the set)')
    p.add_argument('--loads', nargs='+', choices=LOADS, default=list(LOADS),
                   help='idle, and/or under two CPU hogs (processes that each keep a core busy)')
    p.add_argument('--ros-args', default='',
                   help='ROS arguments for the agent, e.g. "-p oracle:threads:=1"')
    opts = p.parse_args(argv)
    if not 1 <= opts.questions <= len(QUESTIONS):
        sys.exit(f'kame_ros_bench_latency: --questions must be 1..{len(QUESTIONS)}')
    if shutil.which('espeak-ng') is None:
        sys.exit('kame_ros_bench_latency: espeak-ng is not installed (scripts/setup.sh '
                 'installs it)')
    step = len(QUESTIONS) / opts.questions
    questions = [QUESTIONS[int(k * step)] for k in range(opts.questions)]
    names = list(VOICES)
    voices = [names[k % len(names)] for k in range(len(questions))]
    speakers = {name: make() for name, make in VOICES.items()}
    spoken = {q.text: voice for q, voice in zip(questions, voices)}
    opts.out.mkdir(parents=True, exist_ok=True)
    wav = opts.out / 'questions.wav'
    print(f'[latency] synthesizing {len(questions)} questions in {len(names)} voices...',
          flush=True)
    clips = build_input(wav, [(q.text, q.answers) for q in questions],
                        lambda text: speakers[spoken[text]](text))
    spans = speech_spans(wav, clips)
    print('[latency] loading the cascades (Silero, Smart Turn, Whisper, llama.cpp, hibari)...',
          flush=True)
    yield_idle_cores()  # as the agent's processes do: the same libraries, the same waiting
    cascades = {'plain cascade': PlainCascade(), 'pipecat-style cascade': PipecatCascade()}
    rows: dict[tuple[str, str], list[Timing]] = {}
    for load in opts.loads:
        busy = hogs(2) if load == 'hogs' else []
        try:
            print(f'[latency] agent, {load}: {spans[-1][1] / 60 + 0.15:.1f} min of questions...',
                  flush=True)
            run = opts.out / f'agent_{load}'
            run_agent(wav, run, opts.ros_args.split())
            rows[('kame_ros agent', load)] = agent_timings(run, spans, questions, voices)
            for name, cascade in cascades.items():
                print(f'[latency] {name}, {load}...', flush=True)
                rows[(name, load)] = cascade_timings(cascade, wav, spans, questions, voices)
        except (RuntimeError, ValueError) as err:
            sys.exit(f'kame_ros_bench_latency: {err}')
        finally:
            for hog in busy:
                hog.kill()
    rows = dict(sorted(rows.items(), key=lambda item: (LOADS.index(item[0][1]), item[0][0])))
    table = report(rows)
    print(f'\nlatency benchmark: {len(questions)} spoken questions, voices {", ".join(names)}'
          f'\n\n{table}')
    write_results(opts.out, 'latency', table, [{'system': system, 'load': load, **asdict(t)}
                                               for (system, load), timings in rows.items()
                                               for t in timings], lambda path: plot(rows, path))


if __name__ == '__main__':
    main()
