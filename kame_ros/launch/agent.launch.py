# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Start the kame_ros agent on a robot: one process per node of the YAML.

    ros2 launch kame_ros agent.launch.py [config:=/path/agent.yaml] [namespace:=robot1]
        [use_sim_time:=false] [autostart:=true]
        [frontend_backend:=moshi|tts] [checkpoint:=kyutai/moshiko-pytorch-bf16]
        [stt_engine:=whisper|sherpa_onnx] [stt_model:=/models/zipformer]
        [llm_backend:=transformers|llama_cpp|openai] [llm_model:=/models/llm.gguf]
        [llm_base_url:=http://gpu-box:8000/v1]
        [input_wav:=question.wav] [output_wav:=answer.wav] [backend_nice:=0]
        [audio_common_in:=/audio/audio_stamped] [audio_common_type:=AudioDataStamped]
        [audio_common_out:=false]

The YAML is read through kame_ros.ros.config, as ``kame_ros_run`` reads it:
node sections (``/**/stt``) start that executable, ``/**`` applies to every
node. A non-empty launch argument overrides the YAML for its node; a value
outside an argument's choices, or a config that cannot be read, ends the
launch with an error. ``input_wav``/``output_wav`` run headless (files
instead of the sound card); the launch then ends by itself once the answer
has been written. ``audio_common_in``/``audio_common_out`` swap the sound
card for a robot's audio_common topics (audio_capture, audio_play).
``autostart:=false`` leaves the lifecycle transitions of
stt, oracle and frontend to a lifecycle manager (nav2's convention).
``backend_nice`` lowers the CPU priority of the stt and oracle processes
(``nice -n``): on a machine where they share cores with the front-end, the
80 ms frame loop then comes first and the slow back-end takes what is left.
"""
import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import (DeclareLaunchArgument, EmitEvent, LogInfo, OpaqueFunction,
                            RegisterEventHandler)
from launch.event_handlers import OnProcessExit
from launch.events import Shutdown
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from kame_ros.frontend.engine import FrontEndConfig
from kame_ros.nodes.registry import BACKEND_NODES, NODE_MODULES
from kame_ros.oracle.backends.factory import BackendConfig
from kame_ros.ros.audio_common import messages, TYPES as AUDIO_COMMON_TYPES
from kame_ros.ros.config import audio_common_nodes, headless_nodes, nodes_in_config
from kame_ros.settings import choices
from kame_ros.stt.engine import SttConfig

LIFECYCLE_NODES = ('stt', 'oracle', 'frontend')
BOOLEAN = ['true', 'false']
# launch argument -> (node, parameter it overrides, allowed values or None for any); the
# choices are the engines' own settings (kame_ros.settings), not a copy of them.
OVERRIDES = {
    'frontend_backend': ('frontend', 'backend', choices(FrontEndConfig, 'backend')),
    'checkpoint': ('frontend', 'checkpoint', None),
    'stt_engine': ('stt', 'engine', choices(SttConfig, 'engine')),
    'stt_model': ('stt', 'model', None),
    'llm_backend': ('oracle', 'backend', choices(BackendConfig, 'backend')),
    'llm_model': ('oracle', 'model', None),
    'llm_base_url': ('oracle', 'base_url', None),
}


def _nodes(context):
    def arg(name: str) -> str:
        return LaunchConfiguration(name).perform(context)
    config = arg('config')
    names, params = headless_nodes(nodes_in_config(config, NODE_MODULES),
                                   arg('input_wav'), arg('output_wav'))
    audio_out = arg('audio_common_out') == 'true'
    if arg('audio_common_in') or audio_out:
        messages()  # AudioCommonMissing: one line, how to install it
    names, bridged = audio_common_nodes(names, arg('audio_common_in'),
                                        arg('audio_common_type'), audio_out)
    params.update(bridged)
    if arg('input_wav') and not os.path.isfile(arg('input_wav')):
        raise FileNotFoundError(f'input_wav: no such file {arg("input_wav")}')
    for name in names:
        params.setdefault(name, {})['use_sim_time'] = arg('use_sim_time') == 'true'
        if name in LIFECYCLE_NODES:
            params[name]['autostart'] = arg('autostart') == 'true'
    for argument, (node, parameter, _) in OVERRIDES.items():
        if arg(argument) and node in params:
            params[node][parameter] = arg(argument)
    nice = arg('backend_nice')
    models = {}
    if arg('models_dir'):
        if not os.path.isdir(arg('models_dir')):
            raise FileNotFoundError(f'models_dir: no such directory {arg("models_dir")}')
        models = {'KAME_ROS_MODELS': os.path.abspath(arg('models_dir'))}
    actions = [Node(package='kame_ros', executable=name, name=name, namespace=arg('namespace'),
                    parameters=[config, params[name]], output='screen', emulate_tty=True,
                    additional_env=models,
                    prefix=f'nice -n {nice}' if name in BACKEND_NODES and nice != '0' else None)
               for name in names]
    sink = next((a for a, n in zip(actions, names) if n == 'wav_sink'), None)
    if sink is not None:
        actions.append(RegisterEventHandler(OnProcessExit(
            target_action=sink, on_exit=[
                LogInfo(msg=f'answer written to {arg("output_wav")}; shutting down'),
                EmitEvent(event=Shutdown(reason='headless run finished'))])))
    return actions


def generate_launch_description():
    """Declare the launch arguments, then start the nodes the YAML configures."""
    default_config = os.path.join(get_package_share_directory('kame_ros'), 'config',
                                  'agent.yaml')
    arguments = [
        DeclareLaunchArgument('config', default_value=default_config,
                              description='ROS 2 parameters YAML; its node sections are started'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='Namespace for every node and relative topic'),
        DeclareLaunchArgument('use_sim_time', default_value='false', choices=BOOLEAN,
                              description='Stamp with /clock (bag replay, simulation)'),
        DeclareLaunchArgument('autostart', default_value='true', choices=BOOLEAN,
                              description='Configure and activate the lifecycle nodes at once '
                                          '(false: leave it to a lifecycle manager)'),
        DeclareLaunchArgument('input_wav', default_value='',
                              description='Headless: this WAV is the microphone'),
        DeclareLaunchArgument('output_wav', default_value='',
                              description='Headless: write the speaker to this WAV, then end'),
        DeclareLaunchArgument('audio_common_in', default_value='',
                              description="Hear this audio_common topic (audio_capture's "
                                          'audio/audio_stamped) instead of the sound card'),
        DeclareLaunchArgument('audio_common_type', default_value='AudioDataStamped',
                              choices=list(AUDIO_COMMON_TYPES),
                              description='Message type of audio_common_in'),
        DeclareLaunchArgument('audio_common_out', default_value='false', choices=BOOLEAN,
                              description='Speak as audio_common messages on audio/agent/ '
                                          '(for audio_play) instead of the sound card'),
        DeclareLaunchArgument('models_dir', default_value='',
                              description='Take model files from this folder first '
                                          '(KAME_ROS_MODELS; kame_ros_models export writes one)'),
        DeclareLaunchArgument('backend_nice', default_value='0',
                              choices=[str(n) for n in range(20)],
                              description='CPU niceness (0-19) of the stt and oracle processes: '
                                          'the front-end keeps the cores it needs'),
    ]
    arguments += [DeclareLaunchArgument(name, default_value='',
                                        choices=[''] + list(allowed) if allowed else None,
                                        description=f'{node}: {parameter} (empty = YAML)')
                  for name, (node, parameter, allowed) in OVERRIDES.items()]
    return LaunchDescription(arguments + [OpaqueFunction(function=_nodes)])
