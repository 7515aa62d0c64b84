# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Start the kame_ros agent on a robot: one process per node of the YAML.

    ros2 launch kame_ros agent.launch.py [config:=/path/agent.yaml] [namespace:=robot1]
        [frontend_backend:=moshi|tts] [checkpoint:=kyutai/moshiko-pytorch-bf16]
        [stt_engine:=whisper|sherpa_onnx] [stt_model:=/models/zipformer]
        [llm_backend:=transformers|llama_cpp|openai] [llm_model:=/models/llm.gguf]
        [llm_base_url:=http://gpu-box:8000/v1]

Each top-level key of the parameters file is a node name and an executable
of this package, exactly as ``kame_ros_run`` reads it, so both start the
same nodes with the same parameters. A non-empty launch argument overrides
the YAML for its node.
"""
import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
import yaml

# launch argument -> (node, parameter) it overrides
OVERRIDES = {
    'frontend_backend': ('frontend', 'backend'),
    'checkpoint': ('frontend', 'checkpoint'),
    'stt_engine': ('stt', 'engine'),
    'stt_model': ('stt', 'model'),
    'llm_backend': ('oracle', 'backend'),
    'llm_model': ('oracle', 'model'),
    'llm_base_url': ('oracle', 'base_url'),
}


def _nodes(context):
    config = LaunchConfiguration('config').perform(context)
    namespace = LaunchConfiguration('namespace').perform(context)
    with open(config) as f:
        names = [key.strip('/') for key in (yaml.safe_load(f) or {})]
    overrides = {name: {} for name in names}
    for argument, (node, parameter) in OVERRIDES.items():
        value = LaunchConfiguration(argument).perform(context)
        if value and node in overrides:
            overrides[node][parameter] = value
    return [Node(package='kame_ros', executable=name, name=name, namespace=namespace,
                 parameters=[config, overrides[name]], output='screen', emulate_tty=True)
            for name in names]


def generate_launch_description():
    """Launch arguments, then the nodes the YAML configures."""
    default_config = os.path.join(get_package_share_directory('kame_ros'), 'config',
                                  'agent.yaml')
    arguments = [
        DeclareLaunchArgument('config', default_value=default_config,
                              description='ROS 2 parameters YAML; its keys are the nodes'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='Namespace for every node and relative topic'),
    ]
    arguments += [DeclareLaunchArgument(name, default_value='',
                                        description=f'{node}: {parameter} (empty = YAML)')
                  for name, (node, parameter) in OVERRIDES.items()]
    return LaunchDescription(arguments + [OpaqueFunction(function=_nodes)])
