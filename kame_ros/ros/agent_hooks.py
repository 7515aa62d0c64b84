# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The agent's hooks for behaviour stacks: mute/enable, say with completion, speaking state.

A navigation or behaviour stack talks to "the agent", not to whichever
node renders the voice, so these interfaces are one object with one
contract (docs/hooks.md):

* ``agent/enable`` (std_srvs/SetBool) and the latched ``agent/enabled``:
  a muted agent outputs silence and ignores the oracle and say requests;
* ``agent/say`` -> ``agent/say/done``: a request (plain text, a bare
  ``{"id", "text"}`` or the ``say.request`` envelope) is answered once by
  id with how it ended (``SayStatus``); ``agent/say/cancel`` (the id, or
  ``say.cancel``) stops one, and muting stops all with ``muted``;
* ``agent/speaking`` (latched): the agent's output is audible, held over
  the pauses between words.

The node that owns the voice creates them in configure (``Interfaces``)
and reports each output frame; what "saying" means is its engine's
``say``/``cancel_say``.
"""
import threading
from typing import Callable

import numpy as np
from rclpy.lifecycle import LifecycleNode
from std_msgs.msg import Bool, String
from std_srvs.srv import SetBool

from kame_ros.audio.levels import SpeakingDetector
from kame_ros.ros.lifecycle import Interfaces
from kame_ros.ros.text_io import drop_reason, TextOutput
from kame_ros.ros.topics import (AGENT_ENABLED, AGENT_SPEAKING, ENABLE_SERVICE, SAY,
                                 SAY_CANCEL, SAY_DONE)
from kame_ros.wire.drops import DropLedger
from kame_ros.wire.messages import parse_user_text, SayCancel, SayDone, SayRequest, SayStatus

MAX_SAY_CHARS = 1000
Say = Callable[[str, str, Callable[[str], None]], None]  # (id, text, on_done)
Cancel = Callable[[str, str], bool]  # (id, status) -> it was waiting or playing


class AgentHooks:
    """The agent-wide interfaces of one voice, created with its node's other interfaces."""

    def __init__(self, node: LifecycleNode, interfaces: Interfaces, say: Say,
                 cancel: Cancel) -> None:
        """Create the service and topics; ``say``/``cancel`` are the voice's engine's."""
        self.node = node
        self.say = say
        self.cancel = cancel
        self._in_flight: set[str] = set()  # say ids not answered yet
        self._lock = threading.Lock()
        self.enabled = True
        self.requests = 0
        self.drops = DropLedger()
        self.speech = SpeakingDetector()
        self._say_done = interfaces.track(TextOutput(node, SAY_DONE, lifecycle=True))
        self._speaking_pub = interfaces.publisher(AGENT_SPEAKING)
        self._enabled_pub = interfaces.publisher(AGENT_ENABLED)
        interfaces.service(SetBool, ENABLE_SERVICE, self._on_enable)
        interfaces.subscription(SAY, self._on_say)
        interfaces.subscription(SAY_CANCEL, self._on_cancel)

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
            with self._lock:
                in_flight = list(self._in_flight)
            for say_id in in_flight:
                self.cancel(say_id, SayStatus.MUTED.value)
        response.success, response.message = True, 'enabled' if self.enabled else 'muted'
        return response

    def _on_say(self, msg: String) -> None:
        self.requests += 1
        try:
            request = parse_user_text(msg.data, SayRequest, id=f'say-{self.requests}', text='')
        except ValueError as err:  # a bad envelope (EventRejected) or field
            if self.drops.record(f'say_{drop_reason(err)}'):
                self.node.get_logger().warning(f'say request dropped: {err}')
            return
        text = request.text.strip()[:MAX_SAY_CHARS]
        with self._lock:
            self._in_flight.add(request.id)

        def done(status: str) -> None:
            with self._lock:
                self._in_flight.discard(request.id)
            self._say_done.publish(SayDone(request.id, text, status))
        if not text:
            done(SayStatus.EMPTY.value)
        elif not self.enabled:
            done(SayStatus.MUTED.value)
        else:
            self.say(request.id, text, done)

    def _on_cancel(self, msg: String) -> None:
        try:  # plain text is the id
            request = parse_user_text(msg.data, SayCancel, id=msg.data.strip())
        except ValueError as err:
            if self.drops.record(f'say_cancel_{drop_reason(err)}'):
                self.node.get_logger().warning(f'say cancel dropped: {err}')
            return
        if not self.cancel(request.id, SayStatus.CANCELLED.value):
            self.node.get_logger().info(f'say cancel: {request.id!r} is not waiting or playing')
