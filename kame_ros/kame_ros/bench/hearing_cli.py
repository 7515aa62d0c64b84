# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros_bench_hearing: how well the agent hears in a real room, and the user over the agent.

    kame_ros_bench_hearing [--questions 2] [--whisper-base DIR] [--conditions clean echo ...]
        [--rows none default ...] [--out out/bench_hearing]

The mixtures and the open-loop front ends are ``hearing.py``'s. With the
echo condition and the default front end it also runs the closed loop
(``barge_in.py``): the tts front-end's barge-in policies, ``final`` and
``voice``, with the room's echo and with no echo path (a file, a headset).
"""
import argparse
from pathlib import Path
import shutil
import sys

from kame_ros.bench.barge_in import hear_closed_loop, table as barge_in_table
from kame_ros.bench.hearing import (all_rows, BASE_CONDITIONS, conditions, default_front_end,
                                    echo_rows, GROUPS, noise_rows, plot, QUESTIONS, report,
                                    ROWS, run_rows, synthesize, VOICES)
from kame_ros.frontend.turn_taking import BARGE_IN


def main(argv: list[str] | None = None) -> None:
    """Synthesize, mix, hear; print the tables and write Markdown + PNG."""
    parser = argparse.ArgumentParser(prog='kame_ros_bench_hearing',
                                     description=__doc__.strip().split('\n')[0].split(': ')[1])
    parser.add_argument('--questions', type=int, default=2, help='held-out questions per voice')
    parser.add_argument('--whisper-base', type=Path, default=None,
                        help='a faster-whisper base model directory, compared with tiny.en')
    parser.add_argument('--conditions', nargs='+', choices=GROUPS, default=list(GROUPS),
                        help='condition groups to run')
    parser.add_argument('--rows', nargs='+', choices=ROWS, default=list(ROWS),
                        help='front ends to run (default: all)')
    parser.add_argument('--out', type=Path, default=Path('out/bench_hearing'))
    opts = parser.parse_args(argv)
    if not 1 <= opts.questions <= len(QUESTIONS):
        sys.exit(f'kame_ros_bench_hearing: --questions must be 1..{len(QUESTIONS)}')
    if opts.whisper_base is not None and not (opts.whisper_base / 'model.bin').is_file():
        sys.exit(f'kame_ros_bench_hearing: --whisper-base: no model.bin in {opts.whisper_base}')
    noisy_groups = set(opts.conditions) - {'echo'}
    if not (set(opts.rows) & set(all_rows()) or noisy_groups and set(opts.rows) & set(noise_rows())
            or 'echo' in opts.conditions and set(opts.rows) & set(echo_rows())):
        sys.exit('kame_ros_bench_hearing: none of --rows runs on those --conditions '
                 '(the echo rows run on echo, the noise rows on the others)')
    if shutil.which('espeak-ng') is None:
        sys.exit('kame_ros_bench_hearing: espeak-ng is not installed '
                 '(scripts/setup.sh installs it)')
    opts.out.mkdir(parents=True, exist_ok=True)
    print("[bench] synthesizing questions, babble and the agent's reply...", flush=True)
    speech, layout, talkers, reply = synthesize(opts.questions)
    streams = {c: mix for c, mix in conditions(speech, layout, talkers, reply).items()
               if c.split()[0] in opts.conditions}
    noisy = {c: s for c, s in streams.items() if 'echo' not in c}
    echoed = {c: s for c, s in streams.items() if 'echo' in c}
    chosen = set(opts.rows)
    results = run_rows({r: m for r, m in noise_rows().items() if r in chosen}, noisy, '', '')
    results.update(run_rows({r: m for r, m in echo_rows().items() if r in chosen}, echoed,
                            '', ''))
    results.update(run_rows({r: m for r, m in all_rows().items() if r in chosen}, streams,
                            '', ''))
    default = {'default': default_front_end} if 'default' in chosen else {}
    if opts.whisper_base is not None:  # one condition of each group: base costs 3x tiny's
        some = {c: streams[c] for c in BASE_CONDITIONS if c in streams}
        results.update(run_rows({r: m for r, m in {'none': lambda: None, **default}.items()
                                 if r in chosen}, some, str(opts.whisper_base), ' + base'))

    table = report(results)
    if 'echo (barge-in)' in streams and 'default' in chosen:
        table += '\n\n' + barge_in_table(closed_loop(streams['echo (barge-in)']))
    print(f'\nHearing: {len(layout)} questions ({opts.questions} x {len(VOICES)} voices), '
          'Whisper tiny.en unless "+ base"\n')
    print(table)
    (opts.out / 'hearing.md').write_text(table + '\n')
    plot(results, opts.out / 'hearing.png')
    print(f'\nwrote {opts.out}/hearing.md and hearing.png')


def closed_loop(stream) -> dict:
    """Run the default front end with a speaker that reacts: each policy, echo and none."""
    results = {}
    for policy in BARGE_IN:
        for echo, mic in ((True, 'echo path'), (False, 'no echo path')):
            r = results[(policy, mic)] = hear_closed_loop(stream, policy, echo=echo)
            print(f'[bench] default, barge-in on {policy} / {mic}: WER {r.heard.wer:.0%}, '
                  f'{r.false_barge_ins} false barge-ins', flush=True)
    return results
