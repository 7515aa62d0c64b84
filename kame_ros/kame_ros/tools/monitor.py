# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The agent monitor: watch every layer of a running agent and write what happened.

Not a launchable node: ``kame_ros_agent`` and ``kame_ros_soak`` run it in
their own process next to the agent's nodes.

It builds the conversation timeline, keeps the agent's answer audio and the
transcripts, optionally records all agent topics to a bag, and decides when
a headless run is over: input finished and the agent quiet for ``idle_s``.
"""
from pathlib import Path
import threading
import time
from typing import Callable

import numpy as np
from rclpy.node import Node

from kame_ros.audio.frames import AudioFrame
from kame_ros.audio.levels import AUDIBLE_RMS, rms
from kame_ros.audio.wav import write_wav
from kame_ros.oracle.events import APPEND, DONE, OracleEvent, RESET
from kame_ros.records.answers import AnswerLedger
from kame_ros.records.timeline import Timeline
from kame_ros.ros.audio_in import AudioInput
from kame_ros.ros.bag import BagRecorder
from kame_ros.ros.text_io import TextInput
from kame_ros.ros.topics import (AGENT_TOPICS, FRONTEND_TEXT, MIC_AUDIO, ORACLE_EVENTS,
                                 SPEAKER_AUDIO, STT_FINAL, STT_PARTIAL, USER_SPEAKING)
from kame_ros.stt.events import TranscriptEvent
from kame_ros.wire.messages import AgentText


class AgentMonitor(Node):
    """Collects the timeline, transcripts and answer audio of one run."""

    def __init__(self, input_done: threading.Event | None = None, idle_s: float = 3.0,
                 bag: Path | None = None, **kwargs) -> None:
        """``input_done`` is set by the input when it has nothing more to say."""
        super().__init__('agent_monitor', **kwargs)
        self.t0_ns: int | None = None  # the input's first frame: the timeline's zero
        self.timeline = Timeline()
        self.finals: list[TranscriptEvent] = []
        self.replies: dict[tuple[int, int], dict] = {}
        self.spoken_text: list[tuple[float, str]] = []
        self.answer: list[np.ndarray] = []
        self.input_done = input_done
        self.idle_s = idle_s
        self.finished = threading.Event() if input_done is not None else None
        self._last_activity = time.monotonic()
        self.answers = AnswerLedger()
        self.expect_replies = True
        self.working: Callable[[], list[str]] = list  # agent nodes still processing input
        self.error = ''
        self._in_turn = False
        self.inputs = [
            AudioInput(self, MIC_AUDIO, self._on_mic),
            AudioInput(self, SPEAKER_AUDIO, self._on_speaker),
            TextInput(self, STT_PARTIAL, self._on_transcript),
            TextInput(self, STT_FINAL, self._on_transcript),
            TextInput(self, ORACLE_EVENTS, self._on_oracle),
            TextInput(self, FRONTEND_TEXT, self._on_frontend_text),
        ]
        # The STT's voice activity opens a turn before any transcript exists (a loaded Whisper
        # may take seconds), and its end closes one even when Whisper heard only noise.
        self.create_subscription(USER_SPEAKING.msg_type, USER_SPEAKING.name,
                                 lambda msg: setattr(self, '_in_turn', msg.data),
                                 USER_SPEAKING.qos)
        self.recorder = BagRecorder(self, bag, AGENT_TOPICS) if bag is not None else None
        if self.finished is not None:
            self.create_timer(0.2, self._check_done)

    def t(self, ns: int | None = None) -> float:
        """
        Seconds on the input's own time since its first frame.

        Stamps come from the node clocks, so with ``use_sim_time`` (a replay
        faster than real time publishing /clock) the timeline stays on the
        recording's time; events without a stamp take the node clock now.
        """
        if ns is None:
            ns = self.get_clock().now().nanoseconds
        if self.t0_ns is None:
            self.t0_ns = ns
        return (ns - self.t0_ns) / 1e9

    def _active(self) -> None:
        self._last_activity = time.monotonic()

    def _on_mic(self, frame: AudioFrame) -> None:
        self.timeline.mic_rms.append((self.t(frame.stamp_ns), rms(frame.samples)))

    def _on_speaker(self, frame: AudioFrame) -> None:
        level = rms(frame.samples)
        self.timeline.speaker_rms.append((self.t(frame.stamp_ns), level))
        self.answer.append(frame.samples)
        if level >= AUDIBLE_RMS:
            self._active()

    def _on_transcript(self, event: TranscriptEvent) -> None:
        self.timeline.add(self.t(event.stamp_ns), event.event_type, event.text)
        if event.final:
            self.finals.append(event)
            self.answers.final(event.utterance_id)
        self._in_turn = not event.final
        self._active()

    def _on_oracle(self, event: OracleEvent) -> None:
        now = self.t()
        if event.kind == RESET:
            self.timeline.add(now, RESET, f'reply {event.reply_id}'
                              f'{" (final)" if event.final else ""}')
            self.replies[event.order] = {'final': event.final, 'text': '', 'status': ''}
        elif event.kind == APPEND and event.order in self.replies:
            self.timeline.add(now, APPEND, event.text)
            self.replies[event.order]['text'] += event.text
        elif event.kind == DONE and event.order in self.replies:
            self.replies[event.order]['status'] = event.status
        if event.kind == DONE and event.final:
            self.answers.answer(event.utterance_id)
        self._active()

    def _on_frontend_text(self, event: AgentText) -> None:
        now = self.t()
        self.timeline.add(now, event.event_type, event.text)
        self.spoken_text.append((now, event.text))
        self._active()

    def incomplete(self) -> str:
        """Say what the conversation still waits for ('' when it is complete)."""
        # The most telling reason first: a hung LLM server is an unanswered final (the oracle
        # node is also busy then), a reply still playing is the front-end at work.
        if self._in_turn:
            return 'the user turn has partial transcripts but no final yet'
        unanswered = self.answers.waiting()
        if self.expect_replies and unanswered:
            return f'final transcripts {unanswered} have no finished oracle reply'
        busy = self.working()
        if busy:
            return f'{", ".join(busy)} still working (input queued, a reply generated or played)'
        return ''

    def _check_done(self) -> None:
        """Finish once the input is over, every final answered, and the agent quiet for idle_s."""
        if (self.input_done.is_set() and not self.finished.is_set() and not self.incomplete()
                and time.monotonic() - self._last_activity > self.idle_s):
            self.finished.set()

    def write(self, directory: Path) -> None:
        """answer.wav, transcript.md, events.jsonl and timeline.{csv,md,png}."""
        directory.mkdir(parents=True, exist_ok=True)
        if self.recorder is not None:
            self.recorder.close()
        audio = np.concatenate(self.answer) if self.answer else np.zeros(0, np.int16)
        write_wav(directory / 'answer.wav', audio)
        lines = ['# Transcript', '', '## User (final transcripts)', '']
        lines += [f'- {self.t(e.stamp_ns):.2f} s: {e.text}' for e in self.finals]
        lines += ['', '## Oracle replies to final transcripts', '']
        lines += [f'- reply {rid} ({r["status"] or "unfinished"}): {r["text"].strip()}'
                  for (_, rid), r in self.replies.items() if r['final']]
        lines += ['', '## Agent speech (front-end text)', '',
                  ''.join(text for _, text in self.spoken_text).strip() or '(none)', '']
        (directory / 'transcript.md').write_text('\n'.join(lines))
        self.timeline.write(directory)

    def close(self) -> None:
        """Finish the bag if the run is interrupted."""
        if self.recorder is not None:
            self.recorder.close()
