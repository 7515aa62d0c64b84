# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""A recorded source given a bad file or parameter: one clear line and a non-zero exit."""
import pytest


@pytest.mark.parametrize('executable,path', [('bag_play', '/no/such/bag'),
                                             ('wav_source', '/no/such.wav')])
def test_a_file_that_cannot_be_read_ends_the_process_non_zero(processes, executable, path):
    proc = processes.start(executable, '--ros-args', '-p', f'path:={path}')
    assert proc.wait(timeout=60) != 0
    log = processes.log(proc)
    assert path in log and 'Traceback' not in log, log


@pytest.mark.parametrize('executable', ['bag_play', 'wav_source'])
def test_a_parameter_of_the_wrong_type_is_one_line(processes, executable):
    proc = processes.start(executable, '--ros-args', '-p', 'start_delay_s:=2')  # int, not float
    assert proc.wait(timeout=60) == 1
    lines = processes.log(proc).strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f'{executable}: ') \
        and 'start_delay_s' in lines[0], lines
