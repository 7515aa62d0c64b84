# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The conversation timeline: who said what, when, on every layer of the tandem.

Events are typed by what produced them (the wire types of the topics,
plus speech start/end from audio energy), on the input's own time. They
are written twice: ``events.jsonl`` for programs (the evaluation reads
it) and timeline.csv / .md / .png for people, where each type is a lane,
so a latency problem is seen, not hunted.
"""
from dataclasses import asdict, dataclass, field
import json
from pathlib import Path

from kame_ros.audio.frames import FRAME_SECONDS
from kame_ros.audio.levels import AUDIBLE_RMS

# Event types: the topics' wire types, plus speech spans from audio energy.
USER_SPEECH_START, USER_SPEECH_END = 'speech.user.start', 'speech.user.end'
AGENT_SPEECH_START, AGENT_SPEECH_END = 'speech.agent.start', 'speech.agent.end'
INPUT_START = 'run.input_start'
LANE = {USER_SPEECH_START: 'user speech', USER_SPEECH_END: 'user speech',
        'stt.partial': 'stt partial', 'stt.final': 'stt final', 'oracle.reset': 'oracle reset',
        'oracle.append': 'oracle text', 'frontend.text': 'frontend text',
        AGENT_SPEECH_START: 'agent speech', AGENT_SPEECH_END: 'agent speech'}
LANES = list(dict.fromkeys(LANE.values()))
EVENTS_FILE = 'events.jsonl'


@dataclass(frozen=True)
class RunEvent:
    """One event of a run: seconds on the input's time, its kind, its text."""

    t: float
    kind: str  # a wire type (stt.final, frontend.text...) or a speech/run event type
    text: str = ''

    @property
    def lane(self) -> str:
        """Return the timeline lane this event is drawn on."""
        return LANE[self.kind]


@dataclass
class Timeline:
    """Events plus per-frame audio energy of the microphone and the speaker."""

    marks: list[RunEvent] = field(default_factory=list)
    mic_rms: list[tuple[float, float]] = field(default_factory=list)
    speaker_rms: list[tuple[float, float]] = field(default_factory=list)

    def add(self, t: float, event_type: str, text: str = '') -> None:
        """Record a point event (``event_type`` must have a lane)."""
        if event_type not in LANE:
            raise ValueError(f'no timeline lane for {event_type!r}')
        self.marks.append(RunEvent(t, event_type, text))

    @staticmethod
    def spans(rms: list[tuple[float, float]], hold_s: float = 0.3) -> list[tuple[float, float]]:
        """Merge loud frames into (start, end) spans, bridging pauses shorter than hold_s."""
        spans: list[list[float]] = []
        for t, level in rms:
            if level < AUDIBLE_RMS:
                continue
            if spans and t - spans[-1][1] <= hold_s:
                spans[-1][1] = t + FRAME_SECONDS
            else:
                spans.append([t, t + FRAME_SECONDS])
        return [(a, b) for a, b in spans]

    def rows(self) -> list[RunEvent]:
        """Every event in time order, speech spans as start/end events."""
        rows = list(self.marks)
        for (start, end), rms in (((USER_SPEECH_START, USER_SPEECH_END), self.mic_rms),
                                  ((AGENT_SPEECH_START, AGENT_SPEECH_END), self.speaker_rms)):
            for a, b in self.spans(rms):
                rows += [RunEvent(a, start), RunEvent(b, end)]
        return sorted(rows, key=lambda m: m.t)

    def write(self, directory: Path) -> None:
        """events.jsonl (first: when the input started), timeline.csv, .md and .png."""
        rows = self.rows()
        start = [RunEvent(self.mic_rms[0][0], INPUT_START)] if self.mic_rms else []
        (directory / EVENTS_FILE).write_text(''.join(json.dumps(asdict(e)) + '\n'
                                                     for e in start + rows))
        with open(directory / 'timeline.csv', 'w') as f:
            f.write('t_s,lane,text\n')
            for m in rows:
                f.write(f'{m.t:.3f},{m.lane},"{m.text.replace(chr(34), chr(39))}"\n')
        lines = ['| t (s) | lane | text |', '|---|---|---|']
        lines += [f'| {m.t:.2f} | {m.lane} | {m.text[:80]} |' for m in rows]
        (directory / 'timeline.md').write_text('\n'.join(lines) + '\n')
        self.plot(directory / 'timeline.png')

    def plot(self, path: Path) -> None:
        """Lanes over time: spans for speech, ticks (with text) for events."""
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(12, 4.2))
        y = {lane: len(LANES) - i for i, lane in enumerate(LANES)}
        for lane, rms, color in (('user speech', self.mic_rms, 'tab:blue'),
                                 ('agent speech', self.speaker_rms, 'tab:green')):
            for a, b in self.spans(rms):
                ax.barh(y[lane], b - a, left=a, height=0.6, color=color, alpha=0.7)
        colors = {'stt partial': 'tab:gray', 'stt final': 'black', 'oracle reset': 'tab:red',
                  'oracle text': 'tab:orange', 'frontend text': 'tab:purple'}
        last_label: dict[str, float] = {}
        for m in self.marks:
            ax.plot([m.t, m.t], [y[m.lane] - 0.3, y[m.lane] + 0.3], color=colors[m.lane], lw=1)
            if m.text and m.t - last_label.get(m.lane, -9) > 1.2:
                ax.text(m.t, y[m.lane] + 0.33, m.text[:28], fontsize=6, rotation=12)
                last_label[m.lane] = m.t
        ax.set_yticks([y[lane] for lane in LANES], LANES)
        ax.set_xlabel('time (s)')
        ax.set_title('kame_ros conversation timeline')
        ax.grid(axis='x', alpha=0.3)
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)


def read_events(directory: Path) -> tuple[float | None, list[RunEvent]]:
    """Return (when the input started, the events) of a run written by ``Timeline.write``."""
    events = [RunEvent(**json.loads(line))
              for line in (directory / EVENTS_FILE).read_text().splitlines()]
    start = next((e.t for e in events if e.kind == INPUT_START), None)
    return start, [e for e in events if e.kind != INPUT_START]
