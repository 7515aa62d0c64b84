# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Text events on the wire: one JSON object per ``std_msgs/msg/String``.

Transcripts and oracle events need several fields (utterance id, revision,
audio span, timestamps) that no core message has, and a custom interface
package cannot be built from the PyPI ROS wheels. A versioned JSON envelope
keeps them in core messages, readable in ``ros2 topic echo`` and in bags::

    {"v": 1, "type": "stt.partial", "seq": 7, "stamp_ns": 1733..., ...payload}
"""
import json
from typing import Any

WIRE_VERSION = 1
MAX_TEXT_BYTES = 64 * 1024


class EventRejected(ValueError):
    """A received text event that cannot be used; ``reason`` is a counter key."""

    def __init__(self, reason: str, detail: str) -> None:
        """Keep a short machine reason and a human detail apart."""
        super().__init__(f'{reason}: {detail}')
        self.reason = reason


def encode_event(event_type: str, seq: int, stamp_ns: int, payload: dict[str, Any]) -> str:
    """Serialise one event; payload keys must not shadow the envelope."""
    clash = {'v', 'type', 'seq', 'stamp_ns'} & payload.keys()
    if clash:
        raise ValueError(f'payload uses envelope keys {sorted(clash)}')
    return json.dumps({'v': WIRE_VERSION, 'type': event_type, 'seq': seq,
                       'stamp_ns': stamp_ns, **payload}, ensure_ascii=False)


def decode_event(text: str, expected_type: str | None = None) -> dict[str, Any]:
    """Parse and validate an envelope; raises EventRejected with a counter key."""
    if len(text.encode('utf-8', 'replace')) > MAX_TEXT_BYTES:
        raise EventRejected('oversized', f'{len(text)} chars > {MAX_TEXT_BYTES} bytes')
    try:
        event = json.loads(text)
    except ValueError as err:
        raise EventRejected('bad_json', str(err)) from err
    if not isinstance(event, dict):
        raise EventRejected('bad_json', 'not a JSON object')
    if event.get('v') != WIRE_VERSION:
        raise EventRejected('bad_version', f'v={event.get("v")!r}')
    for key, kind in (('type', str), ('seq', int), ('stamp_ns', int)):
        if not isinstance(event.get(key), kind):
            raise EventRejected('bad_envelope', f'{key} missing or not {kind.__name__}')
    if expected_type is not None and event['type'] != expected_type:
        raise EventRejected('wrong_type', f'{event["type"]} on a {expected_type} topic')
    return event
