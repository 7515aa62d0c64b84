# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The soak's heap attribution names the line that grew, from a forked copy of the process."""
import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import os, time
    from kame_ros.ros.heap import HeapWatch
    watch = HeapWatch('node', dump_s=0.5)
    leak = []
    for step in range(40):
        leak.extend(bytearray(1000) for _ in range(500))  # the leak: ~0.5 MB a step
        watch.tick()
        time.sleep(0.05)
    while watch._child is not None:
        watch.tick()
        time.sleep(0.05)
    print(watch.dumps, os.getpid())
""")


def test_growth_is_attributed_to_the_leaking_line(tmp_path):
    env = dict(os.environ, KAME_ROS_TRACEMALLOC=str(tmp_path))
    out = subprocess.run([sys.executable, '-c', SCRIPT], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    dumps = int(out.stdout.split()[0])
    assert dumps >= 3, out.stdout
    report = (tmp_path / 'node.txt').read_text().splitlines()
    assert (tmp_path / 'node.baseline').exists()
    leak_line = next(n for n, line in enumerate(SCRIPT.splitlines(), 1) if 'leak.extend' in line)
    top = report[1]
    assert top.endswith(f'<string>:{leak_line}'), report
    assert float(top.split()[0]) > 2.0, report  # MiB grown since the baseline
