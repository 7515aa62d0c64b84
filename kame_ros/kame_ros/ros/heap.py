# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Where a node's memory goes, for soaks: the Python heap by allocation site (tracemalloc).

A process's RSS says how much; it cannot say whether growth is Python
objects (a list that is never trimmed: a leak to fix) or native memory
(model arenas, the allocator keeping freed pages: noise that plateaus).
With ``KAME_ROS_TRACEMALLOC=<dir>`` in a node's environment, its
diagnostics carry ``py_heap_mib`` and every ``dump_s`` it writes the
allocation sites that grew most since its first dump to ``<dir>/<node>.txt``
(the baseline snapshot is kept in ``<dir>/<node>.baseline``).
Off by default: tracing slows every Python allocation.
"""
import os
from pathlib import Path
import signal
import time
import tracemalloc

ENV = 'KAME_ROS_TRACEMALLOC'


class HeapWatch:
    """tracemalloc for one node, when the environment asks for it."""

    def __init__(self, name: str, dump_s: float = 300.0, top: int = 15) -> None:
        """Start tracing (once per process) if ``KAME_ROS_TRACEMALLOC`` names a directory."""
        directory = os.environ.get(ENV, '')
        self.path = Path(directory) / f'{name}.txt' if directory else None
        self.dump_s = dump_s
        self.top = top
        self.dumps = 0  # snapshots taken (the first one is the baseline)
        self._child: int | None = None
        self._next = time.monotonic() + dump_s / 5  # the baseline after start-up and warm-up
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._baseline = self.path.with_suffix('.baseline')
            self._baseline.unlink(missing_ok=True)
            if not tracemalloc.is_tracing():
                tracemalloc.start(1)

    def values(self) -> dict[str, str]:
        """Diagnostics figures: the traced Python heap now and at its peak."""
        if self.path is None:
            return {}
        current, peak = tracemalloc.get_traced_memory()
        return {'py_heap_mib': f'{current / 2**20:.1f}', 'py_heap_peak_mib': f'{peak / 2**20:.1f}'}

    def tick(self) -> None:
        """
        Take the baseline, later write the growth since it (call about once a second).

        A snapshot of a node's heap holds the GIL for a second or more (the
        front-end's frame loop would drop frames: 20 per dump in a soak), so
        it is taken in a forked copy of the process, at nice 19, and this
        process only pays for the fork. Not SCHED_IDLE: that class runs only
        on an idle core, so with both cores busy (CI's second venv being
        built at nice 19) the dump never finished.
        """
        if self.path is None:
            return
        if self._child is not None:
            pid, _ = os.waitpid(self._child, os.WNOHANG)
            if pid == 0:
                return  # the previous dump is still being written
            self._child = None
        if time.monotonic() < self._next:
            return
        self._next = time.monotonic() + self.dump_s
        self.dumps += 1
        self._child = os.fork()
        if self._child == 0:
            self._dump()

    def _dump(self) -> None:
        """In the forked child: snapshot, compare with the baseline, write, exit."""
        code = 1
        try:
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            signal.alarm(600)  # a lock held by another thread at the fork: never hang around
            os.nice(19 - os.nice(0))
            snapshot = tracemalloc.take_snapshot().filter_traces(
                [tracemalloc.Filter(False, tracemalloc.__file__)])
            if not self._baseline.exists():
                snapshot.dump(str(self._baseline))
            else:
                baseline = tracemalloc.Snapshot.load(str(self._baseline))
                lines = [f'{stat.size_diff / 2**20:+9.3f} MiB {stat.count_diff:+8d} blocks  '
                         f'{stat.traceback[0].filename}:{stat.traceback[0].lineno}'
                         for stat in snapshot.compare_to(baseline, 'lineno')[:self.top]]
                self.path.write_text(f'# growth since the baseline, written {time.ctime()}\n'
                                     + '\n'.join(lines) + '\n')
            code = 0
        finally:
            os._exit(code)
