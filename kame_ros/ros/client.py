# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
AgentClient: the agent as one object for behaviour code (the shape of nav2's simple commander).

Behaviour authors should not build publishers from topic constants,
``json.dumps`` a say request and match ``agent/say/done`` by id: this
attaches the agent's interfaces (docs/hooks.md) to a node they already
have and gives typed results. It never spins: the node's executor (any
kind) delivers the replies, so from a callback poll ``SayHandle.done`` or
use ``add_done_callback``; the blocking waits (``wait_until_active``,
``SayHandle.result``) are for a thread other than the one spinning.
Names are relative, so a client on a node in ``/robot1`` talks to the
agent launched in ``/robot1``.
"""
from concurrent import futures
from concurrent.futures import Future
import itertools
import threading
import time
from typing import Callable
import uuid

from rclpy.node import Node
from std_msgs.msg import Bool
from std_srvs.srv import SetBool

from kame_ros.ros.text_io import TextInput, TextOutput
from kame_ros.ros.topics import (AGENT_ENABLED, AGENT_SPEAKING, ENABLE_SERVICE, INTENTS,
                                 ROBOT_CONTEXT, SAY, SAY_CANCEL, SAY_DONE, STT_FINAL)
from kame_ros.stt.events import TranscriptEvent
from kame_ros.wire.messages import (IntentMessage, RobotContext, SayCancel, SayDone,
                                    SayRequest, SayStatus)


class SayHandle:
    """One say request: poll ``done``, wait for ``result``, ``cancel`` it."""

    def __init__(self, client: 'AgentClient', say_id: str, text: str) -> None:
        """Track the request ``say_id`` (made by ``AgentClient.say``)."""
        self.id = say_id
        self.text = text
        self._client = client
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
        """Ask the agent to stop the request; it ends ``cancelled`` (if it had not ended)."""
        self._client._cancel(self.id)

    def add_done_callback(self, callback: Callable[['SayHandle'], None]) -> None:
        """Call ``callback(handle)`` when it ends (at once if it has)."""
        self._future.add_done_callback(lambda _: callback(self))

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
        self._handles: dict[str, SayHandle] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._prefix = f'{node.get_name()}-{uuid.uuid4().hex[:6]}'
        self._final_callbacks: list[Callable[[TranscriptEvent], None]] = []
        self._intent_callbacks: list[Callable[[IntentMessage], None]] = []
        self._say = TextOutput(node, SAY)
        self._say_cancel = TextOutput(node, SAY_CANCEL)
        self._context = TextOutput(node, ROBOT_CONTEXT)
        self._inputs = [
            TextInput(node, SAY_DONE, self._on_done),
            TextInput(node, STT_FINAL, self._on_final),
            TextInput(node, INTENTS, self._on_intent)]
        self._subs = [
            node.create_subscription(AGENT_SPEAKING.msg_type, AGENT_SPEAKING.name,
                                     self._on_speaking, AGENT_SPEAKING.qos),
            node.create_subscription(AGENT_ENABLED.msg_type, AGENT_ENABLED.name,
                                     self._on_enabled, AGENT_ENABLED.qos)]
        self._enable = node.create_client(SetBool, ENABLE_SERVICE)

    def is_active(self) -> bool:
        """Tell whether the agent's voice is active and hears say requests."""
        return self.enabled is not None and self._say.subscribers() > 0

    def wait_until_active(self, timeout_s: float = 60.0) -> bool:
        """Wait for the agent (its front-end active); False after ``timeout_s``."""
        end = time.monotonic() + timeout_s
        while not self.is_active():
            if time.monotonic() > end:
                return False
            time.sleep(0.05)
        return True

    def say(self, text: str, say_id: str | None = None) -> SayHandle:
        """Ask the agent to say ``text``; the handle tells how it ended."""
        say_id = say_id or f'{self._prefix}-{next(self._ids)}'
        handle = SayHandle(self, say_id, text)
        with self._lock:
            self._handles[say_id] = handle
        self._say.publish(SayRequest(say_id, text))
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
        for output in (self._say, self._say_cancel, self._context):
            output.close()
        for text_input in self._inputs:
            text_input.close()
        for sub in self._subs:
            self.node.destroy_subscription(sub)
        self.node.destroy_client(self._enable)

    def _cancel(self, say_id: str) -> None:
        self._say_cancel.publish(SayCancel(say_id))

    def _on_done(self, done: SayDone) -> None:
        with self._lock:
            handle = self._handles.pop(done.id, None)
        if handle is not None:
            handle._finish(done)

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
