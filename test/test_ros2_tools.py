# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros with the real ROS 2 tools, as a robot engineer uses it.

A clean copy of the repository (its tracked files) is built with
``colcon build`` in a temporary workspace; every command then runs after
``source install/setup.bash``, exactly as the README's robot section says:
``ros2 launch`` headless (WAV in, WAV out), under a namespace with a YAML
of wildcard sections, ``ros2 param``, ``ros2 lifecycle`` and ``ros2 topic``
against the running nodes.
"""
import os
from pathlib import Path
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import yaml

from kame_ros.audio.wav import read_wav_24k, write_wav
from kame_ros.oracle.events import APPEND, DONE
from kame_ros.ros.topics import FRONTEND_TEXT, STT_FINAL
from kame_ros.words import words
from oracle_harness import OracleDriver
from polling import wait_for
from speech_fixtures import hibari_speech

ROOT = Path(__file__).resolve().parents[1]
QUESTION = 'What is the capital of France?'
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which('colcon') is None or shutil.which('ros2') is None,
                                 reason='ROS 2 tools not installed (scripts/setup.sh installs '
                                        'them from ../shared/wheels/ros2)')]


@pytest.fixture(scope='module')
def workspace(tmp_path_factory) -> Path:
    """Build a clean copy of the repository (its two packages) with colcon."""
    ws = tmp_path_factory.mktemp('ws')
    files = subprocess.run(['git', 'ls-files', '-z'], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split('\0')
    for name in filter(None, files):
        if (ROOT / name).is_file():
            target = ws / 'src' / 'kame_ros' / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target)
    # Both packages, as on a robot: kame_ros_interfaces (ament_cmake) against the venv's ROS
    # wheels, with the build tools and paths scripts/setup.sh set up.
    build = subprocess.run(['bash', str(ROOT / 'scripts' / 'colcon_in_venv.sh'), sys.prefix,
                            'build', '--packages-up-to', 'kame_ros'],
                           cwd=ws, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout + build.stderr
    assert (ws / 'install' / 'setup.bash').exists()
    return ws


def in_workspace(ws: Path, command: str) -> list[str]:
    """Run ``command`` in bash after sourcing the workspace, as the README says."""
    return ['bash', '-c', f'source install/setup.bash && exec {command}']


def run(ws: Path, command: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(in_workspace(ws, command), cwd=ws, capture_output=True, text=True,
                          timeout=timeout)


def launch(ws: Path, arguments: str, log: Path, env: dict | None = None) -> subprocess.Popen:
    """
    Start ``ros2 launch`` as from a terminal: its own session, SIGINT at its default.

    Run as a shell's background job, pytest passes SIGINT on ignored, and
    ros2 launch (its wakeup-fd signal manager) then never hears a Ctrl-C.
    """
    return subprocess.Popen(in_workspace(ws, f'ros2 launch kame_ros agent.launch.py {arguments}'),
                            cwd=ws, stdout=open(log, 'w'), stderr=subprocess.STDOUT,
                            start_new_session=True, env={**os.environ, **(env or {})},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def stop(proc: subprocess.Popen) -> int:
    """Ctrl-C the launch (SIGINT shuts ros2 launch down cleanly; it signals its nodes) and wait."""
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGINT)
    try:
        return proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        return proc.wait()


def niceness(*markers: str) -> list[int]:
    """
    CPU nice values of this test's processes whose command line has every marker.

    This test's: on its DDS domain (CI runs two test runs at once, and the
    other one's launch may run a node of the same name).
    """
    domain = f'ROS_DOMAIN_ID={os.environ["ROS_DOMAIN_ID"]}'.encode()
    found = []
    for cmdline in Path('/proc').glob('[0-9]*/cmdline'):
        try:
            args = cmdline.read_bytes().split(b'\0')
            if (all(m.encode() in args for m in markers)
                    and domain in (cmdline.parent / 'environ').read_bytes().split(b'\0')):
                found.append(os.getpriority(os.PRIO_PROCESS, int(cmdline.parent.name)))
        except (FileNotFoundError, ProcessLookupError):
            continue  # it ended while we looked
    return found


def listen(ros, namespace: str = ''):
    """Collect finals and the front-end's words from the launched agent."""
    node = ros.node('launch_listener')
    finals, spoken = [], []
    node.create_subscription(STT_FINAL.msg_type, f'{namespace}/{STT_FINAL.name}',
                             lambda m: finals.append(m.text),
                             STT_FINAL.qos)
    node.create_subscription(FRONTEND_TEXT.msg_type, f'{namespace}/{FRONTEND_TEXT.name}',
                             lambda m: spoken.append(m.text),
                             FRONTEND_TEXT.qos)
    return finals, spoken


