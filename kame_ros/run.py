# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros_run: run a set of kame_ros nodes in one process from a launch YAML.

``ros2 launch kame_ros agent.launch.py`` starts one process per node with
the same YAML; this runs the same nodes and parameters where ros2 launch is
not installed (or when one process is wanted, e.g. on a small robot).
The YAML is a standard ROS 2 parameters file: each top-level key is a node
name, and those keys are also the default set of nodes to start.
"""
import argparse
from pathlib import Path
import sys

import yaml

from kame_ros.nodes.registry import node_class, NODE_MODULES
from kame_ros.ros.spin import run_nodes

DEFAULT_CONFIG = Path(__file__).resolve().parent.parent / 'config' / 'agent.yaml'


def nodes_in_config(path: Path) -> list[str]:
    """Node names the parameters file configures, in file order."""
    with open(path) as f:
        data = yaml.safe_load(f) or {}
    if not isinstance(data, dict):
        raise ValueError(f'{path}: not a ROS 2 parameters file (top level is not a mapping)')
    return [name.strip('/') for name in data if name.strip('/') in NODE_MODULES]


def find_default_config() -> Path:
    """config/agent.yaml from the source tree, or from the installed share directory."""
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
    return parser.parse_args(argv), ros_args


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    opts, ros_args = parse(sys.argv[1:] if argv is None else argv)
    config = opts.config or find_default_config()
    names = opts.nodes or nodes_in_config(config)
    if not names:
        sys.exit(f'kame_ros_run: {config} configures no known node; use --nodes')
    classes = [node_class(n) for n in names]
    print(f'kame_ros_run: starting {", ".join(names)} with {config}', flush=True)
    args = ['kame_ros_run', '--ros-args', '--params-file', str(config)]
    args += ros_args[1:] if ros_args else []
    run_nodes(classes, args)


if __name__ == '__main__':
    main()
