# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros_run: run a set of kame_ros nodes in one process from a parameters YAML.

``ros2 launch kame_ros agent.launch.py`` starts one process per node with
the same YAML; this runs the same nodes and parameters where ros2 launch is
not installed (or when one process is wanted, e.g. on a small robot).
Both read the YAML through kame_ros.ros.config, so node sections
(``/**/stt``, ``stt``) and the ``/**`` wildcard mean the same in both, and
``--input``/``--output`` swap the sound card for WAV files exactly as the
launch file's ``input_wav``/``output_wav`` do.
"""
import argparse
from pathlib import Path
import sys

from kame_ros.nodes.registry import node_class, NODE_MODULES
from kame_ros.ros.config import ConfigError, headless_nodes, nodes_in_config
from kame_ros.ros.spin import run_nodes

DEFAULT_CONFIG = Path(__file__).resolve().parent.parent / 'config' / 'agent.yaml'


def find_default_config() -> Path:
    """Return config/agent.yaml from the source tree, or from the installed share directory."""
    if DEFAULT_CONFIG.exists():
        return DEFAULT_CONFIG
    from ament_index_python.packages import get_package_share_directory
    return Path(get_package_share_directory('kame_ros')) / 'config' / 'agent.yaml'


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
    names, headless = headless_nodes(names, opts.input, opts.output)
    if not names:
        sys.exit(f'kame_ros_run: {config} configures no known node; use --nodes')
    classes = [node_class(n) for n in names]
    print(f'kame_ros_run: starting {", ".join(names)} with {config}', flush=True)
    args = ['kame_ros_run', '--ros-args', '--params-file', str(config)]
    for node, params in headless.items():
        for key, value in params.items():
            args += ['-p', f'{node}:{key}:={value}']
    args += ros_args[1:] if ros_args else []
    run_nodes(classes, args)


if __name__ == '__main__':
    main()
