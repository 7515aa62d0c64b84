# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Every topic is typed: codecs round-trip, refuse what the types cannot, match the docs."""
from pathlib import Path

from kame_ros_interfaces.msg import (AgentWord, AudioFrame, ChatMessage, ConversationState,
                                     Intent, OracleEvent as OracleEventMsg,
                                     OraclePrompt as PromptMsg, Transcript)
import numpy as np
import pytest
from rclpy.serialization import deserialize_message, serialize_message

from kame_ros.audio.frames import AudioFrame as Frame
from kame_ros.frontend.conversation import Conversation
from kame_ros.oracle.events import OracleEvent
from kame_ros.ros import topics
from kame_ros.ros.audio_msg import frame_to_msg, msg_to_frame
from kame_ros.ros.messages import MessageRejected
from kame_ros.stt.events import TranscriptEvent
from kame_ros.wire.audio import FrameRejected
from kame_ros.wire.messages import (AgentText, AudioInfo, IntentMessage, OraclePrompt,
                                    RobotContext)
from typed_msgs import read, typed

pytestmark = pytest.mark.ros
ROOT = Path(__file__).resolve().parents[1]
SAMPLES = [
    (topics.STT_PARTIAL, TranscriptEvent(1, 2, 'what is the', False, 10, 20, 30)),
    (topics.STT_FINAL, TranscriptEvent(1, 3, 'the capital of France?', True, 10, 25, 30)),
    (topics.ORACLE_EVENTS, OracleEvent('oracle.append', 3, 1, 2, ' Paris', '', True, 99)),
    (topics.ORACLE_PROMPT, OraclePrompt(4, 2, True, 17, [
        {'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'hi'}])),
    (topics.FRONTEND_TEXT, AgentText(12, None, ' Paris', say_id='9f3a')),
    (topics.ROBOT_CONTEXT, RobotContext('in the kitchen, battery 80%')),
    (topics.MIC_INFO, AudioInfo(24000, 1920, 1, 'S16LE', 'mic_link', 'device', device='USB',
                                device_rate=48000, device_channels=2)),
    (topics.INTENTS, IntentMessage('navigate_to(kitchen)', 'navigate_to', ['kitchen'],
                                   'go to the kitchen', 1.25, 5, 'go to the kitchen')),
    (topics.AGENT_STATE, Conversation(awaiting_reply=True)),
]
DECLARED = [t for t in vars(topics).values() if isinstance(t, topics.Topic)]


@pytest.mark.parametrize('topic,value', SAMPLES, ids=[t.name for t, _ in SAMPLES])
def test_round_trip_through_cdr(topic, value):
    """Value -> message -> the bytes DDS and bags carry -> message -> the same value."""
    msg = typed(topic, value, stamp_ns=30)
    assert type(msg) is topic.msg_type
    back = read(topic, deserialize_message(serialize_message(msg), topic.msg_type))
    assert back == value


def test_a_moshi_text_token_and_an_acknowledgement_keep_their_meaning():
    said = read(topics.FRONTEND_TEXT, typed(topics.FRONTEND_TEXT, AgentText(3, 345, ' Par')))
    assert (said.token, said.filler, said.say_id) == (345, False, '')
    ack = typed(topics.FRONTEND_TEXT, AgentText(1, None, 'Okay.', filler=True))
    assert (ack.token, ack.filler) == (-1, True), 'no token is -1 on the wire'


@pytest.mark.parametrize('topic,msg,reason', [
    (topics.STT_PARTIAL, Transcript(text='done', final=True), 'wrong_type'),
    (topics.STT_FINAL, Transcript(text='still talking'), 'wrong_type'),
    (topics.STT_FINAL, Transcript(text='x' * 70_000, final=True), 'oversized'),
    (topics.ORACLE_EVENTS, OracleEventMsg(kind=7), 'bad_payload'),
    (topics.ORACLE_EVENTS, OracleEventMsg(kind=1, text='é' * 40_000), 'oversized'),
    (topics.FRONTEND_TEXT, AgentWord(token=-2, text='x'), 'bad_payload'),
    (topics.INTENTS, Intent(args_json='{"not": "a list"}'), 'bad_payload'),
    (topics.INTENTS, Intent(args_json='[1, 2'), 'bad_payload'),
    (topics.INTENTS, Intent(args_json='[]', score=float('nan')), 'bad_payload'),
    (topics.ORACLE_PROMPT, PromptMsg(messages=[ChatMessage(role='robot', content='hi')]),
     'bad_payload'),
    (topics.AGENT_STATE, ConversationState(state=3, robot_speaking=False), 'bad_payload'),
], ids=lambda v: getattr(v, 'name', None) or (v if isinstance(v, str) else type(v).__name__))
def test_what_the_types_cannot_refuse_is_refused_by_reason(topic, msg, reason):
    with pytest.raises(MessageRejected) as err:
        read(topic, msg)
    assert err.value.reason == reason


def test_audio_frames_round_trip_and_refuse_by_reason():
    samples = (np.sin(np.arange(1920) / 7) * 20000).astype(np.int16)
    msg = frame_to_msg(Frame(41, 1_700_000_000_123_456_789, samples), 'mic_link')
    back = msg_to_frame(deserialize_message(serialize_message(msg), AudioFrame))
    assert (back.seq, back.stamp_ns, back.rate) == (41, 1_700_000_000_123_456_789, 24000)
    assert np.array_equal(back.samples, samples) and msg.header.frame_id == 'mic_link'
    for bad, reason in ((AudioFrame(sample_rate=24000, channels=1, encoding='S16LE'), 'empty'),
                        (AudioFrame(sample_rate=24000, channels=1, encoding='U8',
                                    samples=[0] * 1920), 'bad_format'),
                        (AudioFrame(sample_rate=44100, channels=2, encoding='S16LE',
                                    samples=[0] * 882), 'bad_format'),
                        (AudioFrame(sample_rate=4000, channels=1, encoding='S16LE',
                                    samples=[0] * 320), 'rate_mismatch')):
        with pytest.raises(FrameRejected) as err:
            msg_to_frame(bad)
        assert err.value.reason == reason


def test_no_topic_is_a_string_or_an_image_and_every_one_is_in_the_table():
    """docs/topics.md: a row per topic with its full type; no JSON strings, no audio as images."""
    doc = (ROOT / 'docs' / 'topics.md').read_text()
    rows = [line for line in doc.splitlines() if line.startswith('| `')]
    for topic in DECLARED:
        full = f'{topic.msg_type.__module__.split(".")[0]}/msg/{topic.msg_type.__name__}'
        assert full not in ('std_msgs/msg/String', 'sensor_msgs/msg/CompressedImage'), topic
        row = next((r for r in rows if r.startswith(f'| `{topic.name}` |')), None)
        assert row is not None, f'{topic.name} missing from docs/topics.md'
        assert f'`{full}`' in row, f'{topic.name}: its type {full} is not documented'
    assert 'std_msgs/msg/String' not in doc and 'CompressedImage` |' not in doc
    assert f'`{topics.ENABLE_SERVICE}`' in doc
    coded = {t.name for t in DECLARED if t.codec is not None}
    assert coded == {t.name for t, _ in SAMPLES}, 'every typed topic has a round-trip sample'
