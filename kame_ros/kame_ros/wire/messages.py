# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Typed payloads for the text topics that are not transcripts or oracle events.

Every text topic speaks the one envelope of ``kame_ros.wire.text``; the
payload behind each envelope type is a frozen dataclass here, so a
publisher cannot forget a field and a subscriber gets typed values or a
counted ``bad_payload`` drop, never a half-read dict. Transcripts
(``stt/events.py``) and oracle events (``oracle/events.py``) follow the
same protocol (``wire/payload.py``) next to the code that produces them.
The table of every topic and type is in docs/topics.md.

``robot/context`` is written by people and other stacks, so it also takes
the forms a user would type (``ros2 topic pub``): plain text or a bare
``{"text"}`` object. Speaking on request is the ``agent/say`` action
(kame_ros_interfaces/action/Say); ``SayStatus`` and ``SayDone`` say how a
goal ended.
"""
from dataclasses import asdict, dataclass
from enum import Enum
import json
import typing
from typing import Any, ClassVar, TypeVar

from kame_ros.wire.payload import read_fields
from kame_ros.wire.text import decode_event

Message = TypeVar('Message', bound='WireMessage')


@dataclass(frozen=True)
class WireMessage:
    """A payload with one envelope type: ``TYPE`` names it, the fields are the body."""

    TYPE: ClassVar[str] = ''
    TYPES: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Give each message its TYPES (the payload protocol) from its TYPE."""
        super().__init_subclass__(**kwargs)
        cls.TYPES = (cls.TYPE,)

    @property
    def event_type(self) -> str:
        """Return the envelope type."""
        return self.TYPE

    def payload(self) -> dict[str, Any]:
        """Return the fields for the envelope."""
        return asdict(self)

    @classmethod
    def from_event(cls: type[Message], event: dict[str, Any]) -> Message:
        """Build from a decoded envelope; raises ValueError on a missing or mistyped field."""
        return cls(**read_fields(cls, {'type': cls.TYPE, **event}))


@dataclass(frozen=True)
class AgentText(WireMessage):
    """``frontend/text``: a word (or text token) of what the agent says, as it is said."""

    TYPE: ClassVar[str] = 'frontend.text'
    frame: int
    token: int | None  # the text token (Moshi/KAME); None for the tts front-end
    text: str
    # Said to take the turn (the tts acknowledgement), not part of any reply: the oracle
    # leaves it out of the conversation, or a small LLM learns to answer "Okay." only.
    filler: bool = False


class SayStatus(str, Enum):
    """How a Say goal ended: the result's ``status_text``."""

    SPOKEN = 'spoken'  # played to its last sample (or, Moshi, its last text token fed)
    INTERRUPTED = 'interrupted'  # the user took the turn (barge-in) or a new reply replaced it
    CANCELLED = 'cancelled'  # the goal was cancelled
    MUTED = 'muted'  # the agent was muted before or while it played
    EMPTY = 'empty'  # nothing to say
    FAILED = 'failed'  # the TTS could not synthesize it
    UNSUPPORTED = 'unsupported'  # Moshi in plain mode cannot be steered


@dataclass(frozen=True)
class SayDone:
    """How a Say goal ended (a ``SayStatus`` value), as ``AgentClient`` reports it."""

    id: str  # noqa: A003 (the goal's id, hex)
    text: str
    status: str


@dataclass(frozen=True)
class RobotContext(WireMessage):
    """``robot/context``: what the robot knows now (place, battery), given to the LLM."""

    TYPE: ClassVar[str] = 'robot.context'
    text: str


@dataclass(frozen=True)
class AudioInfo(WireMessage):
    """``audio/mic/info`` (latched): what the microphone stream is and where it comes from."""

    TYPE: ClassVar[str] = 'audio.info'
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
class OraclePrompt(WireMessage):
    """``oracle/prompt``: the messages one generation was started with (what the LLM saw)."""

    TYPE: ClassVar[str] = 'oracle.prompt'
    reply_id: int
    utterance_id: int
    final: bool
    epoch: int
    messages: list


@dataclass(frozen=True)
class IntentMessage(WireMessage):
    """``agent/intents``: an allowlisted command the oracle proposes for a final utterance."""

    TYPE: ClassVar[str] = 'intent'
    command: str
    name: str
    args: list
    description: str
    score: float
    utterance_id: int
    user_text: str


def parse_user_text(raw: str, message: type[Message], **defaults: Any) -> Message:
    """
    Read a topic people write to: the envelope, a bare JSON object, or plain text.

    Plain text (and JSON that is not an object) becomes the ``text`` field;
    ``defaults`` fill what the sender left out (a say request's id). An
    envelope of the wrong type or a bad field raises EventRejected /
    ValueError like any other text topic.
    """
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    if isinstance(body, dict) and 'v' in body:
        return message.from_event({**defaults, **decode_event(raw, message.TYPE)})
    if isinstance(body, dict):
        hints = typing.get_type_hints(message)
        # Hand-written JSON: {"id": 7} means the id "7".
        given = {k: str(v) if hints.get(k) is str and not isinstance(v, (dict, list)) else v
                 for k, v in body.items() if k in hints and k != 'TYPE'}
        return message.from_event({**defaults, **given})
    return message.from_event({**defaults, 'text': raw})
