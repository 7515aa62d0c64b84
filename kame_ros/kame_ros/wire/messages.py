# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The core's values for the topics that are not audio, transcripts or oracle events.

Each is a frozen dataclass, free of rclpy, so the engines and tools that
make them run and test without ROS; ``kame_ros/ros/messages.py`` is the one
place that turns them into kame_ros_interfaces messages and back.
Transcripts (``stt/events.py``) and oracle events (``oracle/events.py``) sit
next to the code that produces them. Speaking on request is the
``agent/say`` action (kame_ros_interfaces/action/Say); ``SayStatus`` and
``SayDone`` say how a goal ended. The table of every topic and type is in
docs/topics.md.
"""
from dataclasses import dataclass
from enum import Enum
from typing import ClassVar


@dataclass(frozen=True)
class AgentText:
    """``frontend/text``: a word (or text token) of what the agent says, as it is said."""

    TYPE: ClassVar[str] = 'frontend.text'  # its kind in records and timelines
    frame: int
    token: int | None  # the text token (Moshi/KAME); None for the tts front-end
    text: str
    # Said to take the turn (the tts acknowledgement), not part of any reply: the oracle
    # leaves it out of the conversation, or a small LLM learns to answer "Okay." only.
    filler: bool = False
    say_id: str = ''  # the Say goal it belongs to (hex id); empty for replies

    @property
    def event_type(self) -> str:
        """Its kind in records and timelines."""
        return self.TYPE


class SayStatus(str, Enum):
    """How a Say goal ended: the result's ``status_text``."""

    SPOKEN = 'spoken'  # played to its last sample (or, Moshi, its last text token fed)
    INTERRUPTED = 'interrupted'  # the user took the turn (barge-in) or a new reply replaced it
    CANCELLED = 'cancelled'  # the goal was cancelled
    MUTED = 'muted'  # the agent was muted before or while it played
    EMPTY = 'empty'  # nothing to say
    FAILED = 'failed'  # the TTS could not synthesize it, or the voice was deactivated
    UNSUPPORTED = 'unsupported'  # Moshi in plain mode cannot be steered


@dataclass(frozen=True)
class SayDone:
    """How a Say goal ended (a ``SayStatus`` value), as ``AgentClient`` reports it."""

    id: str  # noqa: A003 (the goal's id, hex)
    text: str
    status: str


@dataclass(frozen=True)
class RobotContext:
    """``robot/context``: what the robot knows now (place, battery), given to the LLM."""

    text: str


@dataclass(frozen=True)
class AudioInfo:
    """``audio/mic/info`` (latched): what the microphone stream is and where it comes from."""

    sample_rate: int
    frame_samples: int
    channels: int
    sample_format: str
    frame_id: str
    source: str
    device: str = ''
    path: str = ''
    device_rate: int = 0
    device_channels: int = 0


@dataclass(frozen=True)
class OraclePrompt:
    """``oracle/prompt``: the messages one generation was started with (what the LLM saw)."""

    reply_id: int
    utterance_id: int
    final: bool
    epoch: int
    messages: list


@dataclass(frozen=True)
class IntentMessage:
    """``agent/intents``: an allowlisted command the oracle proposes for a final utterance."""

    command: str
    name: str
    args: list
    description: str
    score: float
    utterance_id: int
    user_text: str
