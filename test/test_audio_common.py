# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The robot's own audio: audio_common_msgs in (audio_capture) and out (audio_play), and bags.

Publishers and subscribers here are shaped like ros-drivers/audio_common's
nodes: ``audio_capture`` sends raw chunks on ``audio/audio_stamped`` with the
format only in the latched ``audio/audio_info``; ``audio_play`` subscribes
RELIABLE and needs the format to match.
"""
import json
from pathlib import Path
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.serialization import serialize_message

from audio_signals import active_seconds
from kame_ros.audio.resample import resample
from kame_ros.ros.audio_common import INFO_QOS
from kame_ros.ros.topics import DIAGNOSTICS, FRONTEND_TEXT, MIC_AUDIO
from kame_ros.wire.audio import FrameRejected
from kame_ros.wire.audio_common import decode_chunk, StreamInfo
from polling import wait_for
from speech_fixtures import hibari_speech

QUESTION = 'What is the capital of France?'
ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / 'kame_ros' / 'kame_ros'  # the Python package inside the ROS package


def pcm(x: np.ndarray, channels: int, sample_format: str) -> bytes:
    """Encode float [-1, 1] mono as interleaved ``sample_format`` (all channels the same)."""
    x = np.repeat(x[:, None], channels, axis=1).reshape(-1)
    if sample_format == 'S16LE':
        return (x * 32767).astype('<i2').tobytes()
    if sample_format == 'S32LE':
        return (x * (2 ** 31 - 1)).astype('<i4').tobytes()
    if sample_format == 'F32LE':
        return x.astype('<f4').tobytes()
    raise ValueError(sample_format)


# --- the decoder (no ROS) ---------------------------------------------------------------

def test_every_pcm_format_audio_capture_offers_decodes_to_the_same_voice():
    rate = 16000
    x = 0.5 * np.sin(2 * np.pi * 440 * np.arange(1024) / rate)
    expected = np.round(x * 32768).astype(np.int16)
    for fmt, channels in [('S16LE', 1), ('S16LE', 2), ('S32LE', 2), ('F32LE', 1)]:
        samples, bad = decode_chunk(StreamInfo(channels, rate, fmt, 'wave'),
                                    pcm(x, channels, fmt))
        assert bad == 0 and len(samples) == 1024
        assert np.abs(samples.astype(int) - expected).max() <= 2, fmt
    # 24-bit packed, 8-bit unsigned and big-endian: known sample values.
    s24 = bytes([0x00, 0x00, 0x40, 0x00, 0x00, 0xC0])  # +0.5, -0.5
    assert decode_chunk(StreamInfo(1, rate, 'S24LE', 'wave'), s24)[0].tolist() == [16384, -16384]
    assert decode_chunk(StreamInfo(1, rate, 'U8', 'wave'), bytes([128, 192]))[0].tolist() == \
        [0, 16384]
    assert decode_chunk(StreamInfo(1, rate, 'S16BE', 'wave'), b'\x40\x00')[0].tolist() == [16384]
    # Left and right differ: mono is their mean.
    stereo = np.array([[8000, -2000], [100, 300]], '<i2').tobytes()
    assert decode_chunk(StreamInfo(2, rate, 'S16LE', 'wave'), stereo)[0].tolist() == [3000, 200]


def test_unreadable_chunks_are_refused_with_a_counter_reason():
    wave = StreamInfo(1, 16000, 'S16LE', 'wave')
    nan = np.array([0.25, np.nan, np.inf, -0.25], '<f4').tobytes()
    samples, bad = decode_chunk(StreamInfo(1, 16000, 'F32LE', 'wave'), nan)
    assert bad == 2 and samples.tolist() == [8192, 0, 0, -8192]
    cases = [(wave, b'', 'empty'), (wave, b'\x00\x01\x02', 'odd_bytes'),
             (StreamInfo(2, 16000, 'S16LE', 'wave'), b'\x00' * 6, 'odd_bytes'),
             (StreamInfo(1, 16000, 'S16LE', 'mp3'), b'\xff\xfb' * 100, 'mp3'),
             (StreamInfo(1, 4000, 'S16LE', 'wave'), b'\x00' * 8, 'rate_mismatch'),
             (StreamInfo(1, 16000, 'S20LE', 'wave'), b'\x00' * 8, 'bad_format'),
             (StreamInfo(0, 16000, 'S16LE', 'wave'), b'\x00' * 8, 'bad_format'),
             (wave, b'\x00' * (2 * 1024 * 1024), 'oversized')]
    for info, data, reason in cases:
        with pytest.raises(FrameRejected) as err:
            decode_chunk(info, data)
        assert err.value.reason == reason, (info, reason)
    with pytest.raises(FrameRejected, match='format:=wave'):
        decode_chunk(StreamInfo(1, 16000, 'S16LE', 'MP3'), b'\x00\x00')


# --- over DDS ---------------------------------------------------------------------------

class Microphone:
    """A publisher shaped like audio_capture: latched AudioInfo, raw chunks in real time."""

    def __init__(self, node, rate: int, channels: int, sample_format: str, chunk: int,
                 reliability: ReliabilityPolicy, prefix: str = '/audio') -> None:
        from audio_common_msgs.msg import AudioDataStamped, AudioInfo
        self.node, self.rate, self.channels = node, rate, channels
        self.sample_format, self.chunk = sample_format, chunk
        self.msg = AudioDataStamped
        self.info_pub = node.create_publisher(AudioInfo, f'{prefix}/audio_info', INFO_QOS)
        self.info_type = AudioInfo
        self.pub = node.create_publisher(AudioDataStamped, f'{prefix}/audio_stamped',
                                         QoSProfile(depth=10, reliability=reliability))

    def info(self, coding_format: str = 'wave') -> None:
        self.info_pub.publish(self.info_type(
            channels=self.channels, sample_rate=self.rate, sample_format=self.sample_format,
            bitrate=self.rate * 16, coding_format=coding_format))

    def say(self, x: np.ndarray, until=lambda: False) -> None:
        """Publish float mono ``x`` (at ``self.rate``) chunk by chunk at real time."""
        t0 = time.monotonic()
        for k, start in enumerate(range(0, len(x) - self.chunk + 1, self.chunk)):
            if until():
                return
            msg = self.msg()
            msg.header.stamp = self.node.get_clock().now().to_msg()
            msg.audio.data = pcm(x[start:start + self.chunk], self.channels, self.sample_format)
            self.pub.publish(msg)
            time.sleep(max(0.0, t0 + (k + 1) * self.chunk / self.rate - time.monotonic()))


class Speaker:
    """A subscriber shaped like audio_play (RELIABLE), plus the AudioInfo it must match."""

    def __init__(self, node, prefix: str = '/audio/agent') -> None:
        from audio_common_msgs.msg import AudioDataStamped, AudioInfo
        self.chunks, self.stamps, self.infos = [], [], []
        node.create_subscription(AudioDataStamped, f'{prefix}/audio_stamped', self._on, 10)
        node.create_subscription(AudioInfo, f'{prefix}/audio_info', self.infos.append,
                                 INFO_QOS)

    def _on(self, msg) -> None:
        self.chunks.append(np.frombuffer(bytes(msg.audio.data), '<i2'))
        self.stamps.append(msg.header.stamp.sec * 10**9 + msg.header.stamp.nanosec)

    def heard_s(self) -> float:
        return active_seconds(np.concatenate(self.chunks), 300.0) if self.chunks else 0.0


@pytest.mark.parametrize('rate, channels, sample_format, chunk, reliability', [
    (16000, 1, 'S16LE', 1024, ReliabilityPolicy.BEST_EFFORT),
    (48000, 2, 'S32LE', 4800, ReliabilityPolicy.RELIABLE),
], ids=['audio_capture_16k_best_effort', '48k_stereo_reliable'])
def test_agent_hears_audio_capture_and_speaks_to_audio_play(
        ros, processes, tmp_path, rate, channels, sample_format, chunk, reliability):
    pytest.importorskip('audio_common_msgs')
    node = ros.node('robot_audio')
    mic = Microphone(node, rate, channels, sample_format, chunk, reliability)
    speaker = Speaker(node)
    said = []
    node.create_subscription(FRONTEND_TEXT.msg_type, FRONTEND_TEXT.name,
                             lambda m: said.append(m.text), FRONTEND_TEXT.qos)
    mic.info()
    agent = processes.start('kame_ros_agent', '--audio-common-in', '/audio/audio_stamped',
                            '--audio-common-out', '--out', str(tmp_path / 'out'))
    assert wait_for(lambda: node.count_subscribers('/audio/audio_stamped') >= 1, 240), \
        processes.log(agent)
    assert wait_for(lambda: speaker.infos, 10), 'AudioInfo of the voice is latched'
    question = resample(hibari_speech(QUESTION).astype(np.float32) / 32768, 24000, rate)
    silence = np.zeros(rate // 2, np.float32)
    mic.say(np.concatenate([silence, question]))
    # An open microphone: silence until the agent has said the answer (or 40 s).
    mic.say(np.zeros(rate * 40, np.float32), until=lambda: 'Paris' in ''.join(said))
    mic.say(np.zeros(rate, np.float32))
    assert speaker.heard_s() > 1.5, processes.log(agent)
    agent.send_signal(signal.SIGINT)
    assert agent.wait(timeout=30) == 0, processes.log(agent)
    transcript = (tmp_path / 'out' / 'transcript.md').read_text()
    assert QUESTION in transcript, transcript
    assert 'Paris' in transcript.split('## Agent speech')[1], transcript
    info = speaker.infos[-1]
    assert (info.sample_rate, info.channels, info.sample_format, info.coding_format) == \
        (24000, 1, 'S16LE', 'wave')
    assert {len(c) for c in speaker.chunks} == {1920}, 'one 80 ms frame per message'
    assert speaker.stamps == sorted(speaker.stamps)


def test_no_info_and_mp3_are_counted_drops_then_wave_is_heard(ros, processes):
    pytest.importorskip('audio_common_msgs')
    node = ros.node('robot_audio')
    mic = Microphone(node, 16000, 1, 'S16LE', 1024, ReliabilityPolicy.BEST_EFFORT)
    frames, status = [], {}
    node.create_subscription(MIC_AUDIO.msg_type, '/audio/mic', frames.append, MIC_AUDIO.qos)

    def on_diagnostics(msg) -> None:
        for s in msg.status:
            if s.name.endswith('/audio_common_in'):
                status.update(level=s.level, message=s.message,
                              **{v.key: v.value for v in s.values})
    node.create_subscription(DIAGNOSTICS.msg_type, DIAGNOSTICS.name, on_diagnostics,
                             DIAGNOSTICS.qos)
    bridge = processes.start('audio_common_in')
    assert wait_for(lambda: node.count_subscribers('/audio/audio_stamped') >= 1, 60)
    tone = 0.3 * np.sin(2 * np.pi * 300 * np.arange(16000) / 16000)

    def say_until(pred, samples) -> bool:
        """Speak until ``pred``: best effort, and the bridge may not have matched us yet."""
        return wait_for(lambda: pred() or mic.say(samples, until=pred), 10, poll=0.3)

    assert say_until(lambda: int(status.get('drop_no_info', 0)) >= 4, tone[:8192]), status
    assert status['level'] == b'\x01' and 'waiting for AudioInfo' in status['message']
    assert not frames, 'no format, no guess'
    mic.info('mp3')
    time.sleep(0.5)
    assert say_until(lambda: int(status.get('drop_mp3', 0)) >= 4, tone[:8192]), status
    assert status['level'] == b'\x02' and 'format:=wave' in status['message']
    assert not frames
    log = processes.log(bridge)
    assert log.count('format:=wave') >= 1 and 'Traceback' not in log
    mic.info('wave')
    time.sleep(0.5)
    assert say_until(lambda: len(frames) >= 10, tone), status
    assert (frames[0].sample_rate, len(frames[0].samples), frames[0].encoding) == \
        (24000, 1920, 'S16LE')
    assert bridge.poll() is None, 'the bridge never crashes on bad input'


# --- bags -------------------------------------------------------------------------------

def write_audio_capture_bag(path: Path, speech16k: np.ndarray, with_info: bool = True) -> None:
    """Write a bag as `ros2 bag record /audio/audio_stamped /audio/audio_info` of audio_capture."""
    from audio_common_msgs.msg import AudioDataStamped, AudioInfo
    from rosbags.rosbag2 import StoragePlugin, Writer
    from rosbags.typesys import get_types_from_msg

    from kame_ros.ros.distro import bag_typestore
    store = bag_typestore()
    share = Path(sys.prefix) / 'share' / 'audio_common_msgs' / 'msg'
    for name in ('AudioData', 'AudioInfo', 'AudioDataStamped'):
        store.register(get_types_from_msg((share / f'{name}.msg').read_text(),
                                          f'audio_common_msgs/msg/{name}'))
    writer = Writer(path, version=9, storage_plugin=StoragePlugin.MCAP)
    writer.open()
    audio = writer.add_connection('/audio/audio_stamped', 'audio_common_msgs/msg/AudioDataStamped',
                                  typestore=store)
    info = writer.add_connection('/audio/audio_info', 'audio_common_msgs/msg/AudioInfo',
                                 typestore=store)
    t0 = time.time_ns()
    if with_info:
        writer.write(info, t0, serialize_message(AudioInfo(
            channels=1, sample_rate=16000, sample_format='S16LE', bitrate=256000,
            coding_format='wave')))
    for k, start in enumerate(range(0, len(speech16k) - 1023, 1024)):
        stamp = t0 + start * 10**9 // 16000
        msg = AudioDataStamped()
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp, 10**9)
        msg.audio.data = speech16k[start:start + 1024].astype('<i2').tobytes()
        writer.write(audio, stamp + 64_000_000, serialize_message(msg))
    writer.close()


def test_agent_answers_a_bag_recorded_from_audio_capture(tmp_path):
    pytest.importorskip('audio_common_msgs')
    speech = resample(hibari_speech(QUESTION).astype(np.float32) / 32768, 24000, 16000)
    speech16k = np.round(np.concatenate([np.zeros(8000), speech]) * 32767).astype(np.int16)
    write_audio_capture_bag(tmp_path / 'bag', speech16k)
    write_audio_capture_bag(tmp_path / 'no_info', speech16k, with_info=False)
    agent = [sys.executable, '-m', 'kame_ros.tools.agent']
    refused = subprocess.run([*agent, '--bag', str(tmp_path / 'no_info'), '--topic',
                              '/audio/audio_stamped', '--out', str(tmp_path / 'x')],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1 and len(refused.stderr.strip().splitlines()) == 1
    assert '/audio/audio_info (its AudioInfo) is not in the bag' in refused.stderr
    run = subprocess.run([*agent, '--bag', str(tmp_path / 'bag'), '--topic',
                          '/audio/audio_stamped', '--out', str(tmp_path / 'out')],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    transcript = (tmp_path / 'out' / 'transcript.md').read_text()
    assert QUESTION in transcript and 'Paris' in transcript.split('## Agent speech')[1]
    events = [json.loads(line) for line in (tmp_path / 'out' / 'events.jsonl').open()]
    assert any(e.get('kind') == 'stt.final' for e in events)


# --- without audio_common_msgs ----------------------------------------------------------

WITHOUT = "import sys; sys.modules['audio_common_msgs'] = None\n"


def without_audio_common(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, '-c', WITHOUT + code], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)


def test_without_audio_common_msgs_the_package_imports_and_choosing_it_is_one_line():
    modules = sorted('kame_ros.' + '.'.join(p.relative_to(SOURCES).with_suffix('')
                                            .parts)
                     for p in (SOURCES).rglob('*.py') if p.name != '__init__.py')
    imported = without_audio_common(
        f'import importlib\nfor m in {modules!r}: importlib.import_module(m)\nprint("ok")')
    assert imported.returncode == 0 and imported.stdout.strip() == 'ok', imported.stderr[-2000:]
    for tool, args in [('kame_ros.tools.agent', ['--audio-common-in', '/audio/audio_stamped']),
                       ('kame_ros.tools.agent', ['--audio-common-out']),
                       ('kame_ros.run', ['--audio-common-in', '/audio/audio_stamped']),
                       ('kame_ros.nodes.audio_common_in', []),
                       ('kame_ros.nodes.audio_common_out', [])]:
        result = without_audio_common(f'from {tool} import main\nmain({args!r})')
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 1 and len(lines) == 1, (tool, result.stderr[-2000:])
        assert 'audio_common_msgs is not installed: apt install ros-' in lines[0], lines


def test_without_audio_common_msgs_the_tests_that_do_not_need_it_pass():
    """This module's own tests and the wire, layer and config tests, with the package hidden."""
    args = ['-q', '-p', 'no:cacheprovider', '-k', 'not without_audio_common_msgs',
            'test/test_audio_common.py', 'test/test_wire.py', 'test/test_wire_messages.py',
            'test/test_layers.py']
    result = without_audio_common(f'import pytest\nsys.exit(pytest.main({args!r}))')
    summary = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0 and 'failed' not in summary, result.stdout[-3000:]
    assert ' skipped' in summary, f'the tests that need audio_common_msgs skip: {summary}'


