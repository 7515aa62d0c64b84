# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
r"""
kame_ros_bench_knowledge: whether what the agent says is right, short and quick.

The benchmark's spoken factual questions (``knowledge_set.py``, each
with its source) are synthesized with two voices (hibari's neural voice,
Debian's espeak-ng formant voice) and run through the whole agent
(``kame_ros_agent``: STT -> oracle -> tts front-end), once per oracle
configuration. A reply is right when an accepted answer is in its first
sentence (the acknowledgement aside): a model that lists five planets has
not answered "which is the largest". Per configuration and voice: accuracy,
words per reply, when the first reply word and the answer word were
spoken after the end of the question.

    kame_ros_bench_knowledge --out out/knowledge
    kame_ros_bench_knowledge --oracle "1.5b=" --oracle "135m=-p oracle:model:=smollm2-135m" \
        --oracle "qwen2.5-7b=-p oracle:backend:=openai -p oracle:base_url:=http://gpu:8000/v1 \
-p oracle:model:=qwen2.5-7b-instruct"
"""
import argparse
from dataclasses import asdict, dataclass
from pathlib import Path
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Callable

import numpy as np

from kame_ros.audio.wav import read_wav_24k
from kame_ros.bench.knowledge_set import Question, QUESTIONS
from kame_ros.bench.report import write_results
from kame_ros.oracle.backends.base import BackendError
from kame_ros.oracle.backends.embedded import DEFAULT_MODEL
from kame_ros.records.timeline import read_events
from kame_ros.stt.events import FINAL
from kame_ros.tools.evaluate import ANSWER_WINDOW_S, build_input, hibari_voice, stats
from kame_ros.wire.messages import AgentText
from kame_ros.words import words

EMBEDDED = f'{DEFAULT_MODEL} (embedded)'
SENTENCE_END = re.compile(r'[.!?]$')


def espeak_voice(voice: str = 'en-us', wpm: int = 150) -> Callable[[str], np.ndarray]:
    """Return Debian's espeak-ng formant voice: text -> 24 kHz int16 (resampled from 22.05)."""
    def speak(text: str) -> np.ndarray:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / 'q.wav'
            subprocess.run(['espeak-ng', '-v', voice, '-s', str(wpm), '-w', str(path), text],
                           check=True, capture_output=True)
            return read_wav_24k(path)
    return speak


VOICES = {'hibari': hibari_voice, 'espeak': espeak_voice}


@dataclass
class Answer:
    """What the agent heard and said for one question, scored."""

    question: str
    heard: str  # the STT's final transcripts in the question's window
    heard_exactly: bool  # the words heard are the question's words
    reply: str  # what the agent said after the question, acknowledgement aside
    correct: bool
    reply_words: int
    first_word_s: float | None  # first reply word, seconds after the end of the question
    answer_s: float | None  # the accepted answer word, seconds after the end of the question


def score(directory: Path, spans: list[tuple[float, float]], questions: list[Question],
          acknowledgement: str = 'Okay.') -> list[Answer]:
    """Score a run's events: each question's window runs until the next question starts."""
    start, events = read_events(directory)
    if start is None:
        raise ValueError(f'{directory}: the run heard no input')
    ack = words(acknowledgement)
    answers = []
    for k, question in enumerate(questions):
        t_end = start + spans[k][1]
        t_next = start + spans[k + 1][0] if k + 1 < len(spans) else t_end + ANSWER_WINDOW_S
        window = [e for e in events if start + spans[k][0] <= e.t < t_next]
        heard = ' '.join(e.text.strip() for e in window if e.kind == FINAL)
        said = [(e.t, e.text) for e in window if e.kind == AgentText.TYPE and e.t >= t_end]
        spoken: list[tuple[float, str]] = []  # (time, raw word) of the reply
        for t, text in said:
            spoken += [(t, w) for w in text.split()]
        if ack and [w for _, raw in spoken[:len(ack)] for w in words(raw)] == ack:
            spoken = spoken[len(ack):]
        answers.append(judge(question, heard, [(t - t_end, raw) for t, raw in spoken]))
    return answers


def judge(question: Question, heard: str, spoken: list[tuple[float, str]]) -> Answer:
    """Score one reply, as (seconds after the question, word): right in its first sentence."""
    first_sentence = []
    for t, raw in spoken:
        first_sentence.append((t, raw))
        if SENTENCE_END.search(raw):
            break
    hit = next((t for t, raw in first_sentence if set(words(raw)) & set(question.answers)), None)
    return Answer(question.text, heard, words(heard) == words(question.text),
                  ' '.join(raw for _, raw in spoken), hit is not None,
                  len(spoken), spoken[0][0] if spoken else None, hit)


TEXT_SETTINGS = ('backend', 'model', 'base_url', 'max_tokens')


