# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros_soak: an hour of conversation replayed faster than real time, watched from outside.

The agent (stt, oracle, front-end, and a wav_source as its microphone)
runs as its own ``kame_ros_run`` process, exactly as on a robot; this tool
is an outside observer, like a robot's health monitor: it samples the
agent process's resident memory from /proc and every node's /diagnostics
(frame budget, drops, transcripts, replies). No recorder runs inside the
agent, so memory growth is the agent's own. The input is the evaluation's
spoken questions, cycled, each followed by an answer window.

    kame_ros_soak --minutes 60 --realtime-factor 3 --out out/soak

Writes soak.csv (one row per sample), soak.md (the table) and soak.png
(memory and per-frame compute over audio time).
"""
import argparse
import csv
import os
from pathlib import Path
import signal
import subprocess
import sys
import time

import numpy as np
import yaml

from kame_ros.audio.frames import FRAME_SECONDS
from kame_ros.ros.config import node_parameters, read_parameters_file
from kame_ros.run import find_default_config
from kame_ros.tools.evaluate import ANSWER_WINDOW_S, build_input, QUESTIONS

FIELDS = ['wall_s', 'audio_s', 'rss_mb', 'frames', 'compute_ms_p50', 'compute_ms_p99',
          'compute_ms_max', 'deadline_misses', 'dropped_frames', 'stt_finals', 'stt_drops',
          'oracle_completed', 'oracle_failed']


def rss_mb(pid: int) -> float:
    """Resident memory of a process (VmRSS), in MiB."""
    try:
        status = Path(f'/proc/{pid}/status').read_text()
    except OSError:
        return float('nan')
    for line in status.splitlines():
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) / 1024
    return float('nan')  # a process that exited (zombie) has no VmRSS


def agent_config(opts: argparse.Namespace, wav: Path, path: Path) -> None:
    """Write the robot's config/agent.yaml plus a wav_source microphone at the replay speed."""
    config = read_parameters_file(find_default_config())
    nodes = {name: {'ros__parameters': node_parameters(config, name)}
             for name in ('stt', 'oracle', 'frontend')}
    nodes['oracle']['ros__parameters']['backend'] = opts.oracle_backend
    frontend = nodes['frontend']['ros__parameters']
    frontend['backend'] = opts.frontend
    if opts.frontend == 'moshi':
        frontend['checkpoint'] = opts.checkpoint
    nodes['wav_source'] = {'ros__parameters': {
        'path': str(wav), 'realtime_factor': opts.realtime_factor, 'start_delay_s': 0.5,
        'wait_for_subscribers': 2, 'trailing_silence_s': 2.0}}
    path.write_text(yaml.safe_dump(nodes))


class Observer:
    """Latest /diagnostics values of every kame_ros node."""

    def __init__(self) -> None:
        """Subscribe on a node of our own, spun on a background thread."""
        import rclpy
        from kame_ros.ros.spin import Spinner
        from kame_ros.ros.topics import DIAGNOSTICS
        rclpy.init(args=[])
        self.node = rclpy.create_node('kame_ros_soak')
        self.latest: dict[str, dict[str, str]] = {}
        self.node.create_subscription(DIAGNOSTICS.msg_type, DIAGNOSTICS.name, self._on_diag,
                                      DIAGNOSTICS.qos)
        self.spinner = Spinner()
        self.spinner.add(self.node)

    def _on_diag(self, msg) -> None:
        for status in msg.status:
            name = status.name.rsplit('/', 1)[-1]
            self.latest[name] = {kv.key: kv.value for kv in status.values}

    def value(self, node: str, key: str) -> float:
        """Return a figure as a number (NaN while unknown)."""
        try:
            return float(self.latest.get(node, {}).get(key, 'nan') or 'nan')
        except ValueError:
            return float('nan')

    def close(self) -> None:
        """Stop spinning and shut rclpy down."""
        import rclpy
        self.spinner.shutdown()
        rclpy.try_shutdown()