def test_launch_and_runner_swap_the_sound_card_for_audio_common_nodes():
    from kame_ros.ros.config import audio_common_nodes
    yaml_nodes = ['audio_capture', 'audio_playback', 'stt', 'oracle', 'frontend']
    assert audio_common_nodes(yaml_nodes) == (yaml_nodes, {})
    names, params = audio_common_nodes(yaml_nodes, '/robot/audio/audio', 'AudioData', True)
    assert names == ['audio_common_in', 'audio_common_out', 'stt', 'oracle', 'frontend']
    assert params == {'audio_common_in': {'audio_topic': '/robot/audio/audio',
                                          'audio_type': 'AudioData'}}
    # Headless (a WAV sink instead of the speaker): the voice is published as well.
    names, _ = audio_common_nodes(['wav_source', 'stt', 'frontend', 'wav_sink'], '', '', True)
    assert names == ['wav_source', 'stt', 'frontend', 'wav_sink', 'audio_common_out']


def test_a_bad_audio_type_is_one_line_and_exit_1(domain_id):
    pytest.importorskip('audio_common_msgs')
    result = subprocess.run([str(Path(sys.executable).parent / 'audio_common_in'), '--ros-args',
                             '-p', 'audio_type:=AudioStamped'],
                            capture_output=True, text=True, timeout=60)
    lines = (result.stdout + result.stderr).strip().splitlines()
    assert result.returncode == 1 and len(lines) == 1, lines
    assert "audio_type 'AudioStamped': use AudioDataStamped or AudioData" in lines[0]
