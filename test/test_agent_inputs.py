# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The main job as users meet it: bad inputs refused at once, other rates and topics read.

Every refusal is one line, a non-zero exit, within 2 s and before any model
loads; a bag whose microphone is on another topic and ends right after the
question still gets its answer; a run under heavy CPU load still waits for
the final transcript and its answer before it ends.
"""
import multiprocessing
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from rclpy.serialization import serialize_message
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import get_typestore, Stores
from sensor_msgs.msg import CompressedImage

from kame_ros.audio.resample import resample
from kame_ros.audio.wav import write_wav
from kame_ros.bench.knowledge import espeak_voice
from kame_ros.records.timeline import read_events
from kame_ros.ros.audio_msg import ns_to_stamp
from kame_ros.wire.audio import caps_string
from kame_ros.words import words
from speech_fixtures import hibari_speech

pytestmark = pytest.mark.ros  # the agent tool over DDS, bags of both distributions
QUESTION = 'What is the capital of France?'
AGENT = [sys.executable, '-m', 'kame_ros.tools.agent']


def agent(*args, timeout=300, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([*AGENT, *args], capture_output=True, text=True, timeout=timeout,
                          **kwargs)


def write_bag(path, topic: str, samples: np.ndarray, rate: int, chunk: int,
              t0: int | None = None, distro: str = 'jazzy') -> None:
    """
    Write a robot's microphone bag: ``chunk``-sample messages at ``rate`` Hz on ``topic``.

    The frames are ``sensor_msgs/CompressedImage``, as kame_ros recorded them
    before kame_ros_interfaces: those bags must still replay.

    ``distro``'s type store gives the bag its type definitions, as a robot on
    that distribution records them: the tests replay bags of both
    distributions whichever one they run on.
    """
    writer = Writer(path, version=9, storage_plugin=StoragePlugin.MCAP)
    writer.open()
    store = get_typestore(getattr(Stores, f'ROS2_{distro.upper()}'))
    conn = writer.add_connection(topic, 'sensor_msgs/msg/CompressedImage', typestore=store)
    other = writer.add_connection('/odom_note', 'std_msgs/msg/String', typestore=store)
    from std_msgs.msg import String
    t0 = time.time_ns() if t0 is None else t0
    writer.write(other, t0, serialize_message(String(data='hello')))
    for seq, start in enumerate(range(0, len(samples) - chunk + 1, chunk)):
        stamp = t0 + start * 10**9 // rate
        msg = CompressedImage(format=caps_string(seq, rate),
                              data=samples[start:start + chunk].astype('<i2').tobytes())
        msg.header.stamp = ns_to_stamp(stamp)
        writer.write(conn, stamp + chunk * 10**9 // rate, serialize_message(msg))
    writer.close()


def test_bad_inputs_are_refused_before_any_model_loads(tmp_path):
    good = tmp_path / 'good.wav'
    write_wav(good, np.zeros(24000, np.int16))
    (tmp_path / 'empty.wav').write_bytes(b'')
    (tmp_path / 'text.wav').write_text('not audio at all')
    (tmp_path / 'truncated.wav').write_bytes(good.read_bytes()[:20])
    write_wav(tmp_path / 'zero.wav', np.zeros(0, np.int16))
    (tmp_path / 'adir').mkdir()
    readonly = tmp_path / 'readonly'
    readonly.mkdir()
    readonly.chmod(0o500)
    write_bag(tmp_path / 'bag', '/mic', np.zeros(24000, np.int16), 24000, 1920)
    cases = [
        (['--input', str(tmp_path / 'nope.wav')], 'no such file'),
        (['--input', str(tmp_path / 'empty.wav')], 'not a readable audio file'),
        (['--input', str(tmp_path / 'text.wav')], 'not a readable audio file'),
        (['--input', str(tmp_path / 'truncated.wav')], 'not a readable audio file'),
        (['--input', str(tmp_path / 'zero.wav')], 'has no samples'),
        (['--input', str(tmp_path / 'adir')], 'is a directory'),
        (['--input', str(good), '--out', str(readonly / 'out')], 'cannot write there'),
        (['--bag', str(tmp_path / 'nope')], 'no such directory'),
        (['--bag', str(tmp_path / 'adir')], 'not a readable rosbag2'),
        (['--bag', str(tmp_path / 'bag')], 'no audio on /audio/mic; its topics: /mic'),
        (['--bag', str(tmp_path / 'bag'), '--topic', '/odom_note'], 'no audio on /odom_note'),
        (['--input', str(good), '--models', str(tmp_path / 'nope')], 'no such directory'),
    ]
    if os.geteuid() == 0:  # root writes anywhere: make the --out a file instead
        (tmp_path / 'afile').write_text('x')
        cases[6] = (['--input', str(good), '--out', str(tmp_path / 'afile' / 'out')],
                    'cannot write there')
    for args, message in cases:
        t0 = time.monotonic()
        result = agent(*args, '--out', str(tmp_path / 'out'), timeout=30) \
            if '--out' not in args else agent(*args, timeout=30)
        elapsed = time.monotonic() - t0
        assert result.returncode != 0, args
        assert message in result.stderr, (args, result.stderr)
        assert 'Traceback' not in result.stderr and len(result.stderr.strip().splitlines()) == 1
        assert elapsed < 2.0, f'{args}: {elapsed:.1f} s (python start-up included)'


@pytest.mark.slow
def test_bag_on_another_topic_and_rate_ending_at_the_question(tmp_path):
    """A 16 kHz robot microphone on /mic, 512-sample chunks, nothing after the question."""
    speech = hibari_speech(QUESTION)
    at_16k = (resample(speech / 32768.0, 24000, 16000) * 32767).astype(np.int16)
    write_bag(tmp_path / 'bag', '/mic', at_16k, 16000, 512)
    result = agent('--bag', str(tmp_path / 'bag'), '--topic', '/mic',
                   '--out', str(tmp_path / 'out'))
    assert result.returncode == 0, result.stderr[-3000:]
    transcript = (tmp_path / 'out' / 'transcript.md').read_text()
    assert QUESTION in transcript, transcript
    assert 'Paris' in transcript.split('## Agent speech')[1], transcript


def burn(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10000))


@pytest.mark.slow
def test_run_waits_for_the_answer_under_heavy_load(tmp_path):
    write_wav(tmp_path / 'q.wav', hibari_speech(QUESTION))
    stop = multiprocessing.Event()
    hogs = [multiprocessing.Process(target=burn, args=(stop,), daemon=True) for _ in range(3)]
    for hog in hogs:
        hog.start()
    try:
        result = agent('--input', str(tmp_path / 'q.wav'), '--out', str(tmp_path / 'out'),
                       '--idle-s', '1.0', timeout=400)
    finally:
        stop.set()
        for hog in hogs:
            hog.join(5)
    assert result.returncode == 0, result.stderr[-3000:]
    assert 'Traceback' not in result.stderr, result.stderr[-3000:]
    transcript = (tmp_path / 'out' / 'transcript.md').read_text()
    assert QUESTION in transcript and 'Paris' in transcript.split('## Agent speech')[1], \
        transcript


@pytest.mark.slow
def test_faster_than_real_time_keeps_the_input_time(tmp_path):
    """--realtime-factor 0: a 40 s recording in far less wall time, timeline on its own time."""
    speech = hibari_speech(QUESTION)
    lead = 30 * 24000
    write_wav(tmp_path / 'q.wav', np.concatenate([np.zeros(lead, np.int16), speech,
                                                  np.zeros(10 * 24000, np.int16)]))
    t0 = time.monotonic()
    result = agent('--input', str(tmp_path / 'q.wav'), '--out', str(tmp_path / 'out'),
                   '--realtime-factor', '0', '--idle-s', '1.0')
    elapsed = time.monotonic() - t0
    assert result.returncode == 0, result.stderr[-3000:]
    transcript = (tmp_path / 'out' / 'transcript.md').read_text()
    assert QUESTION in transcript and 'Paris' in transcript.split('## Agent speech')[1]
    final_s = float(transcript.split('## User (final transcripts)')[1].split('- ')[1]
                    .split(' s:')[0])
    end_of_question = (lead + len(speech)) / 24000
    assert end_of_question - 1.0 < final_s < end_of_question + 3.0, \
        f'final at {final_s:.2f} s of input time, question ends at {end_of_question:.2f} s'
    assert elapsed < 30, f'{elapsed:.0f} s of wall time for 40 s of audio'


@pytest.mark.slow
def test_unfinished_conversation_is_an_error_at_the_bound(tmp_path):
    """An oracle server that accepts and never answers: the run ends at the bound, exit 1."""
    import socket
    hung = socket.socket()
    hung.bind(('127.0.0.1', 0))
    hung.listen(8)  # connections complete in the backlog; nothing is ever read or answered
    write_wav(tmp_path / 'q.wav', hibari_speech(QUESTION))
    try:
        result = agent('--input', str(tmp_path / 'q.wav'), '--out', str(tmp_path / 'out'),
                       '--max-answer-s', '4', '--oracle-backend', 'openai', '--ros-args',
                       '-p', f'oracle:base_url:=http://127.0.0.1:{hung.getsockname()[1]}/v1',
                       '-p', 'oracle:timeout_s:=120.0', '-p', 'oracle:max_retries:=0')
    finally:
        hung.close()
    assert result.returncode == 1, result.stderr[-2000:]
    last = result.stderr.strip().splitlines()[-1]
    assert 'not complete 4 s after the input ended' in last and 'no finished oracle reply' in last
    assert QUESTION in (tmp_path / 'out' / 'transcript.md').read_text(), 'what happened is kept'


@pytest.mark.slow
def test_a_bag_from_long_ago_keeps_one_clock(tmp_path):
    """Issue 27: audio on the bag's time and text on the wall clock made two timelines."""
    from kame_ros.records.timeline import read_events
    speech = hibari_speech(QUESTION)
    recorded = 1_700_000_000 * 10**9  # November 2023
    write_bag(tmp_path / 'bag', '/audio/mic', speech, 24000, 1920, t0=recorded,
              distro='kilted')
    result = agent('--bag', str(tmp_path / 'bag'), '--out', str(tmp_path / 'out'))
    assert result.returncode == 0, result.stderr[-3000:]
    start, events = read_events(tmp_path / 'out')
    spoken = len(speech) / 24000
    finals = [e.t - start for e in events if e.kind == 'stt.final']
    said = [e.t - start for e in events if e.kind == 'frontend.text']
    assert finals and said, events
    assert all(0 < t < spoken + 5 for t in finals), finals
    assert all(0 < t < spoken + 30 for t in said), said


