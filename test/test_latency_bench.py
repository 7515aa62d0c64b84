# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""kame_ros_bench_latency: the end of speech from the audio, the stages, bad arguments, a run."""
import json

import numpy as np
import pytest

from cli_checks import fails_in_one_line_before_any_model
from kame_ros.audio.wav import write_wav
from kame_ros.bench.knowledge_set import Question
from kame_ros.bench.latency import agent_timings, report, speech_spans, Timing
from run_events import write_events

ASKED = [Question('What is the largest planet?', ('jupiter',), 'x'),
         Question('How many legs does a spider have?', ('eight', '8'), 'y')]


def test_the_end_of_speech_is_the_last_loud_sample_not_the_end_of_the_clip(tmp_path):
    """A synthesized clip ends in silence: measuring from its end would flatter every system."""
    audio = np.zeros(24000 * 10, np.int16)
    t = np.arange(24000) / 24000
    audio[24000:48000] = (8000 * np.sin(2 * np.pi * 220 * t)).astype(np.int16)
    audio[24000 * 6:24000 * 6 + 12000] = 5000
    write_wav(tmp_path / 'q.wav', audio)
    spans = speech_spans(tmp_path / 'q.wav', [(0.5, 2.5), (5.5, 9.0)])
    assert spans[0] == pytest.approx((1.0, 2.0), abs=0.002)
    assert spans[1] == pytest.approx((6.0, 6.5), abs=0.002)
    write_wav(tmp_path / 'silent.wav', np.zeros(24000, np.int16))
    with pytest.raises(ValueError, match='no speech'):
        speech_spans(tmp_path / 'silent.wav', [(0.0, 1.0)])


def test_each_stage_is_timed_from_the_end_of_speech(tmp_path):
    write_events(tmp_path, [
        (1.5, 'stt.partial', 'What is the largest'),
        (2.6, 'stt.partial', 'What is the largest planet?'),
        (2.7, 'stt.final', 'What is the largest planet?'),
        (2.72, 'speech.agent.start', ''),
        (2.8, 'frontend.text', ' Okay.'),
        (3.3, 'oracle.reset', 'reply 4 (final)'),
        (3.3, 'oracle.append', 'The largest planet is'),
        (3.4, 'frontend.text', ' The'),
        (3.9, 'frontend.text', ' largest planet is Jupiter.'),
        (12.8, 'stt.final', 'How many legs does a spider have?'),
        (12.9, 'speech.agent.start', ''),
        (13.8, 'oracle.reset', 'reply 9 (final)'),
        (13.9, 'oracle.append', 'A spider has eight legs.'),
        (14.0, 'frontend.text', ' A spider has eight legs.'),
    ])
    timings = agent_timings(tmp_path, [(1.0, 2.4), (11.0, 12.5)], ASKED, ['a', 'b'])
    first, second = timings
    assert (first.voice, first.correct, second.correct) == ('a', True, True)
    assert first.final_s == pytest.approx(0.3) and first.first_sound_s == pytest.approx(0.32)
    assert first.reply_text_s == pytest.approx(0.9) and first.reply_word_s == pytest.approx(1.0)
    assert first.answer_s == pytest.approx(1.5)
    assert second.reply_text_s == pytest.approx(1.4) and second.reply_word_s == pytest.approx(1.5)


def test_the_table_divides_by_both_cascades_under_the_same_load():
    def rows(system, load, word):
        return [Timing('q', 'v', word / 2, word, word + 1, True, 0.5, word - 0.1)] * 3
    table = report({('kame_ros agent', 'idle'): rows('a', 'idle', 1.0),
                    ('pipecat-style cascade', 'idle'): rows('p', 'idle', 4.0),
                    ('plain cascade', 'idle'): rows('c', 'idle', 2.0),
                    ('kame_ros agent', 'hogs'): rows('a', 'hogs', 3.0),
                    ('plain cascade', 'hogs'): rows('c', 'hogs', 2.0)})
    lines = table.splitlines()
    assert '| kame_ros agent | idle | 0.50 / 0.50 | 1.00 / 1.00 | 0.50 | 0.25 |' in lines[2]
    assert '| pipecat-style cascade | idle |' in lines[3] and '| 2.00 | 1.00 |' in lines[3]
    assert '| kame_ros agent | hogs | 1.50 / 1.50 | 3.00 / 3.00 | 1.50 | n/a |' in lines[5]
    assert '| plain cascade | hogs |' in lines[6] and '| 1.00 | n/a |' in lines[6]


@pytest.mark.parametrize('args, message', [
    (['--questions', '0'], '--questions must be 1..'),
    (['--loads', 'busy'], 'invalid choice'),
])
def test_bad_arguments_are_one_line_and_fail_before_any_model_loads(
        processes, tmp_path, args, message):
    fails_in_one_line_before_any_model(processes, 'kame_ros_bench_latency', tmp_path / 'l', args,
                                       message)


@pytest.mark.slow
def test_three_voices_through_the_agent_and_both_cascades(processes, tmp_path):
    pytest.importorskip('llama_cpp', reason='scripts/setup.sh installs llama-cpp-python')
    out = tmp_path / 'l'
    proc = processes.start('kame_ros_bench_latency', '--questions', '3', '--loads', 'idle',
                           '--out', str(out))
    assert proc.wait(timeout=400) == 0, processes.log(proc)
    rows = json.loads((out / 'latency.json').read_text())
    assert [(r['system'], r['voice']) for r in rows] == [
        (system, v) for system in ('kame_ros agent', 'pipecat-style cascade', 'plain cascade')
        for v in ('hibari', 'espeak-us', 'espeak-gb')]
    for row in rows:
        assert 0 < row['final_s'] < row['reply_text_s'] <= row['reply_word_s'] + 0.2, row
    table = (out / 'latency.md').read_text()
    assert '| plain cascade | idle |' in table and '| 1.00 |' in table
    assert '| pipecat-style cascade | idle |' in table
    assert (out / 'latency.png').stat().st_size > 0
