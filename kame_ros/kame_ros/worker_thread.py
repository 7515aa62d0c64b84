# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
A bounded queue of work items (audio frames, transcripts) served by one worker thread.

Subscription callbacks only enqueue, so a slow model never stalls the
executor; when the worker falls behind, the oldest frames are dropped
(and handed to ``on_drop`` to be counted or answered with silence), which
keeps latency bounded instead of letting it grow for the rest of the
conversation.
"""
import collections
import threading
from typing import Callable, Generic, TypeVar

Item = TypeVar('Item')


class DropOldestWorker(Generic[Item]):
    """Process items in arrival order on a dedicated thread."""

    def __init__(self, name: str, process: Callable[[Item], None], max_queue: int,
                 on_drop: Callable[[Item], None] | None = None) -> None:
        """``process`` runs on the worker thread; ``on_drop`` on the caller's."""
        self.name = name
        self.process = process
        self.max_queue = max_queue
        self.on_drop = on_drop
        self.received = 0
        self.dropped = 0
        self._queue: collections.deque[Item] = collections.deque()
        self._wake = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def put(self, frame: Item) -> None:
        """Enqueue one frame (any thread); drops the oldest beyond ``max_queue``."""
        with self._wake:
            self.received += 1
            self._queue.append(frame)
            while len(self._queue) > self.max_queue:
                old = self._queue.popleft()
                self.dropped += 1
                if self.on_drop is not None:
                    self.on_drop(old)
            self._wake.notify()

    def __len__(self) -> int:
        """Frames waiting."""
        with self._wake:
            return len(self._queue)

    @property
    def running(self) -> bool:
        """Tell whether the worker thread runs (between start and stop)."""
        return self._thread is not None

    def clear(self) -> None:
        """Forget waiting items (e.g. audio queued while the owner was inactive)."""
        with self._wake:
            self._queue.clear()

    def start(self) -> None:
        """Start the worker thread."""
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True, name=self.name)
        self._thread.start()

    def stop(self) -> bool:
        """Stop the worker; returns whether it was running."""
        self._stop.set()
        with self._wake:
            self._wake.notify()
        if self._thread is None:
            return False
        self._thread.join(timeout=5)
        self._thread = None
        return True

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._wake:
                while not self._queue and not self._stop.is_set():
                    self._wake.wait(0.5)
                if self._stop.is_set():
                    return
                frame = self._queue.popleft()
            self.process(frame)
