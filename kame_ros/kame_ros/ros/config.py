# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Which nodes a kame_ros parameters YAML configures: one reader for the launch file and kame_ros_run.

The YAML is a standard ROS 2 parameters file; rcl matches its keys against
each node's fully qualified name. kame_ros writes node sections as
``/**/stt`` so they apply under any namespace (``namespace:=robot1``,
``-r __ns:=/robot1``), and ``/**`` holds parameters for every node (e.g.
``use_sim_time``). Plain ``stt`` and ``/robot1/stt`` keys are read as
well. A section is a node to start when its last name component is a
kame_ros executable; ``/**`` and sections for other nodes start nothing.
"""
from pathlib import Path

import yaml

HEADLESS_TAIL_S = 15.0  # silence after the question: end of turn + LLM + the spoken answer


class ConfigError(ValueError):
    """A parameters file that cannot be used; the message is one line for the user."""


def node_of_key(key: str) -> str | None:
    """Return the node name a section key addresses, or None for the ``/**`` wildcard."""
    name = str(key).rstrip('/').rsplit('/', 1)[-1]
    return None if name in ('', '**', '*') else name


def nodes_in_config(path: Path, known: set[str] | dict) -> list[str]:
    """Node names (known executables) the parameters file configures, in file order."""
    names: list[str] = []
    for key in read_parameters_file(path):
        name = node_of_key(key)
        if name in known and name not in names:
            names.append(name)
    return names


def read_parameters_file(path: Path) -> dict:
    """Load and check a parameters file; every section must hold ``ros__parameters``."""
    try:
        with open(path) as f:
            data = yaml.safe_load(f) or {}
    except OSError as err:
        raise ConfigError(f'cannot read parameters file {path}: {err.strerror}') from err
    except yaml.YAMLError as err:
        raise ConfigError(f'{path}: not valid YAML ({str(err).splitlines()[0]})') from err
    if not isinstance(data, dict):
        raise ConfigError(f'{path}: not a ROS 2 parameters file (top level is not a mapping)')
    for key, section in data.items():
        if not isinstance(section, dict) or 'ros__parameters' not in section:
            raise ConfigError(f'{path}: section {key!r} has no ros__parameters')
    return data


def node_parameters(data: dict, name: str) -> dict:
    """Parameters that apply to node ``name``: the ``/**`` section, then the node's own."""
    merged: dict = {}
    for key, section in data.items():
        if node_of_key(key) in (None, name):
            merged.update(section['ros__parameters'])
    return merged


def headless_nodes(names: list[str], input_wav: str = '',
                   output_wav: str = '') -> tuple[list[str], dict[str, dict]]:
    """
    Swap the sound card for files: ``input_wav`` replaces audio_capture, ``output_wav`` playback.

    The WAV source waits for every microphone listener of the set (the STT
    and the front-end subscribe once their models loaded), then keeps
    publishing silence after the file as an open microphone would, so the
    user's turn ends and the answer is spoken; the sink finishes once the
    agent has been silent for a few seconds. Returns the node names and the
    parameters these roles need.
    """
    names, params = list(names), {}
    if input_wav:
        names = [n for n in names if n != 'audio_capture']
        if 'wav_source' not in names:
            names.insert(0, 'wav_source')
        listeners = sum(n in names for n in ('stt', 'frontend'))
        params['wav_source'] = {'path': input_wav, 'wait_for_subscribers': listeners,
                                'trailing_silence_s': HEADLESS_TAIL_S}
    if output_wav:
        names = [n for n in names if n != 'audio_playback']
        if 'wav_sink' not in names:
            names.append('wav_sink')
        params['wav_sink'] = {'path': output_wav, 'idle_timeout_s': 3.0}
    return names, params


def audio_common_nodes(names: list[str], audio_in: str = '', audio_type: str = '',
                       audio_out: bool = False) -> tuple[list[str], dict[str, dict]]:
    """
    Swap the sound card for a robot's audio_common topics.

    ``audio_in`` (an ``audio_capture`` topic) replaces audio_capture with the
    audio_common_in bridge; ``audio_out`` replaces audio_playback with
    audio_common_out, whose topics ``audio_play`` plays. Returns the node
    names and the parameters these roles need.
    """
    names, params = list(names), {}
    if audio_in:
        names = ['audio_common_in' if n == 'audio_capture' else n for n in names]
        if 'audio_common_in' not in names:
            names.insert(0, 'audio_common_in')
        params['audio_common_in'] = {'audio_topic': audio_in}
        if audio_type:
            params['audio_common_in']['audio_type'] = audio_type
    if audio_out:
        names = ['audio_common_out' if n == 'audio_playback' else n for n in names]
        if 'audio_common_out' not in names:
            names.append('audio_common_out')
    return names, params


def models_in_config(data: dict, nodes: list[str],
                     overrides: dict[str, dict] | None = None) -> list[str]:
    """
    Return the named models (kame_ros.models) the configured nodes load, to verify up front.

    ``nodes`` are the nodes that will run; ``overrides`` per-node parameters
    given on top of the file (the agent tool's options). Explicit model
    paths are the user's files: only the names the table pins are returned.
    Mirrors what each node loads:
    whisper (Silero VAD, and Whisper tiny.en unless a model is named), the
    oracle's embedded model and its intent scorer, the tts default voice.
    """
    from kame_ros.models import MODELS
    overrides = overrides or {}
    params = {name: {**node_parameters(data, name), **overrides.get(name, {})}
              for name in ('stt', 'oracle', 'frontend') if name in nodes}
    names: list[str] = []
    stt = params.get('stt')
    if stt is not None and stt.get('engine', 'whisper') == 'whisper':
        names += [] if stt.get('model') else ['whisper-tiny.en']
        names.append('silero-vad')
    oracle = params.get('oracle')
    if oracle is not None and oracle.get('backend', 'llama_cpp') != 'openai':
        names.append(oracle.get('model') or 'qwen2.5-coder-1.5b')
    if oracle is not None and oracle.get('intents') and (
            oracle.get('backend') == 'openai' or not oracle.get('model')):
        names.append('smollm2-135m')
    frontend = params.get('frontend')
    if frontend is not None and frontend.get('backend') == 'tts' and \
            frontend.get('voice', 'heart') == 'heart':
        names.append('hibari-heart')
    return [n for n in dict.fromkeys(names) if n in MODELS]
