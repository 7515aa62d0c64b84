# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros_soak: a long conversation at real time (or faster), watched from outside.

The agent runs as on a robot under ``ros2 launch``: one process per node
(stt, oracle, front-end, and a wav_source as the microphone), talking over
DDS. This tool is an outside observer, like a robot's health monitor: it
samples every node process's resident memory from /proc (memory growth is
attributed to a node, not to "the agent") and every node's /diagnostics
(frames in and processed, frame budget, drops, transcripts, answered
turns). With ``--tracemalloc`` the nodes also report their Python heap
and write the allocation sites that grew (kame_ros/ros/heap.py), which
tells a leak from native allocator growth. The input is the evaluation's
spoken questions, cycled, each followed by an answer window.

    kame_ros_soak --minutes 60 --realtime-factor 1 --out out/soak

Writes soak.csv (one row per sample), soak.md (the table) and soak.png
(memory per node and per-frame compute over audio time).
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
from kame_ros.nodes.registry import BACKEND_NODES
from kame_ros.ros.config import node_parameters, read_parameters_file
from kame_ros.ros.heap import ENV as TRACEMALLOC_ENV
from kame_ros.run import find_default_config
from kame_ros.tools.evaluate import ANSWER_WINDOW_S, build_input, QUESTIONS

NODES = ['stt', 'oracle', 'frontend', 'wav_source']
FIELDS = ['wall_s', 'audio_s', 'rss_mb', *[f'rss_{n}_mb' for n in NODES],
          *[f'py_heap_{n}_mb' for n in NODES[:3]], 'frames_published', 'frames_in', 'frames',
          'compute_ms_p50', 'compute_ms_p99', 'compute_ms_max', 'deadline_misses',
          'dropped_frames', 'stt_finals', 'stt_drops', 'oracle_completed', 'oracle_answered',
          'oracle_failed', 'mic_ms_p50', 'mic_ms_max', 'mic_over_budget']


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
        frontend['runtime'] = opts.runtime
        if opts.runtime == 'onnx':  # exported once, before the audio starts (configure)
            frontend['onnx_dir'] = str(path.parent / 'onnx')
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
        from rclpy.signals import SignalHandlerOptions
        # SIGINT stays a KeyboardInterrupt (the report so far), not an rclpy shutdown.
        rclpy.init(args=[], signal_handler_options=SignalHandlerOptions.NO)
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


def sample(observer: Observer, pids: dict[str, int], t0: float) -> dict[str, float]:
    """One row: memory of every node process, frames in and processed, the counters."""
    v = observer.value
    frames = v('frontend', 'frames')
    row = {'wall_s': time.monotonic() - t0, 'audio_s': frames * FRAME_SECONDS,
           'frames_published': v('wav_source', 'frames_published'),
           'frames_in': v('frontend', 'frames_in'), 'frames': frames,
           'compute_ms_p50': v('frontend', 'compute_ms_p50'),
           'compute_ms_p99': v('frontend', 'compute_ms_p99'),
           'compute_ms_max': v('frontend', 'compute_ms_max'),
           'deadline_misses': v('frontend', 'deadline_misses'),
           'dropped_frames': v('frontend', 'dropped_frames'),
           'stt_finals': v('stt', 'finals'), 'stt_drops': v('stt', 'queue_drops'),
           'oracle_completed': v('oracle', 'completed'),
           'oracle_answered': v('oracle', 'answered'), 'oracle_failed': v('oracle', 'failed'),
           'mic_ms_p50': v('stt', 'mic_ms_p50'), 'mic_ms_max': v('stt', 'mic_ms_max'),
           'mic_over_budget': v('stt', 'mic_over_budget')}
    for name, pid in pids.items():
        row[f'rss_{name}_mb'] = rss_mb(pid)
    for name in NODES[:3]:
        row[f'py_heap_{name}_mb'] = v(name, 'py_heap_mib')
    row['rss_mb'] = float(np.nansum([row[f'rss_{n}_mb'] for n in NODES]))  # (finished: NaN)
    return row


def settled(rows: list[dict]) -> list[dict]:
    """Keep the samples after warm-up: the first 10 % of the audio the run reached is left out."""
    return [r for r in rows if r['audio_s'] >= 0.1 * rows[-1]['audio_s']]


def growth(rows: list[dict], key: str) -> tuple[float, float, float]:
    """(after warm-up, at the end, end - warm-up) of one memory column."""
    settled_values = [r[key] for r in settled(rows) if not np.isnan(r[key])]
    if not settled_values:
        return float('nan'), float('nan'), float('nan')
    return settled_values[0], settled_values[-1], settled_values[-1] - settled_values[0]


