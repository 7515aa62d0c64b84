# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Drive an oracle node over DDS: publish transcripts, collect oracle events."""
import time

from kame_ros.oracle.events import DONE, OracleEvent, RESET
from kame_ros.ros.topics import ORACLE_EVENTS, ROBOT_CONTEXT, STT_FINAL, STT_PARTIAL
from kame_ros.stt.events import TranscriptEvent
from kame_ros.wire.messages import RobotContext
from typed_msgs import read, stamp_ns, typed

# The intent allowlist the tests give the oracle (its ``intents`` parameter).
ALLOWLIST = ['navigate_to(kitchen) = go to the kitchen',
             'navigate_to(charging_dock) = go to the charging dock',
             'stop() = stop moving']


class OracleDriver:
    """A test node standing in for the STT (publisher) and the front-end (subscriber)."""

    def __init__(self, ros, namespace: str = '') -> None:
        self.node = ros.node('oracle_driver')
        self.ns = namespace
        self.partial = self.node.create_publisher(STT_PARTIAL.msg_type,
                                                  f'{namespace}/{STT_PARTIAL.name}',
                                                  STT_PARTIAL.qos)
        self.final = self.node.create_publisher(STT_FINAL.msg_type,
                                                f'{namespace}/{STT_FINAL.name}', STT_FINAL.qos)
        self.context = self.node.create_publisher(ROBOT_CONTEXT.msg_type,
                                                  f'{namespace}/{ROBOT_CONTEXT.name}',
                                                  ROBOT_CONTEXT.qos)
        self.events: list[tuple[float, OracleEvent]] = []
        self.stamps_ns: list[int] = []
        self.node.create_subscription(ORACLE_EVENTS.msg_type,
                                      f'{namespace}/{ORACLE_EVENTS.name}',
                                      self._on_event, ORACLE_EVENTS.qos)

    def _on_event(self, msg) -> None:
        self.stamps_ns.append(stamp_ns(msg))
        self.events.append((time.monotonic(), read(ORACLE_EVENTS, msg)))

    def wait_ready(self, timeout: float = 120.0) -> None:
        """Wait until the oracle subscribes to transcripts and publishes events."""
        end = time.monotonic() + timeout
        while not (self.partial.get_subscription_count() and self.final.get_subscription_count()
                   and self.node.count_publishers(f'{self.ns}/{ORACLE_EVENTS.name}')):
            assert time.monotonic() < end, 'oracle node never became ready'
            time.sleep(0.1)
        time.sleep(0.5)

    def say(self, text: str, utterance: int, revision: int, final: bool = False) -> None:
        ev = TranscriptEvent(utterance, revision, text, final, 0, 0, time.time_ns())
        pub, topic = (self.final, STT_FINAL) if final else (self.partial, STT_PARTIAL)
        pub.publish(typed(topic, ev, ev.stamp_ns))

    def set_context(self, text: str) -> None:
        self.context.publish(typed(ROBOT_CONTEXT, RobotContext(text)))

    def kinds(self) -> list[OracleEvent]:
        return [e for _, e in self.events]

    def wait_for(self, pred, timeout: float = 30.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if pred(self.kinds()):
                return True
            time.sleep(0.05)
        return False

    def resets(self) -> list[OracleEvent]:
        return [e for e in self.kinds() if e.kind == RESET]

    def reply_text(self, reply_id: int) -> str:
        return ''.join(e.text for e in self.kinds() if e.reply_id == reply_id)

    def done(self, reply_id: int) -> OracleEvent | None:
        return next((e for e in self.kinds() if e.kind == DONE and e.reply_id == reply_id),
                    None)

    def assert_most_recent_wins(self) -> None:
        newest = 0
        for event in self.kinds():
            assert event.reply_id >= newest, f'reply {event.reply_id} after reply {newest}'
            newest = event.reply_id
