# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Latency statistics and the table every kame_ros benchmark prints."""
from dataclasses import dataclass
import json
from pathlib import Path
from typing import Callable

import numpy as np


@dataclass
class LatencyStats:
    """Summary of one benchmark row, in milliseconds."""

    name: str
    n: int
    p50: float
    p99: float
    max: float  # noqa: A003 - the column is called max in every table

    @classmethod
    def of(cls, name: str, values_ms) -> 'LatencyStats':
        """Summarise samples (an empty run gives NaN, shown as such)."""
        v = np.asarray(values_ms, dtype=np.float64)
        if not len(v):
            return cls(name, 0, float('nan'), float('nan'), float('nan'))
        return cls(name, len(v), float(np.median(v)), float(np.percentile(v, 99)),
                   float(v.max()))


def table(rows: list[LatencyStats], baseline: LatencyStats, extra: dict[str, list] | None = None,
          unit: str = 'ms') -> str:
    """Markdown table with p50/p99/max and the p50 ratio to ``baseline``."""
    extra = extra or {}
    head = ['run', 'n', f'p50 {unit}', f'p99 {unit}', f'max {unit}', 'p50 / baseline']
    head += list(extra)
    lines = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
    for i, r in enumerate(rows):
        ratio = r.p50 / baseline.p50 if baseline.p50 else float('nan')
        cells = [r.name, str(r.n), f'{r.p50:.2f}', f'{r.p99:.2f}', f'{r.max:.2f}',
                 f'{ratio:.2f}'] + [str(v[i]) for v in extra.values()]
        lines.append('| ' + ' | '.join(cells) + ' |')
    return '\n'.join(lines)


def plot_frames(series: dict[str, list[float]], path, title: str,
                budget_ms: float = 80.0) -> None:
    """Per-frame compute of each run against the frame budget (log scale)."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 3.8))
    for name, times in series.items():
        ax.plot(times, lw=0.8, label=name)
    ax.axhline(budget_ms, color='red', ls='--', label=f'{budget_ms:.0f} ms budget')
    ax.set_yscale('log')
    ax.set_xlabel('frame')
    ax.set_ylabel('compute per frame, ms')
    ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_results(out: Path, name: str, table_md: str, records: list[dict],
                  plot: Callable[[Path], None]) -> None:
    """Write ``<name>.md`` (the table), ``<name>.json`` (every record), ``<name>.png``; say so."""
    (out / f'{name}.md').write_text(table_md + '\n')
    (out / f'{name}.json').write_text(json.dumps(records, indent=1))
    plot(out / f'{name}.png')
    print(f'\nwrote {out}/{name}.md, {name}.json and {name}.png')
