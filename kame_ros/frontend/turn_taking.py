# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The tts front-end's turn-taking: when to acknowledge, when a reply waits."""

MAX_HOLD_FRAMES = 50  # a reply waits at most 4 s for the user to stop speaking
ANSWERED_FRAMES = 20  # 1.6 s of reply played: the turn was answered, the next final is a new one


class TurnTaking:
    """
    So a user who pauses mid-thought hears one "Okay." and one answer, not one per pause.

    A user turn gets at most one acknowledgement: the next one only once the
    agent has been answering for ``ANSWERED_FRAMES`` (a final that comes
    sooner continues the same turn), and none when the answer to that very
    final is already synthesized when the acknowledgement would start. A
    reply that has not started yet waits while the user is in a turn (the
    STT's ``user_speaking``; at most ``MAX_HOLD_FRAMES``, so a stuck flag
    cannot silence the agent). Voice activity never cuts a reply that is
    playing (only a newer final reply does), so residual echo of the robot's
    own voice cannot silence it.

    Plain state, no lock: the engine calls it under its audio lock.
    """

    def __init__(self) -> None:
        """Start between turns, nothing acknowledged."""
        self.reply_utterance = -1  # the utterance the current reply answers
        self.reply_started = False
        self.reply_frames = 0  # frames of the current reply played
        self.pending_ack: int | None = None  # utterance whose acknowledgement is due
        self.acked_utterance = -1  # the utterance the last acknowledgement answered
        self.acked_turn = False  # acknowledged, and the agent has not answered yet
        self.user_speaking = False
        self.held_frames = 0
        self.acks = 0
        self.acks_skipped = 0

    def turn_ended(self, utterance: int) -> None:
        """Take a final transcript: its acknowledgement is due unless the turn had one."""
        if self.acked_turn:
            self.acks_skipped += 1
            return
        self.pending_ack, self.acked_turn = utterance, True

    def speaking(self, speaking: bool) -> None:
        """Take the STT's voice activity."""
        self.user_speaking, self.held_frames = speaking, 0

    def acknowledge_now(self, reply_ready: bool) -> bool:
        """Take the due acknowledgement: True if it plays now (not if its answer is ready)."""
        if self.pending_ack is None:
            return False
        utterance, self.pending_ack = self.pending_ack, None
        if reply_ready and not self.reply_started and self.reply_utterance == utterance:
            self.acks_skipped += 1
            return False
        self.acks += 1
        self.acked_utterance = utterance
        return True

    def new_reply(self, utterance: int) -> None:
        """Take a newer final reply (not started yet)."""
        self.reply_utterance, self.reply_started = utterance, False

    def nothing_to_say(self) -> None:
        """Take a reply that ended empty: the turn is over all the same."""
        self.acked_turn = False

    def holds(self, reply_ready: bool) -> bool:
        """Tell whether a reply that has not started waits this frame (the user speaks)."""
        if (self.user_speaking and not self.reply_started and reply_ready
                and self.held_frames < MAX_HOLD_FRAMES):
            self.held_frames += 1
            return True
        return False

    def played(self, samples: int, left: int) -> None:
        """Count a frame with ``samples`` of reply in it; ``left`` samples are still queued."""
        if not samples:
            return
        if not self.reply_started:
            self.reply_started, self.reply_frames = True, 0
        self.reply_frames += 1
        if self.reply_frames == ANSWERED_FRAMES or not left:
            self.acked_turn = False  # answered (or the whole reply was shorter)
