# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Benchmark audio-topic transport latency between two processes.

A wav_source publishes real-time 80 ms frames on audio/mic (RELIABLE,
KEEP_LAST 25: the production QoS); this process receives them. Latency is
receive time minus the moment the frame was complete (stamp + 80 ms), i.e.
everything the graph adds between a microphone and a consumer. The
baseline is the same publisher running inside this process.

    kame_ros_bench_transport --frames 250 --out out/bench_transport
"""
import argparse
import os
from pathlib import Path
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.parameter import Parameter

from kame_ros.audio.frames import FRAME_NS, FRAME_SAMPLES
from kame_ros.audio.wav import write_wav
from kame_ros.bench.report import LatencyStats, table
from kame_ros.nodes.wav_source import WavSource
from kame_ros.ros.audio_in import AudioInput
from kame_ros.ros.topics import MIC_AUDIO


def receive(context, n_frames: int, timeout_s: float, start_publisher) -> tuple[list, int]:
    """Subscribe, start the publisher, collect (seq, latency_ms) until n frames or timeout."""
    node = rclpy.create_node('bench_transport_rx', context=context)
    got: list[tuple[int, float]] = []
    done = threading.Event()

    def on_frame(frame):
        got.append((frame.seq, (time.time_ns() - frame.stamp_ns - FRAME_NS) / 1e6))
        if len(got) >= n_frames:
            done.set()
    audio_in = AudioInput(node, MIC_AUDIO, on_frame)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    stop = start_publisher()
    end = time.monotonic() + timeout_s
    try:
        while not done.is_set() and time.monotonic() < end:
            executor.spin_once(timeout_sec=0.05)
    finally:
        stop()
        executor.remove_node(node)
        node.destroy_node()
    return got, audio_in.drops.total


def main(argv: list[str] | None = None) -> None:
    """Run both publishers, print the table, write CSV and PNG."""
    parser = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    parser.add_argument('--frames', type=int, default=250, help='frames per run (12.5/s)')
    parser.add_argument('--domain-id', type=int, default=int(os.environ.get('ROS_DOMAIN_ID',
                                                                            '77')))
    parser.add_argument('--out', type=Path, default=Path('out/bench_transport'))
    opts = parser.parse_args(argv)
    os.environ['ROS_DOMAIN_ID'] = str(opts.domain_id)
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    opts.out.mkdir(parents=True, exist_ok=True)
    wav = Path(tempfile.mkdtemp()) / 'noise.wav'
    rng = np.random.default_rng(0)
    write_wav(wav, (rng.standard_normal(FRAME_SAMPLES * opts.frames) * 3000).astype(np.int16))
    timeout = opts.frames * 0.08 + 30
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=opts.domain_id)
    params = [Parameter('path', value=str(wav)), Parameter('start_delay_s', value=0.5),
              Parameter('wait_for_subscribers', value=1)]

    def in_process():
        source = WavSource(context=context, parameter_overrides=params)
        return lambda: (source.close(), source.destroy_node())

    def other_process():
        proc = subprocess.Popen([sys.executable, '-m', 'kame_ros.run', '--nodes', 'wav_source',
                                 '--ros-args', '-p', f'wav_source:path:={wav}',
                                 '-p', 'wav_source:start_delay_s:=0.5',
                                 '-p', 'wav_source:wait_for_subscribers:=1'],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return lambda: (proc.terminate(), proc.wait(10))

    results = {}
    for name, publisher in (('same process (baseline)', in_process),
                            ('two processes', other_process)):
        print(f'[bench] {name}: {opts.frames} frames at 12.5 Hz '
              f'(~{opts.frames * 0.08 + 2:.0f} s)...', flush=True)
        results[name] = receive(context, opts.frames, timeout, publisher)
    rclpy.shutdown(context=context)

    rows = [LatencyStats.of(name, [lat for _, lat in got]) for name, (got, _) in results.items()]
    lost = [opts.frames - len(got) for got, _ in results.values()]
    drops = [d for _, d in results.values()]
    print(f'\nAudio transport latency, frame complete -> received ({FRAME_SAMPLES} samples, '
          f'{MIC_AUDIO.name}, RELIABLE depth {MIC_AUDIO.qos.depth})\n')
    report = table(rows, rows[0], {'lost': lost, 'dropped': drops})
    print(report)
    (opts.out / 'transport.md').write_text(report + '\n')
    with open(opts.out / 'transport.csv', 'w') as f:
        f.write('run,seq,latency_ms\n')
        for name, (got, _) in results.items():
            f.writelines(f'{name},{seq},{lat:.4f}\n' for seq, lat in got)
    plot(results, opts.out / 'transport.png')
    print(f'\nwrote {opts.out}/transport.md, transport.csv, transport.png')


def plot(results: dict, path: Path) -> None:
    """Per-frame latency of each run."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 3.5))
    for name, (got, _) in results.items():
        if got:
            seq, lat = zip(*got)
            ax.plot(seq, lat, '.-', ms=3, lw=0.6, label=name)
    ax.set_xlabel('frame (80 ms each)')
    ax.set_ylabel('latency ms')
    ax.set_title('audio/mic transport latency per frame')
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == '__main__':
    main()
