# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The core's dataclasses <-> kame_ros_interfaces messages: every conversion, in one place.

The engines, the STT and the oracle speak frozen dataclasses and never
import rclpy; the nodes publish and receive typed messages. A ``Codec``
per topic says how one becomes the other. Reading checks what the type
system cannot: a string over ``MAX_TEXT_BYTES``, a constant out of range,
a partial transcript on the final topic, a NaN score, arguments that are
not a JSON array. Each raises ``MessageRejected`` with the counter key a
subscriber drops it under (``ros/text_io.py``). The header stamp is the
publishing node's clock (sim time under ``use_sim_time``), set by the
publisher, not here.
"""
from dataclasses import dataclass
import json
import math
from typing import Any, Callable

from kame_ros_interfaces.msg import (AgentWord, AudioInfo as AudioInfoMsg, ChatMessage,
                                     ConversationState, Intent,
                                     OracleEvent as OracleEventMsg,
                                     OraclePrompt as OraclePromptMsg,
                                     RobotContext as RobotContextMsg, Transcript)

from kame_ros.frontend.conversation import Conversation, Turn
from kame_ros.oracle.events import APPEND, DONE, OracleEvent, RESET
from kame_ros.ros.audio_msg import ns_to_stamp, stamp_to_ns
from kame_ros.stt.events import TranscriptEvent
from kame_ros.wire.messages import AgentText, AudioInfo, IntentMessage, OraclePrompt, RobotContext

MAX_TEXT_BYTES = 64 * 1024
ORACLE_KINDS = {RESET: OracleEventMsg.RESET, APPEND: OracleEventMsg.APPEND,
                DONE: OracleEventMsg.DONE}
ROLES = ('system', 'user', 'assistant')


class MessageRejected(ValueError):
    """A received message that cannot be used; ``reason`` is a counter key."""

    def __init__(self, reason: str, detail: str) -> None:
        """Keep a short machine reason and a human detail apart."""
        super().__init__(f'{reason}: {detail}')
        self.reason = reason


@dataclass(frozen=True)
class Codec:
    """How one topic's dataclass becomes its message (``to_msg``) and back (``from_msg``)."""

    to_msg: Callable[[Any], Any]
    from_msg: Callable[[Any], Any]


def bounded(*texts: str) -> None:
    """Refuse a message whose text fields together exceed MAX_TEXT_BYTES."""
    size = sum(len(t.encode('utf-8', 'replace')) for t in texts)
    if size > MAX_TEXT_BYTES:
        raise MessageRejected('oversized', f'{size} bytes of text > {MAX_TEXT_BYTES}')


def transcript_to_msg(event: TranscriptEvent) -> Transcript:
    """Transcript of a partial or final (header stamp: the publisher's)."""
    return Transcript(utterance_id=event.utterance_id, revision=event.revision, text=event.text,
                      final=event.final, speech_start=ns_to_stamp(event.audio_start_ns),
                      speech_end=ns_to_stamp(event.audio_end_ns))


def transcript_reader(final: bool) -> Callable[[Transcript], TranscriptEvent]:
    """Return the reader of stt/final (``final``) or stt/partial: the other kind is wrong_type."""
    def read(msg: Transcript) -> TranscriptEvent:
        bounded(msg.text)
        if msg.final != final:
            raise MessageRejected('wrong_type', f'final={msg.final} on the '
                                  f'{"final" if final else "partial"} topic')
        return TranscriptEvent(msg.utterance_id, msg.revision, msg.text, msg.final,
                               stamp_to_ns(msg.speech_start), stamp_to_ns(msg.speech_end),
                               stamp_to_ns(msg.header.stamp))
    return read


def oracle_to_msg(event: OracleEvent) -> OracleEventMsg:
    """One step of the oracle stream."""
    return OracleEventMsg(kind=ORACLE_KINDS[event.kind], epoch=event.epoch,
                          reply_id=event.reply_id, utterance_id=event.utterance_id,
                          revision=event.revision, final=event.final, text=event.text,
                          status=event.status)


def msg_to_oracle(msg: OracleEventMsg) -> OracleEvent:
    """Read one step; an unknown kind is bad_payload."""
    bounded(msg.text, msg.status)
    kind = next((k for k, v in ORACLE_KINDS.items() if v == msg.kind), None)
    if kind is None:
        raise MessageRejected('bad_payload', f'oracle event kind {msg.kind} is not '
                              f'RESET, APPEND or DONE')
    return OracleEvent(kind, msg.reply_id, msg.utterance_id, msg.revision, msg.text,
                       msg.status, msg.final, msg.epoch)


def agent_text_to_msg(text: AgentText) -> AgentWord:
    """Convert a word the agent says (token -1: the tts front-end has none)."""
    return AgentWord(frame=text.frame, token=-1 if text.token is None else text.token,
                     text=text.text, filler=text.filler, say_id=text.say_id)


