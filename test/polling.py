# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Wait for a condition that another thread or process makes true."""
import time
from typing import Callable


def wait_for(pred: Callable[[], bool], timeout: float = 20.0, poll: float = 0.02) -> bool:
    """Poll ``pred`` until it holds (True) or ``timeout`` seconds pass (False)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(poll)
    return False
