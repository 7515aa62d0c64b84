# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The one-process runner and the YAML/launch/entry-point contract."""
import ast
import configparser
from pathlib import Path
import re

import numpy as np
import yaml

from kame_ros.audio.wav import read_wav_24k, write_wav
from kame_ros.nodes.registry import node_class, NODE_MODULES
from kame_ros.run import nodes_in_config

ROOT = Path(__file__).resolve().parents[1]


def entry_points() -> set[str]:
    tree = ast.parse((ROOT / 'setup.py').read_text())
    nodes = next(n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                 and getattr(n.targets[0], 'id', '') == 'NODES')
    return {ast.literal_eval(e) for e in nodes.elts}


def test_every_config_node_is_registered_with_an_executable():
    assert entry_points() == set(NODE_MODULES)
    for config in (ROOT / 'config').glob('*.yaml'):
        data = yaml.safe_load(config.read_text())
        assert set(data) <= set(NODE_MODULES), f'{config.name}: unknown nodes'
        assert nodes_in_config(config) == list(data)
        for name, section in data.items():
            params = section['ros__parameters']
            cls = node_class(name)
            source = Path(__import__(cls.__module__, fromlist=['x']).__file__).read_text()
            declared = set(re.findall(r"declare\(\s*self,\s*'(\w+)'", source))
            if 'enable_autostart(self)' in source:
                declared.add('autostart')
            assert set(params) <= declared, f'{config.name}:{name} sets undeclared parameters'


def test_launch_file_starts_the_yaml_nodes():
    source = (ROOT / 'launch' / 'agent.launch.py').read_text()
    tree = ast.parse(source)
    functions = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                for a in n.names}
    assert 'generate_launch_description' in functions
    assert {'Node', 'OpaqueFunction', 'DeclareLaunchArgument'} <= imported
    assert 'executable=name' in source and 'parameters=[config, overrides[name]]' in source
    overrides = next(n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                     and getattr(n.targets[0], 'id', '') == 'OVERRIDES')
    agent = yaml.safe_load((ROOT / 'config' / 'agent.yaml').read_text())
    for argument, target in ast.literal_eval(overrides).items():
        node, parameter = target
        assert parameter in agent[node]['ros__parameters'], f'{argument} -> unknown {target}'

    scripts = configparser.ConfigParser()
    scripts.read(ROOT / 'setup.cfg')
    assert scripts['install']['install_scripts'] == '$base/lib/kame_ros'


def test_runner_runs_source_and_sink_in_one_process(tmp_path, processes):
    signal = (np.random.default_rng(2).standard_normal(1920 * 10) * 2000).astype(np.int16)
    write_wav(tmp_path / 'q.wav', signal)
    proc = processes.start(
        'kame_ros_run', '--config', str(ROOT / 'config' / 'wav_io.yaml'), '--ros-args',
        '-p', f'wav_source:path:={tmp_path / "q.wav"}', '-p', 'wav_source:wait_for_subscribers:=1',
        '-p', f'wav_sink:path:={tmp_path / "a.wav"}', '-p', 'wav_sink:idle_timeout_s:=0.5',
        '-r', 'wav_sink:audio/speaker:=audio/mic')
    assert proc.wait(timeout=30) == 0, processes.log(proc)
    assert np.array_equal(read_wav_24k(tmp_path / 'a.wav'), signal)
    log = processes.log(proc)
    assert 'starting wav_source, wav_sink' in log and 'Traceback' not in log