def msg_to_agent_text(msg: AgentWord) -> AgentText:
    """Read a word the agent says."""
    bounded(msg.text, msg.say_id)
    if msg.token < -1:
        raise MessageRejected('bad_payload', f'text token {msg.token}')
    return AgentText(msg.frame, None if msg.token == -1 else msg.token, msg.text, msg.filler,
                     msg.say_id)


def context_to_msg(context: RobotContext) -> RobotContextMsg:
    """Convert what the robot knows now."""
    return RobotContextMsg(text=context.text)


def msg_to_context(msg: RobotContextMsg) -> RobotContext:
    """Read it (its length and printability are the oracle's rule: nodes/oracle.py)."""
    bounded(msg.text)
    return RobotContext(msg.text)


def audio_info_to_msg(info: AudioInfo) -> AudioInfoMsg:
    """Convert the microphone stream's description."""
    msg = AudioInfoMsg(sample_rate=info.sample_rate, frame_samples=info.frame_samples,
                       channels=info.channels, encoding=info.sample_format, source=info.source,
                       device=info.device, path=info.path, device_rate=info.device_rate,
                       device_channels=info.device_channels)
    msg.header.frame_id = info.frame_id
    return msg


def msg_to_audio_info(msg: AudioInfoMsg) -> AudioInfo:
    """Read the microphone stream's description."""
    bounded(msg.encoding, msg.header.frame_id, msg.source, msg.device, msg.path)
    return AudioInfo(msg.sample_rate, msg.frame_samples, msg.channels, msg.encoding,
                     msg.header.frame_id, msg.source, msg.device, msg.path, msg.device_rate,
                     msg.device_channels)


def prompt_to_msg(prompt: OraclePrompt) -> OraclePromptMsg:
    """Convert the chat messages one generation was started with."""
    return OraclePromptMsg(epoch=prompt.epoch, reply_id=prompt.reply_id,
                           utterance_id=prompt.utterance_id, final=prompt.final,
                           messages=[ChatMessage(role=m['role'], content=m['content'])
                                     for m in prompt.messages])


def msg_to_prompt(msg: OraclePromptMsg) -> OraclePrompt:
    """Read them; a role other than system, user, assistant is bad_payload."""
    bounded(*(m.content for m in msg.messages))
    roles = {m.role for m in msg.messages} - set(ROLES)
    if roles:
        raise MessageRejected('bad_payload', f'chat roles {sorted(roles)}')
    return OraclePrompt(msg.reply_id, msg.utterance_id, msg.final, msg.epoch,
                        [{'role': m.role, 'content': m.content} for m in msg.messages])


def intent_to_msg(intent: IntentMessage) -> Intent:
    """Convert a proposed robot command (its arguments as a JSON array)."""
    return Intent(command=intent.command, name=intent.name, args_json=json.dumps(intent.args),
                  description=intent.description, score=intent.score,
                  utterance_id=intent.utterance_id, user_text=intent.user_text)


def msg_to_intent(msg: Intent) -> IntentMessage:
    """Read a proposed command; arguments that are not a JSON array, or a NaN score, are bad."""
    bounded(msg.command, msg.name, msg.args_json, msg.description, msg.user_text)
    try:
        args = json.loads(msg.args_json)
    except ValueError as err:
        raise MessageRejected('bad_payload', f'args_json: {err}') from err
    if not isinstance(args, list) or not math.isfinite(msg.score):
        raise MessageRejected('bad_payload', 'args_json must be a JSON array, score finite')
    return IntentMessage(msg.command, msg.name, args, msg.description, msg.score,
                         msg.utterance_id, msg.user_text)


def conversation_to_msg(conversation: Conversation) -> ConversationState:
    """Who has the turn, and the flags it is derived from."""
    return ConversationState(state=int(conversation.turn),
                             user_speaking=conversation.user_speaking,
                             robot_speaking=conversation.robot_speaking,
                             enabled=conversation.enabled)


def msg_to_conversation(msg: ConversationState) -> Conversation:
    """Read it; a state that disagrees with its flags is bad_payload."""
    conversation = Conversation(msg.user_speaking, msg.robot_speaking, msg.enabled,
                                awaiting_reply=msg.state == Turn.THINKING)
    if msg.state != conversation.turn:
        raise MessageRejected('bad_payload', f'state {msg.state} with user_speaking='
                              f'{msg.user_speaking}, robot_speaking={msg.robot_speaking}')
    return conversation


PARTIAL_CODEC = Codec(transcript_to_msg, transcript_reader(final=False))
FINAL_CODEC = Codec(transcript_to_msg, transcript_reader(final=True))
ORACLE_CODEC = Codec(oracle_to_msg, msg_to_oracle)
AGENT_TEXT_CODEC = Codec(agent_text_to_msg, msg_to_agent_text)
CONTEXT_CODEC = Codec(context_to_msg, msg_to_context)
AUDIO_INFO_CODEC = Codec(audio_info_to_msg, msg_to_audio_info)
PROMPT_CODEC = Codec(prompt_to_msg, msg_to_prompt)
INTENT_CODEC = Codec(intent_to_msg, msg_to_intent)
CONVERSATION_CODEC = Codec(conversation_to_msg, msg_to_conversation)
