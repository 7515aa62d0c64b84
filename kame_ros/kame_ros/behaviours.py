# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
py_trees behaviours over ``AgentClient``: say, wait for an utterance or an intent, mute.

A behaviour tree ticks often and must never block, so every behaviour
starts its request in ``initialise``, polls in ``update`` and, when the
tree abandons it (a higher-priority branch took over), cancels what it
started in ``terminate``. Each one needs a client whose node is spun by
an executor of the caller's choice (docs/hooks.md has a complete tree).
"""
from collections import deque
from typing import Callable, Iterable

import py_trees
from py_trees.common import Status

from kame_ros.ros.client import AgentClient, SayHandle
from kame_ros.stt.events import TranscriptEvent
from kame_ros.wire.messages import IntentMessage, SayStatus
from kame_ros.words import words


class Say(py_trees.behaviour.Behaviour):
    """Say ``text``: SUCCESS once spoken, FAILURE if it ended otherwise (muted, interrupted)."""

    def __init__(self, name: str, client: AgentClient, text: str | Callable[[], str]) -> None:
        """``text`` may be a function, read when the behaviour starts (say what was heard)."""
        super().__init__(name)
        self.client = client
        self.text = text
        self.handle: SayHandle | None = None

    def initialise(self) -> None:
        """Send the request."""
        self.handle = self.client.say(self.text() if callable(self.text) else self.text)

    def update(self) -> Status:
        """Return RUNNING while the agent says it, then how it ended."""
        if not self.handle.done:
            return Status.RUNNING
        self.feedback_message = self.handle.status.value
        return Status.SUCCESS if self.handle.status is SayStatus.SPOKEN else Status.FAILURE

    def terminate(self, new_status: Status) -> None:
        """Cancel the request if the tree abandoned it while it played."""
        if new_status == Status.INVALID and self.handle is not None and not self.handle.done:
            self.handle.cancel()


def _contains(heard: list[str], phrase: list[str]) -> bool:
    return any(heard[i:i + len(phrase)] == phrase for i in range(len(heard) - len(phrase) + 1))


class _Await(py_trees.behaviour.Behaviour):
    """SUCCESS when an event that ``matches`` arrives after the behaviour started."""

    LABEL = ''  # the event's field shown as the feedback message

    def __init__(self, name: str, subscribe: Callable[[Callable], None]) -> None:
        """Subscribe to the client's events from now on."""
        super().__init__(name)
        self.event = None
        self._events: deque = deque(maxlen=32)
        subscribe(self._events.append)

    def matches(self, event) -> bool:
        """Tell whether ``event`` is the one awaited."""
        raise NotImplementedError

    def initialise(self) -> None:
        """Forget what came before."""
        self._events.clear()
        self.event = None

    def update(self) -> Status:
        """Return RUNNING until a matching event arrives."""
        while self._events:
            event = self._events.popleft()
            if self.matches(event):
                self.event = event
                self.feedback_message = getattr(event, self.LABEL)
                return Status.SUCCESS
        return Status.RUNNING


class WaitForUtterance(_Await):
    """SUCCESS when the user finishes a sentence (with one of ``any_of`` in it, if given)."""

    LABEL = 'text'

    def __init__(self, name: str, client: AgentClient, any_of: Iterable[str] = ()) -> None:
        """Listen from now on; only finals heard after the behaviour starts count."""
        super().__init__(name, client.on_final)
        self.phrases = [words(p) for p in any_of]

    @property
    def heard(self) -> TranscriptEvent | None:
        """Return the final transcript that matched."""
        return self.event

    def matches(self, event: TranscriptEvent) -> bool:
        """Tell whether the sentence has one of the phrases (any sentence without phrases)."""
        return not self.phrases or any(_contains(words(event.text), p) for p in self.phrases)


class WaitForIntent(_Await):
    """SUCCESS when the oracle proposes an allowlisted intent (one of ``commands``, if given)."""

    LABEL = 'command'

    def __init__(self, name: str, client: AgentClient, commands: Iterable[str] = ()) -> None:
        """``commands`` are names (``navigate_to``) or whole commands (``stop()``)."""
        super().__init__(name, client.on_intent)
        self.commands = set(commands)

    @property
    def intent(self) -> IntentMessage | None:
        """Return the intent that matched."""
        return self.event

    def matches(self, event: IntentMessage) -> bool:
        """Tell whether the intent is one of the commands (any intent without commands)."""
        return not self.commands or bool(self.commands & {event.name, event.command})


class SetMuted(py_trees.behaviour.Behaviour):
    """Mute (or unmute) the agent: SUCCESS when it confirms."""

    def __init__(self, name: str, client: AgentClient, muted: bool = True) -> None:
        """``muted`` False unmutes."""
        super().__init__(name)
        self.client = client
        self.muted = muted
        self._future = None

    def initialise(self) -> None:
        """Call the agent's enable service."""
        self._future = self.client.set_enabled(not self.muted)

    def update(self) -> Status:
        """Return RUNNING until the service answers."""
        if not self._future.done():
            return Status.RUNNING
        response = self._future.result()
        return Status.SUCCESS if response is not None and response.success else Status.FAILURE
