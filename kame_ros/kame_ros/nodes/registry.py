# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Node name -> class, shared by the one-process runner and the tests.

Names equal the console-script (executable) names and the top-level keys of
config/*.yaml, so the launch file, the runner and the YAML cannot disagree.
"""
from importlib import import_module

NODE_MODULES = {
    'audio_capture': ('kame_ros.nodes.audio_capture', 'AudioCapture'),
    'audio_playback': ('kame_ros.nodes.audio_playback', 'AudioPlayback'),
    'wav_source': ('kame_ros.nodes.wav_source', 'WavSource'),
    'wav_sink': ('kame_ros.nodes.wav_sink', 'WavSink'),
    'bag_play': ('kame_ros.nodes.bag_play', 'BagPlay'),
    'audio_common_in': ('kame_ros.nodes.audio_common_in', 'AudioCommonIn'),
    'audio_common_out': ('kame_ros.nodes.audio_common_out', 'AudioCommonOut'),
    'stt': ('kame_ros.nodes.stt', 'SttNode'),
    'oracle': ('kame_ros.nodes.oracle', 'OracleNode'),
    'frontend': ('kame_ros.nodes.frontend', 'FrontEndNode'),
}
# Slow and bursty: they may wait for a core, the front-end's frame loop may not
# (the launch's backend_nice and kame_ros_soak --backend-nice lower their priority).
BACKEND_NODES = ('stt', 'oracle')


def node_class(name: str) -> type:
    """Import and return the node class registered as ``name``."""
    try:
        module, cls = NODE_MODULES[name]
    except KeyError:
        raise KeyError(f'unknown node {name!r}; known: {", ".join(NODE_MODULES)}') from None
    return getattr(import_module(module), cls)
