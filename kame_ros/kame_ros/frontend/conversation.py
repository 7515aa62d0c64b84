# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Who has the turn: idle, the user speaking, the agent thinking, the agent speaking.

A behaviour tree that waits for "the agent is done" or a face animation
that shows listening and thinking needs one value, not three topics to
combine. The node that owns the voice knows all of it: the STT's user
speaking flag, the turn's end (a final transcript) and its own output's
level, so it keeps this state and publishes it when it changes
(``agent/state``).
"""
from dataclasses import dataclass, replace
from enum import IntEnum


class Turn(IntEnum):
    """The states of kame_ros_interfaces/msg/ConversationState, in its numbering."""

    IDLE = 0
    LISTENING = 1  # the user is speaking
    THINKING = 2  # the user finished a turn; no reply audible yet
    SPEAKING = 3  # the agent's voice is audible


@dataclass(frozen=True)
class Conversation:
    """A snapshot; ``turn`` is derived, so the flags can never disagree with it."""

    user_speaking: bool = False
    robot_speaking: bool = False
    enabled: bool = True
    awaiting_reply: bool = False  # a turn ended and the agent has made no sound since

    @property
    def turn(self) -> Turn:
        """Who has the turn: the agent speaking wins, as that is what is heard."""
        if self.robot_speaking:
            return Turn.SPEAKING
        if self.user_speaking:
            return Turn.LISTENING
        return Turn.THINKING if self.awaiting_reply else Turn.IDLE

    def user(self, speaking: bool) -> 'Conversation':
        """Return the state after the STT's user-speaking flag changed."""
        return replace(self, user_speaking=speaking)

    def robot(self, speaking: bool, sounding: bool) -> 'Conversation':
        """
        Return the state after one output frame.

        ``speaking`` is the voice's held state (on through the pauses between
        words); ``sounding`` whether this frame itself is audible. Only a
        sound made after the turn ended answers it: the held state may still
        be on from speech the user's turn cut short.
        """
        return replace(self, robot_speaking=speaking,
                       awaiting_reply=self.awaiting_reply and not sounding)

    def turn_ended(self) -> 'Conversation':
        """Return the state after the user's final transcript: waiting for the reply."""
        return replace(self, awaiting_reply=self.enabled)

    def enable(self, enabled: bool) -> 'Conversation':
        """Return the state after a mute (nothing is awaited from a muted agent) or enable."""
        return replace(self, enabled=enabled, awaiting_reply=self.awaiting_reply and enabled)
