# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
``agent/say`` as an action (kame_ros_interfaces/action/Say): what behaviour trees call.

nav2's ``BtActionNode``, BehaviorTree.ROS2's ``RosActionNode`` and
py_trees_ros cancel a goal when the tree halts the node, so speaking is an
action, as in every speech stack robots use. A goal is handed to the
voice's engine (``say``); its words come back as feedback while they play
and its end (``SayStatus``) as the result: ``spoken`` succeeds, a cancel
requested by the client ends ``canceled``, anything else (interrupted by the
user, muted, failed, empty) aborts with the reason in ``status``. A goal
sent while the voice is not active (configured, but its frame loop is
stopped) is rejected at once: nothing would ever play it.

The node spins on a single-threaded executor that also carries the audio,
so the execute callback is a coroutine that awaits the end instead of
blocking: the engine's callbacks (any thread) complete an rclpy future.
"""
from collections import Counter
import threading
from typing import Callable

from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.lifecycle import LifecycleNode
from rclpy.task import Future

from kame_ros.ros.topics import SAY_ACTION
from kame_ros.wire.messages import SayStatus
from kame_ros.words import words

MAX_SAY_CHARS = 1000
Speak = Callable[[str, str, Callable[[str], None], Callable[[str], None], bool], None]
Cancel = Callable[[str, str], bool]  # (id, status) -> it was waiting or playing


class SayActionServer:
    """Speak each goal through the voice's engine; feedback per word, the end as the result."""

    def __init__(self, node: LifecycleNode, say: Speak, cancel: Cancel,
                 enabled: Callable[[], bool], active: Callable[[], bool]) -> None:
        """Serve ``agent/say``; ``say``/``cancel`` are the engine's, ``enabled`` the mute state."""
        self.node = node
        self.say = say
        self.cancel = cancel
        self.enabled = enabled
        self.active = active
        self.goals = 0
        self.rejected = 0
        self.results: Counter[str] = Counter()  # goals ended, per SayStatus value
        self._in_flight: set[str] = set()
        self._lock = threading.Lock()
        self._server = ActionServer(node, SAY_ACTION.msg_type, SAY_ACTION.name,
                                    execute_callback=self._execute,
                                    goal_callback=self._on_goal,
                                    cancel_callback=self._on_cancel)

    def stop_all(self, status: str) -> None:
        """End every goal in flight with ``status`` (muting the agent)."""
        with self._lock:
            in_flight = list(self._in_flight)
        for say_id in in_flight:
            self.cancel(say_id, status)

    def close(self) -> None:
        """Stop the goals in flight, then the server (cleanup: the interfaces go)."""
        self.stop_all(SayStatus.CANCELLED.value)
        self._server.destroy()

    def _on_goal(self, _goal) -> GoalResponse:
        if self.active():
            return GoalResponse.ACCEPT
        self.rejected += 1
        self.node.get_logger().warning('say goal rejected: the voice is not active')
        return GoalResponse.REJECT

    def _on_cancel(self, goal: ServerGoalHandle) -> CancelResponse:
        self.cancel(self._say_id(goal), SayStatus.CANCELLED.value)
        return CancelResponse.ACCEPT

    @staticmethod
    def _say_id(goal: ServerGoalHandle) -> str:
        return 'goal-' + bytes(goal.goal_id.uuid).hex()

    async def _execute(self, goal: ServerGoalHandle):
        self.goals += 1
        say_id = self._say_id(goal)
        text = goal.request.text.strip()[:MAX_SAY_CHARS]
        total = len(words(text))
        spoken: list[str] = []
        ended = Future(executor=self.node.executor)
        # A done callback makes the executor wake (and resume this coroutine) when it ends.
        ended.add_done_callback(lambda _: None)

        def on_word(word: str) -> None:
            spoken.append(word)
            feedback = SAY_ACTION.msg_type.Feedback(word=word, words_spoken=len(spoken),
                                                    words_total=total)
            goal.publish_feedback(feedback)

        def on_done(status: str) -> None:
            with self._lock:
                self._in_flight.discard(say_id)
            if not ended.done():
                ended.set_result(status)

        with self._lock:
            self._in_flight.add(say_id)
        if not text:
            on_done(SayStatus.EMPTY.value)
        elif not self.enabled():
            on_done(SayStatus.MUTED.value)
        else:
            self.say(say_id, text, on_done, on_word, goal.request.interruptible)
        status = SayStatus(await ended)
        self.results[status.value] += 1
        if status is SayStatus.SPOKEN:
            goal.succeed()
        elif status is SayStatus.CANCELLED and goal.is_cancel_requested:
            goal.canceled()
        else:
            goal.abort()
        result = SAY_ACTION.msg_type.Result
        # The action's status constants are named as SayStatus's members (SPOKEN, MUTED, ...).
        return result(status=getattr(result, status.name), status_text=status.value,
                      text=text, spoken_text=' '.join(spoken))