def sample(observer: Observer, pid: int, t0: float) -> dict[str, float]:
    """One row: memory now, the front-end's frame budget and the counters."""
    v = observer.value
    frames = v('frontend', 'frames')
    return {'wall_s': time.monotonic() - t0, 'audio_s': frames * FRAME_SECONDS,
            'rss_mb': rss_mb(pid), 'frames': frames,
            'compute_ms_p50': v('frontend', 'compute_ms_p50'),
            'compute_ms_p99': v('frontend', 'compute_ms_p99'),
            'compute_ms_max': v('frontend', 'compute_ms_max'),
            'deadline_misses': v('frontend', 'deadline_misses'),
            'dropped_frames': v('frontend', 'dropped_frames'),
            'stt_finals': v('stt', 'finals'), 'stt_drops': v('stt', 'queue_drops'),
            'oracle_completed': v('oracle', 'completed'), 'oracle_failed': v('oracle', 'failed')}


def summary(rows: list[dict], questions: int, audio_s: float, factor: float) -> str:
    """Markdown: rows at every tenth of the run, then the figures that matter."""
    pick = sorted({round(i * (len(rows) - 1) / 10) for i in range(11)})
    head = ['audio min', 'RSS MiB', 'frames', 'compute p50 ms', 'compute p99 ms',
            'deadline misses', 'dropped frames', 'STT finals', 'replies']
    lines = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
    for r in (rows[i] for i in pick):
        lines.append('| ' + ' | '.join([
            f'{r["audio_s"] / 60:.1f}', f'{r["rss_mb"]:.0f}', f'{r["frames"]:.0f}',
            f'{r["compute_ms_p50"]:.2f}', f'{r["compute_ms_p99"]:.2f}',
            f'{r["deadline_misses"]:.0f}', f'{r["dropped_frames"]:.0f}',
            f'{r["stt_finals"]:.0f}', f'{r["oracle_completed"]:.0f}']) + ' |')
    settled = [r['rss_mb'] for r in rows if r['audio_s'] >= 0.1 * audio_s]
    last = rows[-1]
    worst = max(r['compute_ms_max'] for r in rows)
    growth = (settled[-1] - settled[0]) if len(settled) > 1 else float('nan')
    hours = (rows[-1]['audio_s'] - 0.1 * audio_s) / 3600
    lines += ['', f'- {audio_s / 60:.1f} min of conversation ({questions} questions) replayed at '
              f'{factor:g}x in {last["wall_s"] / 60:.1f} min',
              f'- memory: {settled[0]:.0f} MiB after warm-up, {settled[-1]:.0f} MiB at the end '
              f'({growth:+.0f} MiB, {growth / max(hours, 1e-9):+.0f} MiB per hour of audio)',
              f'- frame budget (80 ms): {last["frames"]:.0f} frames, '
              f'{last["deadline_misses"]:.0f} deadline misses, '
              f'{last["dropped_frames"]:.0f} dropped; compute p99 of the last 500 frames '
              f'{last["compute_ms_p99"]:.2f} ms, worst {worst:.2f} ms',
              f'- STT finals {last["stt_finals"]:.0f} for {questions} questions, '
              f'{last["stt_drops"]:.0f} frames dropped by the STT queue; oracle replies '
              f'completed {last["oracle_completed"]:.0f}, failed {last["oracle_failed"]:.0f}']
    return '\n'.join(lines)


