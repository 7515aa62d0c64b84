# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Who has the turn (agent/state): a turn is awaited from its end until the agent sounds."""
from kame_ros.frontend.conversation import Conversation, Turn


def test_a_turn_goes_listening_thinking_speaking_idle():
    c = Conversation()
    assert c.turn is Turn.IDLE
    c = c.user(True)
    assert c.turn is Turn.LISTENING
    c = c.user(False)
    assert c.turn is Turn.IDLE, 'a pause is not the end of the turn'
    c = c.turn_ended()
    assert c.turn is Turn.THINKING
    c = c.user(True)
    assert c.turn is Turn.LISTENING, 'the user going on takes the turn back'
    c = c.user(False)
    assert c.turn is Turn.THINKING, '...and the reply is still awaited'
    c = c.robot(True, True)
    assert c.turn is Turn.SPEAKING and not c.awaiting_reply
    assert c.user(True).turn is Turn.SPEAKING, 'what is heard is the agent, over the user'
    assert c.robot(True, False).turn is Turn.SPEAKING, 'a pause between words'
    assert c.robot(False, False).turn is Turn.IDLE, 'the reply spoken, nothing awaited'


def test_a_turn_ended_over_the_agent_is_answered_only_by_a_later_sound():
    """The user's final cuts the agent short: its held state is no answer, its next sound is."""
    c = Conversation().robot(True, True).turn_ended()
    assert c.turn is Turn.SPEAKING and c.awaiting_reply
    c = c.robot(True, False).robot(False, False)
    assert c.turn is Turn.THINKING, 'the cut-off speech faded: the reply is still awaited'
    c = c.robot(True, True)
    assert c.turn is Turn.SPEAKING and not c.awaiting_reply
    assert c.robot(False, False).turn is Turn.IDLE, 'never stuck thinking after a reply'


def test_a_muted_agent_awaits_nothing():
    c = Conversation().turn_ended()
    assert c.enable(False).turn is Turn.IDLE
    assert c.enable(False).turn_ended().turn is Turn.IDLE, 'a muted agent will not answer'
    assert c.enable(False).enable(True).turn is Turn.IDLE
