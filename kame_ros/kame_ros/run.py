# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros_run: run a set of kame_ros nodes in one process from a parameters YAML.

``ros2 launch kame_ros agent.launch.py`` starts one process per node with
the same YAML; this runs the same nodes and parameters where ros2 launch is
not installed (or when one process is wanted, e.g. on a small robot).
Both read the YAML through kame_ros.ros.config, so node sections
(``/**/stt``, ``stt``) and the ``/**`` wildcard mean the same in both, and
``--input``/``--output`` swap the sound card for WAV files and
``--audio-common-in``/``--audio-common-out`` for a robot's audio_common topics
exactly as the launch file's ``input_wav``/``output_wav`` and
``audio_common_in``/``audio_common_out`` do.
"""
import argparse
from pathlib import Path
import sys

from kame_ros.models import ModelError, use_models_dir
from kame_ros.nodes.registry import node_class, NODE_MODULES
from kame_ros.ros.audio_common import AudioCommonMissing, messages, TYPES
from kame_ros.ros.config import (audio_common_nodes, ConfigError, headless_nodes,
                                 nodes_in_config)
from kame_ros.ros.spin import run_nodes

DEFAULT_CONFIG = Path(__file__).resolve().parent.parent / 'config' / 'agent.yaml'


def find_default_config() -> Path:
    """Return config/agent.yaml from the source tree, or from the installed share directory."""
    if DEFAULT_CONFIG.exists():
        return DEFAULT_CONFIG
    from ament_index_python.packages import get_package_share_directory
    return Path(get_package_share_directory('kame_ros')) / 'config' / 'agent.yaml'


def add_audio_common_options(parser: argparse.ArgumentParser) -> None:
    """Options for a robot's audio_common microphone and speaker (kame_ros_run, kame_ros_agent)."""
    parser.add_argument('--audio-common-in', default='', metavar='TOPIC',
                        help="hear an audio_common topic (audio_capture's audio/audio_stamped) "
                             'instead of the sound card')
    parser.add_argument('--audio-common-type', default='AudioDataStamped', choices=TYPES,
                        help='message type of --audio-common-in')
    parser.add_argument('--audio-common-out', action='store_true',
                        help='speak as audio_common messages (audio/agent/audio_stamped, '
                             'audio_info) for audio_play, instead of the sound card')


def add_models_option(parser: argparse.ArgumentParser) -> None:
    """Add --models DIR, the folder of model files (launch: models_dir:=)."""
    parser.add_argument('--models', default='', metavar='DIR',
                        help='take model files from DIR/<model>/ first (sets KAME_ROS_MODELS; '
                             'kame_ros_models export DIR writes one)')


def audio_common_choice(names: list[str], opts: argparse.Namespace) -> tuple[list[str], dict]:
    """Apply the audio_common options; raises AudioCommonMissing without audio_common_msgs."""
    if opts.audio_common_in or opts.audio_common_out:
        messages()
    return audio_common_nodes(names, opts.audio_common_in, opts.audio_common_type,
                              opts.audio_common_out)


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """Split our options from ROS arguments (everything after --ros-args)."""
    ros_args: list[str] = []
    if '--ros-args' in argv:
        i = argv.index('--ros-args')
        argv, ros_args = argv[:i], argv[i:]
    parser = argparse.ArgumentParser(prog='kame_ros_run', description=__doc__.split('\n')[0])
    parser.add_argument('--config', type=Path, default=None,
                        help='ROS 2 parameters YAML (default: config/agent.yaml)')
    parser.add_argument('--nodes', nargs='+', choices=sorted(NODE_MODULES),
                        help='nodes to start (default: every node the YAML configures)')
    parser.add_argument('--input', default='',
                        help='WAV file as the microphone (replaces audio_capture)')
    parser.add_argument('--output', default='',
                        help='WAV file for the speaker (replaces audio_playback)')
    add_audio_common_options(parser)
    add_models_option(parser)
    return parser.parse_args(argv), ros_args


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    opts, ros_args = parse(sys.argv[1:] if argv is None else argv)
    config = opts.config or find_default_config()
    try:
        names = opts.nodes or nodes_in_config(config, NODE_MODULES)
    except ConfigError as err:
        sys.exit(f'kame_ros_run: {err}')
    if opts.input and not Path(opts.input).is_file():
        sys.exit(f'kame_ros_run: --input {opts.input}: no such file')
    try:
        if opts.models:
            use_models_dir(opts.models)
    except ModelError as err:
        sys.exit(f'kame_ros_run: --models {err}')
    names, headless = headless_nodes(names, opts.input, opts.output)
    try:
        names, bridged = audio_common_choice(names, opts)
    except AudioCommonMissing as err:
        sys.exit(f'kame_ros_run: {err}')
    headless.update(bridged)
    if not names:
        sys.exit(f'kame_ros_run: {config} configures no known node; use --nodes')
    classes = [node_class(n) for n in names]
    print(f'kame_ros_run: starting {", ".join(names)} with {config}', flush=True)
    args = ['kame_ros_run', '--ros-args', '--params-file', str(config)]
    for node, params in headless.items():
        for key, value in params.items():
            args += ['-p', f'{node}:{key}:={value}']
    args += ros_args[1:] if ros_args else []
    try:
        run_nodes(classes, args)
    except ConfigError as err:  # a node refused its parameters
        sys.exit(f'kame_ros_run: {err}')


if __name__ == '__main__':
    main()