def text_settings(label: str, ros_args: list[str]) -> dict[str, str]:
    """
    Return the oracle parameters ``--text`` uses ('-p oracle:NAME:=VALUE').

    Text mode builds the backend and engine itself, without nodes: any other
    ROS argument (a prompt, another node's parameter) would be silently
    ignored, so it is refused instead.
    """
    settings = {}
    for arg in ros_args:
        if arg == '-p':
            continue
        found = re.fullmatch(r'oracle:(\w+):=(.*)', arg)
        if not found or found[1] not in TEXT_SETTINGS:
            raise ValueError(f'--text uses only oracle:{{{",".join(TEXT_SETTINGS)}}}; '
                             f'{label} also sets {arg!r}: compare it without --text')
        settings[found[1]] = found[2]
    return settings


def ask_text(questions: list[Question], settings: dict[str, str]) -> list[Answer]:
    """
    Ask the oracle alone, in text, one fresh conversation per question.

    Screens a model's knowledge in a minute, without speech recognition or
    speech; times are from the question to each streamed word.
    """
    from kame_ros.oracle.backends.factory import BackendConfig, build_backend
    from kame_ros.oracle.engine import OracleEngine
    from kame_ros.oracle.events import APPEND, DONE
    from kame_ros.stt.events import TranscriptEvent
    known = {k: v for k, v in settings.items() if k in ('backend', 'model', 'base_url')}
    backend = build_backend(BackendConfig(**known))
    backend.load(lambda step: None)
    answers = []
    for k, question in enumerate(questions, start=1):
        pieces: list[tuple[float, str]] = []
        done = threading.Event()
        t0 = time.perf_counter()

        def emit(event, pieces=pieces, done=done, t0=t0):
            if event.kind == APPEND:
                pieces.append((time.perf_counter() - t0, event.text))
            elif event.kind == DONE:
                done.set()
        engine = OracleEngine(backend, emit, max_tokens=int(settings.get('max_tokens', 60)))
        engine.submit(TranscriptEvent(k, 0, question.text, True, 0, 0, time.time_ns()))
        engine.tick()
        done.wait(120)
        engine.stop()
        answers.append(judge(question, question.text,
                             [(t, w) for t, text in pieces for w in text.split()]))
    return answers


def report(results: dict[tuple[str, str], list[Answer]]) -> str:
    """Markdown table: one row per oracle configuration and voice."""
    lines = ['| oracle | voice | heard exactly | correct | words per reply p50 | first reply word '
             'p50 / p90 s | answer word p50 / p90 s | no reply |', '|---' * 8 + '|']
    for (oracle, voice), answers in results.items():
        n = len(answers)
        right = sum(a.correct for a in answers)
        silent = sum(a.reply_words == 0 for a in answers)
        lengths = [a.reply_words for a in answers if a.reply_words]
        heard = sum(a.heard_exactly for a in answers)
        lines.append(f'| {oracle} | {voice} | {heard}/{n} | {right}/{n} ({right / n:.0%}) | '
                     f'{np.median(lengths) if lengths else 0:.0f} | '
                     f'{stats([a.first_word_s for a in answers])} | '
                     f'{stats([a.answer_s for a in answers])} | {silent} |')
    return '\n'.join(lines)


