# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros_eval: direct vs cascaded vs tandem on the same spoken questions.

Each system hears the identical recording (neural-TTS questions with known
answers, each followed by an answer window of silence) through the real
nodes (``kame_ros_agent``), and is scored from its timeline:

* onset: first agent speech after the end of the user's question (0 when
  the agent is already talking, as full-duplex Moshi does);
* correct: an expected answer word is in the agent's spoken text within
  the answer window;
* content: when the first word of the reply itself was spoken (not the
  acknowledgement), after the end of the question;
* knowledge: when that word was spoken, relative to the end of the question
  (negative: before the user finished, from the oracle's early guess).

Systems: direct = the Moshi front-end alone (no oracle); cascaded = STT ->
LLM -> TTS waiting for the end of the turn (the ``tts`` front-end); tandem
= the Moshi front-end fed by the oracle stream (KAME mode with a KAME
checkpoint, guided mode with stock Moshi). Without ``--checkpoint`` a tiny
random-weight Moshi-shaped checkpoint is built: its audio is noise and its
"spoken text" is the inner monologue, so the table then measures the
tandem machinery (when the knowledge reaches the voice), not Moshi's
conversational quality.

    kame_ros_eval --out out/eval
"""
import argparse
import json
from pathlib import Path
import subprocess
import sys
from typing import Callable

import numpy as np

from kame_ros.audio.wav import write_wav
from kame_ros.records.timeline import AGENT_SPEECH_END, AGENT_SPEECH_START, read_events
from kame_ros.wire.messages import AgentText
from kame_ros.words import words

QUESTIONS = [('What is the capital of France?', ['paris']),
             ('How many legs does a spider have?', ['eight', '8']),
             ('What color is the sky on a clear day?', ['blue']),
             ('Who wrote Romeo and Juliet?', ['shakespeare']),
             ('What is the boiling point of water in Celsius?', ['100', 'hundred']),
             ('What is the capital of Japan?', ['tokyo'])]
ANSWER_WINDOW_S = 9.0
LEAD_S = 1.0


def hibari_voice() -> Callable[[str], np.ndarray]:
    """Return the neural voice that ships in the hibari-tts wheel: text -> 24 kHz int16."""
    from hibari import Hibari

    from kame_ros.audio.frames import float_to_int16
    tts = Hibari()
    return lambda text: float_to_int16(tts(text, seed=0))[0]


def build_input(path: Path, questions: list,
                speak: Callable[[str], np.ndarray] | None = None) -> list[tuple[float, float]]:
    """Write the questions (hibari unless ``speak`` is given) with answer windows; (start, end)."""
    speak = speak or hibari_voice()
    pieces, spans, t = [np.zeros(int(LEAD_S * 24000), np.int16)], [], LEAD_S
    voiced: dict[str, np.ndarray] = {}
    for question, _ in questions:
        if question not in voiced:
            voiced[question] = speak(question)
        speech = voiced[question]
        spans.append((t, t + len(speech) / 24000))
        pieces += [speech, np.zeros(int(ANSWER_WINDOW_S * 24000), np.int16)]
        t += len(speech) / 24000 + ANSWER_WINDOW_S
    write_wav(path, np.concatenate(pieces))
    return spans


def score(directory: Path, spans: list[tuple[float, float]], questions: list,
          acknowledgement: str = 'Okay.') -> list[dict]:
    """Per question: onset, content, correct, knowledge (seconds after the end of the question)."""
    start, events = read_events(directory)
    if start is None:
        raise ValueError(f'{directory}: the run heard no input')
    speech = []
    for event in events:
        if event.kind == AGENT_SPEECH_START:
            speech.append([event.t, float('inf')])
        elif event.kind == AGENT_SPEECH_END and speech:
            speech[-1][1] = event.t
    results = []
    ack = set(words(acknowledgement))
    for k, ((_, end), (_, expected)) in enumerate(zip(spans, questions)):
        t_end = start + end
        t_next = start + spans[k + 1][0] if k + 1 < len(spans) else t_end + ANSWER_WINDOW_S
        onset = next((0.0 if a <= t_end else a - t_end for a, b in speech
                      if b > t_end and a < t_next), None)
        spoken, knowledge, content = '', None, None
        for event in events:
            t, text = event.t, event.text
            if event.kind != AgentText.TYPE or not (start + spans[k][0] <= t < t_next):
                continue
            spoken += text
            said = words(spoken)
            if knowledge is None and any(w in said for w in expected):
                knowledge = t - t_end
            fresh = set(words(text)) - ack
            if content is None and t >= t_end and fresh:
                content = t - t_end
        results.append({'onset': onset, 'content': content, 'correct': knowledge is not None,
                        'knowledge': knowledge, 'spoken': spoken.strip()})
    return results


def stats(values: list) -> str:
    """'p50 / p90' of the defined values, or n/a."""
    v = [x for x in values if x is not None]
    if not v:
        return 'n/a'
    return f'{np.percentile(v, 50):.2f} / {np.percentile(v, 90):.2f}'


def main(argv: list[str] | None = None) -> None:
    """Run the three systems, print the table, write Markdown and PNG."""
    parser = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    parser.add_argument('--out', type=Path, default=Path('out/eval'))
    parser.add_argument('--checkpoint', default='', help='Moshi/KAME checkpoint (default: '
                        'a tiny random one is built)')
    parser.add_argument('--oracle-backend', default='llama_cpp')
    parser.add_argument('--questions', type=int, default=len(QUESTIONS),
                        help='use the first N questions')
    parser.add_argument('--systems', nargs='+', choices=['direct', 'cascaded', 'tandem'],
                        default=['direct', 'cascaded', 'tandem'],
                        help='which rows to run (cascaded is the CPU default agent)')
    parser.add_argument('--label', default='', help='suffix for the row names (before/after)')
    parser.add_argument('--ros-args', default='',
                        help='ROS arguments for every agent run, e.g. '
                             '"-p stt:complete_silence_s:=0.8" (to measure what a change buys)')
    opts = parser.parse_args(argv)
    opts.out.mkdir(parents=True, exist_ok=True)
    questions = QUESTIONS[:opts.questions]
    print('[eval] synthesizing questions...', flush=True)
    spans = build_input(opts.out / 'questions.wav', questions)
    checkpoint = opts.checkpoint
    if not checkpoint and set(opts.systems) - {'cascaded'}:
        from kame_ros.frontend.tiny import save_checkpoint
        print('[eval] building a tiny random Moshi-shaped checkpoint...', flush=True)
        checkpoint = str(save_checkpoint(opts.out / 'tiny_moshi', kame=False))
    moshi = ['--frontend', 'moshi', '--checkpoint', checkpoint]
    systems = {'direct (front-end alone)': moshi + ['--mode', 'plain', '--no-oracle'],
               'cascaded (STT -> LLM -> TTS)': ['--frontend', 'tts'],
               'tandem (KAME)': moshi + ['--mode', 'auto']}
    systems = {f'{name}{opts.label}': args for name, args in systems.items()
               if name.split()[0] in opts.systems}
    table = {}
    for i, (name, args) in enumerate(systems.items()):
        run = opts.out / f'system{i}'
        print(f'[eval] {name}: {len(questions)} questions, '
              f'~{spans[-1][1] + ANSWER_WINDOW_S:.0f} s of audio...', flush=True)
        cmd = [sys.executable, '-m', 'kame_ros.tools.agent', '--input',
               str(opts.out / 'questions.wav'), '--out', str(run), '--idle-s', '2',
               '--max-answer-s', '5', '--oracle-backend', opts.oracle_backend] + args
        if opts.ros_args:
            cmd += ['--ros-args', *opts.ros_args.split()]
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
        if proc.returncode:
            sys.exit(f'{name} failed:\n{proc.stderr[-3000:]}')
        table[name] = score(run, spans, questions)
    lines = ['| system | first sound after end of question p50 / p90 s | first reply word '
             'p50 / p90 s | correct | answer word p50 / p90 s |', '|---|---|---|---|---|']
    for name, results in table.items():
        correct = sum(r['correct'] for r in results)
        lines.append(f'| {name} | {stats([r["onset"] for r in results])} | '
                     f'{stats([r["content"] for r in results])} | '
                     f'{correct}/{len(results)} ({correct / len(results):.0%}) | '
                     f'{stats([r["knowledge"] for r in results])} |')
    report = '\n'.join(lines)
    print(f'\nKAME comparison on {len(questions)} spoken questions (front-end checkpoint: '
          f'{"tiny random" if not opts.checkpoint else opts.checkpoint})\n')
    print(report)
    (opts.out / 'eval.md').write_text(report + '\n')
    (opts.out / 'eval.json').write_text(json.dumps(table, indent=1))
    plot(table, opts.out / 'eval.png')
    print(f'\nwrote {opts.out}/eval.md, eval.json and eval.png')


def plot(table: dict, path: Path) -> None:
    """Onset and knowledge time per question and system."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True)
    for ax, key, title in ((axes[0], 'onset', 'speech onset after the question (s)'),
                           (axes[1], 'knowledge', 'answer word spoken, after the question (s)')):
        for y, (name, results) in enumerate(table.items()):
            xs = [r[key] for r in results if r[key] is not None]
            ax.scatter(xs, [y] * len(xs), s=30)
        ax.axvline(0, color='gray', lw=0.8)
        ax.set_xlabel(title)
    axes[0].set_yticks(range(len(table)), list(table))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == '__main__':
    main()
