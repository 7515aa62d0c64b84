# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The CPU-only path (tts front-end) runs where torch cannot even be imported."""
import signal
import subprocess
import sys

from polling import wait_for

NO_TORCH = "import sys; sys.modules['torch'] = None  # any 'import torch' now fails\n"


def test_tts_engine_imports_without_torch():
    code = NO_TORCH + ('import kame_ros.frontend.tts_engine, kame_ros.frontend.engine\n'
                       'import kame_ros.nodes.frontend\n'
                       "assert sys.modules['torch'] is None\n"
                       "print('imported without torch')")
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert 'imported without torch' in result.stdout


def test_frontend_node_with_tts_runs_without_torch(domain_id, tmp_path):
    code = NO_TORCH + ('from kame_ros.nodes.frontend import main\n'
                       "main(['frontend', '--ros-args', '-p', 'backend:=tts'])\n")
    log = tmp_path / 'frontend.log'
    proc = subprocess.Popen([sys.executable, '-c', code], stdout=open(log, 'w'),
                            stderr=subprocess.STDOUT)
    try:
        assert wait_for(lambda: 'front-end active (tts)' in log.read_text(), 60), \
            log.read_text()
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0, log.read_text()
    assert 'Traceback' not in log.read_text()
