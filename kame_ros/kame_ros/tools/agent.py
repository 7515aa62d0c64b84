# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros_agent: the whole tandem agent in one process, answering a spoken question.

    kame_ros_agent --input question.wav        # a recorded question
    kame_ros_agent --bag conversation_bag      # the audio/mic topic of a rosbag2
    kame_ros_agent                             # live: microphone and speaker
    kame_ros_agent --audio-common-in /audio/audio_stamped --audio-common-out   # audio_common

STT, oracle and front-end start from config/agent.yaml (overridable), the
input waits until all three are active, and a monitor records everything.
In ``--out`` it writes answer.wav (the agent's voice), transcript.md, the
typed events as events.jsonl, the timeline as timeline.csv / timeline.md /
timeline.png and, with --record, a rosbag2 (MCAP) of every agent topic.
"""
import argparse
from pathlib import Path
import sys
import threading
import time

import rclpy
from rclpy.parameter import Parameter

from kame_ros.models import model_dir, ModelError, use_models_dir
from kame_ros.nodes.registry import node_class
from kame_ros.ros.audio_common import AudioCommonMissing, messages
from kame_ros.ros.config import ConfigError, models_in_config, read_parameters_file
from kame_ros.ros.spin import ignore_stop_signals, init_ros, Spinner, Stopped
from kame_ros.run import add_audio_common_options, add_models_option, find_default_config
from kame_ros.tools.inputs import check_bag, check_input_wav, check_out, InputError
from kame_ros.tools.monitor import AgentMonitor


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """Our options, then ROS arguments after --ros-args."""
    ros_args: list[str] = []
    if '--ros-args' in argv:
        i = argv.index('--ros-args')
        argv, ros_args = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(prog='kame_ros_agent', description=__doc__.strip().split('\n')[0])
    src = p.add_mutually_exclusive_group()
    src.add_argument('--input', type=Path, help='WAV file spoken into the agent')
    src.add_argument('--bag', type=Path, help='rosbag2 whose microphone topic is replayed')
    p.add_argument('--topic', default='/audio/mic',
                   help='--bag: the microphone topic in the bag (default /audio/mic)')
    p.add_argument('--out', type=Path, default=Path('out/agent'))
    p.add_argument('--config', type=Path, default=None, help='parameters YAML')
    p.add_argument('--frontend', choices=['tts', 'moshi'], default='tts',
                   help='front-end backend (moshi needs --checkpoint or a hub connection)')
    p.add_argument('--checkpoint', default='', help='moshi/KAME checkpoint dir or HF repo')
    p.add_argument('--mode', default='auto', help='moshi oracle mode')
    p.add_argument('--oracle-backend', default='', help='transformers, llama_cpp or openai')
    p.add_argument('--no-oracle', action='store_true', help='front-end alone (no back-end)')
    p.add_argument('--record', action='store_true', help='write out/bag (MCAP) too')
    p.add_argument('--idle-s', type=float, default=4.0,
                   help='end a headless run after the input ended and the agent was quiet')
    p.add_argument('--max-answer-s', type=float, default=60.0,
                   help='longest the agent may talk after a recorded question')
    p.add_argument('--realtime-factor', type=float, default=1.0,
                   help='--input/--bag pace: 2 = twice real time, 0 = as fast as the agent '
                        'keeps up (WAV only); the timeline stays on the input time')
    p.add_argument('--ready-timeout-s', type=float, default=300.0)
    add_audio_common_options(p)
    add_models_option(p)
    return p.parse_args(argv), ros_args


def ros_arguments(opts: argparse.Namespace, ros_args: list[str]) -> list[str]:
    """Params file plus the overrides the options imply."""
    config = opts.config or find_default_config()
    args = ['kame_ros_agent', '--ros-args', '--params-file', str(config),
            '-p', f'frontend:backend:={opts.frontend}', '-p', f'frontend:mode:={opts.mode}']
    if opts.checkpoint:
        args += ['-p', f'frontend:checkpoint:={opts.checkpoint}']
    if opts.oracle_backend:
        args += ['-p', f'oracle:backend:={opts.oracle_backend}']
    if replays_clock(opts):  # every stamp on the input's time (/clock from the input)
        args += ['-p', 'use_sim_time:=true']
    return args + ros_args


def replays_clock(opts: argparse.Namespace) -> bool:
    """
    Tell whether the input publishes its own time on /clock, and every node runs on it.

    A bag always does: its audio carries the bag's stamps, and text stamped
    on the wall clock beside it would put one conversation on two clocks.
    """
    return opts.bag is not None or opts.realtime_factor != 1.0


def settled(node) -> bool:
    """Tell whether ``node`` has no frame queued and its engine is not working on one."""
    worker = getattr(node, 'worker', None)
    if worker is not None and len(worker):
        return False
    return node.engine is None or node.engine.idle  # every engine contract has idle


def finished(node) -> bool:
    """Tell whether ``node`` is settled and has nothing left to say (a tts reply to play)."""
    return settled(node) and getattr(node.engine, 'quiet', True)


def kept_up(node, published: int) -> bool:
    """Tell whether ``node`` received and processed every published frame (--realtime-factor 0)."""
    worker = getattr(node, 'worker', None)
    return (worker is None or worker.received >= published) and settled(node)


def wait_ready(nodes: list, timeout_s: float) -> None:
    """Block until every lifecycle node loaded its model (or one of them failed)."""
    end = time.monotonic() + timeout_s
    while not all(node.engine is not None for node in nodes):
        failed = [f'{node.get_name()}: {node.error}' for node in nodes if node.error]
        if failed:
            raise RuntimeError('; '.join(failed))
        if time.monotonic() > end:
            raise RuntimeError('agent nodes did not become active in time')
        time.sleep(0.2)


def run_agent(opts: argparse.Namespace, ros_args: list[str]) -> AgentMonitor:
    """Run one conversation; returns the monitor with everything it saw."""
    init_ros(ros_arguments(opts, ros_args))
    spinner = Spinner()
    headless = opts.input is not None or opts.bag is not None
    input_done = threading.Event() if headless else None
    if opts.record:
        opts.out.mkdir(parents=True, exist_ok=True)
    monitor = AgentMonitor(input_done, opts.idle_s,
                           opts.out / 'bag' if opts.record else None)
    monitor.expect_replies = not opts.no_oracle
    try:
        names = ['stt', 'frontend'] + ([] if opts.no_oracle else ['oracle'])
        print(f'kame_ros_agent: starting {", ".join(names)} (models load now)...', flush=True)
        agents = [spinner.add(node_class(name)()) for name in names]
        spinner.add(monitor)
        # Under load Whisper may still be reading the last utterance when everything is quiet.
        monitor.working = lambda: [node.get_name() for node in agents if not finished(node)]
        wait_ready(agents, opts.ready_timeout_s)
        print('kame_ros_agent: ready', flush=True)
        # Microphone subscribers: stt, frontend, the monitor (and its bag recorder).
        listeners = Parameter('wait_for_subscribers', value=3 + opts.record)
        if opts.input is not None:
            # The microphone stays open after the question: the front-end's output is clocked
            # by input frames, and the end of the turn is heard as silence.
            source = node_class('wav_source')(parameter_overrides=[
                Parameter('path', value=str(opts.input)), Parameter('start_delay_s', value=0.5),
                Parameter('trailing_silence_s', value=opts.max_answer_s), listeners,
                Parameter('realtime_factor', value=float(opts.realtime_factor)),
                Parameter('clock', value=opts.realtime_factor != 1.0)])
            if opts.realtime_factor == 0:  # each frame once the agent has taken the last one
                source.gate = lambda: all(kept_up(node, source.out.seq) for node in agents)
        elif opts.bag is not None:
            source = node_class('bag_play')(parameter_overrides=[
                Parameter('path', value=str(opts.bag)), Parameter('topics', value=[opts.topic]),
                Parameter('remap_to', value='/audio/mic'),
                Parameter('trailing_silence_s', value=opts.max_answer_s), listeners,
                Parameter('rate', value=max(opts.realtime_factor, 0.01)),
                Parameter('clock', value=replays_clock(opts))])
        elif opts.audio_common_in:
            source = node_class('audio_common_in')(parameter_overrides=[
                Parameter('audio_topic', value=opts.audio_common_in),
                Parameter('audio_type', value=opts.audio_common_type)])
        else:
            source = node_class('audio_capture')()
        if opts.audio_common_out:
            spinner.add(node_class('audio_common_out')())
        elif not headless:
            spinner.add(node_class('audio_playback')())
        if not headless:
            print('kame_ros_agent: listening (Ctrl-C to stop)', flush=True)
        spinner.add(source)
        if input_done is not None:
            spoken = getattr(source, 'file_done', source.finished)
            threading.Thread(target=lambda: (spoken.wait(), input_done.set()),
                             daemon=True).start()
            while not (monitor.finished.wait(0.2) or source.finished.is_set()
                       or spinner.stop.is_set()):
                pass
            if not monitor.finished.is_set() and monitor.incomplete():
                # (a full-duplex front-end that keeps making sound is not an error)
                monitor.error = (f'the conversation was not complete {opts.max_answer_s:.0f} s '
                                 f'after the input ended: {monitor.incomplete()}')
        else:
            spinner.wait()
    except Stopped as stop:
        if headless:  # a live session ends with Ctrl-C; a recorded question is cut short
            monitor.error = (f'stopped by {stop.signal_name} before the conversation was over '
                             f'({monitor.incomplete() or "it was complete"}); wrote what it had')
    finally:
        ignore_stop_signals()
        spinner.shutdown()
        rclpy.try_shutdown()
    return monitor


def check_inputs(opts: argparse.Namespace) -> None:
    """Refuse bad options, --input/--bag/--topic/--out before any model loads (InputError)."""
    if opts.realtime_factor < 0 or (opts.bag is not None and opts.realtime_factor == 0):
        raise InputError('--realtime-factor must be > 0 (0, as fast as possible: --input only)')
    if opts.input is not None:
        check_input_wav(opts.input)
    if opts.bag is not None:
        check_bag(opts.bag, opts.topic)
    if opts.audio_common_in and (opts.input is not None or opts.bag is not None):
        raise InputError('--audio-common-in is a live microphone; not with --input or --bag '
                         '(a bag of audio_common audio: --bag DIR --topic /audio/audio_stamped)')
    if opts.audio_common_in or opts.audio_common_out:
        try:
            messages()
        except AudioCommonMissing as err:
            raise InputError(str(err)) from None
    check_out(opts.out)
    check_models(opts)


def check_models(opts: argparse.Namespace) -> None:
    """Verify the pinned models the run loads (hashed only when new or changed), as InputError."""
    if opts.models:
        try:
            use_models_dir(opts.models)  # for the nodes too: they run in this process
        except ModelError as err:
            raise InputError(f'--models {err}') from None
    try:
        data = read_parameters_file(opts.config or find_default_config())
    except ConfigError as err:
        raise InputError(str(err)) from None
    overrides = {'frontend': {'backend': opts.frontend}}
    if opts.oracle_backend:
        overrides['oracle'] = {'backend': opts.oracle_backend}
    nodes = ['stt', 'frontend'] + ([] if opts.no_oracle else ['oracle'])
    for name in models_in_config(data, nodes, overrides):
        try:
            model_dir(name)
        except ModelError as err:
            raise InputError(str(err)) from None


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    opts, ros_args = parse(sys.argv[1:] if argv is None else argv)
    try:
        check_inputs(opts)
    except InputError as err:
        sys.exit(f'kame_ros_agent: {err}')
    try:
        monitor = run_agent(opts, ros_args)
    except RuntimeError as err:
        sys.exit(f'kame_ros_agent: {err}')
    monitor.write(opts.out)
    print((opts.out / 'transcript.md').read_text())
    print(f'kame_ros_agent: wrote {opts.out}/answer.wav, transcript.md, events.jsonl, '
          f'timeline.csv, timeline.md, timeline.png' + (', bag/' if opts.record else ''))
    if monitor.error:
        sys.exit(f'kame_ros_agent: {monitor.error}')


if __name__ == '__main__':
    main()
