# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
AgentClient: the agent as one object for behaviour code (the shape of nav2's simple commander).

Behaviour authors should not build publishers from topic constants or
drive the ``agent/say`` action by hand: this attaches the agent's
interfaces (docs/hooks.md) to a node they already have and gives typed
results. It never spins: the node's executor (any
kind) delivers the replies, so from a callback poll ``SayHandle.done`` or
use ``add_done_callback``; the blocking waits (``wait_until_active``,
``SayHandle.result``) are for a thread other than the one spinning.
Names are relative, so a client on a node in ``/robot1`` talks to the
agent launched in ``/robot1``.
"""
from concurrent import futures
from concurrent.futures import Future
import threading
import time
from typing import Callable

from rclpy.action import ActionClient
from rclpy.node import Node
from std_msgs.msg import Bool
from std_srvs.srv import SetBool

from kame_ros.frontend.conversation import Conversation
from kame_ros.ros.text_io import TextInput, TextOutput
from kame_ros.ros.topics import (AGENT_ENABLED, AGENT_SPEAKING, AGENT_STATE, ENABLE_SERVICE,
                                 INTENTS, ROBOT_CONTEXT, SAY_ACTION, STT_FINAL)
from kame_ros.stt.events import TranscriptEvent
from kame_ros.wire.messages import IntentMessage, RobotContext, SayDone, SayStatus


class SayHandle:
    """One Say goal: poll ``done``, wait for ``result``, ``cancel`` it; ``words`` as played."""

    def __init__(self, text: str) -> None:
        """Track one goal (made by ``AgentClient.say``)."""
        self.text = text
        self.words: list[str] = []  # the feedback: each word as it starts to play
        self._goal = None  # the rclpy goal handle, once the agent accepted the goal
        self._cancel_asked = False
        self._lock = threading.Lock()
        self._future: Future = Future()

    @property
    def done(self) -> bool:
        """Tell whether the agent has answered how the request ended."""
        return self._future.done()

    @property
    def status(self) -> SayStatus | None:
        """Return how it ended (None while it is waiting or playing)."""
        return SayStatus(self._future.result().status) if self.done else None

    def result(self, timeout_s: float | None = None) -> SayDone | None:
        """Wait for the end (from a thread that is not spinning the node); None on timeout."""
        try:
            return self._future.result(timeout_s)
        except futures.TimeoutError:  # not the builtin one before Python 3.11 (Humble)
            return None

    def cancel(self) -> None:
        """Ask the agent to stop the goal; it ends ``cancelled`` (if it had not ended)."""
        with self._lock:
            self._cancel_asked = True
            goal = self._goal
        if goal is not None:
            goal.cancel_goal_async()

    def add_done_callback(self, callback: Callable[['SayHandle'], None]) -> None:
        """Call ``callback(handle)`` when it ends (at once if it has)."""
        self._future.add_done_callback(lambda _: callback(self))

    def _accepted(self, future) -> None:
        goal = future.result()
        if not goal.accepted:
            self._finish(SayDone('', self.text, SayStatus.FAILED.value))
            return
        with self._lock:
            self._goal = goal
            cancel = self._cancel_asked
        goal.get_result_async().add_done_callback(self._ended)
        if cancel:
            goal.cancel_goal_async()

    def _ended(self, future) -> None:
        result = future.result().result
        self._finish(SayDone(bytes(self._goal.goal_id.uuid).hex(), result.text,
                             result.status_text))

    def _finish(self, done: SayDone) -> None:
        if not self._future.done():
            self._future.set_result(done)


class AgentClient:
    """Say, cancel, mute, give context, hear finals and intents: over the agent's topics."""

    def __init__(self, node: Node) -> None:
        """Create the publishers, subscriptions and the enable client on ``node``."""
        self.node = node
        self.speaking = False
        self.enabled: bool | None = None  # None until the agent announced it (when active)
        self.conversation: Conversation | None = None  # agent/state: who has the turn
        self._final_callbacks: list[Callable[[TranscriptEvent], None]] = []
        self._intent_callbacks: list[Callable[[IntentMessage], None]] = []
        self._say = ActionClient(node, SAY_ACTION.msg_type, SAY_ACTION.name)
        self._context = TextOutput(node, ROBOT_CONTEXT)
        self._inputs = [
            TextInput(node, STT_FINAL, self._on_final),
            TextInput(node, INTENTS, self._on_intent),
            TextInput(node, AGENT_STATE, lambda c: setattr(self, 'conversation', c))]
        self._subs = [
            node.create_subscription(AGENT_SPEAKING.msg_type, AGENT_SPEAKING.name,
                                     self._on_speaking, AGENT_SPEAKING.qos),
            node.create_subscription(AGENT_ENABLED.msg_type, AGENT_ENABLED.name,
                                     self._on_enabled, AGENT_ENABLED.qos)]
        self._enable = node.create_client(SetBool, ENABLE_SERVICE)

    def is_active(self) -> bool:
        """Tell whether the agent's voice is active and hears say requests."""
        return self.enabled is not None and self._say.server_is_ready()

    def wait_until_active(self, timeout_s: float = 60.0) -> bool:
        """Wait for the agent (its front-end active); False after ``timeout_s``."""
        end = time.monotonic() + timeout_s
        while not self.is_active():
            if time.monotonic() > end:
                return False
            time.sleep(0.05)
        return True

    def say(self, text: str, interruptible: bool = True) -> SayHandle:
        """Send the agent a Say goal; the handle tells its words and how it ended."""
        handle = SayHandle(text)
        self._say.send_goal_async(
            SAY_ACTION.msg_type.Goal(text=text, interruptible=interruptible),
            feedback_callback=lambda f: handle.words.append(f.feedback.word),
        ).add_done_callback(handle._accepted)
        return handle

    def mute(self) -> Future:
        """Mute the agent (silence, says end ``muted``); the future holds the response."""
        return self.set_enabled(False)

    def unmute(self) -> Future:
        """Let the agent speak again."""
        return self.set_enabled(True)

    def set_enabled(self, enabled: bool) -> Future:
        """Call ``agent/enable``; the rclpy future completes when the agent answers."""
        return self._enable.call_async(SetBool.Request(data=enabled))

    def set_context(self, text: str) -> None:
        """Tell the LLM what the robot knows now ("battery 35%, going to the kitchen")."""
        self._context.publish(RobotContext(text))

    def on_final(self, callback: Callable[[TranscriptEvent], None]) -> None:
        """Call ``callback`` with each final transcript of the user."""
        self._final_callbacks.append(callback)

    def on_intent(self, callback: Callable[[IntentMessage], None]) -> None:
        """Call ``callback`` with each allowlisted intent the oracle proposes."""
        self._intent_callbacks.append(callback)

    def destroy(self) -> None:
        """Remove the client's interfaces from the node."""
        self._say.destroy()
        self._context.close()
        for text_input in self._inputs:
            text_input.close()
        for sub in self._subs:
            self.node.destroy_subscription(sub)
        self.node.destroy_client(self._enable)

    def _on_final(self, event: TranscriptEvent) -> None:
        for callback in list(self._final_callbacks):
            callback(event)

    def _on_intent(self, intent: IntentMessage) -> None:
        for callback in list(self._intent_callbacks):
            callback(intent)

    def _on_speaking(self, msg: Bool) -> None:
        self.speaking = msg.data

    def _on_enabled(self, msg: Bool) -> None:
        self.enabled = msg.data
