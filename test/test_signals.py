# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Node processes stop cleanly on SIGINT, even when started with SIGINT ignored."""
import os
from pathlib import Path
import signal
import subprocess
import sys

import pytest

from polling import wait_for

BIN = Path(sys.executable).parent


@pytest.mark.parametrize('inherited', [signal.SIG_DFL, signal.SIG_IGN])
def test_sigint_stops_a_node_and_it_closes_cleanly(ros, tmp_path, inherited):
    """
    A shell starts background jobs (``cmd &``) with SIGINT ignored and Python keeps it so.

    ``ros2 launch`` and Ctrl-C stop nodes with SIGINT: a node that inherited
    it ignored would run on until SIGTERM or SIGKILL and never write its file.
    """
    log = tmp_path / 'sink.log'
    proc = subprocess.Popen(
        [str(BIN / 'wav_sink'), '--ros-args', '-p', f'path:={tmp_path / "out.wav"}'],
        stdout=open(log, 'w'), stderr=subprocess.STDOUT, env=dict(os.environ),
        preexec_fn=lambda: signal.signal(signal.SIGINT, inherited))
    try:
        probe = ros.node('signal_probe')
        assert wait_for(lambda: 'wav_sink' in probe.get_node_names(), 30), log.read_text()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0, log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert 'wrote 0 frames' in log.read_text() and (tmp_path / 'out.wav').exists()
    assert 'Traceback' not in log.read_text()