def answer_and_check(ws, ros, tmp_path, arguments, namespace=''):
    write_wav(tmp_path / 'question.wav', hibari_speech(QUESTION))
    finals, spoken = listen(ros, namespace)
    # What a robot engineer types to see the transcript: typed fields, not a JSON string.
    echo = subprocess.Popen(in_workspace(ws, f'ros2 topic echo --once {namespace}/stt/final '
                                         'kame_ros_interfaces/msg/Transcript'),
                            cwd=ws, stdout=subprocess.PIPE, text=True)
    log = tmp_path / 'launch.log'
    proc = launch(ws, f'{arguments} input_wav:={tmp_path / "question.wav"} '
                      f'output_wav:={tmp_path / "answer.wav"}', log)
    try:
        rc = proc.wait(timeout=300)
        echoed = echo.communicate(timeout=30)[0]
    finally:
        stop(proc)
        echo.kill()
    text = log.read_text()
    assert rc == 0, text[-3000:]
    assert 'Traceback' not in text, text[-3000:]
    assert finals == [QUESTION], (finals, text[-2000:])
    assert f'text: {QUESTION}' in echoed and 'final: true' in echoed, echoed
    assert 'utterance_id: 0' in echoed and 'speech_end:' in echoed, echoed
    said = ''.join(spoken)
    assert 'Paris' in said, said
    assert len(read_wav_24k(tmp_path / 'answer.wav')) > 24000 * 2, 'the answer was recorded'
    return said, text


def test_the_repository_is_two_packages_and_the_interfaces_are_known(workspace):
    """Find both packages with colcon; ``ros2 interface`` shows the Say action."""
    listed = subprocess.run(['colcon', 'list', '--names-only'], cwd=workspace,
                            capture_output=True, text=True, timeout=60)
    assert sorted(listed.stdout.split()) == ['kame_ros', 'kame_ros_interfaces'], listed.stdout
    show = run(workspace, 'ros2 interface show kame_ros_interfaces/action/Say')
    assert show.returncode == 0, show.stdout + show.stderr
    goal, result, feedback = show.stdout.split('---')
    assert 'string text' in goal
    assert 'uint8 SPOKEN=0' in result and 'string spoken_text' in result
    assert 'string word' in feedback
    package = run(workspace, 'ros2 interface package kame_ros_interfaces')
    assert {'kame_ros_interfaces/msg/AudioFrame', 'kame_ros_interfaces/msg/Transcript',
            'kame_ros_interfaces/action/Say'} <= set(package.stdout.split()), package.stdout


def test_readme_headless_launch_answers(workspace, ros, tmp_path):
    said, log = answer_and_check(workspace, ros, tmp_path,
                                 'frontend_backend:=tts llm_backend:=llama_cpp')
    assert 'answer written to' in log, 'the headless launch ends by itself'


