# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Write a run's events.jsonl by hand, as ``kame_ros_agent`` does, for the scoring tests."""
import json


def write_events(directory, events):
    lines = [{'t': 100.0, 'kind': 'run.input_start', 'text': ''}]
    lines += [{'t': 100.0 + t, 'kind': kind, 'text': text} for t, kind, text in events]
    directory.mkdir(parents=True, exist_ok=True)
    (directory / 'events.jsonl').write_text(''.join(json.dumps(e) + '\n' for e in lines))
