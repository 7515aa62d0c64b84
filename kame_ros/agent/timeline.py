# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The conversation timeline: who said what, when, on every layer of the tandem.

Lanes: user speech and agent speech (from audio energy, as spans), STT
partials and finals, oracle resets and text, front-end text. Written as a
CSV, a Markdown table and a PNG, so a latency problem is seen, not hunted.
"""
from dataclasses import dataclass, field
from pathlib import Path

from kame_ros.audio.frames import FRAME_SECONDS
from kame_ros.audio.levels import AUDIBLE_RMS

LANES = ['user speech', 'stt partial', 'stt final', 'oracle reset', 'oracle text',
         'frontend text', 'agent speech']


@dataclass(frozen=True)
class Mark:
    """One point event on a lane (seconds since the run started)."""

    t: float
    lane: str
    text: str = ''


@dataclass
class Timeline:
    """Marks plus per-frame audio energy of the microphone and the speaker."""

    marks: list[Mark] = field(default_factory=list)
    mic_rms: list[tuple[float, float]] = field(default_factory=list)
    speaker_rms: list[tuple[float, float]] = field(default_factory=list)

    def add(self, t: float, lane: str, text: str = '') -> None:
        """Record a point event."""
        self.marks.append(Mark(t, lane, text))

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

    def rows(self) -> list[Mark]:
        """Every event in time order, speech spans as start/end marks."""
        rows = list(self.marks)
        for lane, rms in (('user speech', self.mic_rms), ('agent speech', self.speaker_rms)):
            for a, b in self.spans(rms):
                rows += [Mark(a, lane, 'starts'), Mark(b, lane, 'ends')]
        return sorted(rows, key=lambda m: m.t)

    def write(self, directory: Path) -> None:
        """timeline.csv, timeline.md and timeline.png."""
        rows = self.rows()
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