def test_readme_robot_launch_on_a_sound_card(workspace, ros, tmp_path):
    """The README's robot command on a (private PulseAudio) sound card: heard, answered, played."""
    from audio_signals import active_seconds
    from pulse import PulseServer
    server = PulseServer(tmp_path / 'pulse')
    server.start()
    finals, spoken = listen(ros)
    proc = launch(workspace, 'frontend_backend:=tts llm_backend:=llama_cpp',
                  tmp_path / 'launch.log', env=server.env)
    try:
        recorder = server.record_speaker()
        recorder.wait_until_recording()
        log = tmp_path / 'launch.log'
        assert wait_for(lambda: 'capturing from' in log.read_text()
                        and log.read_text().count(' active') >= 3, 120), log.read_text()[-3000:]
        time.sleep(2.0)
        # A real microphone goes on delivering (silence) after the question.
        server.feed_mic(np.concatenate([hibari_speech(QUESTION),
                                        np.zeros(24000 * 8, np.int16)])).join(timeout=30)
        assert wait_for(lambda: 'Paris' in ''.join(spoken), 30), (finals, spoken)
        time.sleep(3.0)
        played = recorder.stop()
        # Every topic of the running agent is typed: no JSON strings, no audio as images.
        listing = []
        assert wait_for(lambda: listing.append(run(workspace, 'ros2 topic list -t').stdout)
                        or all(f'{t} [' in listing[-1] for t in ('/audio/mic', '/stt/final',
                                                                 '/agent/state')), 30, 1.0), \
            'ros2 topic list discovers the agent'
        listed = listing[-1]
    finally:
        rc = stop(proc)
        server.stop()
    assert finals == [QUESTION], finals
    assert active_seconds(played) > 1.0, 'the answer came out of the speaker'
    types = dict(line.split(' ', 1) for line in listed.splitlines())
    assert types['/stt/final'] == '[kame_ros_interfaces/msg/Transcript]', listed
    assert types['/audio/mic'] == '[kame_ros_interfaces/msg/AudioFrame]', listed
    assert types['/agent/state'] == '[kame_ros_interfaces/msg/ConversationState]', listed
    assert not [t for t in types.values() if 'std_msgs/msg/String' in t
                or 'CompressedImage' in t], listed
    assert rc == 0 and 'Traceback' not in log.read_text(), log.read_text()[-3000:]


def test_namespaced_launch_reads_wildcard_yaml(workspace, ros, tmp_path):
    config = yaml.safe_load((ROOT / 'kame_ros' / 'config' / 'agent.yaml').read_text())
    config['/**/frontend']['ros__parameters']['acknowledgement'] = 'Let me think.'
    config = {'/**': {'ros__parameters': {'use_sim_time': False}}, **config}
    (tmp_path / 'robot.yaml').write_text(yaml.safe_dump(config))
    said, log = answer_and_check(workspace, ros, tmp_path,
                                 f'namespace:=robot1 config:={tmp_path / "robot.yaml"} '
                                 'frontend_backend:=tts llm_backend:=llama_cpp', '/robot1')
    assert 'Let me think.' in said, 'the YAML parameter took effect under the namespace'
    assert "'**'" not in log, 'the /** section starts no node'


def test_bad_launch_arguments_end_the_launch(workspace, tmp_path):
    for arguments, message in (('llm_backend:=foo', 'llm_backend'),
                               ('use_sim_time:=maybe', 'use_sim_time'),
                               ('backend_nice:=20', 'backend_nice'),
                               ('audio_common_type:=AudioStamped', 'audio_common_type'),
                               ('audio_common_out:=yes', 'audio_common_out'),
                               (f'config:={tmp_path / "nope.yaml"}', 'nope.yaml'),
                               (f'input_wav:={tmp_path / "nope.wav"}', 'nope.wav'),
                               (f'models_dir:={tmp_path / "nope"}', 'models_dir')):
        t0 = time.monotonic()
        result = run(workspace, f'ros2 launch kame_ros agent.launch.py {arguments}', 60)
        assert result.returncode != 0, arguments
        assert message in result.stdout + result.stderr, (arguments, result.stdout)
        assert time.monotonic() - t0 < 30, 'refused before any model loads'