def plot(rows: list[dict], path: Path) -> None:
    """Memory and per-frame compute against audio time."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    rows = [r for r in rows if r['frames'] > 0]
    minutes = [r['audio_s'] / 60 for r in rows]
    fig, (mem, cpu) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    mem.plot(minutes, [r['rss_mb'] for r in rows])
    mem.set_ylabel('agent RSS (MiB)')
    mem.set_title('kame_ros soak')
    for key in ('compute_ms_p50', 'compute_ms_p99'):
        cpu.plot(minutes, [r[key] for r in rows], label=key.replace('compute_ms_', ''))
    cpu.axhline(FRAME_SECONDS * 1000, color='red', linestyle='--', label='80 ms budget')
    cpu.set_ylabel('front-end compute per frame (ms)')
    cpu.set_xlabel('conversation audio (min)')
    cpu.set_yscale('log')
    cpu.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    """Build the input, run the agent process, sample it, write the report."""
    p = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    p.add_argument('--minutes', type=float, default=60.0, help='conversation audio to replay')
    p.add_argument('--realtime-factor', type=float, default=3.0, help='replay speed')
    p.add_argument('--oracle-backend', default='llama_cpp')
    p.add_argument('--frontend', choices=['tts', 'moshi'], default='tts')
    p.add_argument('--checkpoint', default='',
                   help='moshi: checkpoint (default: a tiny random Moshi-shaped one is built)')
    p.add_argument('--sample-s', type=float, default=5.0, help='seconds between samples')
    p.add_argument('--out', type=Path, default=Path('out/soak'))
    opts = p.parse_args(argv)
    opts.out.mkdir(parents=True, exist_ok=True)
    per_question = ANSWER_WINDOW_S + 2.0
    n = max(1, round(opts.minutes * 60 / per_question))
    questions = [QUESTIONS[k % len(QUESTIONS)] for k in range(n)]
    print(f'[soak] synthesizing {n} questions...', flush=True)
    wav = opts.out / 'conversation.wav'
    spans = build_input(wav, questions)
    audio_s = spans[-1][1] + ANSWER_WINDOW_S
    if opts.frontend == 'moshi' and not opts.checkpoint:
        from kame_ros.frontend.tiny import save_checkpoint
        opts.checkpoint = str(save_checkpoint(opts.out / 'tiny_moshi', kame=True))
    config = opts.out / 'soak.yaml'
    agent_config(opts, wav, config)
    observer = Observer()
    log = open(opts.out / 'agent.log', 'w')
    agent = subprocess.Popen([sys.executable, '-m', 'kame_ros.run', '--config', str(config)],
                             stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy())
    print(f'[soak] agent pid {agent.pid}: {audio_s / 60:.1f} min of audio at '
          f'{opts.realtime_factor:g}x (log: {opts.out / "agent.log"})', flush=True)
    rows: list[dict] = []
    t0 = time.monotonic()
    deadline = t0 + 600 + 2 * audio_s / opts.realtime_factor
    try:
        while agent.poll() is None and time.monotonic() < deadline:
            time.sleep(opts.sample_s)
            row = sample(observer, agent.pid, t0)
            if np.isnan(row['frames']) or np.isnan(row['rss_mb']):
                continue
            rows.append(row)
            print(f'[soak] {row["audio_s"] / 60:5.1f} / {audio_s / 60:.1f} min audio, '
                  f'RSS {row["rss_mb"]:.0f} MiB, compute p99 {row["compute_ms_p99"]:.1f} ms, '
                  f'finals {row["stt_finals"]:.0f}', flush=True)
            if row['audio_s'] >= audio_s:
                break
    finally:
        agent.send_signal(signal.SIGINT)
        try:
            agent.wait(30)
        except subprocess.TimeoutExpired:
            agent.kill()
        observer.close()
        log.close()
    if not rows:
        sys.exit(f'kame_ros_soak: the agent never reported; see {opts.out / "agent.log"}')
    with open(opts.out / 'soak.csv', 'w', newline='') as f:
        writer = csv.DictWriter(f, FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    report = summary(rows, n, audio_s, opts.realtime_factor)
    (opts.out / 'soak.md').write_text(report + '\n')
    plot(rows, opts.out / 'soak.png')
    print(report)
    print(f'[soak] wrote {opts.out}/soak.csv, soak.md, soak.png')


if __name__ == '__main__':
    main()