@pytest.mark.slow
def test_sigterm_writes_what_it_has_and_exits_non_zero(tmp_path):
    """Issue 27: a timeout or process manager stopped the agent with a traceback and no files."""
    write_wav(tmp_path / 'q.wav', np.concatenate([hibari_speech(QUESTION),
                                                  np.zeros(24000 * 20, np.int16)]))
    proc = subprocess.Popen([*AGENT, '--input', str(tmp_path / 'q.wav'),
                             '--out', str(tmp_path / 'out')],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stdout:
            if 'ready' in line:
                break
        time.sleep(6.0)  # the question heard (~3 s after ready idle), the answer under way
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err[-3000:]
    assert 'Traceback' not in err and 'KeyboardInterrupt' not in err, err[-3000:]
    assert err.strip().splitlines()[-1].startswith('kame_ros_agent: stopped by SIGTERM'), err
    assert (tmp_path / 'out' / 'events.jsonl').read_text().strip()
    assert 'What is the capital' in (tmp_path / 'out' / 'transcript.md').read_text()


@pytest.mark.slow
def test_a_user_talking_over_the_reply_is_heard_and_answered(tmp_path):
    """
    Issue 41: a file (no echo path); while the agent answers, another voice asks again.

    With AEC3's output used before an echo path was found, "What is the
    capital of Japan?" over the agent's first words was heard as "full of
    Japan." and never answered. ``--realtime-factor 0`` answers in no input
    time, so the reply surely plays when the second question comes.
    """
    first = hibari_speech(QUESTION)
    second = espeak_voice('en-us')('What is the capital of Japan?')
    at = len(first) + 24000  # as the reply starts, "Okay." said (in input time: no LLM time)
    audio = np.concatenate([first, np.zeros(at - len(first), np.int16), second,
                            np.zeros(8 * 24000, np.int16)])
    write_wav(tmp_path / 'q.wav', audio)
    result = agent('--input', str(tmp_path / 'q.wav'), '--out', str(tmp_path / 'out'),
                   '--realtime-factor', '0', '--idle-s', '1.0')
    assert result.returncode == 0, result.stderr[-3000:]
    _, events = read_events(tmp_path / 'out')
    loud = np.flatnonzero(np.abs(second.astype(np.int32)) > 300)
    asked = ((at + loud[0]) / 24000, (at + loud[-1]) / 24000)
    starts = [e.t for e in events if e.kind == 'speech.agent.start']
    ends = [e.t for e in events if e.kind == 'speech.agent.end']
    assert any(s < asked[0] + 0.5 and e > asked[0] + 0.5 for s, e in zip(starts, ends)), \
        ('the agent speaks as the second question starts', starts, ends, asked)
    finals = [(e.t, e.text) for e in events if e.kind == 'stt.final']
    japan = [t for t, text in finals if words(text) == words('What is the capital of Japan?')]
    assert japan, finals
    said = ''.join(e.text for e in events if e.kind == 'frontend.text' and e.t > japan[0])
    assert 'Tokyo' in said, said
