# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""ament_python build for kame_ros: one package, console scripts per node."""
from glob import glob

from setuptools import find_packages, setup

PACKAGE = 'kame_ros'

NODES = ['audio_capture', 'audio_playback', 'wav_source', 'wav_sink', 'bag_play', 'stt',
         'oracle', 'frontend', 'audio_common_in', 'audio_common_out']

setup(
    name=PACKAGE,
    version='0.1.0',
    packages=find_packages(exclude=['test']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + PACKAGE]),
        ('share/' + PACKAGE, ['package.xml', 'THIRD_PARTY_NOTICES.md']),
        ('share/' + PACKAGE + '/launch', glob('launch/*.launch.py')),
        ('share/' + PACKAGE + '/config', glob('config/*.yaml')),
    ],
    install_requires=['setuptools', 'numpy', 'pyyaml', 'soxr'],
    zip_safe=True,
    maintainer='kame_ros developers',
    maintainer_email='kame-ros@example.org',
    description='KAME tandem voice agent for robots over ROS 2',
    license='Apache-2.0',
    tests_require=['pytest'],
    entry_points={
        'console_scripts': [
            'kame_ros_run = kame_ros.run:main',
            'kame_ros_agent = kame_ros.tools.agent:main',
            'kame_ros_eval = kame_ros.tools.evaluate:main',
            'kame_ros_soak = kame_ros.tools.soak:main',
            'kame_ros_greeter = kame_ros.tools.greeter:main',
            'kame_ros_models = kame_ros.tools.models:main',
            'kame_ros_export_frontend = kame_ros.tools.export:main',
            'kame_ros_bench_export = kame_ros.bench.export:main',
            'kame_ros_bench_transport = kame_ros.bench.transport:main',
            'kame_ros_bench_oracle = kame_ros.bench.oracle:main',
            'kame_ros_bench_frontend = kame_ros.bench.frontend:main',
            'kame_ros_bench_stt = kame_ros.bench.stt:main',
            'kame_ros_bench_memory = kame_ros.bench.memory:main',
            'kame_ros_bench_knowledge = kame_ros.bench.knowledge:main',
            'kame_ros_bench_latency = kame_ros.bench.latency:main',
            'kame_ros_bench_fleet = kame_ros.bench.fleet:main',
            'kame_ros_bench_hearing = kame_ros.bench.hearing_cli:main',
            'kame_ros_fetch_sherpa_model = kame_ros.stt.fetch:main',
        ] + [f'{node} = kame_ros.nodes.{node}:main' for node in NODES],
    },
)