def last_hour(rows: list[dict], key: str) -> tuple[float, float, float, float]:
    """
    (start, end, low, high) of one memory column over the last hour of audio.

    Start and end are medians of the first and last 5 minutes of that hour,
    so one sample taken mid-inference does not decide "flat".
    """
    end_s = rows[-1]['audio_s']
    hour = [r for r in rows if r['audio_s'] >= end_s - 3600 and not np.isnan(r[key])]
    first = [r[key] for r in hour if r['audio_s'] < end_s - 3300]
    last = [r[key] for r in hour if r['audio_s'] >= end_s - 300]
    values = [r[key] for r in hour]
    return (float(np.median(first)), float(np.median(last)), min(values), max(values))


def summary(rows: list[dict], questions: int, audio_s: float, factor: float) -> str:
    """Markdown: rows at every tenth of the run, memory per node, then the totals that matter."""
    pick = sorted({round(i * (len(rows) - 1) / 10) for i in range(11)})
    head = ['audio min', *[f'{n} MiB' for n in NODES], 'frames in', 'processed',
            'compute p50 ms', 'compute p99 ms', 'deadline misses', 'dropped', 'STT finals',
            'answered']
    lines = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
    for r in (rows[i] for i in pick):
        lines.append('| ' + ' | '.join([
            f'{r["audio_s"] / 60:.1f}', *[f'{r[f"rss_{n}_mb"]:.0f}' for n in NODES],
            f'{r["frames_in"]:.0f}', f'{r["frames"]:.0f}',
            f'{r["compute_ms_p50"]:.2f}', f'{r["compute_ms_p99"]:.2f}',
            f'{r["deadline_misses"]:.0f}', f'{r["dropped_frames"]:.0f}',
            f'{r["stt_finals"]:.0f}', f'{r["oracle_answered"]:.0f}']) + ' |')
    last = rows[-1]
    worst = max(r['compute_ms_max'] for r in rows)
    # Per hour over the span growth() measures: a run stopped early has a short one.
    hours = max((last['audio_s'] - settled(rows)[0]['audio_s']) / 3600, 1 / 3600)
    memory = []
    for name in NODES:
        first, end, diff = growth(rows, f'rss_{name}_mb')
        heap = ''
        if name in NODES[:3] and not np.isnan(last[f'py_heap_{name}_mb']):
            h0, h1, hd = growth(rows, f'py_heap_{name}_mb')
            heap = f', Python heap {h0:.0f} -> {h1:.0f} MiB ({hd:+.1f})'
        memory.append(f'{name} {first:.0f} -> {end:.0f} MiB ({diff:+.0f}, '
                      f'{diff / hours:+.0f}/h{heap})')
    reached = (f'{audio_s / 60:.1f} min' if last['audio_s'] >= audio_s - 60 else
               f'{last["audio_s"] / 60:.1f} of {audio_s / 60:.1f} min (stopped early)')
    lines += ['', f'- {reached} of conversation ({questions} questions) replayed at '
              f'{factor:g}x in {last["wall_s"] / 60:.1f} min',
              f'- frames: {last["frames_published"]:.0f} published by the microphone, '
              f'{last["frames_in"]:.0f} received by the front-end, {last["frames"]:.0f} '
              f'processed, {last["dropped_frames"]:.0f} dropped; '
              f'{last["deadline_misses"]:.0f} over the 80 ms budget; compute p99 of the last '
              f'500 frames {last["compute_ms_p99"]:.2f} ms, worst {worst:.2f} ms',
              f'- STT finals {last["stt_finals"]:.0f} for {questions} questions, '
              f'{last["stt_drops"]:.0f} frames dropped by the STT queue; turns answered '
              f'{last["oracle_answered"]:.0f}, oracle replies completed '
              f'{last["oracle_completed"]:.0f}, failed {last["oracle_failed"]:.0f}',
              '- memory after warm-up (first 10 %) -> end: ' + '; '.join(memory)]
    if 'mic_ms_p50' in last:  # rows from before the audio front end have no such column
        lines.insert(-1, f'- the audio front end of the microphone (stt): '
                     f'{last["mic_ms_p50"]:.2f} ms per 80 ms frame (median of the last 250), '
                     f'worst {last["mic_ms_max"]:.2f} ms, {last["mic_over_budget"]:.0f} over '
                     'the budget')
    if audio_s >= 2 * 3600 - 600:  # a plateau run: is the last hour flat?
        flat = []
        for name in ['rss_mb', *[f'rss_{n}_mb' for n in NODES]]:
            start, end, low, high = last_hour(rows, name)
            flat.append(f'{name[4:-3] or "all"} {start:.0f} -> {end:.0f} MiB ({end - start:+.0f}; '
                        f'range {low:.0f}..{high:.0f})')
        lines.append('- last hour, 5-minute medians at its start -> end: ' + '; '.join(flat))
    return '\n'.join(lines)


