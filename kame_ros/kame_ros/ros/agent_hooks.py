# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The agent's hooks for behaviour stacks: mute/enable, say with completion, speaking state.

A navigation or behaviour stack talks to "the agent", not to whichever
node renders the voice, so these interfaces are one object with one
contract (docs/hooks.md):

* ``agent/enable`` (std_srvs/SetBool) and the latched ``agent/enabled``:
  a muted agent outputs silence and ignores the oracle and say requests;
* the ``agent/say`` action (``ros/say_action.py``): a goal is spoken,
  its words are the feedback, how it ended (``SayStatus``) the result;
  cancelling it stops the speech, and muting ends every goal ``muted``;
* ``agent/speaking`` (latched): the agent's output is audible, held over
  the pauses between words;
* ``agent/state`` (latched ConversationState): idle, listening, thinking or
  speaking, with the flags it comes from (``frontend/conversation.py``).

The node that owns the voice creates them in configure (``Interfaces``)
and reports each output frame; what "saying" means is its engine's
``say``/``cancel_say``.
"""
import threading
from typing import Callable

import numpy as np
from rclpy.lifecycle import LifecycleNode
from std_msgs.msg import Bool
from std_srvs.srv import SetBool

from kame_ros.audio.levels import SpeakingDetector
from kame_ros.frontend.conversation import Conversation
from kame_ros.ros.lifecycle import Interfaces
from kame_ros.ros.say_action import Cancel, SayActionServer, Speak
from kame_ros.ros.text_io import TextOutput
from kame_ros.ros.topics import AGENT_ENABLED, AGENT_SPEAKING, AGENT_STATE, ENABLE_SERVICE
from kame_ros.wire.messages import SayStatus


class AgentHooks:
    """The agent-wide interfaces of one voice, created with its node's other interfaces."""

    def __init__(self, node: LifecycleNode, interfaces: Interfaces, say: Speak,
                 cancel: Cancel, active: Callable[[], bool]) -> None:
        """Create the service and topics; ``say``/``cancel`` are the voice's engine's."""
        self.node = node
        self.enabled = True
        self.speech = SpeakingDetector()
        self.says = interfaces.track(SayActionServer(node, say, cancel, lambda: self.enabled,
                                                     active))
        self._speaking_pub = interfaces.publisher(AGENT_SPEAKING)
        self._enabled_pub = interfaces.publisher(AGENT_ENABLED)
        self._state_out = interfaces.track(TextOutput(node, AGENT_STATE, lifecycle=True))
        self.conversation = Conversation()
        self._lock = threading.Lock()
        interfaces.service(SetBool, ENABLE_SERVICE, self._on_enable)

    def activate(self) -> None:
        """Announce the current state (the publishers are lifecycle ones: call once active)."""
        self.speech.reset()
        self._speaking_pub.publish(Bool(data=False))
        self._enabled_pub.publish(Bool(data=self.enabled))
        with self._lock:
            self.conversation = Conversation(enabled=self.enabled)
            self._state_out.publish(self.conversation)

    def output(self, pcm: np.ndarray) -> None:
        """Report one output frame (publishes ``agent/speaking`` when it changes)."""
        if self.speech.update(pcm):
            self._speaking_pub.publish(Bool(data=self.speech.speaking))
        speaking, sounding = self.speech.speaking, self.speech.sounding
        self._update(lambda c: c.robot(speaking, sounding))

    def deactivate(self) -> None:
        """End the goals in flight ``failed``: a stopped voice never plays them."""
        self.says.stop_all(SayStatus.FAILED.value)

    def user_speaking(self, speaking: bool) -> None:
        """Report the STT's user-speaking flag."""
        self._update(lambda c: c.user(speaking))

    def turn_ended(self) -> None:
        """Report the user's final transcript: the agent is thinking until it speaks."""
        self._update(Conversation.turn_ended)

    def _update(self, change: Callable[[Conversation], Conversation]) -> None:
        """Apply a change (the frame loop and the executor both report) and publish it."""
        with self._lock:
            conversation = change(self.conversation)
            if conversation != self.conversation:
                self.conversation = conversation
                self._state_out.publish(conversation)

    def _on_enable(self, request: SetBool.Request, response: SetBool.Response):
        self.enabled = request.data
        self._enabled_pub.publish(Bool(data=self.enabled))
        enabled = self.enabled
        self._update(lambda c: c.enable(enabled))
        self.node.get_logger().info(f'agent {"enabled" if self.enabled else "muted"}')
        if not self.enabled:
            self.says.stop_all(SayStatus.MUTED.value)
        response.success, response.message = True, 'enabled' if self.enabled else 'muted'
        return response
