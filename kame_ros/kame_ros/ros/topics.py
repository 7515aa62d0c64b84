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
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import CompressedImage
from std_msgs.msg import Bool, String

from kame_ros.oracle.events import OracleEvent
from kame_ros.stt.events import FINAL, PARTIAL, TranscriptEvent
from kame_ros.wire.messages import (AgentText, AudioInfo, IntentMessage, OraclePrompt,
                                    RobotContext)

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
    """A topic's contract: relative name (namespace-able), type, QoS; a text topic's payload."""

    name: str
    msg_type: type
    qos: QoSProfile
    payload: type | None = None  # the dataclass of every envelope (wire/payload.py)
    only: tuple[str, ...] = ()  # the envelope types it carries, when not all the payload's

    @property
    def event_types(self) -> tuple[str, ...]:
        """Return the envelope types a subscriber accepts (others are ``wrong_type`` drops)."""
        return self.only or self.payload.TYPES


@dataclass(frozen=True)
class Action:
    """An action's contract: relative name and type (its topics and services: rclpy's QoS)."""

    name: str
    msg_type: type


MIC_AUDIO = Topic('audio/mic', CompressedImage, AUDIO_QOS)
MIC_INFO = Topic('audio/mic/info', String, LATCHED_QOS, AudioInfo)
SPEAKER_AUDIO = Topic('audio/speaker', CompressedImage, AUDIO_QOS)
DIAGNOSTICS = Topic('/diagnostics', DiagnosticArray, DIAGNOSTICS_QOS)
STT_PARTIAL = Topic('stt/partial', String, TEXT_QOS, TranscriptEvent, (PARTIAL,))
STT_FINAL = Topic('stt/final', String, TEXT_QOS, TranscriptEvent, (FINAL,))
USER_SPEAKING = Topic('stt/user_speaking', Bool, LATCHED_QOS)
ORACLE_EVENTS = Topic('oracle/events', String, TEXT_QOS, OracleEvent)
ORACLE_PROMPT = Topic('oracle/prompt', String, TEXT_QOS, OraclePrompt)
ROBOT_CONTEXT = Topic('robot/context', String, LATCHED_QOS, RobotContext)
FRONTEND_TEXT = Topic('frontend/text', String, TEXT_QOS, AgentText)
AGENT_SPEAKING = Topic('agent/speaking', Bool, LATCHED_QOS)
INTENTS = Topic('agent/intents', String, TEXT_QOS, IntentMessage)
AGENT_ENABLED = Topic('agent/enabled', Bool, LATCHED_QOS)
ENABLE_SERVICE = 'agent/enable'
SAY_ACTION = Action('agent/say', Say)

# What an agent run records to a bag (kame_ros_agent --bag) and bag_play knows the QoS of.
AGENT_TOPICS = [MIC_AUDIO, SPEAKER_AUDIO, STT_PARTIAL, STT_FINAL, USER_SPEAKING, ORACLE_EVENTS,
                ROBOT_CONTEXT, FRONTEND_TEXT, AGENT_SPEAKING]