def plot(rows: list[dict], path: Path) -> None:
    """Memory per node and per-frame compute against audio time."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    rows = [r for r in rows if r['frames'] > 0]
    minutes = [r['audio_s'] / 60 for r in rows]
    fig, (mem, cpu) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    for name in NODES:
        mem.plot(minutes, [r[f'rss_{name}_mb'] for r in rows], label=name)
    mem.set_ylabel('RSS per node process (MiB)')
    mem.set_title('kame_ros soak')
    mem.legend(fontsize=8)
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


def start_agent(config: Path, out: Path, tracemalloc: bool,
                backend_nice: int = 0) -> dict[str, subprocess.Popen]:
    """One process per node, as ros2 launch starts them (backend_nice too); out/<node>.log."""
    env = os.environ.copy()
    if tracemalloc:
        env[TRACEMALLOC_ENV] = str(out / 'heap')
    procs = {}
    for name in NODES:
        log = open(out / f'{name}.log', 'w')
        nice = ['nice', '-n', str(backend_nice)] if backend_nice and name in BACKEND_NODES else []
        command = [sys.executable, '-m', 'kame_ros.run', '--config', str(config), '--nodes', name]
        procs[name] = subprocess.Popen(
            nice + command, stdout=log, stderr=subprocess.STDOUT, env=env)
        log.close()
    return procs


def stop_agent(procs: dict[str, subprocess.Popen]) -> None:
    """Ctrl-C every node, as on a robot; kill what does not stop."""
    for proc in procs.values():
        proc.send_signal(signal.SIGINT)
    for proc in procs.values():
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def observe(observer: Observer, procs: dict[str, subprocess.Popen], pids: dict[str, int],
            audio_s: float, opts: argparse.Namespace, rows: list[dict]) -> None:
    """Sample into ``rows`` until the conversation is processed and every frame accounted for."""
    t0 = time.monotonic()
    deadline = t0 + 600 + 2 * audio_s / opts.realtime_factor
    while all(proc.poll() is None for proc in procs.values()) \
            and time.monotonic() < deadline:
        time.sleep(opts.sample_s)
        row = sample(observer, pids, t0)
        if np.isnan(row['frames']) or np.isnan(row['rss_mb']):
            continue
        rows.append(row)
        print(f'[soak] {row["audio_s"] / 60:5.1f} / {audio_s / 60:.1f} min audio, '
              f'RSS {row["rss_mb"]:.0f} MiB, compute p99 {row["compute_ms_p99"]:.1f} ms, '
              f'dropped {row["dropped_frames"]:.0f}, finals {row["stt_finals"]:.0f}',
              flush=True)
        if row['audio_s'] >= audio_s:
            break
    # The microphone's trailing silence: sample until every frame is in and processed.
    settle = time.monotonic() + 20
    while rows and time.monotonic() < settle:
        time.sleep(1.5)
        row = sample(observer, pids, t0)
        if np.isnan(row['frames']):
            break
        done = (row['frames_in'] == rows[-1]['frames_in']
                and row['frames_in'] == row['frames'] + row['dropped_frames'])
        rows.append(row)
        if done:
            break


def main(argv: list[str] | None = None) -> None:
    """Build the input, run the agent's processes, sample them, write the report."""
    p = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    p.add_argument('--minutes', type=float, default=60.0, help='conversation audio to replay')
    p.add_argument('--realtime-factor', type=float, default=1.0, help='replay speed')
    p.add_argument('--oracle-backend', default='llama_cpp')
    p.add_argument('--frontend', choices=['tts', 'moshi'], default='tts')
    p.add_argument('--checkpoint', default='',
                   help='moshi: checkpoint (default: a tiny random KAME checkpoint is built)')
    p.add_argument('--runtime', choices=['torch', 'onnx'], default='torch',
                   help='moshi: torch, or the exported graphs on onnxruntime')
    p.add_argument('--sample-s', type=float, default=5.0, help='seconds between samples')
    p.add_argument('--backend-nice', type=int, default=0, choices=range(20), metavar='0..19',
                   help="CPU niceness of the stt and oracle processes (the launch's backend_nice)")
    p.add_argument('--tracemalloc', action='store_true',
                   help="trace each node's Python heap (slower; growth sites in out/heap/)")
    p.add_argument('--out', type=Path, default=Path('out/soak'))
    opts = p.parse_args(argv)
    if opts.minutes <= 0 or opts.realtime_factor <= 0 or opts.sample_s <= 0:
        sys.exit('kame_ros_soak: --minutes, --realtime-factor and --sample-s must be > 0')
    if opts.runtime == 'onnx' and opts.frontend != 'moshi':
        sys.exit('kame_ros_soak: --runtime onnx is for --frontend moshi')
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
    procs = start_agent(config, opts.out, opts.tracemalloc, opts.backend_nice)
    pids = {name: proc.pid for name, proc in procs.items()}
    print(f'[soak] nodes {pids}: {audio_s / 60:.1f} min of audio at {opts.realtime_factor:g}x '
          f'(logs: {opts.out}/<node>.log)', flush=True)
    rows: list[dict] = []
    try:
        observe(observer, procs, pids, audio_s, opts, rows)
    except KeyboardInterrupt:
        print('[soak] interrupted: the report covers what was sampled', flush=True)
    finally:
        stop_agent(procs)
        observer.close()
    if not rows:
        sys.exit(f'kame_ros_soak: the agent never reported; see the logs in {opts.out}')
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
