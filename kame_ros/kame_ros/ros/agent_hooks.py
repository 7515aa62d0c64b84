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
  the pauses between words.

The node that owns the voice creates them in configure (``Interfaces``)
and reports each output frame; what "saying" means is its engine's
``say``/``cancel_say``.
"""
import numpy as np
from rclpy.lifecycle import LifecycleNode
from std_msgs.msg import Bool
from std_srvs.srv import SetBool

from kame_ros.audio.levels import SpeakingDetector
from kame_ros.ros.lifecycle import Interfaces
from kame_ros.ros.say_action import Cancel, SayActionServer, Speak
from kame_ros.ros.topics import AGENT_ENABLED, AGENT_SPEAKING, ENABLE_SERVICE
from kame_ros.wire.messages import SayStatus


class AgentHooks:
    """The agent-wide interfaces of one voice, created with its node's other interfaces."""

    def __init__(self, node: LifecycleNode, interfaces: Interfaces, say: Speak,
                 cancel: Cancel) -> None:
        """Create the service and topics; ``say``/``cancel`` are the voice's engine's."""
        self.node = node
        self.enabled = True
        self.speech = SpeakingDetector()
        self.says = interfaces.track(SayActionServer(node, say, cancel, lambda: self.enabled))
        self._speaking_pub = interfaces.publisher(AGENT_SPEAKING)
        self._enabled_pub = interfaces.publisher(AGENT_ENABLED)
        interfaces.service(SetBool, ENABLE_SERVICE, self._on_enable)

    def activate(self) -> None:
        """Announce the current state (the publishers are lifecycle ones: call once active)."""
        self.speech.reset()
        self._speaking_pub.publish(Bool(data=False))
        self._enabled_pub.publish(Bool(data=self.enabled))

    def output(self, pcm: np.ndarray) -> None:
        """Report one output frame (publishes ``agent/speaking`` when it changes)."""
        if self.speech.update(pcm):
            self._speaking_pub.publish(Bool(data=self.speech.speaking))

    def _on_enable(self, request: SetBool.Request, response: SetBool.Response):
        self.enabled = request.data
        self._enabled_pub.publish(Bool(data=self.enabled))
        self.node.get_logger().info(f'agent {"enabled" if self.enabled else "muted"}')
        if not self.enabled:
            self.says.stop_all(SayStatus.MUTED.value)
        response.success, response.message = True, 'enabled' if self.enabled else 'muted'
        return response