def plot(results: dict[tuple[str, str], list[Answer]], path: Path) -> None:
    """Heard and right per configuration and voice; when each answer was said (or its length)."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    names = [f'{oracle}\n{voice}' for oracle, voice in results]
    fig, (acc, when) = plt.subplots(1, 2, figsize=(11, 1.2 + 0.9 * len(names)), sharey=True)
    ys = np.arange(len(names))
    bars = (('heard_exactly', 'question heard exactly', 'tab:blue', 0.2),
            ('correct', 'answer right', 'tab:green', -0.2))
    for key, label, color, offset in bars:
        share = [100 * np.mean([getattr(a, key) for a in answers]) for answers in results.values()]
        acc.barh(ys + offset, share, height=0.4, color=color, label=label)
    acc.set_xlim(0, 100)
    acc.set_xlabel('% of the questions')
    acc.set_yticks(ys, names, fontsize=8)
    acc.legend(fontsize=7, loc='lower right')
    timed = any(a.answer_s is not None for answers in results.values() for a in answers)
    for y, answers in enumerate(results.values()):
        xs = [a.answer_s if timed else a.reply_words for a in answers
              if (a.answer_s if timed else a.reply_words) is not None]
        when.scatter(xs, [y] * len(xs), s=14, alpha=0.5)
    when.set_xlabel('answer word spoken, s after the end of the question' if timed
                    else 'words per reply (replayed faster than real time: no times)')
    fig.suptitle('kame_ros knowledge benchmark')
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parse_oracles(specs: list[str]) -> dict[str, list[str]]:
    """'label=ros args' -> {label: ['-p', ...]}; an empty right side is the default oracle."""
    oracles = {}
    for spec in specs:
        label, sep, args = spec.partition('=')
        if not sep or not label.strip():
            raise ValueError(f'--oracle {spec!r}: expected LABEL=ROS_ARGS (ROS_ARGS may be empty)')
        oracles[label.strip()] = args.split()
    return oracles


def run_agent(wav: Path, out: Path, ros_args: list[str], realtime_factor: float = 1.0) -> None:
    """One pass of the whole agent over a recording (exit status checked)."""
    cmd = [sys.executable, '-m', 'kame_ros.tools.agent', '--input', str(wav), '--out', str(out),
           '--idle-s', '2', '--max-answer-s', '30', '--frontend', 'tts',
           '--realtime-factor', str(realtime_factor)]
    if ros_args:
        cmd += ['--ros-args', *ros_args]
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode:
        raise RuntimeError(f'the agent failed on {wav.name}:\n{proc.stderr[-3000:]}')


def main(argv: list[str] | None = None) -> None:
    """Synthesize the questions per voice, run the agent per oracle, print and write the table."""
    p = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    p.add_argument('--out', type=Path, default=Path('out/knowledge'))
    p.add_argument('--questions', type=int, default=len(QUESTIONS),
                   help=f'use the first N of the {len(QUESTIONS)} questions')
    p.add_argument('--voices', nargs='+', choices=list(VOICES), default=list(VOICES))
    p.add_argument('--realtime-factor', type=float, default=1.0,
                   help='replay speed (0 = as fast as the agent keeps up: accuracy and length '
                        'only, the times are then not real-time figures and are left out)')
    p.add_argument('--text', action='store_true',
                   help='ask each oracle in text (no speech, no STT): a quick model screen')
    p.add_argument('--oracle', action='append', default=[], metavar='LABEL=ROS_ARGS',
                   help='an oracle configuration to compare, e.g. "big=-p oracle:backend:=openai '
                        '-p oracle:base_url:=http://host:8000/v1" (default: the embedded model)')
    opts = p.parse_args(argv)
    try:
        oracles = parse_oracles(opts.oracle or [f'{EMBEDDED}='])
        settings = {label: text_settings(label, args) for label, args in oracles.items()
                    if opts.text}
    except ValueError as e:
        sys.exit(f'kame_ros_bench_knowledge: {e}')
    if opts.realtime_factor < 0:
        sys.exit('kame_ros_bench_knowledge: --realtime-factor must be >= 0')
    if not 1 <= opts.questions <= len(QUESTIONS):
        sys.exit(f'kame_ros_bench_knowledge: --questions must be 1..{len(QUESTIONS)}')
    if not opts.text and 'espeak' in opts.voices and shutil.which('espeak-ng') is None:
        sys.exit('kame_ros_bench_knowledge: espeak-ng is not installed (scripts/setup.sh '
                 'installs it), or leave it out with --voices hibari')
    questions = list(QUESTIONS[:opts.questions])
    opts.out.mkdir(parents=True, exist_ok=True)
    results: dict[tuple[str, str], list[Answer]] = {}
    for label, oracle in settings.items():
        print(f'[knowledge] {label}: {len(questions)} questions in text...', flush=True)
        try:
            results[(label, 'text')] = ask_text(questions, oracle)
        except BackendError as e:
            sys.exit(f'kame_ros_bench_knowledge: {label}: {e}')
    for voice in [] if opts.text else opts.voices:
        print(f'[knowledge] {voice}: synthesizing {len(questions)} questions...', flush=True)
        wav = opts.out / f'questions_{voice}.wav'
        spans = build_input(wav, [(q.text, q.answers) for q in questions], VOICES[voice]())
        for i, (label, ros_args) in enumerate(oracles.items()):
            print(f'[knowledge] {label} / {voice}: {spans[-1][1] / 60 + 0.15:.1f} min of '
                  'questions through the agent...', flush=True)
            run = opts.out / f'{voice}_oracle{i}'
            try:
                run_agent(wav, run, ros_args, opts.realtime_factor)
            except RuntimeError as e:
                sys.exit(f'kame_ros_bench_knowledge: {label}: {e}')
            results[(label, voice)] = score(run, spans, questions)
            if opts.realtime_factor != 1.0:
                for a in results[(label, voice)]:
                    a.first_word_s = a.answer_s = None
    table = report(results)
    print(f'\nknowledge benchmark: {len(questions)} questions per voice\n\n{table}')
    records = [{'oracle': oracle, 'voice': voice, **asdict(a)}
               for (oracle, voice), answers in results.items() for a in answers]
    write_results(opts.out, 'knowledge', table, records, lambda path: plot(results, path))


if __name__ == '__main__':
    main()
