# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Every text topic speaks the one envelope with a typed payload, documented in one table."""
from pathlib import Path
import re

import pytest

from kame_ros.oracle.events import KINDS, OracleEvent
from kame_ros.ros import topics
from kame_ros.stt.events import TranscriptEvent
from kame_ros.wire.messages import (AgentText, AudioInfo, IntentMessage, OraclePrompt,
                                    parse_user_text, RobotContext, WireMessage)
from kame_ros.wire.text import decode_event, encode_event, EventRejected

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = [AgentText(12, 345, ' Paris'), AgentText(3, None, 'Okay.'),
           RobotContext('in the kitchen, battery 80%'),
           AudioInfo(24000, 1920, 1, 'S16LE', 'mic_link', 'device', device='USB',
                     device_rate=48000, device_channels=2),
           OraclePrompt(4, 2, True, 17, [{'role': 'user', 'content': 'hi'}]),
           IntentMessage('navigate_to(kitchen)', 'navigate_to', ['kitchen'], 'go to the kitchen',
                         1.25, 5, 'go to the kitchen'),
           TranscriptEvent(1, 2, 'hello', True, 10, 20, 30),
           OracleEvent('oracle.append', 3, 1, 2, ' Paris', '', True, 99)]


@pytest.mark.parametrize('message', SAMPLES, ids=lambda m: type(m).__name__)
def test_round_trip_through_the_envelope(message):
    wire = encode_event(message.event_type, 7, 30, message.payload())
    event = decode_event(wire, message.event_type)
    assert (event['v'], event['seq']) == (1, 7)
    assert type(message).from_event(event) == message


@pytest.mark.parametrize('cls,event,problem', [
    (AgentText, {'frame': True, 'token': 1, 'text': 'a'}, 'frame'),
    (AgentText, {'frame': 1, 'token': '1', 'text': 'a'}, 'token'),
    (AgentText, {'frame': 1, 'token': 1}, 'text'),
    (RobotContext, {'text': 3}, 'text'),
    (OraclePrompt, {'reply_id': 1, 'utterance_id': 1, 'final': 1, 'epoch': 0,
                    'messages': []}, 'final'),
    (AudioInfo, {'sample_rate': 24000.5, 'frame_samples': 1920, 'channels': 1,
                 'sample_format': 'S16LE', 'frame_id': 'm', 'source': 'wav'}, 'sample_rate'),
    (TranscriptEvent, {'type': 'stt.final', 'utterance_id': '1', 'revision': 0, 'text': 'a',
                       'audio_start_ns': 0, 'audio_end_ns': 1, 'stamp_ns': 2}, 'utterance_id'),
    (TranscriptEvent, {'type': 'stt.partial', 'utterance_id': 1, 'revision': 0, 'text': None,
                       'audio_start_ns': 0, 'audio_end_ns': 1, 'stamp_ns': 2}, 'text'),
    (OracleEvent, {'type': 'oracle.done', 'reply_id': 1, 'utterance_id': 1, 'revision': 0,
                   'final': 1}, 'final'),
    (OracleEvent, {'type': 'oracle.append', 'reply_id': 1.0, 'utterance_id': 1,
                   'revision': 0}, 'reply_id'),
])
def test_a_missing_or_mistyped_field_is_refused(cls, event, problem):
    with pytest.raises(ValueError, match=problem):
        cls.from_event(event)


def test_user_written_topics_take_plain_text_bare_json_and_the_envelope():
    assert parse_user_text('in the lab', RobotContext) == RobotContext('in the lab')
    assert parse_user_text('{"text": "on the stairs"}', RobotContext) == \
        RobotContext('on the stairs')
    assert parse_user_text('42', RobotContext) == RobotContext('42')
    envelope = encode_event('robot.context', 0, 1, {'text': 'Envelope.'})
    assert parse_user_text(envelope, RobotContext) == RobotContext('Envelope.')
    with pytest.raises(EventRejected, match='wrong_type'):
        parse_user_text(encode_event('frontend.text', 0, 1, {'frame': 1, 'token': None,
                                                             'text': 'x'}), RobotContext)
    with pytest.raises(ValueError, match='text'):
        parse_user_text('{"text": ["not", "text"]}', RobotContext)


def test_every_topic_and_payload_is_in_the_one_table():
    """docs/topics.md: a row per topic with its type; a row per envelope type with its fields."""
    doc = (ROOT / 'docs' / 'topics.md').read_text()
    rows = [line for line in doc.splitlines() if line.startswith('| `')]
    declared = [t for t in vars(topics).values() if isinstance(t, topics.Topic)]
    for topic in declared:
        row = next((r for r in rows if r.startswith(f'| `{topic.name}` |')), None)
        assert row is not None, f'{topic.name} missing from docs/topics.md'
        assert topic.msg_type.__name__ in row, f'{topic.name}: type not documented'
        if topic.payload is not None:
            assert all(f'`{t}`' in row for t in topic.event_types), f'{topic.name}: envelope'
    assert f'`{topics.ENABLE_SERVICE}`' in doc
    samples = {type(m): m for m in SAMPLES}
    assert set(WireMessage.__subclasses__()) <= set(samples), 'a new message needs a sample'
    text_topics = [t for t in declared if t.msg_type.__name__ == 'String']
    assert all(t.payload is not None for t in text_topics), 'a text topic names its payload'
    types = {event_type: topic.payload for topic in text_topics
             for event_type in topic.event_types}
    assert set(types) == {m.TYPE for m in WireMessage.__subclasses__()} | set(KINDS) | {
        'stt.partial', 'stt.final'}, 'every payload type travels on a topic'
    for event_type, cls in types.items():
        row = next((r for r in rows if r.startswith(f'| `{event_type}` |')), None)
        assert row is not None, f'envelope type {event_type} missing from docs/topics.md'
        assert f'`{cls.__name__}`' in row, f'{event_type}: its dataclass is not named'
        documented = set(re.findall(r'`(\w+)`', row.split('|')[4]))
        payload = set(samples[cls].payload())
        assert payload <= documented, f'{event_type}: {payload - documented} not documented'
