# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Every kame_ros topic: its name, message type and QoS, in one place.

QoS is chosen per kind of data (docs/topics.md):

* audio: RELIABLE, KEEP_LAST 25 (2 s), VOLATILE. A lost frame is an audible
  click or a hole in what the recognizer hears, and at 12.5 Hz x 3.8 kB
  retransmission is cheap; KEEP_LAST bounds memory and never blocks the
  publisher. A BEST_EFFORT subscriber (a monitor over Wi-Fi) still matches.
* text events: RELIABLE, KEEP_LAST 100, VOLATILE: every transcript revision
  and oracle event matters, nothing is worth replaying to a late joiner.
* intents (``agent/intents``): text QoS; VOLATILE matters most here: a
  behaviour stack that starts late must never act on a stale command.
* static/latched state: RELIABLE, KEEP_LAST 1, TRANSIENT_LOCAL, so a node
  that starts later still learns the current value.
"""
from dataclasses import dataclass

from diagnostic_msgs.msg import DiagnosticArray
from kame_ros_interfaces.action import Say
from kame_ros_interfaces.msg import (AgentWord, AudioFrame, AudioInfo, ConversationState, Intent,
                                     OracleEvent, OraclePrompt, RobotContext, Transcript)
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import Bool

from kame_ros.ros.messages import (AGENT_TEXT_CODEC, AUDIO_INFO_CODEC, Codec, CONTEXT_CODEC,
                                   CONVERSATION_CODEC, FINAL_CODEC, INTENT_CODEC, ORACLE_CODEC,
                                   PARTIAL_CODEC, PROMPT_CODEC)

AUDIO_QOS = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=25,
                       reliability=ReliabilityPolicy.RELIABLE,
                       durability=DurabilityPolicy.VOLATILE)
TEXT_QOS = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=100,
                      reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.VOLATILE)
LATCHED_QOS = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1,
                         reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
DIAGNOSTICS_QOS = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=10,
                             reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.VOLATILE)


@dataclass(frozen=True)
class Topic:
    """A topic's contract: relative name (namespace-able), type, QoS; its dataclass's codec."""

    name: str
    msg_type: type
    qos: QoSProfile
    codec: Codec | None = None  # ros/messages.py: the core's dataclass <-> msg_type


@dataclass(frozen=True)
class Action:
    """An action's contract: relative name and type (its topics and services: rclpy's QoS)."""

    name: str
    msg_type: type


MIC_AUDIO = Topic('audio/mic', AudioFrame, AUDIO_QOS)
MIC_INFO = Topic('audio/mic/info', AudioInfo, LATCHED_QOS, AUDIO_INFO_CODEC)
SPEAKER_AUDIO = Topic('audio/speaker', AudioFrame, AUDIO_QOS)
DIAGNOSTICS = Topic('/diagnostics', DiagnosticArray, DIAGNOSTICS_QOS)
STT_PARTIAL = Topic('stt/partial', Transcript, TEXT_QOS, PARTIAL_CODEC)
STT_FINAL = Topic('stt/final', Transcript, TEXT_QOS, FINAL_CODEC)
USER_SPEAKING = Topic('stt/user_speaking', Bool, LATCHED_QOS)
ORACLE_EVENTS = Topic('oracle/events', OracleEvent, TEXT_QOS, ORACLE_CODEC)
ORACLE_PROMPT = Topic('oracle/prompt', OraclePrompt, TEXT_QOS, PROMPT_CODEC)
ROBOT_CONTEXT = Topic('robot/context', RobotContext, LATCHED_QOS, CONTEXT_CODEC)
FRONTEND_TEXT = Topic('frontend/text', AgentWord, TEXT_QOS, AGENT_TEXT_CODEC)
AGENT_SPEAKING = Topic('agent/speaking', Bool, LATCHED_QOS)
INTENTS = Topic('agent/intents', Intent, TEXT_QOS, INTENT_CODEC)
AGENT_ENABLED = Topic('agent/enabled', Bool, LATCHED_QOS)
AGENT_STATE = Topic('agent/state', ConversationState, LATCHED_QOS, CONVERSATION_CODEC)
ENABLE_SERVICE = 'agent/enable'
SAY_ACTION = Action('agent/say', Say)

# What an agent run records to a bag (kame_ros_agent --bag) and bag_play knows the QoS of.
AGENT_TOPICS = [MIC_AUDIO, SPEAKER_AUDIO, STT_PARTIAL, STT_FINAL, USER_SPEAKING, ORACLE_EVENTS,
                ROBOT_CONTEXT, FRONTEND_TEXT, AGENT_SPEAKING, AGENT_STATE]
