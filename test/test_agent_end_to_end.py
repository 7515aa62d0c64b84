# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The main job: the tandem agent answers a spoken question; record it, replay the bag."""
import re

import pytest
from rosbags.rosbag2 import Reader
from rosbags.typesys import get_types_from_msg, get_typestore, Stores

from kame_ros.audio.wav import read_wav_24k, write_wav
from kame_ros.records.timeline import read_events
from speech_fixtures import hibari_speech

pytest.importorskip('llama_cpp', reason='scripts/setup.sh installs llama-cpp-python')


def finals(transcript: str) -> list[str]:
    section = transcript.split('## User (final transcripts)')[1].split('##')[0]
    return [re.sub(r'^- [0-9.]+ s: ', '', line) for line in section.strip().splitlines()]


def test_agent_answers_then_bag_replay_gives_same_transcripts(processes, tmp_path):
    write_wav(tmp_path / 'question.wav', hibari_speech('What is the capital of France?'))
    first = processes.start('kame_ros_agent', '--input', str(tmp_path / 'question.wav'),
                            '--out', str(tmp_path / 'run1'), '--record',
                            '--oracle-backend', 'llama_cpp')
    assert first.wait(timeout=240) == 0, processes.log(first)
    run1 = tmp_path / 'run1'
    for name in ('answer.wav', 'transcript.md', 'timeline.csv', 'timeline.md', 'timeline.png'):
        assert (run1 / name).stat().st_size > 0, name
    transcript = (run1 / 'transcript.md').read_text()
    assert finals(transcript) == ['What is the capital of France?']
    assert 'Paris' in transcript.split('## Agent speech')[1], transcript
    assert len(read_wav_24k(run1 / 'answer.wav')) > 24000, 'the answer was spoken'
    lanes = (run1 / 'timeline.csv').read_text()
    for lane in ('user speech', 'stt final', 'oracle reset', 'oracle text', 'agent speech'):
        assert f',{lane},' in lanes, lane
    # The typed events programs read: in order, the question's final before the spoken answer.
    start, events = read_events(run1)
    assert start is not None and [e.t for e in events] == sorted(e.t for e in events)
    final = next(e for e in events if e.kind == 'stt.final')
    assert final.text == 'What is the capital of France?'
    assert any(e.kind == 'frontend.text' and 'Paris' in e.text and e.t > final.t for e in events)
    assert (run1 / 'bag' / 'metadata.yaml').exists()
    # The bag carries the agent's types and their definitions: a reader without kame_ros
    # (rosbags, from what the bag itself says) decodes the transcript.
    with Reader(run1 / 'bag') as reader:
        types = {c.topic: c.msgtype for c in reader.connections}
        assert types['/audio/mic'] == 'kame_ros_interfaces/msg/AudioFrame'
        store = get_typestore(Stores.EMPTY)
        for c in reader.connections:
            store.register(get_types_from_msg(c.msgdef.data, c.msgtype))
        recorded = [store.deserialize_cdr(raw, c.msgtype) for c, _, raw in
                    reader.messages([c for c in reader.connections if c.topic == '/stt/final'])]
    assert [m.text for m in recorded] == ['What is the capital of France?'] and recorded[0].final

    second = processes.start('kame_ros_agent', '--bag', str(run1 / 'bag'),
                             '--out', str(tmp_path / 'run2'), '--oracle-backend', 'llama_cpp')
    assert second.wait(timeout=240) == 0, processes.log(second)
    replayed = (tmp_path / 'run2' / 'transcript.md').read_text()
    assert finals(replayed) == finals(transcript), 'replay must give the same transcripts'