def test_cli_param_lifecycle_topic_against_the_oracle(workspace, ros, tmp_path):
    """Drive the oracle's lifecycle by hand (autostart:=false), as a lifecycle manager would."""
    config = {'/**': {'ros__parameters': {'use_sim_time': False}},
              '/**/oracle': {'ros__parameters': {'backend': 'llama_cpp', 'max_tokens': 40,
                                                 'poll_interval_s': 0.2}}}
    (tmp_path / 'oracle.yaml').write_text(yaml.safe_dump(config))
    proc = launch(workspace, f'namespace:=robot1 autostart:=false backend_nice:=7 '
                             f'config:={tmp_path / "oracle.yaml"}', tmp_path / 'launch.log')
    node = '/robot1/oracle'
    try:
        assert wait_for(lambda: 'unconfigured' in run(workspace, f'ros2 lifecycle get {node}')
                        .stdout, 60, 1.0), (tmp_path / 'launch.log').read_text()
        assert niceness('__node:=oracle', '__ns:=/robot1') == [7], 'backend_nice reached it'
        dump = run(workspace, f'ros2 param dump {node}')
        assert dump.returncode == 0 and 'max_tokens: 40' in dump.stdout, dump.stdout
        assert 'intents: []' in dump.stdout and 'use_sim_time: false' in dump.stdout
        assert run(workspace, f'ros2 param get {node} backend').stdout.strip() == \
            'String value is: llama_cpp'

        def transition(name: str) -> None:
            result = run(workspace, f'ros2 lifecycle set {node} {name}', 60)
            assert 'Transitioning successful' in result.stdout, (name, result.stdout,
                                                                 result.stderr)
        transition('configure')
        refused = run(workspace, f'ros2 param set {node} max_tokens 5')
        assert 'Setting parameter failed' in refused.stderr  # (ros2 param set exits 0 anyway)
        assert 'read in configure' in refused.stderr, 'ros2 param set never silently lies'
        transition('activate')
        assert 'active' in run(workspace, f'ros2 lifecycle get {node}').stdout

        drv = OracleDriver(ros, namespace='/robot1')
        drv.wait_ready()
        echo = subprocess.Popen(in_workspace(workspace, f'ros2 topic echo --once '
                                             f'{node}/events'), cwd=workspace,
                                stdout=subprocess.PIPE, text=True)
        time.sleep(2.0)
        drv.say('Tell me a long story about a robot and its friends', 1, 0, final=True)
        assert drv.wait_for(lambda ev: any(e.kind == DONE for e in ev), 60)
        echoed = echo.communicate(timeout=30)[0]
        assert 'reply_id: ' in echoed and 'kind: ' in echoed, 'ros2 topic echo saw a typed event'
        long_reply = [e for e in drv.kinds() if e.kind == APPEND]

        transition('deactivate')
        n = len(drv.kinds())
        drv.say('What is the capital of France?', 2, 0, final=True)
        time.sleep(2.0)
        assert len(drv.kinds()) == n, 'nothing is published while inactive'

        transition('cleanup')
        changed = run(workspace, f'ros2 param set {node} max_tokens 3')
        assert 'Set parameter successful' in changed.stdout, changed.stdout
        transition('configure')
        transition('activate')
        assert wait_for(lambda: drv.final.get_subscription_count() == 1, 10), \
            'cleanup destroyed the first subscriptions (a second configure does not double them)'
        drv.say('Tell me another long story about a robot please', 3, 0, final=True)
        assert drv.wait_for(lambda ev: sum(e.kind == DONE for e in ev) >= 2, 60)
        last = drv.kinds()[-1].order  # the reconfigured engine has a new epoch
        short_reply = [e for e in drv.kinds() if e.kind == APPEND and e.order == last]
        long_words = len(words(''.join(e.text for e in long_reply)))
        short_words = len(words(''.join(e.text for e in short_reply)))
        assert long_words > 10 and 0 < short_words <= 3, \
            'the new max_tokens is in effect after the next configure'
    finally:
        assert stop(proc) == 0, (tmp_path / 'launch.log').read_text()[-2000:]
