# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures: DDS isolation per test, an in-process ROS context, processes."""
import itertools
import os
from pathlib import Path
import subprocess
import sys
import threading

import pytest
import rclpy
from rclpy.executors import MultiThreadedExecutor

from kame_ros.frontend.compile_cache import key_compile_cache

sys.path.insert(0, str(Path(__file__).parent))
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
# torch.compile's kernels in a folder per CPU kind, for this process and every one it starts.
key_compile_cache()
BIN = Path(sys.executable).parent
# DDS domains FIRST-LAST (KAME_TEST_DOMAINS): .ci/run runs the two distributions' tests at once,
# on disjoint ranges. A pid-dependent start keeps two runs started by hand apart, and the first
# domain is the whole run's: a test that starts the agent without the fixture below would
# otherwise meet the other run's agent on domain 0 (each heard the other's voice). Past 101 a
# domain's DDS ports fall in Linux's ephemeral range (32768-60999), where any socket may hold them.
_first, _last = (int(n) for n in os.environ.get('KAME_TEST_DOMAINS', '1-101').split('-'))
_domain_ids = (_first + n % (_last - _first + 1) for n in itertools.count(os.getpid() * 7))
os.environ['ROS_DOMAIN_ID'] = str(next(_domain_ids))


@pytest.fixture
def domain_id(monkeypatch) -> int:
    """Give the test a DDS domain of its own, inherited by the processes it starts."""
    did = next(_domain_ids)
    monkeypatch.setenv('ROS_DOMAIN_ID', str(did))
    monkeypatch.setenv('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    return did


class RosHarness:
    """An rclpy context on the test's domain with a background executor."""

    def __init__(self, did: int) -> None:
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=did)
        self.executor = MultiThreadedExecutor(num_threads=4, context=self.context)
        self.nodes = []
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self.errors: list[BaseException] = []
        self._thread.start()

    def _spin(self) -> None:
        try:
            while self.context.ok():
                self.executor.spin_once(timeout_sec=0.05)
        except BaseException as err:  # noqa: B902 - a callback crash must fail the test
            if self.context.ok():
                self.errors.append(err)

    def add(self, node):
        self.nodes.append(node)
        self.executor.add_node(node)
        return node

    def node(self, name: str):
        return self.add(rclpy.create_node(name, context=self.context))

    def close(self) -> None:
        for node in self.nodes:
            if hasattr(node, 'close'):
                node.close()
        rclpy.try_shutdown(context=self.context)
        self._thread.join(timeout=5)
        self.executor.shutdown()
        for node in self.nodes:
            node.destroy_node()


@pytest.fixture
def ros(domain_id):
    """In-process ROS graph on the test's domain."""
    harness = RosHarness(domain_id)
    yield harness
    harness.close()
    assert not harness.errors, f'executor raised: {harness.errors}'


class Processes:
    """Node processes started by a test; all are stopped at the end."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.procs: list[tuple[subprocess.Popen, Path]] = []

    def start(self, executable: str, *args: str, env: dict | None = None) -> subprocess.Popen:
        log = self.tmp_path / f'{executable}-{len(self.procs)}.log'
        proc = subprocess.Popen([str(BIN / executable), *args], stdout=open(log, 'w'),
                                stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
        self.procs.append((proc, log))
        return proc

    def log(self, proc: subprocess.Popen) -> str:
        return next(log for p, log in self.procs if p is proc).read_text()

    def stop_all(self) -> None:
        for proc, _ in self.procs:
            if proc.poll() is None:
                proc.send_signal(2)
        for proc, _ in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture
def processes(tmp_path, domain_id):
    """Start node executables as separate processes on the test's domain."""
    procs = Processes(tmp_path)
    yield procs
    procs.stop_all()


@pytest.fixture(scope='session')
def tiny_llama(tmp_path_factory) -> Path:
    """Directory of a tiny random Llama with the real SmolLM2 tokenizer."""
    from llm_fixtures import build_tiny_llama
    return build_tiny_llama(tmp_path_factory.mktemp('tiny_llama'))


# Fixtures that put a test on DDS: such a test touches ROS whatever its module says.
ROS_FIXTURES = {'ros', 'domain_id', 'processes'}


def pytest_collection_modifyitems(items) -> None:
    """Mark every test on DDS ``ros`` (what a robot runs: ``python3 -m pytest -m ros``)."""
    for item in items:
        if ROS_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.ros)
