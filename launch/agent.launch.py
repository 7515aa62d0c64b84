# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Start the kame_ros agent on a robot: one process per node of the YAML.

    ros2 launch kame_ros agent.launch.py [config:=/path/agent.yaml] [namespace:=robot1]

Each top-level key of the parameters file is a node name and an executable
of this package, exactly as ``kame_ros_run`` reads it, so both start the
same nodes with the same parameters.
"""
import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
import yaml


def _nodes(context):
    config = LaunchConfiguration('config').perform(context)
    namespace = LaunchConfiguration('namespace').perform(context)
    with open(config) as f:
        names = [key.strip('/') for key in (yaml.safe_load(f) or {})]
    return [Node(package='kame_ros', executable=name, name=name, namespace=namespace,
                 parameters=[config], output='screen', emulate_tty=True)
            for name in names]


def generate_launch_description():
    """Launch arguments, then the nodes the YAML configures."""
    default_config = os.path.join(get_package_share_directory('kame_ros'), 'config',
                                  'agent.yaml')
    return LaunchDescription([
        DeclareLaunchArgument('config', default_value=default_config,
                              description='ROS 2 parameters YAML; its keys are the nodes'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='Namespace for every node and relative topic'),
        OpaqueFunction(function=_nodes),
    ])
