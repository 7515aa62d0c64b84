# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The tts front-end's turn-taking: when to acknowledge, when a reply waits."""

MAX_HOLD_FRAMES = 50  # a reply waits at most 4 s for the user to stop speaking
ANSWERED_FRAMES = 20  # 1.6 s of reply played: the turn was answered, the next final is a new one
RESUME_FRAMES = 10  # a reply paused by the user resumes 0.8 s after they stop, with no final
BARGE_IN = ('voice', 'final')


class TurnTaking:
    """
    So a user who pauses mid-thought hears one "Okay." and one answer, not one per pause.

    A user turn gets at most one acknowledgement: the next one only once the
    agent has been answering for ``ANSWERED_FRAMES`` (a final that comes
    sooner continues the same turn), and none when the answer to that very
    final is already synthesized when the acknowledgement would start. A
    reply that has not started yet waits while the user is in a turn (the
    STT's ``user_speaking``; at most ``MAX_HOLD_FRAMES``, so a stuck flag
    cannot silence the agent).

    Barge-in (issue 41): with ``barge_in`` 'voice' a reply that is playing
    pauses as soon as the user speaks over it (the next frame), so the rest
    of their words reach the microphone without the robot's voice over them;
    their final ends the reply (``barged``: the engine drops the rest), and
    if no final comes (a cough, a door, the robot's own residual echo) it
    resumes ``RESUME_FRAMES`` after they stop. A false start costs a pause,
    never the reply. With 'final' voice activity never touches a reply that
    is playing; only a newer final reply interrupts it.

    Plain state, no lock: the engine calls it under its audio lock.
    """

    def __init__(self, barge_in: str = 'voice') -> None:
        """Start between turns, nothing acknowledged."""
        if barge_in not in BARGE_IN:
            raise ValueError(f'barge_in must be one of {BARGE_IN}, not {barge_in!r}')
        self.pause_on_voice = barge_in == 'voice'
        self.barged = False  # the reply playing was paused by the user's voice
        self.resume_in = 0  # frames until a paused reply resumes (the user stopped)
        self.barge_ins = 0  # replies paused by the user's voice
        self.resumed = 0  # ... that went on: no final came (a false start)
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
        if self.user_speaking and not speaking and self.barged:
            self.resume_in = RESUME_FRAMES  # their final, if any, comes within it
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
        self.barged, self.resume_in = False, 0

    def interrupted(self) -> bool:
        """Take a final: True if it ends a reply the user paused (the engine drops its rest)."""
        barged, self.barged, self.resume_in = self.barged, False, 0
        return barged

    def nothing_to_say(self) -> None:
        """Take a reply that ended empty: the turn is over all the same."""
        self.acked_turn = False

    def holds(self, reply_ready: bool) -> bool:
        """Tell whether the reply waits this frame: the user speaks, or just stopped over it."""
        if not reply_ready:
            return False
        if (self.user_speaking and (not self.reply_started or self.pause_on_voice)
                and self.held_frames < MAX_HOLD_FRAMES):
            self.held_frames += 1
            if self.reply_started and not self.barged:
                self.barged = True
                self.barge_ins += 1
            return True
        if self.resume_in:
            self.resume_in -= 1
            if not self.resume_in:
                self.barged = False
                self.resumed += 1
            return bool(self.resume_in)
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
