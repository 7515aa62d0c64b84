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
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import CompressedImage
from std_msgs.msg import Bool, String

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
    """A topic's contract: relative name (namespace-able), type, QoS."""

    name: str
    msg_type: type
    qos: QoSProfile


MIC_AUDIO = Topic('audio/mic', CompressedImage, AUDIO_QOS)
MIC_INFO = Topic('audio/mic/info', String, LATCHED_QOS)
SPEAKER_AUDIO = Topic('audio/speaker', CompressedImage, AUDIO_QOS)
DIAGNOSTICS = Topic('/diagnostics', DiagnosticArray, DIAGNOSTICS_QOS)
STT_PARTIAL = Topic('stt/partial', String, TEXT_QOS)
STT_FINAL = Topic('stt/final', String, TEXT_QOS)
USER_SPEAKING = Topic('stt/user_speaking', Bool, LATCHED_QOS)
ORACLE_EVENTS = Topic('oracle/events', String, TEXT_QOS)
ORACLE_PROMPT = Topic('oracle/prompt', String, TEXT_QOS)
ROBOT_CONTEXT = Topic('robot/context', String, LATCHED_QOS)
FRONTEND_TEXT = Topic('frontend/text', String, TEXT_QOS)
AGENT_SPEAKING = Topic('agent/speaking', Bool, LATCHED_QOS)
INTENTS = Topic('agent/intents', String, TEXT_QOS)
SAY = Topic('agent/say', String, TEXT_QOS)
SAY_DONE = Topic('agent/say/done', String, TEXT_QOS)
SAY_CANCEL = Topic('agent/say/cancel', String, TEXT_QOS)
AGENT_ENABLED = Topic('agent/enabled', Bool, LATCHED_QOS)
ENABLE_SERVICE = 'agent/enable'

# What an agent run records to a bag (kame_ros_agent --bag) and bag_play knows the QoS of.
AGENT_TOPICS = [MIC_AUDIO, SPEAKER_AUDIO, STT_PARTIAL, STT_FINAL, USER_SPEAKING, ORACLE_EVENTS,
                ROBOT_CONTEXT, FRONTEND_TEXT, AGENT_SPEAKING]
