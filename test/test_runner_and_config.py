# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The one-process runner and the YAML/launch/entry-point contract."""
import ast
import configparser
from dataclasses import fields
from pathlib import Path
import re
import runpy

import numpy as np
import pytest
import yaml

from kame_ros.audio.wav import read_wav_24k, write_wav
from kame_ros.nodes.registry import node_class, NODE_MODULES
from kame_ros.ros.config import (ConfigError, headless_nodes, node_of_key, node_parameters,
                                 nodes_in_config)

ROOT = Path(__file__).resolve().parents[1]


def entry_points() -> set[str]:
    tree = ast.parse((ROOT / 'kame_ros' / 'setup.py').read_text())
    nodes = next(n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                 and getattr(n.targets[0], 'id', '') == 'NODES')
    return {ast.literal_eval(e) for e in nodes.elts}


def test_every_config_node_is_registered_with_an_executable():
    assert entry_points() == set(NODE_MODULES)
    for config in (ROOT / 'kame_ros' / 'config').glob('*.yaml'):
        data = yaml.safe_load(config.read_text())
        names = [node_of_key(key) for key in data]
        assert all(key.startswith('/**/') for key in data), 'sections apply in any namespace'
        assert set(names) <= set(NODE_MODULES), f'{config.name}: unknown nodes'
        assert nodes_in_config(config, NODE_MODULES) == names
        for name in names:
            params = node_parameters(data, name)
            cls = node_class(name)
            module = __import__(cls.__module__, fromlist=['x'])
            source = Path(module.__file__).read_text()
            declared = set(re.findall(r"declare\(\s*self,\s*'(\w+)'", source))
            for settings in re.findall(r'declare_settings\(self, (\w+)\)', source):
                declared |= {f.name for f in fields(getattr(module, settings))}
            if 'enable_autostart(self)' in source:
                declared.add('autostart')
            assert set(params) <= declared, f'{config.name}:{name} sets undeclared parameters'


def test_one_reader_for_wildcards_namespaces_and_plain_keys(tmp_path):
    config = tmp_path / 'robot.yaml'
    config.write_text(yaml.safe_dump({
        '/**': {'ros__parameters': {'use_sim_time': True}},
        '/**/oracle': {'ros__parameters': {'max_words': 7}},
        'stt': {'ros__parameters': {'threads': 1}},
        '/robot1/frontend': {'ros__parameters': {'backend': 'tts'}},
        '/**/nav2_controller': {'ros__parameters': {'x': 1}}}, sort_keys=False))
    assert nodes_in_config(config, NODE_MODULES) == ['oracle', 'stt', 'frontend']
    data = yaml.safe_load(config.read_text())
    assert node_parameters(data, 'oracle') == {'use_sim_time': True, 'max_words': 7}
    for bad, message in (('- a list', 'not a ROS 2 parameters file'),
                         ('oracle: {max_words: 3}', 'has no ros__parameters'),
                         ('oracle: [', 'not valid YAML')):
        config.write_text(bad)
        with pytest.raises(ConfigError, match=message):
            nodes_in_config(config, NODE_MODULES)
    with pytest.raises(ConfigError, match='cannot read'):
        nodes_in_config(tmp_path / 'nope.yaml', NODE_MODULES)


def test_headless_swaps_sound_card_for_files():
    names, params = headless_nodes(['audio_capture', 'audio_playback', 'stt', 'oracle',
                                    'frontend'], 'q.wav', 'a.wav')
    assert names == ['wav_source', 'stt', 'oracle', 'frontend', 'wav_sink']
    assert params['wav_source']['wait_for_subscribers'] == 2
    assert params['wav_source']['trailing_silence_s'] > 5, 'the answer needs an open mic'
    assert params['wav_sink']['path'] == 'a.wav'
    assert headless_nodes(['stt'], '', '') == (['stt'], {})


def test_launch_file_arguments_match_the_yaml():
    launch = runpy.run_path(str(ROOT / 'kame_ros' / 'launch' / 'agent.launch.py'))
    agent = yaml.safe_load((ROOT / 'kame_ros' / 'config' / 'agent.yaml').read_text())
    for argument, (node, parameter, choices) in launch['OVERRIDES'].items():
        assert parameter in node_parameters(agent, node), f'{argument} -> unknown {node}'
        if choices:
            assert node_parameters(agent, node)[parameter] in choices, argument
    scripts = configparser.ConfigParser()
    scripts.read(ROOT / 'kame_ros' / 'setup.cfg')
    assert scripts['install']['install_scripts'] == '$base/lib/kame_ros'


def test_runner_runs_source_and_sink_in_one_process(tmp_path, processes):
    signal = (np.random.default_rng(2).standard_normal(1920 * 10) * 2000).astype(np.int16)
    write_wav(tmp_path / 'q.wav', signal)
    proc = processes.start(
        'kame_ros_run', '--nodes', 'wav_source', 'wav_sink', '--input', str(tmp_path / 'q.wav'),
        '--output', str(tmp_path / 'a.wav'), '--ros-args',
        '-p', 'wav_source:wait_for_subscribers:=1', '-p', 'wav_source:trailing_silence_s:=0.0',
        '-p', 'wav_sink:idle_timeout_s:=0.5', '-r', 'wav_sink:audio/speaker:=audio/mic')
    assert proc.wait(timeout=30) == 0, processes.log(proc)
    assert np.array_equal(read_wav_24k(tmp_path / 'a.wav'), signal)
    log = processes.log(proc)
    assert 'starting wav_source, wav_sink' in log and 'Traceback' not in log


def test_runner_refuses_bad_config_and_input_at_once(tmp_path, processes):
    (tmp_path / 'bad.yaml').write_text('oracle: [')
    for args, message in ((['--config', str(tmp_path / 'bad.yaml')], 'not valid YAML'),
                          (['--config', str(tmp_path / 'nope.yaml')], 'cannot read'),
                          (['--input', str(tmp_path / 'nope.wav')], 'no such file'),
                          (['--models', str(tmp_path / 'nope')], 'no such directory')):
        proc = processes.start('kame_ros_run', *args)
        assert proc.wait(timeout=20) != 0
        log = processes.log(proc)
        assert message in log and 'Traceback' not in log, log


def test_runner_reads_wildcard_sections_under_a_namespace(tmp_path, processes, ros):
    """The same YAML as the launch test: /** and /**/node sections apply under -r __ns."""
    from rcl_interfaces.srv import GetParameters

    from polling import wait_for
    config = tmp_path / 'robot.yaml'
    config.write_text(yaml.safe_dump({
        '/**': {'ros__parameters': {'use_sim_time': False}},
        '/**/oracle': {'ros__parameters': {'backend': 'llama_cpp', 'max_tokens': 7}}}))
    proc = processes.start('kame_ros_run', '--config', str(config), '--ros-args',
                           '-r', '__ns:=/robot1')
    node = ros.node('param_probe')
    client = node.create_client(GetParameters, '/robot1/oracle/get_parameters')
    assert client.wait_for_service(60), processes.log(proc)
    future = client.call_async(GetParameters.Request(names=['max_tokens', 'backend']))
    assert wait_for(future.done, 10)
    values = future.result().values
    assert (values[0].integer_value, values[1].string_value) == (7, 'llama_cpp')
    assert 'starting oracle with' in processes.log(proc), 'only the node sections start'
