# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""What every benchmark's command line must do with bad arguments: one line, before any model."""


def fails_in_one_line_before_any_model(processes, tool: str, out, args: list[str],
                                       message: str) -> None:
    """Run ``tool`` with ``args``: a non-zero exit, ``message``, no traceback, nothing built."""
    proc = processes.start(tool, '--out', str(out), *args)
    assert proc.wait(timeout=30) != 0
    log = processes.log(proc)
    assert message in log and 'Traceback' not in log and 'synthesizing' not in log, log
